use agx16_compiler::pipeline::{compile_to_mir, Options};
use agx16_compiler::target::{G16Regs, NoInline};
fn main() {
    let seed: u64 = std::env::args().nth(1).unwrap().parse().unwrap();
    let ops: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let gprs: u32 = std::env::args().nth(3).unwrap().parse().unwrap();
    let f = agx16_compiler::testgen::random_program(seed, ops);
    let mut g = f.clone();
    agx16_compiler::opt::optimize(&mut g, &NoInline);
    agx16_compiler::sched::list::run(&mut g);
    let mut h = g.clone();
    let st = agx16_compiler::ra::spill::spill_to_fit(&mut h, gprs * 2, 0);
    println!("--- spilled {st:?}\n{}", h.to_string().lines().take(40).collect::<Vec<_>>().join("\n"));
    let p = compile_to_mir(&f, &NoInline, &G16Regs, Options { gprs, schedule: true });
    match p { Ok(p) => println!("{p}"), Err(e) => println!("{e}") }
}

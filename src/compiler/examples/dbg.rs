use agx16_compiler::isel::G16Regs;
use agx16_compiler::pipeline::{compile_to_mir, Options};
use agx16_compiler::target::NoInline;
use std::time::Instant;
fn main() {
    let f = agx16_compiler::testgen::random_program(2512, 44);
    println!("{} instrs {} blocks", f.instr_count(), f.blocks.len());
    for gprs in [84, 96] {
        let t = Instant::now();
        let mut g = f.clone();
        agx16_compiler::opt::optimize(&mut g, &NoInline);
        let t1 = t.elapsed();
        agx16_compiler::sched::list::run(&mut g);
        let t2 = t.elapsed();
        let r = agx16_compiler::ra::allocate(&g, &G16Regs, agx16_compiler::ra::RaOptions { gprs });
        let t3 = t.elapsed();
        println!(
            "{gprs}: opt {t1:?} sched {t2:?} ra {t3:?} {:?}",
            r.map(|p| p.stats.gprs)
        );
        let t = Instant::now();
        let _ = compile_to_mir(
            &f,
            &NoInline,
            &G16Regs,
            Options {
                gprs,
                schedule: true,
            },
        );
        println!("total {:?}", t.elapsed());
    }
}

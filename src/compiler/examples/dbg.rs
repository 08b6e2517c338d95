use agx16_compiler::isel::{G16Regs, G16Target};
use agx16_compiler::pipeline::{compile_to_mir, Options};
use std::time::Instant;
fn main() {
    let mut worst = (0.0, 0);
    for s in 0..100u64 {
        let f = agx16_compiler::testgen::random_program(1000 + s, 20 + (s as usize % 5) * 20);
        let t = Instant::now();
        let p = compile_to_mir(&f, &G16Target, &G16Regs, Options::default()).unwrap();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if ms > worst.0 {
            worst = (ms, s);
        }
        if p.stats.spills > 0 {
            println!(
                "seed {} spills {} gprs {}",
                1000 + s,
                p.stats.spills,
                p.stats.gprs
            );
        }
    }
    println!("worst {:?}", worst);
}

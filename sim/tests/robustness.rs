//! Arbitrary bytes as a program never panic the model: every outcome is a
//! value (a result or a SimError).

use agx16_sim::{run_compute, Code, ComputeLaunch, PageTable};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn random_programs_end_in_a_value(code in proptest::collection::vec(any::<u8>(), 0..96),
                                      uniforms in proptest::collection::vec(any::<u32>(), 0..8)) {
        let pt = PageTable::new();
        pt.map(0x1000_0000, agx16_sim::mem::PAGE_SIZE, true, true).unwrap();
        let launch = ComputeLaunch {
            code: Code::Bytes(code),
            uniforms,
            grid: [40, 1, 1],
            threadgroup: [40, 1, 1],
            tg_memory: 0,
            budget: 10_000,
        };
        let _ = run_compute(&pt, &launch);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn mutated_oracle_programs_end_in_a_value(which in 0usize..110, at in any::<usize>(), byte in any::<u8>()) {
        let dir = agx16_sim::oracle::oracles_dir().join("sim");
        let files = agx16_sim::oracle::oracle_files(&dir).unwrap();
        let o = agx16_sim::oracle::Oracle::load(&files[which % files.len()]).unwrap();
        let (pt, mut launch) = agx16_sim::harness::prepare(&o).unwrap();
        let mut code = o.code().unwrap();
        let n = code.len();
        code[at % n] = byte;
        launch.code = Code::Bytes(code);
        launch.budget = 100_000;
        let _ = run_compute(&pt, &launch);
    }
}

//! Decode and encode throughput over the Apple-compiled corpus.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::path::PathBuf;

fn corpus() -> Vec<Vec<u8>> {
    let root = std::env::var_os("AGX16_ORACLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracles")
        });
    let dir = root.join("isa/corpus");
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "hex") {
                if let Ok(t) = std::fs::read_to_string(&p) {
                    let t = t.trim();
                    let bytes: Option<Vec<u8>> = (0..t.len() / 2)
                        .map(|i| u8::from_str_radix(&t[2 * i..2 * i + 2], 16).ok())
                        .collect();
                    if let Some(b) = bytes {
                        out.push(b);
                    }
                }
            }
        }
    }
    out
}

fn bench(c: &mut Criterion) {
    let progs: Vec<Vec<u8>> = corpus()
        .into_iter()
        .filter(|p| agx16_isa::decode_program(p).is_ok())
        .collect();
    let bytes: usize = progs.iter().map(|p| p.len()).sum();
    let decoded: Vec<Vec<agx16_isa::Instr>> = progs
        .iter()
        .map(|p| {
            agx16_isa::decode_program(p)
                .unwrap()
                .into_iter()
                .map(|(_, i)| i)
                .collect()
        })
        .collect();
    let mut g = c.benchmark_group("corpus");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("decode", |b| {
        b.iter(|| {
            for p in &progs {
                black_box(agx16_isa::decode_program(black_box(p)).ok());
            }
        })
    });
    g.bench_function("encode", |b| {
        b.iter(|| {
            for p in &decoded {
                black_box(agx16_isa::encode_program(black_box(p)));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! Tile/untile throughput for a 2048x2048 RGBA8 image (16 MiB).

use agx16_cmdstream::layout::{tile_plane, untile_plane, ImageDesc, ImageLayout, Tiling};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn bench(c: &mut Criterion) {
    let l = ImageLayout::new(ImageDesc::simple_2d(2048, 2048, 4, Tiling::Twiddled)).unwrap();
    let p = l.levels[0].plane;
    let stride = 2048 * 4;
    let linear: Vec<u8> = (0..stride * 2048).map(|i| i as u8).collect();
    let mut tiled = vec![0u8; p.size as usize];
    let mut back = vec![0u8; linear.len()];
    let mut g = c.benchmark_group("rgba8_2048");
    g.throughput(Throughput::Bytes(linear.len() as u64));
    // Baseline: a straight copy of the same bytes on this machine.
    g.bench_function("memcpy", |b| b.iter(|| back.copy_from_slice(&linear)));
    g.bench_function("tile", |b| {
        b.iter(|| tile_plane(&p, &linear, stride, &mut tiled).unwrap())
    });
    g.bench_function("untile", |b| {
        b.iter(|| untile_plane(&p, &tiled, &mut back, stride).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

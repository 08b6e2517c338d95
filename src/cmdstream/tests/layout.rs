//! Layouts: sizes and offsets agx-re measured on M4 / A18 Pro (docs/tiling/README.md), an
//! independent naive formula for tiled Morton addresses, and texel-exact round trips
//! through the fast tile/untile routines for every level and layer.

use agx16_cmdstream::layout::*;
use proptest::prelude::*;

fn twiddled(w: u32, h: u32, bpp: u32) -> ImageLayout {
    ImageLayout::new(ImageDesc::simple_2d(w, h, bpp, Tiling::Twiddled)).unwrap()
}

#[test]
fn measured_column_rule_and_sizes() {
    // (bpp, width, expected tile columns) from EXP-M4-04/05/06.
    for (bpp, w, cols) in [
        (1, 320, 3),
        (2, 320, 6),
        (8, 96, 4),
        (8, 160, 6),
        (8, 288, 10),
        (4, 1920, 30),
        (4, 384, 6),
    ] {
        assert_eq!(
            twiddled(w, 256, bpp).levels[0].plane.cols,
            cols,
            "bpp {bpp} width {w}"
        );
    }
    assert_eq!(twiddled(384, 384, 4).image_bytes, 0x90000);
    assert_eq!(twiddled(48, 48, 4).image_bytes, 0x4000);
    assert_eq!(twiddled(96, 96, 4).image_bytes, 0x10000);
    // Tile edge T: 1 -> 128, 2/4 -> 64, 8/16 -> 32.
    for (bpp, t) in [(1, 128), (2, 64), (4, 64), (8, 32), (16, 32)] {
        assert_eq!(twiddled(1024, 1024, bpp).levels[0].plane.tile_w, t);
    }
}

#[test]
fn measured_block_compressed_sizes() {
    // 66x66 block grid (EXP-M4-07): 8-byte blocks -> 0x18000, 16-byte blocks -> 0x24000.
    let mut d = ImageDesc::simple_2d(264, 264, 8, Tiling::Twiddled);
    d.block_w = 4;
    d.block_h = 4;
    assert_eq!(ImageLayout::new(d).unwrap().image_bytes, 0x18000);
    d.element_bytes = 16;
    assert_eq!(ImageLayout::new(d).unwrap().image_bytes, 0x24000);
}

#[test]
fn measured_mip_chains() {
    let mut d = ImageDesc::simple_2d(128, 128, 4, Tiling::Twiddled);
    d.levels = 8;
    let l = ImageLayout::new(d).unwrap();
    let offs: Vec<u64> = l.levels.iter().map(|l| l.offset).collect();
    assert_eq!(
        offs,
        [0, 0x10000, 0x14000, 0x15000, 0x15400, 0x15500, 0x15580, 0x15600]
    );
    // 384^2 r32 chain is 0xcd600: the small-mip tail starts 0x8000-aligned.
    let mut d = ImageDesc::simple_2d(384, 384, 4, Tiling::Twiddled);
    d.levels = 9;
    assert_eq!(ImageLayout::new(d).unwrap().image_bytes, 0xcd600);
}

#[test]
fn measured_msaa_and_compression() {
    // r32 2x: tile edge follows bytes per pixel (8) -> 32.
    let mut d = ImageDesc::simple_2d(192, 192, 4, Tiling::Twiddled);
    d.samples = 2;
    let l = ImageLayout::new(d).unwrap();
    assert_eq!(l.levels[0].plane.tile_w, 32);
    // Samples are the lowest address bits.
    assert_eq!(
        l.element_offset(0, 0, 1, 0, 1) - l.element_offset(0, 0, 1, 0, 0),
        4
    );
    // 256^2 rgba32f: aux = texels / 32 = 0x800; 15 wide: none.
    let mut d = ImageDesc::simple_2d(256, 256, 16, Tiling::Twiddled);
    d.compressible = true;
    assert_eq!(ImageLayout::new(d).unwrap().aux_bytes, Some(0x800));
    d.width = 15;
    assert_eq!(ImageLayout::new(d).unwrap().aux_bytes, None);
    d.width = 256;
    d.levels = 2;
    assert_eq!(
        ImageLayout::new(d).unwrap().aux_bytes,
        None,
        "mip-chain aux size is not established"
    );
}

#[test]
fn morton_reference_points() {
    // e0=(0,0) e1=(1,0) e2=(0,1) e3=(1,1) e4=(2,0) e5=(3,0) e6=(2,1) e7=(3,1)
    let p = twiddled(64, 64, 4).levels[0].plane;
    let pts = [
        (0, 0),
        (1, 0),
        (0, 1),
        (1, 1),
        (2, 0),
        (3, 0),
        (2, 1),
        (3, 1),
    ];
    for (i, (x, y)) in pts.into_iter().enumerate() {
        assert_eq!(p.offset(x, y), 4 * i as u64);
    }
}

fn naive_morton(x: u32, y: u32, bits: u32) -> u64 {
    (0..bits)
        .map(|i| (((x >> i) & 1) as u64) << (2 * i) | (((y >> i) & 1) as u64) << (2 * i + 1))
        .sum()
}

#[test]
fn matches_naive_formula_when_both_dims_exceed_tile() {
    for (w, h, bpp) in [
        (300, 200, 4),
        (192, 192, 8),
        (1000, 130, 1),
        (130, 70, 2),
        (97, 65, 16),
    ] {
        let p = twiddled(w, h, bpp).levels[0].plane;
        let t = p.tile_w;
        let d = t.trailing_zeros();
        for y in (0..h).step_by(7) {
            for x in (0..w).step_by(5) {
                let e = ((y / t) * p.cols + x / t) as u64 * (t * t) as u64
                    + naive_morton(x % t, y % t, d);
                assert_eq!(
                    p.offset(x, y),
                    e * bpp as u64,
                    "({x},{y}) {w}x{h} bpp {bpp}"
                );
            }
        }
    }
}

/// Every texel of every level and plane: addresses are distinct and inside the image, and
/// tile -> untile through the fast routines reproduces the texels.
fn check_image(d: ImageDesc) {
    let l = ImageLayout::new(d).unwrap();
    let mut mem = vec![0u8; l.image_bytes as usize];
    let b = d.element_bytes as usize * d.samples as usize;
    let mut seen = std::collections::HashSet::new();
    for plane in 0..l.planes {
        for (lv, level) in l.levels.iter().enumerate() {
            let p = level.plane;
            for y in 0..p.height {
                for x in 0..p.width {
                    let o = l.element_offset(lv as u32, plane, x, y, 0);
                    assert!(o as usize + b <= mem.len());
                    assert!(seen.insert(o), "two texels at {o:#x}");
                }
            }
            let stride = p.width as usize * b + 12;
            let lin: Vec<u8> = (0..stride * p.height as usize)
                .map(|i| (i * 7 + lv * 13 + plane as usize) as u8)
                .collect();
            let start = plane as usize * l.layer_stride as usize + level.offset as usize;
            let tiled = &mut mem[start..start + p.size as usize];
            tile_plane(&p, &lin, stride, tiled).unwrap();
            for y in 0..p.height {
                for x in 0..p.width {
                    let o = p.offset(x, y) as usize;
                    let s = y as usize * stride + x as usize * b;
                    assert_eq!(tiled[o..o + b], lin[s..s + b]);
                }
            }
            let mut back = vec![0u8; lin.len()];
            untile_plane(&p, tiled, &mut back, stride).unwrap();
            for y in 0..p.height as usize {
                let r = y * stride..y * stride + p.width as usize * b;
                assert_eq!(back[r.clone()], lin[r]);
            }
        }
    }
}

#[test]
fn every_texel_round_trips() {
    for bpp in [1, 2, 4, 8, 16] {
        for (w, h) in [(1, 1), (3, 5), (64, 64), (65, 33), (300, 129), (17, 200)] {
            let mut d = ImageDesc::simple_2d(w, h, bpp, Tiling::Twiddled);
            d.levels = 32 - w.max(h).leading_zeros();
            check_image(d);
        }
    }
    let mut cube = ImageDesc::simple_2d(40, 40, 4, Tiling::Twiddled);
    cube.kind = Kind::Cube;
    cube.layers = 2;
    cube.levels = 3;
    check_image(cube);
    let mut vol = ImageDesc::simple_2d(70, 30, 8, Tiling::Twiddled);
    vol.kind = Kind::D3;
    vol.layers = 5;
    check_image(vol);
    let mut ms = ImageDesc::simple_2d(100, 70, 4, Tiling::Twiddled);
    ms.samples = 4;
    check_image(ms);
}

#[test]
fn linear_layout_and_errors() {
    let l = ImageLayout::new(ImageDesc::simple_2d(33, 4, 4, Tiling::Linear)).unwrap();
    assert_eq!(l.levels[0].plane.row_stride, 144, "16-byte aligned rows");
    assert_eq!(l.element_offset(0, 0, 2, 1, 0), 144 + 8);
    assert!(ImageLayout::new(ImageDesc::simple_2d(0, 4, 4, Tiling::Linear)).is_err());
    assert!(ImageLayout::new(ImageDesc::simple_2d(4, 4, 3, Tiling::Twiddled)).is_err());
    let p = twiddled(64, 64, 4).levels[0].plane;
    assert!(
        tile_plane(&p, &[0u8; 16], 256, &mut vec![0u8; 0x4000]).is_err(),
        "short source is an error"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_planes_round_trip(w in 1u32..400, h in 1u32..300, bpp_log in 0u32..5) {
        let bpp = 1 << bpp_log;
        let p = twiddled(w, h, bpp).levels[0].plane;
        let stride = (w * bpp) as usize;
        let lin: Vec<u8> = (0..stride * h as usize).map(|i| (i % 251) as u8).collect();
        let mut t = vec![0u8; p.size as usize];
        tile_plane(&p, &lin, stride, &mut t).unwrap();
        let mut back = vec![0u8; lin.len()];
        untile_plane(&p, &t, &mut back, stride).unwrap();
        prop_assert_eq!(back, lin);
    }
}

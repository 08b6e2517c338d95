//! PPP page: decode a page built by replaying the writes T8132 Mesa performs
//! (agx_apple9.c `apple9_build_direct_bind_group` + `agx_apple9_prepare_draw`).

use agx16_cmdstream::ppp::*;
use agx16_cmdstream::Record;
use proptest::prelude::*;

fn put(p: &mut [u8], off: usize, v: u32) {
    p[off..off + 4].copy_from_slice(&v.to_le_bytes());
}
fn get(p: &[u8], off: usize) -> u32 {
    u32::from_le_bytes(p[off..off + 4].try_into().unwrap())
}

/// Replays Mesa's writes for a draw with `v` user scalars, no MSAA, depth test always/no
/// write, stencil enabled, cull back, last-vertex flat shading.
fn mesa_page(v: u32, launch: u32, cf: u32) -> Vec<u8> {
    let mut p = vec![0u8; 256];
    put(&mut p, 0, 0x1004_0000);
    put(&mut p, 4, v);
    let g = 0x40;
    for (o, val) in [
        (0x00, 0x0080_0000),
        (0x04, 0x0001_0100),
        (0x08, 0xc9c0),
        (0x10, 0x0100_0000),
        (0x14, 0x0006_6420),
        (0x1c, 0x0c0a_0000),
        (0x20, 0x0001_0000),
        (0x2c, 6),
        (0x30, 0x0100_00b4),
        (0x34, 0x0004_0200),
        (0x38, 0x0720_0f00),
        (0x3c, 0x0e00_0000),
        (0x40, 0x0720_0f00),
        (0x44, 0x0e00_0000),
        (0x4c, 0x0200_0048),
        (0x50, 0x200),
        (0x54, 0x07e0_0000),
        (0x58, 0x07e0_0000),
        (0x5c, 0xf),
        (0x60, 0x0041_0000),
        (0x68, 0x80),
        (0x6c, 0x0020_0000),
        (0x70, 0x480),
    ] {
        put(&mut p, g + o, val);
    }
    for (o, val) in [
        (0x04, 0),
        (0x08, 0),
        (0x14, 0x4e19),
        (0x20, 0),
        (0x2c, 4),
        (0x5c, 0x1ffff),
    ] {
        put(&mut p, g + o, val);
    }
    for (o, b) in [
        (0x05, 1u8),
        (0x06, 2),
        (0x08, 0x80),
        (0x09, 4),
        (0x15, 0x8c),
        (0x22, 1),
    ] {
        p[g + o] = b;
    }
    p[g + 0x2c] = 4 + v as u8;
    let cf_count = 1 + v.div_ceil(4);
    put(&mut p, g + 4, 0x100 | cf_count << 16);
    put(&mut p, g + 8, cf);
    put(&mut p, g + 0x18, (v / 8).max(1));
    put(&mut p, g + 0x14, launch / 0x40);
    put(&mut p, g + 0x5c, 0x1ffff);
    let cull = (get(&p, g + 0x70) & !0x30183) | 3 << 7 | 2; // cull back
    put(&mut p, g + 0x70, cull);
    put(&mut p, g + 0x48, 5 << 17);
    for face in 0..2 {
        let o = g + 0x54 + face * 4;
        let v = (get(&p, o) & 0x0f3f_ffff) | 3 << 22;
        put(&mut p, o, v);
    }
    put(&mut p, 0xc0, 0xc00);
    put(&mut p, 0xc4, 0x8000_0000 | 1 << 16 | 3); // tiles 1..=3 in x
    put(&mut p, 0xc8, 7);
    for (i, f) in [64.0f32, 64.0, 32.0, -32.0, 0.0, 1.0].iter().enumerate() {
        put(&mut p, 0xd0 + i * 4, f.to_bits());
    }
    put(&mut p, 0xf0, 0x100);
    put(&mut p, 0xf4, 2 | 1 << 16);
    p
}

#[test]
fn golden_mesa_page() {
    let p = mesa_page(4, 0x20_0140, 0x20_3d00);
    let page = PppPage::unpack(&p).unwrap();
    assert_eq!(page.varying_counts.smooth, 4);
    let fs = &page.fragment_shader;
    assert_eq!(fs.cf_binding_count, 2);
    assert_eq!(fs.cf_bindings, 0x20_3d00);
    assert_eq!(fs.launch, 0x20_0140);
    assert_eq!(fs.pipeline_word.0, 0x0100_0000);
    assert!(page.output_select.varyings);
    assert_eq!(page.output_select.output_count, 8);
    let f = &page.fragment_faces;
    assert!(f.stencil_test_enable);
    assert_eq!(f.front_depth_function, ZsFunc::Always);
    assert!(f.front_disable_depth_write);
    assert_eq!(f.front_line_width, 0xf);
    assert_eq!(f.front_stencil_compare, ZsFunc::Always);
    assert_eq!(f.occlusion_index, 5);
    assert_eq!(page.fragment_control_2.pass_type, PassType::Opaque);
    assert_eq!(page.fragment_control_2.front_conservative_depth.0, 3);
    assert!(page.cull.cull_back && !page.cull.cull_front);
    assert_eq!(page.cull.flat_shading_vertex, PppVertex::V2);
    assert!(page.cull.depth_clip);
    let vp = &page.viewport;
    assert!(vp.clip_enable);
    assert_eq!(
        (vp.clip_min_x, vp.clip_max_x, vp.clip_min_y, vp.clip_max_y),
        (1, 4, 0, 8)
    );
    assert_eq!((vp.translate_x, vp.scale_y), (64.0, -32.0));
    assert_eq!(
        (
            page.scissor_depth_bias.scissor,
            page.scissor_depth_bias.depth_bias
        ),
        (2, 1)
    );
    // Every bit Mesa writes lies in a documented field.
    assert!(
        page.fragment_faces.fully_known()
            && page.cull.fully_known()
            && page.fragment_shader.fully_known()
    );
    assert!(page.w_clamp_cull_2.fully_known() && page.fragment_control_2.fully_known());
    assert_eq!(page.pack().unwrap(), p);
}

#[test]
fn records_tile_the_page_without_overlap() {
    let mut used = [false; 256];
    for (off, words, name) in PPP_RECORDS {
        for (b, u) in used
            .iter_mut()
            .enumerate()
            .skip(off)
            .take(words as usize * 4)
        {
            assert!(!*u, "{name} overlaps at {b:#x}");
            *u = true;
        }
    }
}

proptest! {
    #[test]
    fn page_round_trip(raw in proptest::collection::vec(any::<u8>(), 256)) {
        let page = PppPage::unpack(&raw).unwrap();
        let back = page.pack().unwrap();
        for (off, words, _) in PPP_RECORDS {
            let r = off..off + words as usize * 4;
            prop_assert_eq!(&back[r.clone()], &raw[r]);
        }
    }

    #[test]
    fn scissor_round_trip(a: u16, b: u16, c: u16, d: u16, z0: f32, z1: f32) {
        let s = Scissor { max_x: a, min_x: b, max_y: c, min_y: d, min_z: z0, max_z: z1, unknown: [0; 4] };
        let back = Scissor::unpack(&s.pack().unwrap()).unwrap();
        prop_assert_eq!(back.pack().unwrap(), s.pack().unwrap());
    }
}

#[test]
fn page_from_a_draws_updates() {
    use agx16_cmdstream::stream::FlatMemory;
    use agx16_cmdstream::vdm::{VdmPppUpdate, RENDER_CONTEXT_BASE};
    let p = mesa_page(2, 0x20_0140, 0x20_3d00);
    let off = 0x0400_0040u32;
    let mem = FlatMemory {
        base: RENDER_CONTEXT_BASE + off as u64,
        bytes: p.clone(),
    };
    let ups: Vec<VdmPppUpdate> = PPP_RECORDS
        .iter()
        .map(|(o, w, _)| VdmPppUpdate {
            size_words: *w,
            pointer: off + *o as u32,
            unknown: [0; 2],
        })
        .collect();
    let page = PppPage::from_updates(&mem, &ups).unwrap();
    assert_eq!(page, PppPage::unpack(&p).unwrap());
    assert!(PppPage::from_updates(&mem, &ups[..8]).is_err());
    let mut bad = ups.clone();
    bad[2].size_words = 4;
    assert!(matches!(
        PppPage::from_updates(&mem, &bad),
        Err(PppAssembleError::Layout { index: 2, .. })
    ));
}

//! Descriptors, CF bindings and UAPI render/compute records: golden decodes of words built
//! by the formulas T8132 Mesa and agx-re document, plus round trips.

use agx16_cmdstream::descriptors::*;
use agx16_cmdstream::render::*;
use agx16_cmdstream::{FieldType, Record};
use proptest::prelude::*;

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn golden_mesa_r32f_texture() {
    // agx_apple9_pack_r32f_texture: {0x09688862 | (w&0xf)<<28, (w>>4)&0x3ff | h<<10, va>>4, (va>>36)&0xfff}
    let (w, h, va) = (300u32 - 1, 200u32 - 1, 0x1_2345_6780u64);
    let units = va >> 4;
    let b = words(&[
        0x0968_8862 | (w & 0xf) << 28,
        ((w >> 4) & 0x3ff) | h << 10,
        units as u32,
        ((units >> 32) & 0xfff) as u32,
        0,
        0,
        0,
        0,
    ]);
    let t = Texture::unpack(&b).unwrap();
    assert_eq!(t.dimension, TextureDimension::D2);
    assert_eq!(t.channels, Channels::R32);
    assert_eq!(t.numeric_type, NumericType::Float);
    assert_eq!(
        (t.swizzle_r, t.swizzle_g, t.swizzle_b, t.swizzle_a),
        (Swizzle::R, Swizzle::Zero, Swizzle::Zero, Swizzle::One)
    );
    assert_eq!((t.width, t.height), (300, 200));
    assert_eq!(t.address, va);
    assert_eq!(t.levels, 1);
    assert!(t.fully_known());
    assert_eq!(t.pack().unwrap(), b);
}

#[test]
fn golden_mesa_sampler() {
    // agx_apple9_pack_sampler(min_linear, mag_linear, mip=2, 0.5, 10, repeat, mirror, aniso 4)
    let w0 = 32 | 80 << 13 | 2 << 20 | 1 << 23 | 1 << 25 | 2 << 27 | 1 << 29;
    let w1 = 2 | 1 << 7 | 7 << 8;
    let s = Sampler::unpack(&words(&[w0, w1])).unwrap();
    assert_eq!(s.lod_range(), (0.5, 10.0));
    assert_eq!(s.max_anisotropy_log2, 2);
    assert!(s.mag_linear && s.min_linear);
    assert_eq!(s.mip_filter, MipFilter::Linear);
    assert_eq!((s.wrap_s, s.wrap_t), (Wrap::Repeat, Wrap::MirroredRepeat));
    assert!(s.compare_sense);
    assert_eq!(s.compare_test.0, 7);
    let mut again = Sampler::default();
    again.set_lod_range(0.5, 10.0);
    assert_eq!((again.min_lod_64ths, again.max_lod_8ths), (32, 80));
    assert!(s.fully_known());
}

#[test]
fn golden_agxre_pbe_dimension_split() {
    // agx-re EXP-G1b: width-1 = word0[24:31] | word1[0:5] << 8, height-1 = word1[6:19].
    let (w, h) = (1000u32 - 1, 700u32 - 1);
    let b = words(&[
        0x0968_8862 & 0xffffff | (w & 0xff) << 24,
        (w >> 8) | h << 6,
        0x100,
        0,
        0,
        0,
        0,
        0,
    ]);
    let p = Pbe::unpack(&b).unwrap();
    assert_eq!((p.width, p.height), (1000, 700));
    assert_eq!(p.address, 0x1000);
}

#[test]
fn golden_mesa_cf_bindings() {
    // apple9_build_cf_bindings: 1/W = 0x0c; fragcoord Z = 0x12c | cf<<16; point coord = 0x4d;
    // perspective vec4 = 3 | 7<<2 | slot<<8 | cf<<16.
    let w = CfBinding::unpack(&words(&[0x0c])).unwrap();
    assert_eq!(
        (w.components, w.shade_model, w.source),
        (1, ShadeModel::Linear, CoefficientSource::Varying)
    );
    let z = CfBinding::unpack(&words(&[0x12c | 5 << 16])).unwrap();
    assert_eq!(
        (z.shade_model, z.source, z.base_slot, z.base_coefficient),
        (ShadeModel::Linear, CoefficientSource::FragcoordZ, 1, 5)
    );
    let pc = CfBinding::unpack(&words(&[0x4d])).unwrap();
    assert_eq!(
        (pc.components, pc.source),
        (2, CoefficientSource::PointCoord)
    );
    let v = CfBinding::unpack(&words(&[3 | 7 << 2 | 1 << 8 | 1 << 16])).unwrap();
    assert_eq!(
        (v.components, v.shade_model, v.base_slot, v.base_coefficient),
        (4, ShadeModel::Perspective, 1, 1)
    );
    let table = pack_cf_table(
        &CfBindingHeader {
            slots: 6,
            coefficient_registers: 6,
            unknown: [0],
        },
        &[w, v],
    )
    .unwrap();
    assert_eq!(table, words(&[0x0606, 0x0c, 3 | 7 << 2 | 1 << 8 | 1 << 16]));
}

#[test]
fn uapi_render_layout_matches_c_rules() {
    // Offsets derived by hand from asahi_drm.h with C alignment rules.
    let off = |name: &str| {
        CmdRender::fields()
            .iter()
            .find(|f| f.name == name)
            .unwrap()
            .start
            / 8
    };
    assert_eq!(CmdRender::SIZE, 240);
    assert_eq!(off("vdm_ctrl_stream_base"), 8);
    assert_eq!(off("isp_scissor_base"), 48);
    assert_eq!(off("depth_base"), 72);
    assert_eq!(off("stencil_base"), 96);
    assert_eq!(off("zls_ctrl"), 120);
    assert_eq!(off("ppp_ctrl"), 144);
    assert_eq!(off("width_px"), 148);
    assert_eq!(off("utile_width_px"), 156);
    assert_eq!(off("isp_merge_upper_x"), 160);
    assert_eq!(off("bg_usc"), 168);
    assert_eq!(off("isp_bgobjdepth"), 200);
    assert_eq!(off("ts_frag_start_handle"), 224);
    assert_eq!(CmdCompute::SIZE, 4 + 4 + 8 * 3 + 16 + 16);
}

#[test]
fn g16_render_rules() {
    // g16_render.rs: blocks = sample_size * utile_w * utile_h * samples / 2048, at most 32.
    assert_eq!(tilebuffer_blocks(4, 32, 32, 1), Some(2));
    assert_eq!(tilebuffer_blocks(64, 32, 32, 1), Some(32));
    assert_eq!(tilebuffer_blocks(64, 32, 32, 2), None);
    assert_eq!(utile_for(64, 2), Some((32, 16)));
    assert_eq!(utile_for(64, 4), Some((16, 16)));
    // 4x never takes the 32x32 utile (the T8132 driver's 4x tiles are 32x16).
    assert_eq!(utile_for(4, 4), Some((32, 16)));
    assert_eq!(utile_for(4, 2), Some((32, 32)));
    assert_eq!(tile_counts(1920, 1080), (60, 34));
    assert_eq!(f32::from_bits(merge_upper(1)), 3f32.sqrt());
    assert_eq!(zls_layer_stride(0x8000), Some(1 << 14 | 1));
    let z = ZlsControl::unpack(&(1u64 << 15 | 1 << 19 | 2 << 25).to_le_bytes()).unwrap();
    assert!(z.z_load && z.z_store && !z.s_load);
    assert_eq!(z.z_format, ZlsFormat::Unorm16);
    let v = IspBgObjVals::unpack(&bgobjvals(0x5a).to_le_bytes()).unwrap();
    assert_eq!((v.stencil_clear, v.unk_8_9.0), (0x5a, 3));
    let p = PppControl::unpack(&0x202u32.to_le_bytes()).unwrap();
    assert!(p.enable_w_clamp && p.fixed_point_format && !p.opengl);
}

proptest! {
    #[test]
    fn texture_round_trip(raw in proptest::collection::vec(any::<u8>(), 32)) {
        let t = Texture::unpack(&raw).unwrap();
        prop_assert_eq!(t.pack().unwrap(), raw);
    }

    #[test]
    fn sampler_round_trip(raw: u64) {
        let s = Sampler::unpack(&raw.to_le_bytes()).unwrap();
        prop_assert_eq!(s.pack().unwrap(), raw.to_le_bytes().to_vec());
    }

    #[test]
    fn pbe_round_trip(raw in proptest::collection::vec(any::<u8>(), 32)) {
        prop_assert_eq!(Pbe::unpack(&raw).unwrap().pack().unwrap(), raw);
    }

    #[test]
    fn render_round_trip(raw in proptest::collection::vec(any::<u8>(), 240)) {
        prop_assert_eq!(CmdRender::unpack(&raw).unwrap().pack().unwrap(), raw);
    }

    #[test]
    fn texture_fields_round_trip(w in 1u32..=16384, h in 1u32..=16384, va in 0u64..(1 << 44), ch in 0u64..128) {
        let t = Texture { width: w, height: h, address: va << 4, channels: Channels::from_u64(ch), ..Default::default() };
        let back = Texture::unpack(&t.pack().unwrap()).unwrap();
        prop_assert_eq!(back, t);
    }
}

#[test]
fn channel_element_sizes() {
    assert_eq!(Channels::R8G8B8A8.element(), Some((4, 1, 1)));
    assert_eq!(Channels::R32G32B32A32.element(), Some((16, 1, 1)));
    assert_eq!(Channels::Bc1.element(), Some((8, 4, 4)));
    assert_eq!(Channels::Astc4x4.element(), Some((16, 4, 4)));
    assert_eq!(Channels::Unknown(0x7f).element(), None);
    // Every named value has a size.
    for (v, name) in <Channels as FieldType>::NAMES {
        assert!(Channels::from_u64(*v).element().is_some(), "{name}");
    }
}

#[test]
fn golden_agxre_pbe_render_target() {
    // agx-re format table: rgba8unorm byte0 0x22 (2D, layout bits 2), byte1 0x0a; EXP-G1b
    // width/height split; base VA >> 4 in word2 | word3[0:11]; linear stride
    // ((word3 >> 12) + 1) * 16. Swizzle bits 16..23: G13's identity R,G,B,A = 0xe4.
    let t = Pbe::render_target_2d(
        0x12_3456_7890,
        32,
        20,
        Channels::R8G8B8A8,
        NumericType::Unorm,
        None,
    );
    let w: Vec<u32> = t
        .pack()
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(w[0], 0x1fe4_0a22);
    assert_eq!(w[1], 19 << 6);
    assert_eq!((w[2], w[3]), (0x2345_6789, 0x1));
    assert_eq!(t.layout, Layout::Gpu);
    assert!(Pbe::unpack(&t.pack().unwrap()).unwrap().fully_known());
    let l = Pbe::render_target_2d(
        0x1000,
        20,
        5,
        Channels::R8G8B8A8,
        NumericType::Unorm,
        Some(128),
    );
    let b = l.pack().unwrap();
    assert_eq!(u32::from_le_bytes(b[12..16].try_into().unwrap()) >> 12, 7);
    assert_eq!(b[0] & 0x30, 0, "linear layout value 0");
    assert_eq!(Pbe::unpack(&b).unwrap().linear_stride(), 128);
}

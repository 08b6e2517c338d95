//! `tex_sample` against the byte layout of the T8132 TEXTURE_SAMPLE packer
//! (GravityLinux/mesa src/asahi/compiler/agx_apple9_ir.c): each vector below is what that
//! packer writes for the stated operands (bytes derived by hand from its shape), decoded by
//! the table and re-encoded byte-exact, plus the Apple-compiled corpus bundle.

use agx16_isa::meaning::*;
use agx16_isa::{decode, Instr, Operand, Role};

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn dec(s: &str) -> Instr {
    let b = hex(s);
    let i = decode(&b).unwrap();
    assert_eq!(i.encode(), b, "round trip of {s}");
    i
}

fn imm(i: &Instr, r: Role) -> i64 {
    match i.operand(r).map(|o| o.value) {
        Some(Operand::ImmInt(v)) => v,
        o => panic!("{r:?}: {o:?}"),
    }
}

#[test]
fn packer_sample_operands() {
    // r9.. = texture 6 / sampler 5, coordinates at publication 12, completion tag 2 (slot 3),
    // all four components (selector 7: bits 27..28 = 3, bit 37 = 1):
    // byte0 5|9<<3, byte1 80|12&7|6>>1<<3, 0c, b8|12>>3, b0|5>>1, 2<<2|2<<5, 00 00,
    // byte8 (6&1)<<7, byte9 5&1, 10 00 01 00.
    let i = dec("4d 9c 0c b9 b2 48 00 00 00 01 10 00 01 00");
    assert_eq!(i.form.name, "tex_sample");
    assert!(i.form.emittable());
    assert_eq!(
        i.operand(Role::Dst).map(|o| o.value),
        Some(Operand::Gpr {
            reg: 9,
            part: agx16_isa::Part::Full
        })
    );
    assert_eq!(
        (
            imm(&i, Role::SrcA),
            imm(&i, Role::SrcB),
            imm(&i, Role::SrcC)
        ),
        (12, 6, 5)
    );
    assert_eq!(i.produce().map(|p| p.0), Some(3));
    assert_eq!(i.field("slot_hi"), Some(2));
    assert_eq!(texture_result_mask(&i), Ok(0xf));
    let op = texture_op(&i).unwrap();
    assert_eq!(
        (op.dims, op.array, op.access, op.shadow),
        (2, false, TextureAccess::Sample, false)
    );
}

#[test]
fn result_selector_is_the_packer_permutation() {
    // The packer's mask -> selector values for masks 1..15 (R = bit 0 .. A = bit 3).
    let want = [0, 1, 5, 2, 8, 9, 6, 3, 4, 10, 13, 11, 12, 14, 7];
    for (k, &sel) in want.iter().enumerate() {
        let mask = k as u8 + 1;
        assert_eq!(texture_mask_selector(mask), Some(sel), "mask {mask:#x}");
    }
    let mut i = Instr::build("tex_sample", &[("mask_sel", 15)]).unwrap();
    assert!(
        texture_result_mask(&i).is_err(),
        "selector 15 names no mask"
    );
    i.set("mask_sel", 4).unwrap();
    assert_eq!(texture_result_mask(&i), Ok(0b1001), "selector 4 = R and A");
}

#[test]
fn selector_pairs() {
    let op = |v6: u64, v7: u64| {
        let i = Instr::build("tex_sample", &[("variant", v6), ("extra_coord", v7)]).unwrap();
        texture_op(&i)
    };
    use TextureAccess::*;
    let a = |v6, v7| op(v6, v7).map(|o| (o.dims, o.array, o.access, o.shadow));
    assert_eq!(a(0x00, 0x01), Ok((2, false, Lod, false)), "bias flag clear");
    assert_eq!(a(0x04, 0x00), Ok((2, false, Bias, false)), "bias flag set");
    assert_eq!(a(0x80, 0x24), Ok((2, false, Fetch, false)));
    assert_eq!(a(0xa0, 0x24), Ok((2, true, Fetch, false)));
    assert_eq!(a(0x08, 0x05), Ok((2, true, Lod, false)));
    assert_eq!(a(0x88, 0x21), Ok((3, false, Lod, false)));
    assert_eq!(a(0x20, 0x01), Ok((2, false, Lod, true)), "shadow bit 5");
    // The packer's cube pairs (texture_dimension 1: GLSL_SAMPLER_DIM_CUBE).
    let c = |v6, v7| op(v6, v7).map(|o| (o.cube, o.array, o.access, o.shadow));
    assert_eq!(c(0x00, 0x03), Ok((true, false, Lod, false)));
    assert_eq!(c(0x14, 0x00), Ok((true, false, Bias, false)));
    assert_eq!(c(0x34, 0x00), Ok((true, false, Bias, true)));
    assert_eq!(c(0x08, 0x05).map(|o| o.0), Ok(false));
    assert!(op(0x40, 0x00).is_err(), "unmeasured pair");
}

#[test]
fn apple_corpus_bundle_decodes_as_an_rgba_sample() {
    // EXP-M4-01 r_tex_f / EXP-0008 render_tex: r0.. = texture 0 / sampler 0 at publication 0,
    // slot 1, helpers retired (byte 8 bit 0).
    let i = dec("05800cb8b0000000010010000100");
    assert_eq!(texture_result_mask(&i), Ok(0xf));
    assert_eq!(i.field("retire_helpers"), Some(1));
    assert_eq!(i.produce().map(|p| p.0), Some(1));
    assert_eq!(texture_op(&i).unwrap().access, TextureAccess::Sample);
}

//! Graphics forms against the byte layouts of the T8132 compiler packers
//! (GravityLinux/mesa src/asahi/compiler/agx_apple9_ir.c: ITER, ITER_FLAT, VARY_STORE, COVERAGE,
//! TILE_ACCESS/FENCE, TILE_LOAD/_MASK, TILE_STORE/_MASK, TEXTURE_SAMPLE, DERIVATIVE,
//! CENTROID_POSITION). Each vector is what that packer emits for the stated operands; the
//! table must decode it to the intended form and operands, and encode it back byte-exact.

use agx16_isa::meaning::*;
use agx16_isa::{decode, Op, Operand, Role};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn dec(s: &str) -> agx16_isa::Instr {
    let b = hex(s);
    let i = decode(&b).unwrap_or_else(|e| panic!("{s}: {e}"));
    assert_eq!(i.form.len as usize, b.len(), "{s} as {}", i.form.name);
    assert_eq!(i.encode(), b, "{s} round trip");
    i
}

fn gpr(i: &agx16_isa::Instr, role: Role) -> Option<u8> {
    match i.operand(role)?.value {
        Operand::Gpr { reg, .. } => Some(reg),
        _ => None,
    }
}

fn imm(i: &agx16_isa::Instr, role: Role) -> Option<i64> {
    match i.operand(role)?.value {
        Operand::ImmInt(v) => Some(v),
        _ => None,
    }
}

#[test]
fn iter_at_centre_and_at_a_position() {
    // ITER: dst r3, coefficient 5, pixel centre.
    let i = dec("2f055406030a00021000");
    assert_eq!(
        (i.form.name, gpr(&i, Role::Dst), imm(&i, Role::SrcA)),
        ("iter", Some(3), Some(5))
    );
    assert_eq!(iter_location(&i), Ok(IterLocation::Centre));
    // ITER_COORD: explicit position in r7, last use (0x20) / kept (0x08).
    let i = dec("2f055406030a07022000");
    assert_eq!(
        iter_location(&i),
        Ok(IterLocation::Position {
            reg: 7,
            release: true
        })
    );
    let i = dec("2f055406030a07020800");
    assert_eq!(
        iter_location(&i),
        Ok(IterLocation::Position {
            reg: 7,
            release: false
        })
    );
    // byte1 bit 3 set ("lead"): the packer warns it changes helper behaviour; unmeasured here.
    assert!(iter_location(&dec("2f0d5406030a00021000")).is_err());
    // The Apple-compiled perspective form (byte6 4) is not what the packer emits.
    assert!(iter_location(&dec("2f055400030004021000")).is_err());
}

#[test]
fn centroid_position_feeds_iter() {
    // CENTROID_POSITION: dst r5 from coverage r3.
    let i = dec("af04540a030c0a01");
    assert_eq!(i.form.name, "iter_setup");
    assert_eq!(
        (gpr(&i, Role::Dst), gpr(&i, Role::SrcA)),
        (Some(5), Some(3))
    );
}

#[test]
fn flat_iter_publishes_on_its_slot() {
    // ITER_FLAT: dst r4, coefficient 3 (bit 0 in byte 3 bit 7), slot 2 (byte 5 = 1).
    let i = dec("1f0354840101");
    assert_eq!(
        (gpr(&i, Role::Dst), imm(&i, Role::SrcA)),
        (Some(4), Some(3))
    );
    assert_eq!(i.produce().map(|p| p.0), Some(2));
}

#[test]
fn vertex_output_store() {
    // VARY_STORE: output slot 9 = publication register 5.
    let i = dec("5706540a20410000");
    assert_eq!(i.form.op, Op::VaryingStore);
    assert!(i.form.emittable());
    assert_eq!(
        (imm(&i, Role::SrcA), imm(&i, Role::SrcB)),
        (Some(5), Some(9))
    );
    // Apple-compiled stores wait through bits 12..17 (corpus `57 26 54 ..` = slot 2).
    let w = dec("5726540000404900").wait().unwrap();
    assert_eq!(w.slots.slots().collect::<Vec<_>>(), vec![2]);
}

#[test]
fn coverage_and_tile_sync() {
    // COVERAGE from publication 3, waiting on slot 1 (0x14), bytes 4/5 = 0/1.
    let i = dec("571454060001");
    assert_eq!(i.form.name, "frag_sample_submit");
    assert_eq!(imm(&i, Role::SrcA), Some(3));
    assert_eq!((i.field("b4"), i.field("b5")), (Some(0), Some(1)));
    assert_eq!(i.wait().unwrap().slots.slots().collect::<Vec<_>>(), vec![1]);
    // DEPTH_STORE of the publication pair 32, 33 (packer `d7 14 54 <p<<1> 00 03`).
    let d = dec("d71454400003");
    assert_eq!(
        (d.form.name, imm(&d, Role::SrcA)),
        ("depth_store", Some(32))
    );
    // PUBLICATION_PAIR word: the `or r5, r5` export to publication 32 with source B, its size
    // and LUT bit 43 cleared and byte 8 bit 4 set.
    let mut pw = agx16_isa::Instr::build(
        "logic_export",
        &[
            ("dst", 32),
            ("a_size", 1),
            ("a", 5),
            ("a_keep", 1),
            ("op_base", 1),
            ("lut_a_sel", 2),
            ("z8", 0x10),
        ],
    )
    .unwrap();
    assert_eq!(
        agx16_isa::meaning::export_op(&pw),
        Ok(agx16_isa::meaning::ExportOp::PairWord)
    );
    pw.set("lut_b3", 1).unwrap();
    assert!(agx16_isa::meaning::export_op(&pw).is_err());
    // GravityLinux's GET_COVERAGE `<dst<<4 | c> c2 10 06` is the get_sr row (low three bits
    // 100, form bit 3 set) with selector 0xc2.
    let c = dec("5cc21006");
    assert_eq!((c.form.name, c.field("sr_sel")), ("get_sr", Some(0xc2)));
    assert_eq!((c.field("form"), gpr(&c, Role::Dst)), (Some(1), Some(5)));
    // TILE_ACCESS 0x600 / TILE_FENCE 0x20c (also the Apple-compiled fragment epilogue).
    assert_eq!(dec("870254000600").field("access"), Some(0x600));
    let f = dec("0702540c0200");
    assert_eq!(
        (f.form.name, f.field("access")),
        ("tile_fence", Some(0x20c))
    );
}

#[test]
fn tile_loads_and_stores() {
    // TILE_LOAD: r2 = word 1, static mask, producer slot 6 (tag 0x4e | 5<<7).
    let i = dec("670e54040002 01ce02000000".replace(' ', "").as_str());
    assert_eq!(
        (gpr(&i, Role::Dst), imm(&i, Role::SrcA)),
        (Some(2), Some(1))
    );
    assert_eq!(i.produce().map(|p| p.0), Some(6));
    // TILE_LOAD_MASK: mask register r4 released, slot 1; TILE_LOAD_COORDS at position r6.
    let m = dec("670654040008084e2000 0020".replace(' ', "").as_str());
    assert_eq!(
        (
            m.form.name,
            gpr(&m, Role::SrcB),
            m.releases(Role::SrcB).map(|r| r.0),
            m.produce().map(|p| p.0)
        ),
        ("tile_read_mask", Some(4), Some(true), Some(1))
    );
    let c = dec("671654040606034e00000010");
    assert_eq!(
        (c.form.name, c.field("pos"), c.field("mask")),
        ("tile_read_at", Some(6), Some(3))
    );
    // TILE_STORE: word 2 = r5; TILE_STORE_MASK with mask r6 released.
    let s = dec("e706540a0004014e00000000");
    assert_eq!(
        (
            gpr(&s, Role::SrcD),
            imm(&s, Role::SrcA),
            s.field("mask_from_reg")
        ),
        (Some(5), Some(2), Some(0))
    );
    let d = dec("e716540a00040c4e08000008");
    assert_eq!(
        (
            d.form.name,
            gpr(&d, Role::SrcD),
            gpr(&d, Role::SrcB),
            d.releases(Role::SrcB).map(|r| r.0)
        ),
        ("tile_store_mask", Some(5), Some(6), Some(true))
    );
}

#[test]
fn texture_sample_operands() {
    // TEXTURE_SAMPLE: r4..r7 = texture 5 / sampler 3 at coordinate publication 2.
    let i = dec("25920cb8b10000008001100001 00".replace(' ', "").as_str());
    assert_eq!(i.form.name, "tex_sample");
    assert_eq!(gpr(&i, Role::Dst), Some(4));
    assert_eq!(
        (
            imm(&i, Role::SrcA),
            imm(&i, Role::SrcB),
            imm(&i, Role::SrcC)
        ),
        (Some(2), Some(5), Some(3))
    );
    let op = texture_op(&i).unwrap();
    assert_eq!(
        (op.dims, op.access, op.shadow),
        (2, TextureAccess::Sample, false)
    );
    // TEXTURE_FETCH (80/24, byte 10 zero) and a shadow sample (byte 6 bit 5).
    let f = dec("25920cb8b1008024800100000100");
    assert_eq!(texture_op(&f).unwrap().access, TextureAccess::Fetch);
    let s = dec("25920cb8b1002000800100000100");
    assert!(texture_op(&s).unwrap().shadow);
    // Integer fetch modes for 2D arrays (a0 24) and 3D (98 01), README.apple9-ir.md.
    let a = texture_op(&dec("25920cb8b100a024800100000100")).unwrap();
    assert_eq!(
        (a.dims, a.array, a.access, a.shadow),
        (2, true, TextureAccess::Fetch, false)
    );
    let v = texture_op(&dec("25920cb8b1009801800100000100")).unwrap();
    assert_eq!((v.dims, v.access), (3, TextureAccess::Fetch));
}

#[test]
fn derivative_axis_and_keep() {
    // DERIVATIVE: dfdy (byte 1 bit 1) of r6 into r2, source kept (byte 6 bit 1).
    let i = dec("37075404031892400000");
    assert_eq!((i.field("axis"), i.field("src_keep")), (Some(1), Some(1)));
    assert_eq!(
        (gpr(&i, Role::Dst), gpr(&i, Role::SrcA)),
        (Some(2), Some(6))
    );
    assert_eq!(i.form.op, Op::Derivative);
    assert!(i.form.emittable());
}

/// The packer's DERIVATIVE bytes for (axis, dst, src, keep, saturate), written out by hand.
fn derivative_bytes(axis: u8, dst: u8, src: u8, keep: bool, sat: bool) -> Vec<u8> {
    vec![
        0x37,
        0x05 | axis << 1,
        0x54,
        dst << 1,
        0x03,
        (src & 63) << 2,
        0x90 | u8::from(keep) << 1 | src >> 6,
        0x40 | u8::from(sat) << 2,
        0,
        0,
    ]
}

#[test]
fn derivative_packer_layout_round_trips_over_the_register_file() {
    use agx16_isa::{form_by_name, Instr, Part};
    let form = form_by_name("derivative").unwrap();
    for (axis, dst, src, keep, sat) in [
        (0, 0, 0, false, false),
        (1, 95, 95, true, false),
        (0, 17, 64, false, true),
        (1, 63, 70, true, true),
        (0, 64, 63, true, false),
    ] {
        let bytes = derivative_bytes(axis, dst, src, keep, sat);
        let i = decode(&bytes).unwrap();
        assert_eq!(i.form.name, "derivative");
        assert_eq!(i.field("axis"), Some(axis as u64));
        assert_eq!(
            (gpr(&i, Role::Dst), gpr(&i, Role::SrcA)),
            (Some(dst), Some(src))
        );
        assert_eq!(i.field("src_keep"), Some(keep as u64));
        assert_eq!(i.field("saturate"), Some(sat as u64));
        // Built from the table (the compiler's way): starting from the packer's constant
        // bytes, setting the operands and controls gives the same bytes.
        let mut b = Instr::new(form);
        b.set("b1_0", 1).unwrap().set("b1_hi", 1).unwrap();
        b.set("b2", 0x54).unwrap().set("b4", 3).unwrap();
        b.set("b6_hi", 0x24).unwrap().set("b7_hi", 8).unwrap();
        b.set("axis", axis as u64).unwrap();
        b.set_gpr(Role::Dst, dst as u32, Part::Full).unwrap();
        b.set_gpr(Role::SrcA, src as u32, Part::Full).unwrap();
        b.set("src_keep", keep as u64).unwrap();
        b.set("saturate", sat as u64).unwrap();
        assert_eq!(b.encode_checked().unwrap(), bytes);
        // Disassembly and assembly are inverse on it.
        let text = i.to_string();
        assert!(text.starts_with("derivative r"), "{text}");
        let back = agx16_isa::parse_line(&text, 1).unwrap().unwrap();
        assert_eq!(back.encode(), bytes, "{text}");
    }
    // r96 is past the reach (the register file has 96 GPRs).
    let mut b = Instr::new(form);
    assert!(b.set_gpr(Role::SrcA, 96, Part::Full).is_err());
}

#[test]
fn block_image_store_and_its_joining_fence() {
    // BLOCK_IMAGE_STORE for publication base 4, image 2, tile format 7 (packed 8-bit), 2D mode
    // 0x5a8: `57 10 54 <4<<1> 00 <2<<4> 00 80 a8 <7<<4 | 5> 01 00`, then the compound's
    // `07 12 54 00 03 00` (tile fence 0x300 waiting on slot 1).
    let s = dec("5710540800200080a8750100");
    assert_eq!(s.form.name, "block_image_store");
    assert_eq!(s.form.op, Op::TileStore);
    assert_eq!(imm(&s, Role::SrcA), Some(4));
    assert_eq!(imm(&s, Role::SrcB), Some(2));
    assert_eq!(s.field("format"), Some(7));
    assert_eq!(s.field("mode"), Some(0x5a8));
    assert_eq!((s.field("ctrl7"), s.field("ctrl10")), (Some(0x80), Some(1)));
    assert_eq!(s.wait().map(|w| w.slots.0), Some(1));
    // The multisample mode and the highest publication base/image also decode.
    let m = dec("5710541800f0008028220100");
    assert_eq!(
        (imm(&m, Role::SrcA), imm(&m, Role::SrcB)),
        (Some(12), Some(15))
    );
    assert_eq!((m.field("mode"), m.field("format")), (Some(0x228), Some(2)));
    let f = dec("071254000300");
    assert_eq!(f.form.name, "tile_fence");
    assert_eq!(f.field("access"), Some(0x300));
    assert_eq!(f.wait().map(|w| w.slots.0), Some(1));
    // Ordinary fences keep decoding as before (no wait).
    let g = dec("0702540c0200");
    assert_eq!(
        (g.form.name, g.field("access")),
        ("tile_fence", Some(0x20c))
    );
    assert!(g.wait().is_none_or(|w| w.slots.0 == 0));
    // Built from fields, the store is the packer's bytes.
    let built = agx16_isa::Instr::build(
        "block_image_store",
        &[
            ("wait", 1),
            ("coord", 4),
            ("image", 2),
            ("ctrl7", 0x80),
            ("mode", 0x5a8),
            ("format", 7),
            ("ctrl10", 1),
        ],
    )
    .unwrap();
    assert_eq!(built.encode(), hex("5710540800200080a8750100"));
}

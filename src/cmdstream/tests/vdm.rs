//! VDM: golden decodes of the streams T8132 Mesa emits (agx_apple9.c
//! `agx_apple9_emit_direct_draw`) and agx-re's indirect opcodes; round trips.

use agx16_cmdstream::stream::{FlatMemory, WalkLimits};
use agx16_cmdstream::vdm::*;
use agx16_cmdstream::Record;
use proptest::prelude::*;

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn decode_all(bytes: &[u8]) -> Vec<VdmBlock> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let (b, size) = VdmBlock::decode(&bytes[at..]).unwrap();
        assert_eq!(
            b.pack().unwrap(),
            bytes[at..at + size],
            "re-encodes to the same bytes"
        );
        at += size;
        let end = matches!(b, VdmBlock::Terminate(_));
        out.push(b);
        if end {
            break;
        }
    }
    assert_eq!(at, bytes.len(), "consumed the whole stream");
    out
}

/// Mesa's direct draw: state header 0x4000002e, word0, pipeline word, vertex launch in 64-byte
/// units, outputs n|n<<8, provoking vertex, padding; nine PPP updates {size<<8, offset}; draw.
fn mesa_direct_stream(ppp: u32, tail: &[u32]) -> Vec<u32> {
    let launch = (USC_BASE + 0x20_0100) >> 6;
    let mut w = vec![0x4000_002e, 0, 0x0100_0000, launch as u32, 0x0505, 2, 0];
    for (off, ctl) in [
        (0x00, 0x500),
        (0x40, 0x700),
        (0x5c, 0x500),
        (0x70, 0x700),
        (0x8c, 0x500),
        (0xc0, 0xa00),
        (0xa0, 0x300),
        (0xac, 0x200),
        (0xf0, 0x200),
    ] {
        w.push(ctl);
        w.push(ppp + off);
    }
    w.extend_from_slice(tail);
    w
}

#[test]
fn golden_mesa_direct_draw() {
    let ppp = 0x0400_0040;
    let s = words(&mesa_direct_stream(
        ppp,
        &[0x61c4_0600, 3, 1, 0, 0xc000_0000],
    ));
    let blocks = decode_all(&s);
    assert_eq!(blocks.len(), 1 + 9 + 2);
    let VdmBlock::State(st) = &blocks[0] else {
        panic!()
    };
    assert_eq!(
        st.vertex_word1.as_ref().unwrap().launch,
        (USC_BASE + 0x20_0100) & 0x3f_ffff_ffc0
    );
    assert_eq!(st.vertex_outputs.as_ref().unwrap().count_1, 5);
    assert_eq!(
        st.vertex_unknown.as_ref().unwrap().flat_shading_control,
        ProvokingVertex::Last
    );
    let sizes: Vec<u8> = blocks[1..10]
        .iter()
        .map(|b| match b {
            VdmBlock::PppUpdate(p) => p.size_words,
            _ => panic!("expected PPP update"),
        })
        .collect();
    assert_eq!(sizes, [5, 7, 5, 7, 5, 10, 3, 2, 2]);
    let VdmBlock::IndexList(d) = &blocks[10] else {
        panic!()
    };
    assert_eq!(d.header.primitive, Primitive::Triangles);
    assert_eq!((d.count, d.instances, d.start), (Some(3), Some(1), Some(0)));
    assert!(
        blocks.iter().all(|b| b.fully_known()),
        "Mesa's stream has no undocumented bits"
    );
    assert_eq!(d.index_buffer(), None);
    assert_eq!(*d, VdmIndexList::direct(Primitive::Triangles, 3, 1, 0));
}

#[test]
fn golden_mesa_indexed_draw_u16_restart() {
    // 0x40000001 + restart value; 0x61f00000 | log2(size)<<17 | prim<<8 | restart<<16;
    // buffer low word, count, instances, base vertex, ceil((extent + (ptr&3))/4) - 1, ptr>>40.
    let ptr = USC_BASE + 0x30_0002;
    let hdr = 0x61f0_0000 | 1 << 17 | 9 << 8 | 1 << 16;
    let s = words(&[
        0x4000_0001,
        0xffff,
        hdr,
        ptr as u32,
        36,
        2,
        (-4i32) as u32,
        (72u32 + 2).div_ceil(4) - 1,
        1,
        0xc000_0000,
    ]);
    let blocks = decode_all(&s);
    let VdmBlock::State(st) = &blocks[0] else {
        panic!()
    };
    assert_eq!(st.restart_index.as_ref().unwrap().value, 0xffff);
    let VdmBlock::IndexList(d) = &blocks[1] else {
        panic!()
    };
    assert_eq!(d.header.index_size, IndexSize::U16);
    assert!(d.header.restart_enable);
    assert_eq!(d.header.primitive, Primitive::TriangleStrip);
    assert_eq!(d.index_buffer(), Some(ptr));
    assert_eq!(d.start.map(|s| s as i32), Some(-4));
    assert_eq!(
        *d,
        VdmIndexList::indexed(
            Primitive::TriangleStrip,
            IndexSize::U16,
            ptr,
            72,
            36,
            2,
            -4,
            true
        )
    );
}

#[test]
fn golden_agxre_indirect_draw() {
    // agx-re EXP-0027: non-indexed indirect opcode 0x6404, args pointer high then low.
    let s = words(&[0x6404_0600, 0x1, 0x0000_4000, 0xc000_0000]);
    let blocks = decode_all(&s);
    let VdmBlock::IndexList(d) = &blocks[0] else {
        panic!()
    };
    let i = d.indirect.as_ref().unwrap();
    assert_eq!((i.address_hi, i.address_lo), (1, 0x4000));
    assert_eq!(d.count, None);
}

#[test]
fn barrier_and_unknown_blocks() {
    let (b, _) = VdmBlock::decode(&words(&[BARRIER_G16])).unwrap();
    let VdmBlock::Barrier(b) = b else { panic!() };
    assert_eq!((b.unk_0.0, b.unk_1.0, b.unk_4.0), (1, 1, 1));
    assert!(
        VdmBlock::decode(&words(&[0xa000_0000])).is_err(),
        "tessellate is not established on G16"
    );
    assert!(
        VdmBlock::decode(&words(&[0xe000_0000])).is_err(),
        "type 7 is unknown"
    );
}

#[test]
fn walk_follows_context_links() {
    let base = RENDER_CONTEXT_BASE + 0x18000;
    let mut bytes = VdmBlock::Link(VdmLink {
        with_return: true,
        target: 0x18100,
        unknown: [0; 2],
    })
    .pack()
    .unwrap();
    bytes.extend(words(&[0xc000_0000]));
    bytes.resize(0x100, 0);
    bytes.extend(words(&[0x61c4_0600, 3, 1, 0, 0x2800_0000])); // draw, barrier with return
    let mem = FlatMemory { base, bytes };
    let items = walk(&mem, base, WalkLimits::default()).unwrap();
    assert!(matches!(items[1].block, VdmBlock::IndexList(_)));
    assert_eq!(items[1].at, base + 0x100);
    assert!(matches!(
        items.last().unwrap().block,
        VdmBlock::Terminate(_)
    ));
}

proptest! {
    #[test]
    fn index_list_round_trip(prim in 0u8..16, size in 0u8..3, lo: u32, count: u32, inst: u32, start: u32, ext: u32, hi in 0u32..256, restart: bool, indexed: bool) {
        let mut d = VdmIndexList::direct(Primitive::Points, count, inst, start);
        d.header.primitive = <Primitive as agx16_cmdstream::FieldType>::from_u64(prim as u64);
        d.header.index_size = <IndexSize as agx16_cmdstream::FieldType>::from_u64(size as u64);
        d.header.restart_enable = restart;
        if indexed {
            d.buffer_lo = Some(lo);
            d.buffer_size_words_minus1 = Some(ext);
            d.buffer_hi = Some(hi);
            d.header.index_buffer_present = true;
            d.header.index_buffer_size_present = true;
        }
        let b = VdmBlock::IndexList(d.clone().normalized());
        let bytes = b.pack().unwrap();
        let (back, n) = VdmBlock::decode(&bytes).unwrap();
        prop_assert_eq!(n, bytes.len());
        prop_assert_eq!(back, b);
    }

    #[test]
    fn ppp_update_round_trip(size: u8, ptr: u32) {
        let u = VdmPppUpdate { size_words: size, pointer: ptr, unknown: [0; 2] };
        prop_assert_eq!(VdmPppUpdate::unpack(&u.pack().unwrap()).unwrap(), u);
    }
}

/// A native G17P triangle stream, as a public m1n1 G17P render test expects it word for
/// word ("test_direct_render_encoder_matches_coherent_native_triangle"; agx-re
/// docs/m4-deltas.md states the command stream is identical on M4).
#[test]
fn golden_native_g17p_triangle() {
    let s = words(&[
        0x4000002e, 0, 0x01000000, 0x4a00, 0x404, 0, 0, 0x500, 0x40, 0x700, 0x58000, 0x500,
        0x5801c, 0x700, 0x58030, 0x500, 0x5804c, 0xa00, 0x68900, 0x300, 0x58060, 0x200, 0x5806c,
        0x200, 0x48000, 0x61c40600, 3, 1, 0, 0xc0000000,
    ]);
    let blocks = decode_all(&s);
    let VdmBlock::State(st) = &blocks[0] else {
        panic!()
    };
    let w1 = st.vertex_word1.as_ref().unwrap();
    assert_eq!((w1.pipeline_word.0, w1.launch), (0x0100_0000, 0x4a00 << 6));
    let out = st.vertex_outputs.as_ref().unwrap();
    assert_eq!((out.count_1, out.count_2), (4, 4), "position only");
    let ptrs: Vec<(u8, u32)> = blocks[1..10]
        .iter()
        .map(|b| match b {
            VdmBlock::PppUpdate(p) => {
                assert!(p.fully_known());
                (p.size_words, p.pointer)
            }
            _ => panic!(),
        })
        .collect();
    assert_eq!(ptrs[1], (7, 0x58000));
    assert_eq!(ptrs[8], (2, 0x48000));
    let VdmBlock::IndexList(d) = &blocks[10] else {
        panic!()
    };
    assert_eq!(
        (d.header.primitive, d.count, d.instances),
        (Primitive::Triangles, Some(3), Some(1))
    );
    assert!(d.header.fully_known());
}

#[test]
fn draws_latch_state_and_collect_ppp_updates() {
    let base = RENDER_CONTEXT_BASE + 0x20000;
    let mut w = mesa_direct_stream(0x100, &[0x61c4_0600, 3, 1, 0]);
    w.extend([0x4000_0001, 0xffff]); // restart-only state keeps the earlier vertex words
    w.extend([0x500, 0x200, 0x61c4_0600, 6, 2, 3, 0xc000_0000]);
    let mem = FlatMemory {
        base,
        bytes: words(&w),
    };
    let items = walk(&mem, base, WalkLimits::default()).unwrap();
    let d = draws(&items);
    assert_eq!(d.len(), 2);
    assert_eq!(d[0].ppp_updates.len(), 9);
    assert_eq!(d[1].ppp_updates.len(), 1);
    assert_eq!(
        d[1].state.vertex_outputs, d[0].state.vertex_outputs,
        "latched"
    );
    assert_eq!(
        d[1].state.restart_index.as_ref().map(|r| r.value),
        Some(0xffff)
    );
    assert_eq!(
        (d[1].index_list.count, d[1].index_list.start),
        (Some(6), Some(3))
    );
}

proptest! {
    #[test]
    fn state_round_trip(r: Option<u32>, pw: u32, launch in 0u64..(1 << 32), n: u8, prov in 0u64..3, pid: bool) {
        let st = VdmState {
            restart_index: r.map(|value| VdmRestartIndex { value, unknown: [0] }),
            vertex_word0: Some(VdmVertexWord0::default()),
            vertex_word1: Some(VdmVertexWord1 { pipeline_word: agx16_cmdstream::Unexplained(pw as u64), launch: launch << 6, unknown: [0; 2] }),
            vertex_outputs: Some(VdmVertexOutputs { count_1: n, count_2: n, unknown: [0] }),
            vertex_unknown: Some(VdmVertexUnknown { flat_shading_control: <ProvokingVertex as agx16_cmdstream::FieldType>::from_u64(prov), generate_primitive_id: pid, ..Default::default() }),
        };
        let b = VdmBlock::State(st);
        let bytes = b.pack().unwrap();
        let (back, n) = VdmBlock::decode(&bytes).unwrap();
        prop_assert_eq!(n, bytes.len());
        prop_assert_eq!(back, b);
    }
}

#[test]
fn golden_agxre_indexed_indirect_order() {
    // agx-re EXP-0027: indexed indirect opcode 0x6432 keeps the index buffer pointer inline
    // first, then the arguments pointer (high, low).
    let s = words(&[0x6432_0600, 0x0030_0000, 0x1, 0x8000, 11, 1, 0xc000_0000]);
    let (b, n) = VdmBlock::decode(&s).unwrap();
    let VdmBlock::IndexList(d) = b else { panic!() };
    assert_eq!(d.header.index_size, IndexSize::U16);
    assert_eq!(d.buffer_lo, Some(0x0030_0000));
    let i = d.indirect.unwrap();
    assert_eq!((i.address_hi, i.address_lo), (1, 0x8000));
    assert_eq!(
        (d.buffer_size_words_minus1, d.buffer_hi),
        (Some(11), Some(1))
    );
    assert_eq!(n, 24);
}

#[test]
fn golden_m4_u32_index_opcode() {
    // agx-re m4-deltas: the u32-index opcode 0x61f4 ran on M4; 0x61f2 is the u16 form.
    let mut w = vec![0x61f4_0600, 0x10_0000, 6, 1, 0, 5, 1, 0xc000_0000];
    let (b, _) = VdmBlock::decode(&words(&w)).unwrap();
    let VdmBlock::IndexList(d) = b else { panic!() };
    assert_eq!(
        (d.header.index_size, d.header.primitive),
        (IndexSize::U32, Primitive::Triangles)
    );
    assert_eq!((d.count, d.instances), (Some(6), Some(1)));
    w[0] = 0x61f2_0600;
    let (b, _) = VdmBlock::decode(&words(&w)).unwrap();
    let VdmBlock::IndexList(d) = b else { panic!() };
    assert_eq!(d.header.index_size, IndexSize::U16);
}

//! CDM: golden decodes of words whose meaning the sources document, walks, round trips.

use agx16_cmdstream::cdm::*;
use agx16_cmdstream::record::Record;
use agx16_cmdstream::stream::{FlatMemory, StreamErrorKind, WalkLimits};
use proptest::prelude::*;

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A direct launch laid out as GravityLinux Mesa's `agx_apple9_emit_direct_dispatch` does
/// (agx_apple9_launch.c): config, constant, shader u64 = (launch>>6)&0xffffffff |
/// (0x40000000 | launch>>40) << 32, global[3], local[3].
fn mesa_direct(launch: u64, global: [u32; 3], local: [u32; 3]) -> Vec<u8> {
    let shader = ((launch >> 6) & 0xffff_ffff) | ((0x4000_0000 | (launch >> 40)) << 32);
    let mut w = vec![
        0x0088_0000,
        0x0100_0040,
        shader as u32,
        (shader >> 32) as u32,
    ];
    w.extend_from_slice(&global);
    w.extend_from_slice(&local);
    words(&w)
}

#[test]
fn golden_mesa_direct_launch() {
    let launch = 0x100_0021_0040;
    let bytes = mesa_direct(launch, [64, 2, 1], [32, 1, 1]);
    let CdmBlock::LaunchDirect(l) = CdmBlock::decode(&bytes).unwrap() else {
        panic!("not a direct launch")
    };
    assert_eq!(l.pipeline(), launch);
    assert!(l.register_tier, "0x00880000 has bit 23 set");
    assert_eq!(l.unk_19.0, 1);
    assert_eq!((l.global_x, l.global_y, l.global_z), (64, 2, 1));
    assert_eq!((l.local_x, l.local_y, l.local_z), (32, 1, 1));
    assert_eq!(l.unk_word1.0, 0x0100_0040);
    assert!(l.fully_known(), "no bit outside a documented field");
    assert_eq!(l.pack().unwrap(), bytes);
}

#[test]
fn golden_agxre_shader_pointer_units() {
    // agx-re EXP-0011: shaders at 0x90000 / 0x90100 give +0x08 words 0x2400 / 0x2404.
    for (va, word) in [(0x90000u64, 0x2400u32), (0x90100, 0x2404)] {
        let mut l = CdmLaunchDirect::default();
        l.set_pipeline(va).unwrap();
        let b = l.pack().unwrap();
        assert_eq!(u32::from_le_bytes(b[8..12].try_into().unwrap()), word);
    }
}

#[test]
fn golden_indirect_modes_match_kernel_sizes() {
    // g16_cdm.rs accepts launch sizes 0x28 / 0x24 / 0x18 for modes 0 / 1 / 2.
    assert_eq!(block_size(0x0088_0000).unwrap(), 0x28);
    assert_eq!(block_size(0x0888_0000).unwrap(), 0x24);
    assert_eq!(block_size(0x1088_0000).unwrap(), 0x18);
    assert!(matches!(
        block_size(0x1888_0000),
        Err(StreamErrorKind::UnknownMode { mode: 3, .. })
    ));
    // Mesa's indirect emitter: pointer high then low at +0x10/+0x14.
    let ptr = 0x15_dead_bee0u64;
    let bytes = words(&[
        0x0888_0000,
        0x0100_0040,
        0x4000,
        0x4000_0001,
        0x15,
        0xdead_bee0,
        8,
        4,
        1,
    ]);
    let CdmBlock::LaunchIndirectGlobal(l) = CdmBlock::decode(&bytes).unwrap() else {
        panic!("not indirect")
    };
    assert_eq!(l.indirect(), ptr);
    assert_eq!(l.pipeline(), 0x100_0010_0000);
    assert_eq!((l.local_x, l.local_y, l.local_z), (8, 4, 1));
}

#[test]
fn golden_barriers_terminate_link() {
    let b = CdmBarrier::from_word(BARRIER_AFTER_LAUNCH).unwrap();
    assert!(!b.usc_cache_inval && !b.returns);
    assert_eq!(b.unk_4_20.0, 0x160 >> 4);
    let full = CdmBarrier::from_word(BARRIER_FULL).unwrap();
    assert!(full.usc_cache_inval);
    assert!(full.fully_known());
    // agx-re: each Metal compute stream ends with 0x40000000.
    assert!(matches!(
        CdmBlock::decode(&words(&[0x4000_0000])).unwrap(),
        CdmBlock::Terminate(_)
    ));
    // g16_cdm.rs: link target = (header & 255) << 32 | word1, bit 28 = with return.
    let CdmBlock::Link(l) = CdmBlock::decode(&words(&[0x3000_0010, 0x0001_8000])).unwrap() else {
        panic!()
    };
    assert!(l.with_return);
    assert_eq!(l.target(), 0x10_0001_8000);
}

#[test]
fn unknown_block_type_reports_offset() {
    let mut bytes = words(&[BARRIER_FULL]);
    bytes.extend(words(&[0xa000_0000]));
    let items: Vec<_> = CdmReader::new(&bytes).collect();
    assert!(items[0].is_ok());
    let err = items[1].clone().unwrap_err();
    assert_eq!(err.at, 4);
    assert!(matches!(
        err.kind,
        StreamErrorKind::UnknownBlockType { block_type: 5, .. }
    ));
}

#[test]
fn launch_without_valid_bit_is_rejected() {
    // The kernel rejects a launch whose +0x0c bit 30 is clear.
    let mut bytes = mesa_direct(0x100_0000_0040, [1, 1, 1], [1, 1, 1]);
    bytes[15] &= !0x40;
    assert!(CdmBlock::decode(&bytes).is_err());
}

#[test]
fn walk_follows_calls_and_returns() {
    let base = 0x5_0000_0000u64; // CDM links reach 40-bit VAs only (g16_cdm.rs)
    let sub = base + 0x100;
    let mut mem = vec![0u8; 0x200];
    let mut main = Vec::new();
    main.extend(words(&[BARRIER_FULL]));
    main.extend(CdmLink::to(sub, true).unwrap().pack().unwrap());
    main.extend(mesa_direct(base + 0x1000, [4, 1, 1], [4, 1, 1]));
    main.extend(words(&[0x4000_0000]));
    mem[..main.len()].copy_from_slice(&main);
    let mut s = mesa_direct(base + 0x2000, [8, 1, 1], [8, 1, 1]);
    s.extend(words(&[0x8000_0000])); // return
    mem[0x100..0x100 + s.len()].copy_from_slice(&s);
    let m = FlatMemory { base, bytes: mem };
    let visited = walk(&m, base, WalkLimits::default()).unwrap();
    let pipes: Vec<u64> = visited
        .iter()
        .filter_map(|i| match &i.block {
            CdmBlock::LaunchDirect(l) => Some(l.pipeline()),
            _ => None,
        })
        .collect();
    assert_eq!(
        pipes,
        vec![base + 0x2000, base + 0x1000],
        "called stream runs first"
    );
    assert!(matches!(
        visited.last().unwrap().block,
        CdmBlock::Terminate(_)
    ));
}

#[test]
fn walk_rejects_loops_and_stray_returns() {
    let base = 0x1000;
    let loop_ = FlatMemory {
        base,
        bytes: CdmLink::to(base, false).unwrap().pack().unwrap(),
    };
    let e = walk(&loop_, base, WalkLimits::default()).unwrap_err();
    assert!(matches!(e.kind, StreamErrorKind::TooManyBlocks(_)));
    let ret = FlatMemory {
        base,
        bytes: words(&[0x8000_0000]),
    };
    assert_eq!(
        walk(&ret, base, WalkLimits::default()).unwrap_err().kind,
        StreamErrorKind::ReturnWithoutCall
    );
}

proptest! {
    #[test]
    fn direct_round_trip(lo in 0u64..(1 << 32), hi: u8, g: [u32; 3], l: [u32; 3], tier: bool, w1: u32) {
        let r = CdmLaunchDirect {
            unk_19: agx16_cmdstream::Unexplained(1), register_tier: tier,
            unk_word1: agx16_cmdstream::Unexplained(w1 as u64),
            pipeline_lo: lo << 6, pipeline_hi: hi,
            global_x: g[0], global_y: g[1], global_z: g[2],
            local_x: l[0], local_y: l[1], local_z: l[2], unknown: [0; 10],
        };
        let b = r.pack().unwrap();
        prop_assert_eq!(CdmLaunchDirect::unpack(&b).unwrap(), r);
    }

    /// Any bytes that decode re-encode to the same bytes: unknown bits are preserved.
    #[test]
    fn any_decodable_bytes_round_trip(mut raw in proptest::collection::vec(any::<u8>(), 0x28), kind in 0u32..5, mode in 0u32..3) {
        let mut h = u32::from_le_bytes(raw[0..4].try_into().unwrap()) & 0x07ff_ffff;
        h |= kind << 29;
        if kind == 0 { h = (h & !(3 << 27)) | (mode << 27); raw[15] |= 0x40; }
        raw[0..4].copy_from_slice(&h.to_le_bytes());
        let block = CdmBlock::decode(&raw).unwrap();
        prop_assert_eq!(&block.pack().unwrap()[..], &raw[..block.size()]);
    }

    #[test]
    fn link_round_trip(t in 0u64..(1 << 38), ret: bool) {
        let l = CdmLink::to(t << 2, ret).unwrap();
        prop_assert_eq!(CdmLink::unpack(&l.pack().unwrap()).unwrap().target(), t << 2);
    }
}

proptest! {
    /// A random sequence of blocks packs into a stream the reader splits back exactly.
    #[test]
    fn reader_splits_random_streams(kinds in proptest::collection::vec(0u8..5, 1..40), g: u32) {
        let mut blocks = Vec::new();
        for k in kinds {
            blocks.push(match k {
                0 => { let mut l = CdmLaunchDirect { global_x: g, ..Default::default() }; l.set_pipeline(0x100_0000_0040).unwrap(); CdmBlock::LaunchDirect(l) }
                1 => { let mut l = CdmLaunchIndirectGlobal::default(); l.set_indirect(g as u64 * 4); CdmBlock::LaunchIndirectGlobal(l) }
                2 => CdmBlock::LaunchIndirectLocal(CdmLaunchIndirectLocal::default()),
                3 => CdmBlock::Barrier(CdmBarrier::from_word(BARRIER_FULL).unwrap()),
                _ => CdmBlock::Link(CdmLink::to(g as u64 & !3, g & 1 == 1).unwrap()),
            });
        }
        blocks.push(CdmBlock::Terminate(CdmTerminate::default()));
        let bytes: Vec<u8> = blocks.iter().flat_map(|b| b.pack().unwrap()).collect();
        let back: Vec<CdmBlock> = CdmReader::new(&bytes).map(|i| i.unwrap().block).collect();
        prop_assert_eq!(back, blocks);
    }
}

#[test]
fn t8132_constructor_matches_mesa_bytes() {
    let launch = 0x100_0021_0040;
    let l = CdmLaunchDirect::t8132(launch, [64, 2, 1], [32, 1, 1]).unwrap();
    assert_eq!(
        l.pack().unwrap(),
        mesa_direct(launch, [64, 2, 1], [32, 1, 1])
    );
    assert!(
        CdmLaunchDirect::t8132(launch + 4, [1; 3], [1; 3]).is_err(),
        "launch must be 64-byte aligned"
    );
    let i = CdmLaunchIndirectGlobal::t8132(launch, 0x15_dead_bee0, [8, 4, 1]).unwrap();
    let b = i.pack().unwrap();
    assert_eq!(
        u32::from_le_bytes(b[0..4].try_into().unwrap()),
        0x0888_0000,
        "mode 1 over config 0x00880000"
    );
}

#[test]
fn launch_view_covers_every_mode() {
    let p = 0x100_0000_0400;
    let d = CdmBlock::LaunchDirect(CdmLaunchDirect::t8132(p, [8, 4, 2], [4, 2, 1]).unwrap())
        .launch()
        .unwrap();
    assert_eq!(
        d.grid,
        Grid::Direct {
            global: [8, 4, 2],
            local: [4, 2, 1]
        }
    );
    let g = CdmBlock::LaunchIndirectGlobal(
        CdmLaunchIndirectGlobal::t8132(p, 0x2000, [2, 2, 2]).unwrap(),
    )
    .launch()
    .unwrap();
    assert_eq!(
        g.grid,
        Grid::IndirectGlobal {
            pointer: 0x2000,
            local: [2, 2, 2]
        }
    );
    let l = CdmBlock::LaunchIndirectLocal(CdmLaunchIndirectLocal::t8132(p, 0x3000).unwrap())
        .launch()
        .unwrap();
    assert_eq!(
        (l.pipeline, l.grid),
        (p, Grid::IndirectLocal { pointer: 0x3000 })
    );
    // g16_cdm.rs: mode 2 header bits 28:27 = 2.
    let b = CdmBlock::LaunchIndirectLocal(CdmLaunchIndirectLocal::t8132(p, 0x3000).unwrap())
        .pack()
        .unwrap();
    assert_eq!(u32::from_le_bytes(b[0..4].try_into().unwrap()) >> 27 & 3, 2);
    assert!(CdmBlock::Terminate(CdmTerminate::default())
        .launch()
        .is_none());
}

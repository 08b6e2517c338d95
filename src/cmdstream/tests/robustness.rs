//! Bad input gets an error, never a panic: random bytes through every decoder.

use agx16_cmdstream::capture::{Capture, Mapping};
use agx16_cmdstream::cdm::{self, CdmBlock, CdmReader};
use agx16_cmdstream::decode::decode_capture;
use agx16_cmdstream::print::PrintOptions;
use agx16_cmdstream::stream::{FlatMemory, WalkLimits};
use agx16_cmdstream::vdm::{self, VdmBlock, RENDER_CONTEXT_BASE};
use proptest::prelude::*;

fn words(raw: &[u32]) -> Vec<u8> {
    raw.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Words that are often valid block headers, so random streams reach deep decoder paths.
fn word() -> impl Strategy<Value = u32> {
    prop_oneof![
        Just(0x4000_002e),
        Just(0x4000_0001),
        Just(0x0000_0500),
        Just(0x0000_0a00),
        Just(0x61c4_0600),
        Just(0x61f2_0600),
        Just(0x6404_0600),
        Just(0x2000_0013),
        Just(0x8000_0000),
        Just(0xc000_0000),
        Just(0x0088_0000),
        Just(0x4000_0000),
        Just(0x3000_0010),
        0u32..0x4000,
        any::<u32>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn block_decoders_never_panic(raw in proptest::collection::vec(any::<u8>(), 0..96)) {
        let _ = CdmBlock::decode(&raw);
        let _ = VdmBlock::decode(&raw);
        for item in CdmReader::new(&raw) {
            let _ = item;
        }
    }

    #[test]
    fn walkers_never_panic(ws in proptest::collection::vec(any::<u32>(), 1..64)) {
        let cdm_mem = FlatMemory { base: 0x1000, bytes: words(&ws) };
        let _ = cdm::walk(&cdm_mem, 0x1000, WalkLimits { max_blocks: 256, max_call_depth: 8 });
        let vdm_mem = FlatMemory { base: RENDER_CONTEXT_BASE, bytes: words(&ws) };
        let _ = vdm::walk(&vdm_mem, RENDER_CONTEXT_BASE, WalkLimits { max_blocks: 256, max_call_depth: 8 });
    }

    #[test]
    fn capture_parser_never_panics(raw in proptest::collection::vec(any::<u8>(), 0..256)) {
        let mut b = b"AGX16CAP".to_vec();
        b.extend(raw);
        let _ = Capture::parse(&b);
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn decoder_never_panics(kind in 0u16..6, payload in proptest::collection::vec(any::<u8>(), 240), off in 0u64..0x100, mem in proptest::collection::vec(word(), 0..256)) {
        let size: u16 = if kind == 0 { 240 } else { 64 };
        let mut cmdbuf = words(&[kind as u32 | (size as u32) << 16, 0]);
        let mut p = payload;
        p.truncate(size as usize);
        // Point the stream base into the random memory.
        p[8..16].copy_from_slice(&(RENDER_CONTEXT_BASE + off * 4).to_le_bytes());
        cmdbuf.extend(p);
        let mut bytes = words(&mem);
        bytes.resize(0x4000, 0);
        let cap = Capture {
            job_id: 0,
            queue_id: 0,
            usc_exec_base: 1 << 40,
            cmdbuf,
            mappings: vec![
                Mapping { start: RENDER_CONTEXT_BASE, end: RENDER_CONTEXT_BASE + 0x4000, flags: 1, bytes: bytes.clone() },
                Mapping { start: 1 << 40, end: (1 << 40) + 0x4000, flags: 1, bytes },
            ],
        };
        let _ = decode_capture(&cap, PrintOptions::default());
    }
}

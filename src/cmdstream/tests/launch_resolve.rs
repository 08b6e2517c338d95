//! Property: for any measured parameter set, the built launcher + arena, placed in memory with
//! a resource record, resolves to exactly the record's pointers as argument words (the CPU-side
//! reference the write-up's readouts compared against) and to the intended body.

use agx16_cmdstream::launch::*;
use agx16_cmdstream::stream::FlatMemory;
use proptest::prelude::*;

const USC: u64 = 1 << 40;

fn stage() -> impl Strategy<Value = LaunchStage> {
    prop_oneof![
        Just(LaunchStage::Vertex),
        (prop::sample::select(vec![1u32, 2, 4]), 0u32..=64).prop_map(|(samples, tile_bytes)| {
            LaunchStage::Fragment {
                samples,
                tile_bytes,
            }
        }),
        (
            1usize..=18,
            prop::sample::select(vec![0u32, 128, 256, 512, 1024])
        )
            .prop_map(|(resources, threadgroup_bytes)| LaunchStage::Compute {
                resources,
                threadgroup_bytes,
            }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn launchers_resolve_to_their_resource_record(
        stage in stage(),
        pointers in prop::collection::vec(any::<u64>(), 19),
        publications in 0u32..=1022,
        extent_a in any::<u16>(),
        body_page in 1u64..0x1000,
    ) {
        // Memory image: arena at the USC base, launcher at +0x10_0000, record at +0x10_1000.
        let body = USC + (body_page << 12);
        let arena = build_arena(USC, &[(body, matches!(stage, LaunchStage::Compute { .. }))]).unwrap();
        let record_va = USC + 0x10_1000;
        let common = LaunchCommon {
            resource_table: record_va,
            entry_offset: arena.entries[0],
            publications,
            extent_a,
            extent_b: 0,
        };
        let p = build_launcher(stage, &common).unwrap();
        let mut image = vec![0u8; 0x10_2000];
        image[..arena.bytes.len()].copy_from_slice(&arena.bytes);
        image[0x10_0000..0x10_0000 + p.bytes.len()].copy_from_slice(&p.bytes);
        for (i, v) in pointers.iter().enumerate() {
            image[0x10_1000 + 8 * i..0x10_1000 + 8 * i + 8].copy_from_slice(&v.to_le_bytes());
        }
        let mem = FlatMemory { base: USC, bytes: image };
        let r = resolve_launch(&mem, USC, USC + 0x10_0000).unwrap();
        let words = stage.root_words().unwrap() as usize;
        prop_assert_eq!(r.argument_words.len(), words);
        for (i, w) in r.argument_words.iter().enumerate() {
            let q = pointers[i / 2];
            prop_assert_eq!(*w, if i % 2 == 0 { q as u32 } else { (q >> 32) as u32 });
        }
        prop_assert_eq!(r.body_va, body);
        prop_assert_eq!(r.summary.frame.publication_words, publications.div_ceil(2) * 2);
        prop_assert_eq!(r.summary.frame.extent_a, extent_a);
    }
}

//! Launcher programs and the entry arena built through agx16-isa, checked against the values
//! GravityLinux/mesa's T8132 launcher tests publish (src/gallium/drivers/asahi/test/
//! test-apple9-launch.cpp: entry 0x12340 -> field 0x246aa, publication words, tile modes,
//! threadgroup words) and the layout of its README.apple9-launchers.md ("Resource ABI").

use agx16_cmdstream::launch::*;
use agx16_isa::meaning::StageAllocation;
use agx16_isa::{decode_program, Op, Operand, Role};

fn common() -> LaunchCommon {
    LaunchCommon {
        resource_table: 0x100_0020_8000,
        entry_offset: 0x12340,
        publications: 9,
        extent_a: 4,
        extent_b: 4096,
    }
}

fn read16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

const VERTEX: LaunchStage = LaunchStage::Vertex;
const FRAGMENT: LaunchStage = LaunchStage::Fragment {
    samples: 1,
    tile_bytes: 24,
};
const COMPUTE: LaunchStage = LaunchStage::Compute {
    resources: 8,
    threadgroup_bytes: 0,
};

#[test]
fn every_stage_carries_entry_and_frame_at_the_published_positions() {
    for stage in [VERTEX, FRAGMENT, COMPUTE] {
        let p = build_launcher(stage, &common()).unwrap();
        let c = p.target_field;
        let expected = match stage {
            LaunchStage::Compute { resources, .. } => compute_call_position(resources).unwrap(),
            _ => 68, // "The entry field is at byte 68 for all graphics."
        };
        assert_eq!(c, expected, "{stage:?}");
        let b = &p.bytes;
        let entry = b[c] as u32 | (b[c + 1] as u32) << 8 | (b[c + 2] as u32) << 16;
        assert_eq!(entry, 0x246aa);
        assert_eq!(read16(b, c + 11), 0x280, "ceil(9/2) << 7");
        assert_eq!(read16(b, c + 13), 4);
        assert_eq!(read16(b, c + 15), 4096);
        assert_eq!(b[c + 17], 0);
        assert!(b.len() <= stage.launch_bytes());
    }
}

#[test]
fn graphics_layout_matches_the_resource_abi() {
    // 16-byte roots, 42 bytes of loads, 48 bytes transferring twelve words.
    let p = build_launcher(VERTEX, &common()).unwrap();
    let ops: Vec<Op> = p.instrs.iter().map(|i| i.form.op).collect();
    assert_eq!(&ops[..2], &[Op::MovImm, Op::MovImm]);
    assert_eq!(&ops[2..5], &[Op::PointerLoad; 3]);
    assert_eq!(p.bytes.len(), 16 + 42 + 8 + 10 + 10 + 48 + 4);
}

#[test]
fn publication_pairs() {
    let counts = [0, 1, 2, 8, 9, 36, 1022];
    let words = [0, 0x80, 0x80, 0x200, 0x280, 0x900, 0xff80];
    for (n, w) in counts.into_iter().zip(words) {
        let p = build_launcher(
            VERTEX,
            &LaunchCommon {
                publications: n,
                ..common()
            },
        )
        .unwrap();
        assert_eq!(read16(&p.bytes, 68 + 11), w, "P = {n}");
    }
}

#[test]
fn threadgroup_allocation_changes_only_its_word() {
    let base = build_launcher(COMPUTE, &common()).unwrap().bytes;
    let c = compute_call_position(8).unwrap();
    for bytes in [128, 256, 512, 1024] {
        let stage = LaunchStage::Compute {
            resources: 8,
            threadgroup_bytes: bytes,
        };
        let mut out = build_launcher(stage, &common()).unwrap().bytes;
        assert_eq!(read16(&out, c - 6) as u32, (bytes << 2) | 0x80);
        assert_eq!((out[c - 4], out[c - 3]), (0, 0));
        out[c - 6] = base[c - 6];
        out[c - 5] = base[c - 5];
        assert_eq!(out, base);
    }
}

#[test]
fn tile_modes_change_only_the_allocation() {
    let base = build_launcher(FRAGMENT, &common()).unwrap().bytes;
    let cases = [
        (1, 8, 0x4b, 0x43),
        (2, 24, 0x4b, 0x46),
        (4, 64, 0x43, 16),
        (1, 128, 0x4b, 0x61),
        (1, 0, 0x4b, 0x41),
        (2, 0, 0x4b, 0x40),
        (4, 0, 0x43, 0),
    ];
    for (samples, tile_bytes, mode, low) in cases {
        let stage = LaunchStage::Fragment {
            samples,
            tile_bytes,
        };
        let mut out = build_launcher(stage, &common()).unwrap().bytes;
        assert_eq!((out[68 - 7], out[68 - 6]), (low, mode));
        out[58..66].copy_from_slice(&base[58..66]);
        assert_eq!(out, base);
    }
}

#[test]
fn invalid_parameters_are_errors() {
    let bad = |stage, c: LaunchCommon| build_launcher(stage, &c).is_err();
    assert!(bad(
        VERTEX,
        LaunchCommon {
            entry_offset: 0x12341,
            ..common()
        }
    ));
    assert!(bad(
        VERTEX,
        LaunchCommon {
            entry_offset: 0x7f_ffec,
            ..common()
        }
    ));
    assert!(!bad(
        VERTEX,
        LaunchCommon {
            entry_offset: 0x7f_ffea,
            ..common()
        }
    ));
    assert!(bad(
        VERTEX,
        LaunchCommon {
            publications: 1023,
            ..common()
        }
    ));
    for resources in [0, 19] {
        let s = LaunchStage::Compute {
            resources,
            threadgroup_bytes: 0,
        };
        assert!(bad(s, common()), "{resources} resources");
    }
    for tg in [1, 64, 129, 384, 2048] {
        let s = LaunchStage::Compute {
            resources: 1,
            threadgroup_bytes: tg,
        };
        assert!(bad(s, common()), "{tg} bytes");
    }
    for (samples, tile_bytes) in [(0, 0), (3, 0), (8, 0), (1, 129), (2, 72)] {
        assert!(bad(
            LaunchStage::Fragment {
                samples,
                tile_bytes
            },
            common()
        ));
    }
}

#[test]
fn built_programs_decode_to_their_parameters() {
    for resources in 1..=18 {
        let stage = LaunchStage::Compute {
            resources,
            threadgroup_bytes: 512,
        };
        let p = build_launcher(stage, &common()).unwrap();
        let s = summarize_launcher(&p.bytes).unwrap();
        assert_eq!(s.length, p.bytes.len());
        assert_eq!(s.resource_table, common().resource_table);
        assert_eq!(s.entry_offset, 0x12340);
        assert_eq!(s.allocation, StageAllocation::Threadgroup { bytes: 512 });
        assert_eq!(s.frame.publication_words, 10);
        let pointers: usize = s.loads.iter().map(|l| l.count as usize).sum();
        assert_eq!(
            pointers,
            resources + 1,
            "group-count pointer + visible buffers"
        );
        for l in &s.loads {
            assert_eq!(
                (l.base, l.dst as u32),
                (2, PENDING_BASE + 2 * l.offset as u32)
            );
        }
        assert_eq!(s.transfers.len(), 2 * (resources + 1));
        for (w, t) in s.transfers.iter().enumerate() {
            assert_eq!((t.word as usize, t.src as usize), (w, 18 + w));
            assert_eq!(t.waits_for_loads, w == 0, "only the first transfer waits");
        }
        // Instruction by instruction, the bytes decode to the builder's own sequence.
        let decoded: Vec<_> = decode_program(&p.bytes)
            .unwrap()
            .into_iter()
            .map(|(_, i)| i)
            .collect();
        assert_eq!(decoded, p.instrs);
    }
    assert!(
        summarize_launcher(&[0x0e, 0, 0, 0]).is_err(),
        "a bare STOP is no launcher"
    );
}

#[test]
fn arena_directory_and_entries() {
    let usc = 1u64 << 40;
    let bodies = [(usc + 0x100_0000, true), (usc + 0x40, false)];
    let a = build_arena(usc, &bodies).unwrap();
    assert_eq!(a.entries, vec![entry_offset(0), entry_offset(1)]);
    assert_eq!(
        a.bytes.len() as u64,
        HELPER_DIRECTORY_BYTES + 2 * ENTRY_BLOCK_BYTES
    );
    assert_eq!(&a.bytes[..4], &0x340u32.to_le_bytes());
    // Each helper record jumps forward to the first terminal tag of its table.
    for table in HELPER_TABLES {
        for i in 0..HELPER_SLOTS {
            let at = table + i * 0x10;
            let (_, j) = decode_program(&a.bytes[at..at + 10]).unwrap().remove(0);
            let Some(Operand::ImmInt(d)) = j.operand(Role::SrcA).map(|o| o.value) else {
                panic!("record {i} is not a jump")
            };
            let target = (at as i64 + d) as usize;
            assert_eq!(target, table + HELPER_SLOTS * 0x10);
            assert_eq!(
                decode_program(&a.bytes[target..target + 4]).unwrap()[0]
                    .1
                    .form
                    .name,
                "helper_tag"
            );
        }
    }
    // Entries: JMP_EXEC_ANY to the body, then STOP; compute blocks hold STOP + 30 pads at +0x40.
    for (k, (body, compute)) in bodies.iter().enumerate() {
        let block = (HELPER_DIRECTORY_BYTES + k as u64 * ENTRY_BLOCK_BYTES) as usize;
        let e = block + ENTRY_IN_BLOCK as usize;
        let prog = decode_program(&a.bytes[e..e + 14]).unwrap();
        assert_eq!((prog[0].1.form.op, prog[1].1.form.op), (Op::Jump, Op::Stop));
        let Some(Operand::ImmInt(d)) = prog[0].1.operand(Role::SrcA).map(|o| o.value) else {
            panic!()
        };
        assert_eq!((usc as i64 + e as i64 + d) as u64, *body);
        let constant = decode_program(&a.bytes[block + 0x40..block + 0x80]).unwrap();
        if *compute {
            assert_eq!(constant.len(), 31);
            assert_eq!(constant[0].1.form.op, Op::Stop);
        } else {
            assert!(a.bytes[block + 0x40..block + 0x80].iter().all(|b| *b == 0));
        }
    }
    assert!(
        build_arena(usc, &[(usc + (5 << 32), false)]).is_err(),
        "beyond the 4 GiB heap"
    );
    assert!(
        build_arena(usc, &[(usc + 0x41, false)]).is_err(),
        "odd body"
    );
}

#[test]
fn setup_tail_jump_lands_on_the_setup_body() {
    let launch_va = (1u64 << 40) + 0x20_0000;
    for setup_va in [launch_va + 0x1_0000, launch_va - 0x8000] {
        let p = build_launcher_with_setup(VERTEX, &common(), launch_va, setup_va).unwrap();
        let s = summarize_launcher(&p.bytes).unwrap();
        let jump_at = p.bytes.len() - 4 - 10;
        assert_eq!(
            launch_va as i64 + jump_at as i64 + s.setup_jump.unwrap(),
            setup_va as i64
        );
        assert_eq!(s.transfers.len(), 12, "the jump follows the last transfer");
    }
    assert!(build_launcher_with_setup(VERTEX, &common(), launch_va, launch_va + 1).is_err());
}

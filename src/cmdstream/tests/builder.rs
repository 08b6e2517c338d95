//! Stream builders: streams spanning many chunks walk (through the same walkers the kernel
//! and model use) to exactly the blocks pushed, in order, ending at a terminate at `end`.

use agx16_cmdstream::builder::*;
use agx16_cmdstream::cdm::{self, CdmBarrier, CdmBlock, CdmLaunchDirect, BARRIER_AFTER_LAUNCH};
use agx16_cmdstream::stream::WalkLimits;
use agx16_cmdstream::vdm::{self, Primitive, VdmBlock, VdmIndexList, RENDER_CONTEXT_BASE};

fn launch(i: u32) -> CdmBlock {
    let mut l = CdmLaunchDirect {
        global_x: i + 1,
        global_y: 1,
        global_z: 1,
        local_x: 1,
        local_y: 1,
        local_z: 1,
        ..Default::default()
    };
    l.set_pipeline((1 << 40) + 0x40 * i as u64).unwrap();
    CdmBlock::LaunchDirect(l)
}

#[test]
fn cdm_stream_links_across_chunks() {
    let mut b = StreamBuilder::cdm(ChunkPool::new(0x2_0000_0000, 0x10000, 0x80));
    for i in 0..40 {
        b.push_cdm(&launch(i)).unwrap();
        b.push_cdm(&CdmBlock::Barrier(
            CdmBarrier::from_word(BARRIER_AFTER_LAUNCH).unwrap(),
        ))
        .unwrap();
    }
    let s = b.finish().unwrap();
    assert!(s.chunks.len() > 10, "spans many chunks");
    let items = cdm::walk(&s, s.start, WalkLimits::default()).unwrap();
    let sizes: Vec<u32> = items
        .iter()
        .filter_map(|i| match &i.block {
            CdmBlock::LaunchDirect(l) => Some(l.global_x),
            _ => None,
        })
        .collect();
    assert_eq!(sizes, (1..=40).collect::<Vec<_>>());
    let last = items.last().unwrap();
    assert!(matches!(last.block, CdmBlock::Terminate(_)));
    assert_eq!(
        last.at + 4,
        s.end,
        "terminate ends the stream, as the kernel requires"
    );
    assert!(
        items.iter().all(|i| i.at >= s.start && i.at < s.end),
        "every block inside [start, end)"
    );
}

#[test]
fn vdm_stream_links_with_context_offsets() {
    let mut b = StreamBuilder::vdm(ChunkPool::new(RENDER_CONTEXT_BASE + 0x18000, 0x4000, 0x40));
    for i in 0..20 {
        b.push_vdm(&VdmBlock::IndexList(VdmIndexList::direct(
            Primitive::Triangles,
            3 * (i + 1),
            1,
            0,
        )))
        .unwrap();
    }
    let s = b.finish().unwrap();
    let items = vdm::walk(&s, s.start, WalkLimits::default()).unwrap();
    let counts: Vec<u32> = items
        .iter()
        .filter_map(|i| match &i.block {
            VdmBlock::IndexList(d) => d.count,
            _ => None,
        })
        .collect();
    assert_eq!(counts, (1..=20).map(|i| 3 * i).collect::<Vec<_>>());
}

#[test]
fn bounded_pool_and_bad_regions_are_errors() {
    let mut b = StreamBuilder::cdm(ChunkPool::new(0x1000, 0x100, 0x80));
    let mut err = None;
    for i in 0..10 {
        if let Err(e) = b.push_cdm(&launch(i)) {
            err = Some(e);
            break;
        }
    }
    assert_eq!(err, Some(BuildError::PoolExhausted(2)));
    let mut small = StreamBuilder::cdm(ChunkPool::new(0x1000, 0x100, 0x20));
    assert!(matches!(
        small.push_cdm(&launch(0)),
        Err(BuildError::BlockTooLarge { .. })
    ));
    let mut outside = StreamBuilder::vdm(ChunkPool::new(0x1000, 0x100, 0x40));
    assert!(matches!(
        outside.push_vdm(&VdmBlock::IndexList(VdmIndexList::direct(
            Primitive::Points,
            1,
            1,
            0
        ))),
        Err(BuildError::OutsideContext(_))
    ));
}

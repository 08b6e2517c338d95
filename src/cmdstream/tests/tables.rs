//! Checks over every declared record: fields lie inside the record, never overlap, and
//! every field's type holds every value its bits can encode (all-ones bytes, fixed fields
//! set, decode and re-encode exactly).

use agx16_cmdstream::record::{set_bits, Record};
use agx16_cmdstream::{cdm::*, descriptors::*, launch::*, ppp::*, render::*, vdm::*};

fn check<R: Record + Default>() {
    let mut owner = vec![None; R::SIZE * 8];
    for f in R::fields() {
        assert!(
            f.width >= 1 && (f.start + f.width) as usize <= R::SIZE * 8,
            "{}.{} outside the record",
            R::NAME,
            f.name
        );
        for b in f.start..f.start + f.width {
            if let Some(prev) = owner[b as usize].replace(f.name) {
                panic!("{}: {} overlaps {} at bit {b}", R::NAME, f.name, prev);
            }
        }
        assert!(!f.evidence.source.is_empty());
    }
    let mut bytes = vec![0xffu8; R::SIZE];
    for f in R::fields().iter().filter(|f| f.fixed.is_some()) {
        set_bits(&mut bytes, f.start, f.width, f.fixed.unwrap());
    }
    let r = R::unpack(&bytes).unwrap_or_else(|e| panic!("{}: {e}", R::NAME));
    assert_eq!(
        r.pack().unwrap(),
        bytes,
        "{}: all-ones does not round trip",
        R::NAME
    );
    let z = R::default().pack().unwrap();
    assert_eq!(
        R::unpack(&z).unwrap().pack().unwrap(),
        z,
        "{}: default does not round trip",
        R::NAME
    );
}

macro_rules! all {
    ($($t:ty),* $(,)?) => {
        #[test]
        fn every_record_table_is_sound() {
            $( check::<$t>(); )*
        }
    };
}

all!(
    CdmLaunchDirect,
    CdmLaunchIndirectGlobal,
    CdmLaunchIndirectLocal,
    CdmLink,
    CdmTerminate,
    CdmBarrier,
    CdmReturn,
    VdmPppUpdate,
    VdmBarrier,
    VdmStateHeader,
    VdmRestartIndex,
    VdmVertexWord0,
    VdmVertexWord1,
    VdmVertexOutputs,
    VdmVertexUnknown,
    VdmIndexListHeader,
    VdmIndirectBuffer,
    VdmLink,
    VdmTerminate,
    PppVaryingCounts,
    PppFragmentShader,
    PppOutputSelect,
    PppFragmentFaces,
    PppFragmentControl2,
    PppWClampCull2,
    PppCull,
    PppViewport,
    PppScissorDepthBias,
    Scissor,
    DepthBias,
    Texture,
    Pbe,
    Sampler,
    CfBindingHeader,
    CfBinding,
    CmdHeader,
    CmdCompute,
    CmdRender,
    ZlsControl,
    IspZlsPixels,
    PppControl,
    GraphicsRoots,
    ComputeResources,
);

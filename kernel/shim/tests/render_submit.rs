//! A render command submitted through DRM_IOCTL_ASAHI_SUBMIT reaches the M4
//! model's tiler/rasteriser (agx16_sim::gfx) through the shim's backend: the
//! job's outcome is the model's own verdict, never a blanket "not implemented".

#[path = "../../core/tests/common/mod.rs"]
mod common;
#[path = "../src/sim_backend.rs"]
mod sim_backend;

use agx16_cmdstream::vdm::{VdmBlock, VdmTerminate};
use agx16_kernel::backend::{ComputeContext, ComputeLaunch, GpuBackend, GpuError, JobControl};
use agx16_kernel::uapi::asahi as a;
use agx16_kernel::VmView;
use common::*;
use parking_lot::Mutex;
use sim_backend::SimBackend;
use std::sync::Arc;
use std::time::Duration;

/// The shim's backend, remembering each render verdict for the test.
#[derive(Default)]
struct Recording {
    inner: SimBackend,
    renders: Mutex<Vec<Result<(), GpuError>>>,
}

impl GpuBackend for Recording {
    fn run_compute(
        &self,
        vm: &VmView,
        ctx: &ComputeContext,
        launch: &ComputeLaunch,
        ctl: &JobControl,
    ) -> Result<(), GpuError> {
        self.inner.run_compute(vm, ctx, launch, ctl)
    }
    fn run_render(
        &self,
        vm: &VmView,
        cmd: &a::CmdRender,
        ctl: &JobControl,
    ) -> Result<(), GpuError> {
        let r = self.inner.run_render(vm, cmd, ctl);
        self.renders.lock().push(r.clone());
        r
    }
}

fn render_cmd(vdm: u64) -> a::CmdRender {
    a::CmdRender {
        vdm_ctrl_stream_base: vdm,
        isp_scissor_base: DATA_VA + 0x100,
        width_px: 64,
        height_px: 64,
        layers: 1,
        utile_width_px: 32,
        utile_height_px: 32,
        samples: 1,
        sample_size_b: 8,
        ppp_multisamplectl: 0x88,
        eot: a::BgEot {
            usc: 0x40,
            rsrc_spec: 0,
        },
        partial_eot: a::BgEot {
            usc: 0x40,
            rsrc_spec: 0,
        },
        ..Default::default()
    }
}

#[test]
fn render_jobs_reach_the_model() {
    let backend = Arc::new(Recording::default());
    let env = Env::with(backend.clone(), 10_000);
    let rig = env.rig();
    // A stream of one terminate block, and one of garbage words.
    let terminate = VdmBlock::Terminate(VdmTerminate::default()).pack().unwrap();
    env.write_bo(&rig.file, rig.data, 0x1000, &terminate);
    env.write_bo(&rig.file, rig.data, 0x2000, &[0xff; 64]);
    let mut fences = Vec::new();
    for vdm in [DATA_VA + 0x1000, DATA_VA + 0x2000] {
        let out = env.syncobj(&rig.file);
        let cmd = render_cmd(vdm);
        let buf = cmdbuf(&[(a::CMD_RENDER, bytemuck::bytes_of(&cmd).to_vec(), 0, 0)]);
        assert_eq!(
            env.submit(&rig.file, rig.queue, &buf, &[], &[binary(out)]),
            Ok(0)
        );
        env.wait(&rig.file, out, 0, Duration::from_secs(10))
            .expect("job finishes");
        let fence = rig.file.syncobj(out).unwrap().fence().expect("fence");
        fences.push(fence.status().expect("signalled"));
    }
    let renders = backend.renders.lock();
    assert_eq!(renders.len(), 2);
    // No draws: the model walks the stream, bins nothing and finishes.
    assert_eq!(renders[0], Ok(()));
    assert_eq!(fences[0], Ok(()));
    // Garbage in the control stream fails the job with the model's reason.
    match &renders[1] {
        Err(GpuError::Model(why)) => assert!(
            why.contains("VDM stream") && why.contains("unknown block type"),
            "{why}"
        ),
        other => panic!("garbage VDM words: {other:?}"),
    }
    assert_eq!(fences[1], Err(agx16_kernel::errno::Errno::EIO));
}

//! Fragment quads: the model hands the fragment stage aligned 2x2 quads with helper lanes
//! for uncovered pixels (for quad-local derivatives) and drops everything helpers write.

mod gfx_common;

use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::render::ZlsControl;
use agx16_sim::gfx::{self, Fragment, FragmentResult, Stages, TileBuffer, VertexInvocation};
use agx16_sim::{GpuMemory, SimError};
use gfx_common::*;

/// Host stages that shade whole quads, writing every lane, helpers included.
struct QuadStages {
    inner: HostStages,
    quads: u64,
    helpers: u64,
}

impl Stages for QuadStages {
    fn vertex(
        &mut self,
        mem: &dyn GpuMemory,
        inv: &VertexInvocation,
    ) -> Result<Vec<f32>, SimError> {
        self.inner.vertex(mem, inv)
    }
    fn background(
        &mut self,
        mem: &dyn GpuMemory,
        usc: u64,
        tile: &mut TileBuffer,
    ) -> Result<(), SimError> {
        self.inner.background(mem, usc, tile)
    }
    fn fragment(
        &mut self,
        _: &dyn GpuMemory,
        _: &Fragment,
        _: &mut TileBuffer,
    ) -> Result<FragmentResult, SimError> {
        panic!("the model must call fragments() for quads");
    }
    fn fragments(
        &mut self,
        mem: &dyn GpuMemory,
        quad: &[Fragment],
        tile: &mut TileBuffer,
    ) -> Result<Vec<FragmentResult>, SimError> {
        assert_eq!(quad.len(), 4);
        assert!(
            quad[0].x.is_multiple_of(2) && quad[0].y.is_multiple_of(2),
            "quads are aligned"
        );
        for (k, f) in quad.iter().enumerate() {
            assert_eq!(
                (f.x, f.y),
                (quad[0].x + (k as u32 & 1), quad[0].y + (k as u32 >> 1))
            );
            assert_eq!(f.helper, f.sample_mask == 0);
        }
        assert!(quad.iter().any(|f| !f.helper), "a quad has work");
        self.quads += 1;
        self.helpers += quad.iter().filter(|f| f.helper).count() as u64;
        let mut out = Vec::new();
        for f in quad {
            // Shade every lane; a helper's colour lands on its pixel unless the model drops it.
            let mut lane = f.clone();
            lane.sample_mask = 1;
            if tile
                .pixel(
                    f.x.wrapping_sub(tile.origin.0),
                    f.y.wrapping_sub(tile.origin.1),
                )
                .is_some()
            {
                out.push(self.inner.fragment(mem, &lane, tile)?);
            } else {
                out.push(FragmentResult::default());
            }
        }
        Ok(out)
    }
    fn end_of_tile(
        &mut self,
        mem: &dyn GpuMemory,
        usc: u64,
        tile: &TileBuffer,
    ) -> Result<(), SimError> {
        self.inner.end_of_tile(mem, usc, tile)
    }
}

#[test]
fn helpers_fill_quads_and_leave_no_writes() {
    let d = DrawSpec::tris(
        vec![
            rgba([-0.83, -0.71, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0]),
            rgba([0.91, -0.42, 0.5, 1.0], [0.0, 1.0, 0.0, 1.0]),
            rgba([-0.12, 0.88, 0.5, 1.0], [0.0, 0.0, 1.0, 1.0]),
        ],
        ShadeModel::Linear,
    );
    let scene = build(std::slice::from_ref(&d), ZlsControl::default());
    let mut st = QuadStages {
        inner: HostStages {
            draws: vec![d.clone()],
        },
        quads: 0,
        helpers: 0,
    };
    let stats = gfx::run_render_with(&scene.pt, &scene.command(), &mut st).unwrap();
    let want = reference(&[d]);
    compare(&image(&scene.pt), &want);
    // Every covered pixel is in exactly one quad; the rest of the quads' lanes are helpers.
    assert_eq!(st.quads * 4, want.passed[0] + st.helpers);
    assert!(st.helpers > 0, "slanted edges leave partial quads");
    assert_eq!(stats.fragments_shaded, want.passed[0]);
}

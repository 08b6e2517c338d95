//! How work reaches the stages: fragments in aligned 2x2 quads with helper lanes for
//! uncovered pixels (quad-local derivatives), whose writes are dropped; vertices in
//! SIMD-group-sized batches.

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
    groups: u64,
    full_groups: u64,
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
        // One SIMD-group: 1..=8 whole quads, lanes 4q..4q+3 quad q, of one primitive.
        assert!(!quad.is_empty() && quad.len() <= 32 && quad.len().is_multiple_of(4));
        for q in quad.chunks(4) {
            assert!(
                q[0].x.is_multiple_of(2) && q[0].y.is_multiple_of(2),
                "quads are aligned"
            );
            for (k, f) in q.iter().enumerate() {
                assert_eq!(
                    (f.x, f.y),
                    (q[0].x + (k as u32 & 1), q[0].y + (k as u32 >> 1))
                );
                assert_eq!(f.helper, f.sample_mask == 0);
                assert_eq!(f.draw, quad[0].draw, "one draw per group");
            }
            assert!(q.iter().any(|f| !f.helper), "a quad has work");
        }
        self.groups += 1;
        self.full_groups += (quad.len() == 32) as u64;
        self.quads += quad.len() as u64 / 4;
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
        groups: 0,
        full_groups: 0,
    };
    let stats = gfx::run_render_with(&scene.pt, &scene.command(), &mut st).unwrap();
    let want = reference(&[d]);
    compare(&image(&scene.pt), &want);
    // Every covered pixel is in exactly one quad; the rest of the quads' lanes are helpers.
    assert_eq!(st.quads * 4, want.passed[0] + st.helpers);
    assert!(st.helpers > 0, "slanted edges leave partial quads");
    // Quads are packed eight to a SIMD-group, so most groups are full.
    assert!(
        st.groups * 8 < st.quads * 2,
        "{} quads in {} groups",
        st.quads,
        st.groups
    );
    assert!(st.full_groups > 0);
    assert_eq!(stats.fragments_shaded, want.passed[0]);
}

/// Host stages that take vertices in batches and record them.
struct BatchStages {
    inner: HostStages,
    batches: Vec<Vec<(usize, u32, u32)>>,
}

impl Stages for BatchStages {
    fn vertex(&mut self, _: &dyn GpuMemory, _: &VertexInvocation) -> Result<Vec<f32>, SimError> {
        panic!("the model must call vertices() in batches");
    }
    fn vertices(
        &mut self,
        mem: &dyn GpuMemory,
        invs: &[VertexInvocation],
    ) -> Result<Vec<Vec<f32>>, SimError> {
        self.batches.push(
            invs.iter()
                .map(|i| (i.draw, i.instance_id, i.vertex_id))
                .collect(),
        );
        invs.iter().map(|i| self.inner.vertex(mem, i)).collect()
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
        mem: &dyn GpuMemory,
        f: &Fragment,
        tile: &mut TileBuffer,
    ) -> Result<FragmentResult, SimError> {
        self.inner.fragment(mem, f, tile)
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
fn vertices_arrive_in_simd_group_batches() {
    // 33 small triangles (99 vertices), two instances.
    let verts: Vec<Vtx> = (0..99)
        .map(|i| {
            let (t, k) = (i / 3, i % 3);
            let (cx, cy) = (-0.9 + 0.3 * (t % 6) as f32, -0.9 + 0.3 * (t / 6) as f32);
            let p = [[0.0, 0.0], [0.2, 0.0], [0.0, 0.2]][k];
            rgba(
                [cx + p[0] / 2.0, cy + p[1], 0.5, 1.0],
                [t as f32 / 33.0, 0.5, 0.5, 1.0],
            )
        })
        .collect();
    let d = DrawSpec {
        instances: 2,
        ..DrawSpec::tris(verts, ShadeModel::Linear)
    };
    let scene = build(std::slice::from_ref(&d), ZlsControl::default());
    let mut st = BatchStages {
        inner: HostStages {
            draws: vec![d.clone()],
        },
        batches: Vec::new(),
    };
    gfx::run_render_with(&scene.pt, &scene.command(), &mut st).unwrap();
    compare(&image(&scene.pt), &reference(&[d]));
    // 99 vertices per instance: batches of 32, 32, 32, 3, each within one instance.
    let sizes: Vec<usize> = st.batches.iter().map(|b| b.len()).collect();
    assert_eq!(sizes, vec![32, 32, 32, 3, 32, 32, 32, 3]);
    for b in &st.batches {
        assert!(b.iter().all(|(d, inst, _)| *d == 0 && *inst == b[0].1));
    }
}

//! Bad commands, streams and state are errors naming what and where, never panics.
#![allow(clippy::cloned_ref_to_slice_refs)] // `&[d.clone()]` reads better in scene lists

mod gfx_common;

use agx16_cmdstream::descriptors::{
    pack_cf_table, CfBinding, CfBindingHeader, CoefficientSource, ShadeModel,
};
use agx16_cmdstream::render::ZlsControl;
use agx16_cmdstream::vdm::*;
use agx16_cmdstream::Hex;
use agx16_sim::gfx::{
    self, Fragment, FragmentResult, RenderCommand, Stages, TileBuffer, VertexInvocation,
};
use agx16_sim::{GpuMemory, SimError};
use gfx_common::*;

fn tri() -> DrawSpec {
    DrawSpec::tris(
        vec![
            rgba([-0.5, -0.5, 0.5, 1.0], [1.0; 4]),
            rgba([0.5, -0.5, 0.5, 1.0], [1.0; 4]),
            rgba([0.0, 0.5, 0.5, 1.0], [1.0; 4]),
        ],
        ShadeModel::Linear,
    )
}

fn run_err(scene: &Scene, draws: &[DrawSpec]) -> SimError {
    let mut st = HostStages {
        draws: draws.to_vec(),
    };
    gfx::run_render_with(&scene.pt, &scene.command(), &mut st).expect_err("must fail")
}

/// A change to a command that breaks one G16 rule.
type Edit = dyn Fn(&mut agx16_cmdstream::render::CmdRender);

#[test]
fn commands_outside_the_g16_rules_are_refused() {
    let base = build(&[tri()], ZlsControl::default()).cmd;
    let cases: Vec<(&str, Box<Edit>)> = vec![
        ("utile", Box::new(|c| c.utile_width_px = 8)),
        ("samples", Box::new(|c| c.samples = 3)),
        (
            "ppp_multisamplectl",
            Box::new(|c| c.ppp_multisamplectl = Hex(0x44cc)),
        ),
        ("end-of-tile", Box::new(|c| c.eot_usc = Hex(0))),
        (
            "isp_scissor_base",
            Box::new(|c| c.isp_scissor_base = Hex(0)),
        ),
        ("helper", Box::new(|c| c.vertex_helper_binary = Hex(1))),
        ("layers", Box::new(|c| c.layers = 2)),
        ("tilebuffer", Box::new(|c| c.sample_size_b = 128)),
        ("flags", Box::new(|c| c.flags = Hex(1 << 5))),
    ];
    for (what, f) in cases {
        let mut c = base.clone();
        f(&mut c);
        let e = RenderCommand::new(c).expect_err(what).to_string();
        assert!(e.contains(what), "{what}: {e}");
    }
    assert!(RenderCommand::from_bytes(&[0u8; 12]).is_err());
}

#[test]
fn topologies_gles_never_uses_are_refused_by_name() {
    let d = DrawSpec {
        prim: Primitive::Quads,
        ..tri()
    };
    let scene = build(&[d.clone(), tri()], ZlsControl::default());
    match run_err(&scene, &[d]) {
        SimError::Unestablished { what, .. } => assert!(what.contains("Quads"), "{what}"),
        e => panic!("{e:?}"),
    }
}

#[test]
fn index_reads_past_the_declared_range_or_unmapped_memory_fail() {
    let d = DrawSpec {
        indexed: Some((IndexSize::U16, vec![0, 1, 2], None)),
        ..tri()
    };
    let pt = new_memory();
    let mut blocks = vdm_blocks(&[d.clone()], &pt);
    if let Some(VdmBlock::IndexList(l)) = blocks.last_mut() {
        l.count = Some(9); // 18 bytes, the list declares 8
    }
    let scene = build_blocks(pt, &blocks, ZlsControl::default());
    assert!(run_err(&scene, &[d.clone()])
        .to_string()
        .contains("declares"));

    let pt = new_memory();
    let mut blocks = vdm_blocks(&[d.clone()], &pt);
    if let Some(VdmBlock::IndexList(l)) = blocks.last_mut() {
        l.buffer_lo = Some(0x8000_0000); // unmapped USC address
    }
    let scene = build_blocks(pt, &blocks, ZlsControl::default());
    assert!(matches!(run_err(&scene, &[d]), SimError::Fault(_)));
}

#[test]
fn partial_ppp_updates_and_missing_state_are_errors() {
    let pt = new_memory();
    let mut blocks = vdm_blocks(&[tri()], &pt);
    blocks.remove(3); // one of the nine PPP updates
    let scene = build_blocks(pt, &blocks, ZlsControl::default());
    assert!(run_err(&scene, &[tri()]).to_string().contains("PPP"));

    let pt = new_memory();
    let mut blocks = vdm_blocks(&[tri()], &pt);
    blocks.remove(0); // the vertex state
    let scene = build_blocks(pt, &blocks, ZlsControl::default());
    assert!(run_err(&scene, &[tri()]).to_string().contains("launch"));
}

#[test]
fn coefficient_sources_without_established_layout_are_refused() {
    let scene = build(&[tri()], ZlsControl::default());
    let header = CfBindingHeader {
        slots: 3,
        coefficient_registers: 3,
        ..Default::default()
    };
    let w = CfBinding {
        components: 1,
        shade_model: ShadeModel::Linear,
        base_slot: 0,
        base_coefficient: 0,
        ..Default::default()
    };
    let pc = CfBinding {
        components: 2,
        shade_model: ShadeModel::Linear,
        source: CoefficientSource::PointCoord,
        base_coefficient: 1,
        ..Default::default()
    };
    scene
        .pt
        .host_write(USC + 0x1000, &pack_cf_table(&header, &[w, pc]).unwrap())
        .unwrap();
    match run_err(&scene, &[tri()]) {
        SimError::Unestablished { form, what, .. } => {
            assert_eq!(form, "CF binding");
            assert!(what.contains("point coordinate"), "{what}");
        }
        e => panic!("{e:?}"),
    }
}

/// Stages whose vertex stage returns what the closure gives for each invocation and whose
/// other stages do nothing: what the model makes of odd vertex outputs.
struct VertexOnly<F>(F);
impl<F: FnMut(&VertexInvocation) -> Vec<f32>> Stages for VertexOnly<F> {
    fn vertex(&mut self, _: &dyn GpuMemory, inv: &VertexInvocation) -> Result<Vec<f32>, SimError> {
        Ok((self.0)(inv))
    }
    fn background(
        &mut self,
        _: &dyn GpuMemory,
        _: u64,
        _: &mut TileBuffer,
    ) -> Result<(), SimError> {
        Ok(())
    }
    fn fragment(
        &mut self,
        _: &dyn GpuMemory,
        _: &Fragment,
        _: &mut TileBuffer,
    ) -> Result<FragmentResult, SimError> {
        Ok(FragmentResult::default())
    }
    fn end_of_tile(&mut self, _: &dyn GpuMemory, _: u64, _: &TileBuffer) -> Result<(), SimError> {
        Ok(())
    }
}

/// Stages that return the wrong number of vertex outputs.
fn short_vertex() -> VertexOnly<impl FnMut(&VertexInvocation) -> Vec<f32>> {
    VertexOnly(|_: &VertexInvocation| vec![0.0; 3])
}

#[test]
fn vertex_stage_output_count_is_checked() {
    let scene = build(&[tri()], ZlsControl::default());
    let e = gfx::run_render_with(&scene.pt, &scene.command(), &mut short_vertex()).unwrap_err();
    assert!(e.to_string().contains("3 outputs"), "{e}");
}

#[test]
fn huge_draws_hit_the_model_limit_instead_of_the_host() {
    let pt = new_memory();
    let mut blocks = vdm_blocks(&[tri()], &pt);
    if let Some(VdmBlock::IndexList(l)) = blocks.last_mut() {
        l.instances = Some(u32::MAX);
    }
    let scene = build_blocks(pt, &blocks, ZlsControl::default());
    assert!(run_err(&scene, &[tri()]).to_string().contains("limit"));
}

#[test]
fn hostile_streams_never_panic() {
    // A small LCG: deterministic garbage words as the VDM stream and as PPP state.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for round in 0..200 {
        let scene = build(&[tri()], ZlsControl::default());
        let mut words = Vec::new();
        for _ in 0..64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            words.extend(((x >> 32) as u32).to_le_bytes());
        }
        let target = if round % 2 == 0 {
            scene.cmd.vdm_ctrl_stream_base.0
        } else {
            RC + 0x58000
        };
        scene.pt.host_write(target, &words).unwrap();
        let mut st = HostStages { draws: vec![tri()] };
        let _ = gfx::run_render_with(&scene.pt, &scene.command(), &mut st);
    }
}

#[test]
fn a_cancelled_render_stops_with_a_budget_error() {
    let scene = build(&[tri()], ZlsControl::default());
    let mut st = HostStages { draws: vec![tri()] };
    let e =
        gfx::run_render_cancellable(&scene.pt, &scene.command(), &mut st, &|| true).unwrap_err();
    assert!(matches!(e, SimError::Budget { .. }), "{e:?}");
}

/// Vertex stages that return non-finite or enormous positions.
fn wild_vertex(mut seed: u32) -> VertexOnly<impl FnMut(&VertexInvocation) -> Vec<f32>> {
    VertexOnly(move |inv: &VertexInvocation| {
        let wild = [
            f32::NAN,
            f32::INFINITY,
            -1e30,
            1e30,
            0.0,
            -0.0,
            f32::MIN_POSITIVE,
        ];
        let k = (seed as usize + inv.vertex_id as usize * 3) % wild.len();
        seed = seed.wrapping_mul(7).wrapping_add(3);
        let mut out = vec![0.5f32; inv.outputs];
        for (i, o) in out.iter_mut().take(4).enumerate() {
            *o = wild[(k + i) % wild.len()];
        }
        out
    })
}

#[test]
fn wild_vertex_positions_and_viewports_never_panic() {
    use agx16_cmdstream::ppp::PppPage;
    for seed in 0..40 {
        for prim in [Primitive::Triangles, Primitive::Lines, Primitive::Points] {
            let d = DrawSpec { prim, ..tri() };
            let scene = build(&[d], ZlsControl::default());
            if seed % 4 == 3 {
                // A hostile viewport scale on top.
                let mut bytes = vec![0u8; 256];
                scene.pt.host_read(RC + 0x58000, &mut bytes).unwrap();
                let mut page = PppPage::unpack(&bytes).unwrap();
                page.viewport.scale_x = 1e30;
                scene
                    .pt
                    .host_write(RC + 0x58000, &page.pack().unwrap())
                    .unwrap();
            }
            if seed % 4 == 3 {
                let mut st = HostStages {
                    draws: vec![DrawSpec { prim, ..tri() }],
                };
                let _ = gfx::run_render_with(&scene.pt, &scene.command(), &mut st);
            } else {
                let _ = gfx::run_render_with(&scene.pt, &scene.command(), &mut wild_vertex(seed));
            }
        }
    }
}

/// Vertex stages whose position is NaN in every vertex that `bad` selects.
fn nan_position(bad: fn(u32) -> bool) -> VertexOnly<impl FnMut(&VertexInvocation) -> Vec<f32>> {
    VertexOnly(move |inv: &VertexInvocation| {
        let mut out = vec![0.5f32; inv.outputs];
        out[..4].copy_from_slice(&[0.0, 0.0, 0.0, 1.0]);
        if bad(inv.vertex_id) {
            out[0] = f32::NAN;
        }
        out
    })
}

/// A primitive with a NaN position is culled, never a failed job (agx16_sim::value_rules
/// NonFinitePosition, inferred: counted per primitive; strict mode refuses it).
#[test]
fn nan_positions_cull_their_primitive() {
    use agx16_sim::value_rules::{self, Rule};
    for prim in [Primitive::Triangles, Primitive::Lines, Primitive::Points] {
        let scene = build(&[DrawSpec { prim, ..tri() }], ZlsControl::default());
        let mut st = nan_position(|_| true);
        let (r, used) = value_rules::with_strict(false, || {
            value_rules::scoped(|| gfx::run_render_with(&scene.pt, &scene.command(), &mut st))
        });
        let stats = r.unwrap_or_else(|e| panic!("{prim:?}: {e}"));
        assert!(used.get(Rule::NonFinitePosition) >= 1, "{prim:?}");
        assert_eq!(stats.fragments_rasterized, 0, "{prim:?}");
        assert_eq!(stats.primitives_culled, stats.primitives, "{prim:?}");
        let mut st = nan_position(|_| true);
        let e = value_rules::with_strict(true, || {
            gfx::run_render_with(&scene.pt, &scene.command(), &mut st).unwrap_err()
        });
        assert!(e.to_string().contains("nonfinite_position"), "{e}");
    }
}

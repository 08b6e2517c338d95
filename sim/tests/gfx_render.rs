//! Render-model tests: streams built with agx16-cmdstream's builders, run through
//! `agx16_sim::gfx`, compared with a CPU reference rasteriser written here from the
//! documented rules (viewport transform, 1/256-pixel snapping, pixel-centre sampling with
//! the top-left rule, perspective-correct interpolation, OpenGL depth compare).
//! The shader stages are host stages (vertex fetch from a buffer, colour to the
//! tilebuffer, tilebuffer to a linear image at end of tile): the ISA launcher path is not
//! established yet (see `isa_stages_refuse_with_the_launcher_address`).

use agx16_cmdstream::builder::{ChunkPool, StreamBuilder};
use agx16_cmdstream::descriptors::{pack_cf_table, CfBinding, CfBindingHeader, CoefficientSource, ShadeModel};
use agx16_cmdstream::ppp::{PassType, PppVertex, PppPage, VisibilityMode, ZsFunc, PPP_RECORDS};
use agx16_cmdstream::render::{CmdRender, IspZlsPixels, ZlsControl, ZlsFormat, RENDER_PROCESS_EMPTY_TILES};
use agx16_cmdstream::vdm::*;
use agx16_cmdstream::{Hex, Record, Unexplained};
use agx16_sim::gfx::{self, Fragment, FragmentResult, RenderCommand, Stages, TileBuffer, VertexInvocation};
use agx16_sim::{GpuMemory, PageTable, SimError};

const RC: u64 = RENDER_CONTEXT_BASE;
const USC: u64 = USC_BASE;
const VB: u64 = 0x2_0000_0000;
const IMG: u64 = 0x3_0000_0000;
const DEPTH: u64 = 0x4_0000_0000;
const SCISSOR: u64 = 0x5_0000_0000;
const OCC: u64 = 0x6_0000_0000;
const W: u32 = 64;
const H: u32 = 64;
const CLEAR: [u8; 4] = [10, 20, 30, 255];

/// One vertex: clip-space position and an RGBA colour.
type Vtx = [f32; 8];

#[derive(Clone)]
struct DrawSpec {
    prim: Primitive,
    verts: Vec<Vtx>,
    /// (size, indices, restart value) for indexed draws.
    indexed: Option<(IndexSize, Vec<u32>, Option<u32>)>,
    shade: ShadeModel,
    provoking: ProvokingVertex,
    depth: ZsFunc,
    depth_write: bool,
    cull_back: bool,
    instances: u32,
}

impl DrawSpec {
    fn tris(verts: Vec<Vtx>, shade: ShadeModel) -> Self {
        DrawSpec {
            prim: Primitive::Triangles,
            verts,
            indexed: None,
            shade,
            provoking: ProvokingVertex::Last,
            depth: ZsFunc::Always,
            depth_write: false,
            cull_back: false,
            instances: 1,
        }
    }
}

/// Host shader stages standing in for the compiled programs.
struct HostStages {
    draws: Vec<DrawSpec>,
}

fn unorm8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

impl Stages for HostStages {
    fn vertex(&mut self, mem: &dyn GpuMemory, inv: &VertexInvocation) -> Result<Vec<f32>, SimError> {
        // Vertex fetch happens in the vertex program on G16: read the buffer like one would.
        let mut b = [0u8; 32];
        mem.read(VB + 0x1000 * inv.draw as u64 + 32 * inv.vertex_id as u64, &mut b)?;
        let mut out: Vec<f32> = b.chunks(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        // Instances shift right by a quarter of the viewport (instance_id reaches the stage).
        out[0] += 0.5 * inv.instance_id as f32 * out[3];
        Ok(out)
    }
    fn background(&mut self, _: &dyn GpuMemory, _: u64, tile: &mut TileBuffer) -> Result<(), SimError> {
        for px in tile.bytes.chunks_mut(4) {
            px.copy_from_slice(&CLEAR);
        }
        Ok(())
    }
    fn fragment(&mut self, _: &dyn GpuMemory, f: &Fragment, tile: &mut TileBuffer) -> Result<FragmentResult, SimError> {
        let persp = self.draws[f.draw].shade == ShadeModel::Perspective;
        let mut c = [0u8; 4];
        for (k, v) in c.iter_mut().enumerate() {
            let x = if persp { f.iterate_perspective(1 + k) } else { f.iterate_linear(1 + k) };
            *v = unorm8(x.unwrap());
        }
        let (x, y) = (f.x - tile.origin.0, f.y - tile.origin.1);
        tile.pixel_mut(x, y).unwrap().copy_from_slice(&c);
        Ok(FragmentResult { discard: false })
    }
    fn end_of_tile(&mut self, mem: &dyn GpuMemory, _: u64, tile: &TileBuffer) -> Result<(), SimError> {
        for y in 0..tile.height {
            for x in 0..tile.width {
                let (px, py) = (tile.origin.0 + x, tile.origin.1 + y);
                if px < W && py < H {
                    mem.write(IMG + 4 * (py * W + px) as u64, tile.pixel(x, y).unwrap())?;
                }
            }
        }
        Ok(())
    }
}

fn page_for(d: &DrawSpec, index: usize) -> PppPage {
    let mut p = PppPage::unpack(&[0u8; 256]).unwrap();
    p.fragment_shader.cf_binding_count = 2;
    p.fragment_shader.cf_bindings = 0x1000 + 0x100 * index as u32;
    p.fragment_shader.launch = 0x9000;
    p.output_select.varyings = true;
    p.output_select.output_count = 8;
    let f = &mut p.fragment_faces;
    f.front_depth_function = d.depth;
    f.back_depth_function = d.depth;
    f.front_disable_depth_write = !d.depth_write;
    f.back_disable_depth_write = !d.depth_write;
    f.visibility_mode = VisibilityMode::Counting;
    f.occlusion_index = index as u16;
    p.fragment_control_2.pass_type = PassType::Opaque;
    let v = &mut p.viewport;
    (v.translate_x, v.scale_x) = (W as f32 / 2.0, W as f32 / 2.0);
    (v.translate_y, v.scale_y) = (H as f32 / 2.0, -(H as f32) / 2.0);
    (v.translate_z, v.scale_z) = (0.0, 1.0);
    p.cull.depth_clip = true;
    p.cull.flat_shading_vertex = match d.provoking {
        ProvokingVertex::First => PppVertex::V0,
        _ => PppVertex::V2,
    };
    p.cull.front_face_ccw = true;
    p.cull.cull_back = d.cull_back;
    p
}

fn cf_table(shade: ShadeModel) -> Vec<u8> {
    // Mesa's T8132 table shape: 1/W in coefficient 0, then the four colour scalars.
    let header = CfBindingHeader { slots: 5, coefficient_registers: 5, ..Default::default() };
    let w = CfBinding { components: 1, shade_model: ShadeModel::Linear, source: CoefficientSource::Varying, base_slot: 0, base_coefficient: 0, ..Default::default() };
    let c = CfBinding { components: 4, shade_model: shade, source: CoefficientSource::Varying, base_slot: 1, base_coefficient: 1, ..Default::default() };
    pack_cf_table(&header, &[w, c]).unwrap()
}

struct Scene {
    pt: PageTable,
    cmd: RenderCommand,
}

fn build(draws: &[DrawSpec], zls: ZlsControl) -> Scene {
    let pt = PageTable::new();
    for (va, len) in [(RC, 0x100000), (USC, 0x100000), (VB, 0x10000), (IMG, 0x4000), (DEPTH, 0x8000), (SCISSOR, 0x4000), (OCC, 0x4000)] {
        pt.map(va, len, true, true).unwrap();
    }
    let mut sb = StreamBuilder::vdm(ChunkPool::new(RC + 0x18000, 0x10000, 0x1000));
    for (i, d) in draws.iter().enumerate() {
        let vb: Vec<u8> = d.verts.iter().flatten().flat_map(|f| f.to_le_bytes()).collect();
        pt.host_write(VB + 0x1000 * i as u64, &vb).unwrap();
        pt.host_write(USC + 0x1000 + 0x100 * i as u64, &cf_table(d.shade)).unwrap();
        let page = page_for(d, i).pack().unwrap();
        let page_off = 0x58000 + 0x100 * i as u32;
        pt.host_write(RC + page_off as u64, &page).unwrap();
        let state = VdmState {
            restart_index: d.indexed.as_ref().and_then(|x| x.2).map(|value| VdmRestartIndex { value, ..Default::default() }),
            vertex_word0: Some(VdmVertexWord0::default()),
            vertex_word1: Some(VdmVertexWord1 { pipeline_word: Unexplained(0x0100_0000), launch: 0x8000, ..Default::default() }),
            vertex_outputs: Some(VdmVertexOutputs { count_1: 8, count_2: 8, ..Default::default() }),
            vertex_unknown: Some(VdmVertexUnknown { flat_shading_control: d.provoking, ..Default::default() }),
        };
        sb.push_vdm(&VdmBlock::State(state)).unwrap();
        for (off, words, _) in PPP_RECORDS {
            let u = VdmPppUpdate { size_words: words, pointer: page_off + off as u32, ..Default::default() };
            sb.push_vdm(&VdmBlock::PppUpdate(u)).unwrap();
        }
        let list = match &d.indexed {
            None => VdmIndexList::direct(d.prim, d.verts.len() as u32, d.instances, 0),
            Some((size, idx, restart)) => {
                let bytes: Vec<u8> = match size {
                    IndexSize::U8 => idx.iter().map(|i| *i as u8).collect(),
                    IndexSize::U16 => idx.iter().flat_map(|i| (*i as u16).to_le_bytes()).collect(),
                    _ => idx.iter().flat_map(|i| i.to_le_bytes()).collect(),
                };
                let va = USC + 0x20000 + 0x1000 * i as u64;
                pt.host_write(va, &bytes).unwrap();
                VdmIndexList::indexed(d.prim, *size, va, bytes.len() as u32, idx.len() as u32, d.instances, 0, restart.is_some())
            }
        };
        sb.push_vdm(&VdmBlock::IndexList(list)).unwrap();
    }
    let stream = sb.finish().unwrap();
    for c in &stream.chunks {
        pt.host_write(c.va, &c.bytes).unwrap();
    }
    let pixels = IspZlsPixels { x: W as u16, y: H as u16, ..Default::default() };
    let raw = CmdRender {
        flags: Hex(RENDER_PROCESS_EMPTY_TILES as u64),
        vdm_ctrl_stream_base: Hex(stream.start),
        isp_scissor_base: Hex(SCISSOR),
        isp_oclqry_base: Hex(OCC),
        depth_base: Hex(DEPTH),
        zls_ctrl: Hex(u64::from_le_bytes(zls.pack().unwrap().try_into().unwrap())),
        isp_zls_pixels: Hex(u32::from_le_bytes(pixels.pack().unwrap().try_into().unwrap()) as u64),
        isp_bgobjdepth: Hex(1.0f32.to_bits() as u64),
        isp_bgobjvals: Hex(0x300),
        ppp_ctrl: Hex(0x202),
        ppp_multisamplectl: Hex(0x88),
        width_px: W as u16,
        height_px: H as u16,
        layers: 1,
        utile_width_px: 32,
        utile_height_px: 32,
        samples: 1,
        sample_size_b: 4,
        bg_usc: Hex(0xa000),
        eot_usc: Hex(0xb000),
        ..Default::default()
    };
    Scene { pt, cmd: RenderCommand::new(raw).unwrap() }
}

fn image(pt: &PageTable) -> Vec<[u8; 4]> {
    let mut b = vec![0u8; (W * H * 4) as usize];
    pt.host_read(IMG, &mut b).unwrap();
    b.chunks(4).map(|c| c.try_into().unwrap()).collect()
}

// ---------------------------------------------------------------------------------------
// CPU reference: written from the documented rules, independent of the model's code.

struct RefFrame {
    color: Vec<[u8; 4]>,
    depth: Vec<f32>,
    passed: Vec<u64>,
}

fn ref_triangles(d: &DrawSpec) -> Vec<[Vtx; 3]> {
    let ids: Vec<Vec<u32>> = match &d.indexed {
        None => vec![(0..d.verts.len() as u32).collect()],
        Some((_, idx, restart)) => idx.split(|i| Some(*i) == *restart).map(|s| s.to_vec()).collect(),
    };
    let mut out = Vec::new();
    for inst in 0..d.instances {
        let v = |i: u32| {
            let mut x = d.verts[i as usize];
            x[0] += 0.5 * inst as f32 * x[3];
            x
        };
        for run in &ids {
            let n = run.len();
            match d.prim {
                Primitive::Triangles => out.extend((0..n / 3).map(|t| [v(run[3 * t]), v(run[3 * t + 1]), v(run[3 * t + 2])])),
                // GL: triangle i of a strip is (i, i+1, i+2), odd ones wound (i+1, i, i+2).
                Primitive::TriangleStrip => out.extend((0..n.saturating_sub(2)).map(|t| {
                    if t % 2 == 0 { [v(run[t]), v(run[t + 1]), v(run[t + 2])] } else { [v(run[t + 1]), v(run[t]), v(run[t + 2])] }
                })),
                _ => unreachable!(),
            }
        }
    }
    out
}

fn reference(draws: &[DrawSpec]) -> RefFrame {
    let mut f = RefFrame { color: vec![CLEAR; (W * H) as usize], depth: vec![1.0; (W * H) as usize], passed: vec![0; draws.len()] };
    for (di, d) in draws.iter().enumerate() {
        for t in ref_triangles(d) {
            // Window coordinates, snapped to 1/256 pixel.
            let win: Vec<(f64, f64, f64, f64)> = t
                .iter()
                .map(|v| {
                    let w = v[3] as f64;
                    let x = W as f64 / 2.0 + W as f64 / 2.0 * v[0] as f64 / w;
                    let y = H as f64 / 2.0 - H as f64 / 2.0 * v[1] as f64 / w;
                    ((x * 256.0).round() / 256.0, (y * 256.0).round() / 256.0, v[2] as f64 / w, w)
                })
                .collect();
            let area = (win[1].0 - win[0].0) * (win[2].1 - win[0].1) - (win[2].0 - win[0].0) * (win[1].1 - win[0].1);
            if area == 0.0 {
                continue;
            }
            // Counter-clockwise on screen (y down) has negative area; it is the front face.
            if d.cull_back && area > 0.0 {
                continue;
            }
            let s = area.signum();
            for py in 0..H {
                for px in 0..W {
                    let (cx, cy) = (px as f64 + 0.5, py as f64 + 0.5);
                    let mut b = [0.0f64; 3];
                    let mut inside = true;
                    for k in 0..3 {
                        let (a, c) = (win[(k + 1) % 3], win[(k + 2) % 3]);
                        // Edge opposite vertex k, oriented so the interior is positive.
                        let e = s * ((c.0 - a.0) * (cy - a.1) - (c.1 - a.1) * (cx - a.0));
                        let (dx, dy) = (s * (c.0 - a.0), s * (c.1 - a.1));
                        let top_left = (dy == 0.0 && dx > 0.0) || dy < 0.0;
                        inside &= e > 0.0 || (e == 0.0 && top_left);
                        b[k] = e / (s * area);
                    }
                    if !inside {
                        continue;
                    }
                    let i = (py * W + px) as usize;
                    let z = (0..3).map(|k| b[k] * win[k].2).sum::<f64>() as f32;
                    let pass = match d.depth {
                        ZsFunc::Always => true,
                        ZsFunc::Less => z < f.depth[i],
                        ZsFunc::Greater => z > f.depth[i],
                        _ => unreachable!(),
                    };
                    if !pass {
                        continue;
                    }
                    if d.depth_write {
                        f.depth[i] = z;
                    }
                    f.passed[di] += 1;
                    let mut c = [0u8; 4];
                    for (ch, out) in c.iter_mut().enumerate() {
                        let val = match d.shade {
                            ShadeModel::Perspective => {
                                let num: f64 = (0..3).map(|k| b[k] * t[k][4 + ch] as f64 / win[k].3).sum();
                                let den: f64 = (0..3).map(|k| b[k] / win[k].3).sum();
                                num / den
                            }
                            ShadeModel::Linear => (0..3).map(|k| b[k] * t[k][4 + ch] as f64).sum(),
                            _ => t[2][4 + ch] as f64, // flat, last vertex provoking
                        };
                        *out = unorm8(val as f32);
                    }
                    f.color[i] = c;
                }
            }
        }
    }
    f
}

/// Coverage must match exactly; colour within one 8-bit step (plane rounding to f32).
fn compare(got: &[[u8; 4]], want: &RefFrame) {
    let mut worst = 0;
    for (i, (g, w)) in got.iter().zip(&want.color).enumerate() {
        let bg = |c: &[u8; 4]| *c == CLEAR;
        assert_eq!(bg(g), bg(w), "coverage differs at pixel {},{}: model {g:?} reference {w:?}", i as u32 % W, i as u32 / W);
        for k in 0..4 {
            worst = worst.max((g[k] as i32 - w[k] as i32).abs());
        }
    }
    assert!(worst <= 1, "colour error {worst} steps");
}

fn run(draws: &[DrawSpec], zls: ZlsControl) -> (Scene, gfx::RenderStats) {
    let scene = build(draws, zls);
    let mut st = HostStages { draws: draws.to_vec() };
    let stats = gfx::run_render_with(&scene.pt, &scene.cmd, &mut st).unwrap();
    (scene, stats)
}

fn rgba(p: [f32; 4], c: [f32; 4]) -> Vtx {
    [p[0], p[1], p[2], p[3], c[0], c[1], c[2], c[3]]
}

#[test]
fn solid_colour_triangle() {
    let red = [1.0, 0.0, 0.0, 1.0];
    let d = DrawSpec::tris(
        vec![rgba([-0.8, -0.7, 0.5, 1.0], [0.0; 4]), rgba([0.9, -0.6, 0.5, 1.0], [0.0; 4]), rgba([0.1, 0.85, 0.5, 1.0], red)],
        ShadeModel::FlatVertex2,
    );
    let (scene, stats) = run(&[d.clone()], ZlsControl::default());
    let want = reference(&[d]);
    compare(&image(&scene.pt), &want);
    assert!(want.passed[0] > 500, "the triangle covers a real area");
    assert_eq!(stats.samples_passed, want.passed[0]);
    assert_eq!(stats.vertices_shaded, 3);
}

#[test]
fn interpolated_colour_triangle_perspective() {
    // Different W per vertex: perspective-correct and screen-linear results differ.
    let d = DrawSpec::tris(
        vec![
            rgba([-0.9, -0.9, 0.2, 1.0], [1.0, 0.0, 0.0, 1.0]),
            rgba([2.7, -2.4, 1.2, 3.0], [0.0, 1.0, 0.0, 1.0]),
            rgba([0.0, 1.6, 0.6, 2.0], [0.0, 0.0, 1.0, 0.5]),
        ],
        ShadeModel::Perspective,
    );
    let (scene, _) = run(&[d.clone()], ZlsControl::default());
    compare(&image(&scene.pt), &reference(&[d.clone()]));
    // The same triangle iterated screen-linearly must differ somewhere (the test can fail).
    let mut lin = d.clone();
    lin.shade = ShadeModel::Linear;
    let l = reference(&[lin]);
    assert_ne!(l.color, reference(&[d]).color);
}

#[test]
fn depth_test_between_two_triangles() {
    let near = DrawSpec {
        depth: ZsFunc::Less,
        depth_write: true,
        ..DrawSpec::tris(
            vec![rgba([-0.9, -0.9, 0.3, 1.0], [0.0, 1.0, 0.0, 1.0]), rgba([0.6, -0.9, 0.3, 1.0], [0.0, 1.0, 0.0, 1.0]), rgba([-0.9, 0.6, 0.3, 1.0], [0.0, 1.0, 0.0, 1.0])],
            ShadeModel::Linear,
        )
    };
    // Drawn second, sloped through the first in depth: partly in front, partly behind.
    let far = DrawSpec {
        depth: ZsFunc::Less,
        depth_write: true,
        ..DrawSpec::tris(
            vec![rgba([0.9, 0.9, 0.0, 1.0], [1.0, 0.0, 1.0, 1.0]), rgba([-0.95, 0.5, 0.6, 1.0], [1.0, 0.0, 1.0, 1.0]), rgba([0.5, -0.95, 0.6, 1.0], [1.0, 0.0, 1.0, 1.0])],
            ShadeModel::Linear,
        )
    };
    let zls = ZlsControl { z_store: true, z_store_twiddled: true, z_format: ZlsFormat::F32, ..Default::default() };
    let draws = [near, far];
    let (scene, stats) = run(&draws, zls);
    let want = reference(&draws);
    compare(&image(&scene.pt), &want);
    // Both draws win somewhere.
    assert!(want.passed[0] > 0 && want.passed[1] > 0);
    // Occlusion slots count each draw's passing samples.
    for (i, n) in want.passed.iter().enumerate() {
        let mut b = [0u8; 8];
        scene.pt.host_read(OCC + 8 * i as u64, &mut b).unwrap();
        assert_eq!(u64::from_le_bytes(b), *n, "occlusion slot {i}");
    }
    assert_eq!(stats.samples_passed, want.passed.iter().sum::<u64>());
    // Stored depth (twiddled Z32F; 64x64 fits one 16 KiB tile in Morton order).
    let layout = agx16_cmdstream::layout::PlaneLayout::twiddled(W, H, 4);
    let mut worst = 0f32;
    for y in 0..H {
        for x in 0..W {
            let mut b = [0u8; 4];
            scene.pt.host_read(DEPTH + layout.offset(x, y), &mut b).unwrap();
            worst = worst.max((f32::from_le_bytes(b) - want.depth[(y * W + x) as usize]).abs());
        }
    }
    assert!(worst < 3e-6, "depth error {worst}");
}

#[test]
fn indexed_strip_with_primitive_restart() {
    let verts: Vec<Vtx> = (0..8)
        .map(|i| {
            let x = -0.9 + 0.5 * (i / 2) as f32;
            let y = if i % 2 == 0 { -0.6 } else { 0.1 };
            rgba([x, y + 0.05 * i as f32, 0.5, 1.0], [i as f32 / 8.0, 1.0 - i as f32 / 8.0, 0.5, 1.0])
        })
        .collect();
    let idx = vec![0, 1, 2, 3, 0xffff, 4, 5, 6, 7];
    let d = DrawSpec {
        prim: Primitive::TriangleStrip,
        indexed: Some((IndexSize::U16, idx, Some(0xffff))),
        ..DrawSpec::tris(verts, ShadeModel::Linear)
    };
    let (scene, stats) = run(&[d.clone()], ZlsControl::default());
    compare(&image(&scene.pt), &reference(&[d]));
    // Two runs of 4 vertices: 2 + 2 triangles; 8 distinct vertices shaded.
    assert_eq!(stats.primitives, 4);
    assert_eq!(stats.vertices_shaded, 8);
}

#[test]
fn back_faces_are_culled_and_instances_are_drawn() {
    let ccw = vec![rgba([-0.9, -0.9, 0.5, 1.0], [1.0; 4]), rgba([-0.2, -0.9, 0.5, 1.0], [1.0; 4]), rgba([-0.9, -0.2, 0.5, 1.0], [1.0; 4])];
    let mut cw = ccw.clone();
    cw.swap(1, 2);
    cw.iter_mut().for_each(|v| v[1] += 1.0);
    let mut all = ccw.clone();
    all.extend(cw);
    let d = DrawSpec { cull_back: true, instances: 2, ..DrawSpec::tris(all, ShadeModel::Linear) };
    let (scene, stats) = run(&[d.clone()], ZlsControl::default());
    let want = reference(&[d]);
    compare(&image(&scene.pt), &want);
    assert_eq!(stats.primitives, 4);
    assert_eq!(stats.primitives_culled, 2);
    assert!(want.passed[0] > 0);
}

#[test]
fn triangles_crossing_the_clip_volume_are_clipped() {
    // Positive W everywhere: clipping in x/y equals rasterising the whole triangle and
    // keeping the framebuffer, which is what the reference does.
    let d = DrawSpec::tris(
        vec![rgba([-3.0, -0.5, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0]), rgba([2.5, -1.8, 0.5, 1.0], [0.0, 1.0, 0.0, 1.0]), rgba([0.3, 2.2, 0.5, 1.0], [0.0, 0.0, 1.0, 1.0])],
        ShadeModel::Perspective,
    );
    let (scene, stats) = run(&[d.clone()], ZlsControl::default());
    compare(&image(&scene.pt), &reference(&[d]));
    assert_eq!(stats.primitives_clipped, 1);
}

#[test]
fn isa_stages_refuse_with_the_launcher_address() {
    let d = DrawSpec::tris(vec![rgba([0.0, 0.0, 0.5, 1.0], [1.0; 4]); 3], ShadeModel::Linear);
    let scene = build(&[d], ZlsControl::default());
    match gfx::run_render(&scene.pt, &scene.cmd) {
        Err(SimError::Unestablished { form, what, .. }) => {
            assert_eq!(form, "vertex launcher");
            assert!(what.contains(&format!("{:#x}", USC + 0x8000)), "{what}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

//! Shared harness of the render-model tests: streams built with agx16-cmdstream's builders,
//! host shader stages, and a CPU reference rasteriser written here from the documented rules
//! (viewport transform, 1/256-pixel snapping, pixel-centre sampling with the top-left rule,
//! perspective-correct interpolation, OpenGL stencil/depth order and operations, scissor).
//! It shares no code with the model.
#![allow(dead_code)]

use agx16_cmdstream::builder::{ChunkPool, StreamBuilder};
use agx16_cmdstream::descriptors::{
    pack_cf_table, CfBinding, CfBindingHeader, CoefficientSource, ShadeModel,
};
use agx16_cmdstream::ppp::{
    PassType, PppPage, PppVertex, Scissor, StencilOp, VisibilityMode, ZsFunc, PPP_RECORDS,
};
use agx16_cmdstream::render::{CmdRender, IspZlsPixels, ZlsControl, RENDER_PROCESS_EMPTY_TILES};
use agx16_cmdstream::vdm::*;
use agx16_cmdstream::{Hex, Record, Unexplained};
use agx16_sim::gfx::{
    self, Fragment, FragmentResult, IsaStages, RenderCommand, Stages, TileBuffer, VertexInvocation,
};
use agx16_sim::{GpuMemory, PageTable, SimError};

pub mod render_scene;
pub mod uniform_bodies;

pub const RC: u64 = RENDER_CONTEXT_BASE;
pub const USC: u64 = USC_BASE;
pub const VB: u64 = 0x2_0000_0000;
pub const IMG: u64 = 0x3_0000_0000;
pub const DEPTH: u64 = 0x4_0000_0000;
pub const STENCIL: u64 = 0x4_0001_0000;
pub const SCISSOR: u64 = 0x5_0000_0000;
pub const OCC: u64 = 0x6_0000_0000;
pub const W: u32 = 64;
pub const H: u32 = 64;
pub const CLEAR: [u8; 4] = [10, 20, 30, 255];

/// One vertex: clip-space position and an RGBA colour.
pub type Vtx = [f32; 8];

#[derive(Clone, Copy, Debug)]
pub struct StencilSpec {
    pub func: ZsFunc,
    pub reference: u8,
    pub pass_op: StencilOp,
}

#[derive(Clone)]
pub struct DrawSpec {
    pub prim: Primitive,
    pub verts: Vec<Vtx>,
    /// (size, indices, restart value) for indexed draws.
    pub indexed: Option<(IndexSize, Vec<u32>, Option<u32>)>,
    pub shade: ShadeModel,
    pub provoking: ProvokingVertex,
    pub depth: ZsFunc,
    pub depth_write: bool,
    pub cull_back: bool,
    pub instances: u32,
    pub stencil: Option<StencilSpec>,
    /// The host fragment program discards pixels left of this column (punch-through pass).
    pub discard_left_of: Option<u32>,
    /// Scissor rectangle [min_x, min_y, max_x, max_y) in pixels.
    pub scissor: Option<[u16; 4]>,
    /// Point size written by the vertex stage (adds a ninth output).
    pub point_size: Option<f32>,
    /// Raw line width ((raw + 1) / 16 pixels).
    pub line_width_raw: u8,
}

impl DrawSpec {
    pub fn tris(verts: Vec<Vtx>, shade: ShadeModel) -> Self {
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
            stencil: None,
            discard_left_of: None,
            scissor: None,
            point_size: None,
            line_width_raw: 15,
        }
    }
    fn outputs(&self) -> u8 {
        8 + self.point_size.is_some() as u8
    }
}

pub fn rgba(p: [f32; 4], c: [f32; 4]) -> Vtx {
    [p[0], p[1], p[2], p[3], c[0], c[1], c[2], c[3]]
}

pub fn unorm8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// Host shader stages standing in for the compiled programs.
pub struct HostStages {
    pub draws: Vec<DrawSpec>,
}

impl Stages for HostStages {
    fn vertex(
        &mut self,
        mem: &dyn GpuMemory,
        inv: &VertexInvocation,
    ) -> Result<Vec<f32>, SimError> {
        // Vertex fetch happens in the vertex program on G16: read the buffer like one would.
        let mut b = [0u8; 32];
        mem.read(
            VB + 0x1000 * inv.draw as u64 + 32 * inv.vertex_id as u64,
            &mut b,
        )?;
        let mut out: Vec<f32> = b
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        // Instances shift right by a quarter of the viewport (instance_id reaches the stage).
        out[0] += 0.5 * inv.instance_id as f32 * out[3];
        if let Some(s) = self.draws[inv.draw].point_size {
            out.push(s);
        }
        Ok(out)
    }
    fn background(
        &mut self,
        _: &dyn GpuMemory,
        _: u64,
        tile: &mut TileBuffer,
    ) -> Result<(), SimError> {
        for px in tile.bytes.chunks_mut(4) {
            px.copy_from_slice(&CLEAR);
        }
        Ok(())
    }
    fn fragment(
        &mut self,
        _: &dyn GpuMemory,
        f: &Fragment,
        tile: &mut TileBuffer,
    ) -> Result<FragmentResult, SimError> {
        let d = &self.draws[f.draw];
        let persp = d.shade == ShadeModel::Perspective;
        let mut c = [0u8; 4];
        for (k, v) in c.iter_mut().enumerate() {
            let x = if persp {
                f.iterate_perspective(1 + k)
            } else {
                f.iterate_linear(1 + k)
            };
            *v = unorm8(x.unwrap());
        }
        let (x, y) = (f.x - tile.origin.0, f.y - tile.origin.1);
        // Write before deciding: the model must drop a discarded fragment's writes.
        for s in 0..tile.samples {
            if f.sample_mask & (1 << s) != 0 {
                tile.sample_mut(x, y, s).unwrap().copy_from_slice(&c);
            }
        }
        Ok(FragmentResult {
            discard: d.discard_left_of.is_some_and(|l| f.x < l),
            ..Default::default()
        })
    }
    fn end_of_tile(
        &mut self,
        mem: &dyn GpuMemory,
        _: u64,
        tile: &TileBuffer,
    ) -> Result<(), SimError> {
        for y in 0..tile.height {
            for x in 0..tile.width {
                let (px, py) = (tile.origin.0 + x, tile.origin.1 + y);
                if px < W && py < H {
                    // Resolve: the rounded mean of the samples (identity for one sample).
                    let n = tile.samples;
                    let c: [u8; 4] = std::array::from_fn(|ch| {
                        let sum: u32 = (0..n)
                            .map(|s| tile.sample(x, y, s).unwrap()[ch] as u32)
                            .sum();
                        ((sum + n / 2) / n) as u8
                    });
                    mem.write(IMG + 4 * (py * W + px) as u64, &c)?;
                }
            }
        }
        Ok(())
    }
}

pub fn page_for(d: &DrawSpec, index: usize) -> PppPage {
    let mut p = PppPage::unpack(&[0u8; 256]).unwrap();
    p.fragment_shader.cf_binding_count = 2;
    p.fragment_shader.cf_bindings = 0x1000 + 0x100 * index as u32;
    p.fragment_shader.launch = 0x9000;
    p.output_select.varyings = true;
    p.output_select.point_size = d.point_size.is_some();
    p.output_select.output_count = d.outputs() as u32;
    let f = &mut p.fragment_faces;
    f.front_depth_function = d.depth;
    f.back_depth_function = d.depth;
    f.front_disable_depth_write = !d.depth_write;
    f.back_disable_depth_write = !d.depth_write;
    f.front_line_width = d.line_width_raw;
    f.back_line_width = d.line_width_raw;
    f.visibility_mode = VisibilityMode::Counting;
    f.occlusion_index = index as u16;
    if let Some(s) = d.stencil {
        f.stencil_test_enable = true;
        f.front_stencil_reference = s.reference;
        f.front_read_mask = Hex(0xff);
        f.front_write_mask = Hex(0xff);
        f.front_stencil_compare = s.func;
        f.front_depth_pass = s.pass_op;
    }
    if let Some(s) = d.scissor {
        f.scissor_enable = true;
        p.scissor_depth_bias.scissor = index as u16;
        let _ = s;
    }
    p.fragment_control_2.pass_type = if d.discard_left_of.is_some() {
        PassType::PunchThrough
    } else {
        PassType::Opaque
    };
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

pub fn cf_table(shade: ShadeModel) -> Vec<u8> {
    // Mesa's T8132 table shape: 1/W in coefficient 0, then the four colour scalars.
    let header = CfBindingHeader {
        slots: 5,
        coefficient_registers: 5,
        ..Default::default()
    };
    let w = CfBinding {
        components: 1,
        shade_model: ShadeModel::Linear,
        source: CoefficientSource::Varying,
        base_slot: 0,
        base_coefficient: 0,
        ..Default::default()
    };
    let c = CfBinding {
        components: 4,
        shade_model: shade,
        source: CoefficientSource::Varying,
        base_slot: 1,
        base_coefficient: 1,
        ..Default::default()
    };
    pack_cf_table(&header, &[w, c]).unwrap()
}

pub struct Scene {
    pub pt: PageTable,
    pub cmd: CmdRender,
}

impl Scene {
    pub fn command(&self) -> RenderCommand {
        RenderCommand::new(self.cmd.clone()).unwrap()
    }
}

pub fn vdm_blocks(draws: &[DrawSpec], pt: &PageTable) -> Vec<VdmBlock> {
    let mut out = Vec::new();
    for (i, d) in draws.iter().enumerate() {
        let vb: Vec<u8> = d
            .verts
            .iter()
            .flatten()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        pt.host_write(VB + 0x1000 * i as u64, &vb).unwrap();
        pt.host_write(USC + 0x1000 + 0x100 * i as u64, &cf_table(d.shade))
            .unwrap();
        let page = page_for(d, i).pack().unwrap();
        let page_off = 0x58000 + 0x100 * i as u32;
        pt.host_write(RC + page_off as u64, &page).unwrap();
        if let Some([x0, y0, x1, y1]) = d.scissor {
            let s = Scissor {
                min_x: x0,
                min_y: y0,
                max_x: x1,
                max_y: y1,
                min_z: 0.0,
                max_z: 1.0,
                ..Default::default()
            };
            pt.host_write(SCISSOR + 16 * i as u64, &s.pack().unwrap())
                .unwrap();
        }
        let n = d.outputs();
        let state = VdmState {
            restart_index: d
                .indexed
                .as_ref()
                .and_then(|x| x.2)
                .map(|value| VdmRestartIndex {
                    value,
                    ..Default::default()
                }),
            vertex_word0: Some(VdmVertexWord0::default()),
            vertex_word1: Some(VdmVertexWord1 {
                pipeline_word: Unexplained(0x0100_0000),
                launch: 0x8000,
                ..Default::default()
            }),
            vertex_outputs: Some(VdmVertexOutputs {
                count_1: n,
                count_2: n,
                ..Default::default()
            }),
            vertex_unknown: Some(VdmVertexUnknown {
                flat_shading_control: d.provoking,
                ..Default::default()
            }),
        };
        out.push(VdmBlock::State(state));
        for (off, words, _) in PPP_RECORDS {
            let u = VdmPppUpdate {
                size_words: words,
                pointer: page_off + off as u32,
                ..Default::default()
            };
            out.push(VdmBlock::PppUpdate(u));
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
                VdmIndexList::indexed(
                    d.prim,
                    *size,
                    va,
                    bytes.len() as u32,
                    idx.len() as u32,
                    d.instances,
                    0,
                    restart.is_some(),
                )
            }
        };
        out.push(VdmBlock::IndexList(list));
    }
    out
}

pub fn new_memory() -> PageTable {
    let pt = PageTable::new();
    for (va, len) in [
        (RC, 0x100000),
        (USC, 0x100000),
        (VB, 0x10000),
        (IMG, 0x4000),
        (DEPTH, 0x20000),
        (SCISSOR, 0x4000),
        (OCC, 0x4000),
    ] {
        pt.map(va, len, true, true).unwrap();
    }
    pt
}

/// Builds the stream from blocks (the builder adds links between chunks and the terminate).
pub fn build_blocks(pt: PageTable, blocks: &[VdmBlock], zls: ZlsControl) -> Scene {
    let mut sb = StreamBuilder::vdm(ChunkPool::new(RC + 0x18000, 0x10000, 0x100));
    for b in blocks {
        sb.push_vdm(b).unwrap();
    }
    let stream = sb.finish().unwrap();
    for c in &stream.chunks {
        pt.host_write(c.va, &c.bytes).unwrap();
    }
    let pixels = IspZlsPixels {
        x: W as u16,
        y: H as u16,
        ..Default::default()
    };
    let cmd = CmdRender {
        flags: Hex(RENDER_PROCESS_EMPTY_TILES as u64),
        vdm_ctrl_stream_base: Hex(stream.start),
        isp_scissor_base: Hex(SCISSOR),
        isp_oclqry_base: Hex(OCC),
        depth_base: Hex(DEPTH),
        stencil_base: Hex(STENCIL),
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
    Scene { pt, cmd }
}

pub fn build(draws: &[DrawSpec], zls: ZlsControl) -> Scene {
    let pt = new_memory();
    let blocks = vdm_blocks(draws, &pt);
    build_blocks(pt, &blocks, zls)
}

pub fn image(pt: &PageTable) -> Vec<[u8; 4]> {
    let mut b = vec![0u8; (W * H * 4) as usize];
    pt.host_read(IMG, &mut b).unwrap();
    b.chunks(4).map(|c| c.try_into().unwrap()).collect()
}

pub fn run_scene(scene: &Scene, draws: &[DrawSpec]) -> gfx::RenderStats {
    let mut st = HostStages {
        draws: draws.to_vec(),
    };
    gfx::run_render_with(&scene.pt, &scene.command(), &mut st).unwrap()
}

pub fn run(draws: &[DrawSpec], zls: ZlsControl) -> (Scene, gfx::RenderStats) {
    let scene = build(draws, zls);
    let stats = run_scene(&scene, draws);
    (scene, stats)
}

// ---------------------------------------------------------------------------------------
// CPU reference.

pub struct RefFrame {
    pub color: Vec<[u8; 4]>,
    pub depth: Vec<f32>,
    pub stencil: Vec<u8>,
    pub passed: Vec<u64>,
}

/// A primitive in window coordinates: vertices (x, y, z, w, colour).
enum Shape {
    /// Vertices and the colour of the GL provoking vertex (for flat shading).
    Tri([(f64, f64, f64, f64, [f32; 4]); 3], [f32; 4]),
    Point {
        x: f64,
        y: f64,
        z: f64,
        size: f64,
        c: [f32; 4],
    },
    Line([(f64, f64, f64, f64, [f32; 4]); 2], f64),
}

fn window(v: &Vtx) -> (f64, f64, f64, f64, [f32; 4]) {
    let w = v[3] as f64;
    let x = W as f64 / 2.0 + W as f64 / 2.0 * v[0] as f64 / w;
    let y = H as f64 / 2.0 - H as f64 / 2.0 * v[1] as f64 / w;
    let snap = |c: f64| (c * 256.0).round() / 256.0;
    (
        snap(x),
        snap(y),
        v[2] as f64 / w,
        w,
        [v[4], v[5], v[6], v[7]],
    )
}

fn shapes(d: &DrawSpec) -> Vec<(Shape, bool)> {
    let ids: Vec<Vec<u32>> = match &d.indexed {
        None => vec![(0..d.verts.len() as u32).collect()],
        Some((_, idx, restart)) => idx
            .split(|i| Some(*i) == *restart)
            .map(|s| s.to_vec())
            .collect(),
    };
    let mut out = Vec::new();
    for inst in 0..d.instances {
        let v = |i: u32| {
            let mut x = d.verts[i as usize];
            x[0] += 0.5 * inst as f32 * x[3];
            window(&x)
        };
        for run in &ids {
            let n = run.len();
            let first = d.provoking == ProvokingVertex::First;
            // GL provoking vertex: first or last of the primitive's own vertex order
            // (fans: i+1 first, i+2 last), whatever order the triangle is wound in.
            let tri =
                |a: u32, b: u32, c: u32, p: u32| (Shape::Tri([v(a), v(b), v(c)], v(p).4), true);
            match d.prim {
                Primitive::Triangles => out.extend((0..n / 3).map(|t| {
                    let p = if first { run[3 * t] } else { run[3 * t + 2] };
                    tri(run[3 * t], run[3 * t + 1], run[3 * t + 2], p)
                })),
                // GL: strip triangle i is (i, i+1, i+2), odd ones wound (i+1, i, i+2).
                Primitive::TriangleStrip => out.extend((0..n.saturating_sub(2)).map(|t| {
                    let p = if first { run[t] } else { run[t + 2] };
                    if t % 2 == 0 {
                        tri(run[t], run[t + 1], run[t + 2], p)
                    } else {
                        tri(run[t + 1], run[t], run[t + 2], p)
                    }
                })),
                Primitive::TriangleFan => out.extend((0..n.saturating_sub(2)).map(|t| {
                    let p = if first { run[t + 1] } else { run[t + 2] };
                    tri(run[0], run[t + 1], run[t + 2], p)
                })),
                Primitive::Points => out.extend(run.iter().map(|i| {
                    let p = v(*i);
                    (
                        Shape::Point {
                            x: p.0,
                            y: p.1,
                            z: p.2,
                            size: d.point_size.unwrap_or(1.0) as f64,
                            c: p.4,
                        },
                        false,
                    )
                })),
                Primitive::Lines | Primitive::LineStrip | Primitive::LineLoop => {
                    let step = if d.prim == Primitive::Lines { 2 } else { 1 };
                    let width = (d.line_width_raw as f64 + 1.0) / 16.0;
                    let mut k = 0;
                    while k + 1 < n {
                        out.push((Shape::Line([v(run[k]), v(run[k + 1])], width), false));
                        k += step;
                    }
                    if d.prim == Primitive::LineLoop && n >= 2 {
                        out.push((Shape::Line([v(run[n - 1]), v(run[0])], width), false));
                    }
                }
                _ => unreachable!(),
            }
        }
    }
    out
}

/// Coverage and interpolated (colour, depth) of one shape at a pixel centre.
fn sample(s: &Shape, shade: ShadeModel, cx: f64, cy: f64) -> Option<([f32; 4], f32, bool)> {
    match s {
        Shape::Tri(win, provoking) => {
            let area = (win[1].0 - win[0].0) * (win[2].1 - win[0].1)
                - (win[2].0 - win[0].0) * (win[1].1 - win[0].1);
            if area == 0.0 {
                return None;
            }
            let sg = area.signum();
            let mut b = [0.0f64; 3];
            for k in 0..3 {
                let (a, c) = (win[(k + 1) % 3], win[(k + 2) % 3]);
                // Edge opposite vertex k, oriented so the interior is positive.
                let e = sg * ((c.0 - a.0) * (cy - a.1) - (c.1 - a.1) * (cx - a.0));
                let (dx, dy) = (sg * (c.0 - a.0), sg * (c.1 - a.1));
                let top_left = (dy == 0.0 && dx > 0.0) || dy < 0.0;
                if !(e > 0.0 || (e == 0.0 && top_left)) {
                    return None;
                }
                b[k] = e / (sg * area);
            }
            let z = (0..3).map(|k| b[k] * win[k].2).sum::<f64>() as f32;
            let mut c = [0f32; 4];
            for (ch, out) in c.iter_mut().enumerate() {
                *out = match shade {
                    ShadeModel::Perspective => {
                        let num: f64 = (0..3).map(|k| b[k] * win[k].4[ch] as f64 / win[k].3).sum();
                        let den: f64 = (0..3).map(|k| b[k] / win[k].3).sum();
                        (num / den) as f32
                    }
                    ShadeModel::Linear => {
                        (0..3).map(|k| b[k] * win[k].4[ch] as f64).sum::<f64>() as f32
                    }
                    _ => provoking[ch],
                };
            }
            // Counter-clockwise on screen (y down) has negative area: the front face.
            Some((c, z, area < 0.0))
        }
        Shape::Point { x, y, z, size, c } => {
            let h = size / 2.0;
            (cx >= x - h && cx < x + h && cy >= y - h && cy < y + h)
                .then_some((*c, *z as f32, true))
        }
        Shape::Line([a, b], width) => {
            // Major axis u, minor axis v: covered when u lies between the endpoints
            // (half-open) and |v - line(u)| < width / 2.
            let x_major = (b.0 - a.0).abs() >= (b.1 - a.1).abs();
            let key =
                |p: &(f64, f64, f64, f64, [f32; 4])| if x_major { (p.0, p.1) } else { (p.1, p.0) };
            let (a, b) = if key(a).0 <= key(b).0 { (a, b) } else { (b, a) };
            let ((au, av), (bu, bv)) = (key(a), key(b));
            let (cu, cv) = if x_major { (cx, cy) } else { (cy, cx) };
            if cu < au || cu >= bu {
                return None;
            }
            let t = (cu - au) / (bu - au);
            if (cv - (av + t * (bv - av))).abs() >= width / 2.0 {
                return None;
            }
            let c: [f32; 4] = std::array::from_fn(|ch| {
                (a.4[ch] as f64 + t * (b.4[ch] as f64 - a.4[ch] as f64)) as f32
            });
            Some((c, (a.2 + t * (b.2 - a.2)) as f32, true))
        }
    }
}

fn cmp<T: PartialOrd>(f: ZsFunc, a: T, b: T) -> bool {
    match f {
        ZsFunc::Never => false,
        ZsFunc::Less => a < b,
        ZsFunc::Equal => a == b,
        ZsFunc::Lequal => a <= b,
        ZsFunc::Greater => a > b,
        ZsFunc::NotEqual => a != b,
        ZsFunc::Gequal => a >= b,
        _ => true,
    }
}

pub fn reference(draws: &[DrawSpec]) -> RefFrame {
    let n = (W * H) as usize;
    let mut f = RefFrame {
        color: vec![CLEAR; n],
        depth: vec![1.0; n],
        stencil: vec![0; n],
        passed: vec![0; draws.len()],
    };
    for (di, d) in draws.iter().enumerate() {
        for (s, is_tri) in shapes(d) {
            for py in 0..H {
                for px in 0..W {
                    let Some((c, z, front)) = sample(&s, d.shade, px as f64 + 0.5, py as f64 + 0.5)
                    else {
                        continue;
                    };
                    if is_tri && d.cull_back && !front {
                        continue;
                    }
                    if let Some([x0, y0, x1, y1]) = d.scissor {
                        if px < x0 as u32 || px >= x1 as u32 || py < y0 as u32 || py >= y1 as u32 {
                            continue;
                        }
                    }
                    // GL: the fragment shader (and its discard) precedes the per-fragment tests.
                    if d.discard_left_of.is_some_and(|l| px < l) {
                        continue;
                    }
                    let i = (py * W + px) as usize;
                    if let Some(st) = d.stencil {
                        if !cmp(st.func, st.reference, f.stencil[i]) {
                            continue; // fail op is keep in these tests
                        }
                    }
                    if !cmp(d.depth, z, f.depth[i]) {
                        continue;
                    }
                    if let Some(st) = d.stencil {
                        f.stencil[i] = match st.pass_op {
                            StencilOp::Replace => st.reference,
                            StencilOp::IncrSat => f.stencil[i].saturating_add(1),
                            StencilOp::Keep => f.stencil[i],
                            _ => unreachable!(),
                        };
                    }
                    if d.depth_write {
                        f.depth[i] = z;
                    }
                    f.passed[di] += 1;
                    f.color[i] = c.map(unorm8);
                }
            }
        }
    }
    f
}

/// Coverage must match exactly; colour within one 8-bit step (plane rounding to f32).
pub fn compare(got: &[[u8; 4]], want: &RefFrame) {
    let mut worst = 0;
    for (i, (g, w)) in got.iter().zip(&want.color).enumerate() {
        let bg = |c: &[u8; 4]| *c == CLEAR;
        assert_eq!(
            bg(g),
            bg(w),
            "coverage differs at pixel {},{}: model {g:?} reference {w:?}",
            i as u32 % W,
            i as u32 / W
        );
        for k in 0..4 {
            worst = worst.max((g[k] as i32 - w[k] as i32).abs());
        }
    }
    assert!(worst <= 1, "colour error {worst} steps");
}

pub fn occlusion(pt: &PageTable, index: usize) -> u64 {
    let mut b = [0u8; 8];
    pt.host_read(OCC + 8 * index as u64, &mut b).unwrap();
    u64::from_le_bytes(b)
}

/// Vertex and fragment stages on the hardware path (`IsaStages`) with host tile programs: the
/// background writes [`CLEAR`] as word 0; the end of tile writes word 0 of covered pixels, read
/// as f32, into the image's red channel ([`CLEAR`] passes through unchanged).
pub struct HardwareBodyStages {
    pub isa: IsaStages,
}

impl Stages for HardwareBodyStages {
    fn fragment_may_store(&mut self, mem: &dyn GpuMemory, launch: u64) -> bool {
        self.isa.fragment_may_store(mem, launch)
    }
    fn vertex(
        &mut self,
        mem: &dyn GpuMemory,
        inv: &VertexInvocation,
    ) -> Result<Vec<f32>, SimError> {
        self.isa.vertex(mem, inv)
    }
    fn vertices(
        &mut self,
        mem: &dyn GpuMemory,
        invs: &[VertexInvocation],
    ) -> Result<Vec<Vec<f32>>, SimError> {
        self.isa.vertices(mem, invs)
    }
    fn background(
        &mut self,
        _: &dyn GpuMemory,
        _: u64,
        tile: &mut TileBuffer,
    ) -> Result<(), SimError> {
        for y in 0..tile.height {
            for x in 0..tile.width {
                if let Some(s) = tile.sample_mut(x, y, 0) {
                    s[..4].copy_from_slice(&CLEAR);
                }
            }
        }
        Ok(())
    }
    fn fragment(
        &mut self,
        mem: &dyn GpuMemory,
        f: &Fragment,
        tile: &mut TileBuffer,
    ) -> Result<FragmentResult, SimError> {
        self.isa.fragment(mem, f, tile)
    }
    fn fragments(
        &mut self,
        mem: &dyn GpuMemory,
        quad: &[Fragment],
        tile: &mut TileBuffer,
    ) -> Result<Vec<FragmentResult>, SimError> {
        self.isa.fragments(mem, quad, tile)
    }
    fn end_of_tile(
        &mut self,
        mem: &dyn GpuMemory,
        _: u64,
        tile: &TileBuffer,
    ) -> Result<(), SimError> {
        for y in 0..tile.height {
            for x in 0..tile.width {
                let (px, py) = (tile.origin.0 + x, tile.origin.1 + y);
                if px < W && py < H {
                    let w: [u8; 4] = tile.sample(x, y, 0).unwrap().try_into().unwrap();
                    let c = if w == CLEAR {
                        CLEAR
                    } else {
                        [unorm8(f32::from_le_bytes(w)), 0, 0, 255]
                    };
                    mem.write(IMG + 4 * (py * W + px) as u64, &c)?;
                }
            }
        }
        Ok(())
    }
}

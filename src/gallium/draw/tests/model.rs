//! Renders built by agx16-draw's batch builder run on the M4 model (agx16-sim's render
//! pipeline, shader stages on its G16 core) and compared with a CPU reference written here
//! from the GL rules (viewport transform, 1/256-pixel snapping, pixel-centre sampling with
//! the top-left rule, linear interpolation, depth test).
//!
//! Vertex and fragment stages are real G16 bodies (agx16-isa builders in the packer shapes
//! the model executes): the vertex body derives position and a red varying from its vertex
//! id, the fragment body iterates the varying and packs it as an RGBA8 tile word. The
//! background and end-of-tile programs are agx16-draw's G16 ones (`G16Tiles`: a tile_store of
//! the clear word, block_image_store through a PBE descriptor), so every stage runs on the
//! model's hardware path (`IsaStages`). Colour targets are linear or twiddled.

use agx16_cmdstream::layout::PlaneLayout;
use agx16_cmdstream::layout::PlaneLayout as Plane;
use agx16_cmdstream::ppp::ZsFunc;
use agx16_cmdstream::render::ZlsFormat;
use agx16_cmdstream::vdm::{IndexSize, Primitive, RENDER_CONTEXT_BASE, USC_BASE};
use agx16_draw::batch::ClearMask;
use agx16_draw::*;
use agx16_isa::{decode_at, encode_program, Instr, Part, Role};
use agx16_sim::gfx::{self, IsaStages, RenderCommand};
use agx16_sim::PageTable;
use std::collections::HashMap;
use std::sync::Arc;

const W: u32 = 64;
const H: u32 = 64;
const GENERAL: u64 = 0x2_0000_0000;
const IMG: u64 = 0x3_0000_0000;
const DEPTH: u64 = 0x4_0000_0000;

// ---- GPU memory: the model's page table with a bump allocator per heap ----

struct Mem {
    pt: PageTable,
    next: std::cell::RefCell<HashMap<&'static str, (u64, u64)>>,
}

impl Mem {
    fn new() -> Mem {
        let pt = PageTable::new();
        let regions = [
            ("rc", RENDER_CONTEXT_BASE, 0x40_0000),
            // The entry arena (the first 8 MiB) is not handed out by the allocator.
            ("usc", USC_BASE, 0x100_0000),
            ("general", GENERAL, 0x10_0000),
            ("img", IMG, 0x10_0000),
            ("depth", DEPTH, 0x10_0000),
        ];
        let mut next = HashMap::new();
        for (name, va, len) in regions {
            pt.map(va, len, true, true).unwrap();
            let start = if name == "usc" {
                va + EntryArena::DEFAULT_BYTES
            } else {
                va
            };
            next.insert(name, (start, va + len));
        }
        Mem {
            pt,
            next: std::cell::RefCell::new(next),
        }
    }
}

/// Several writers (render data, program bodies) over the one test memory.
impl GpuWriter for &Mem {
    fn alloc(&mut self, heap: Heap, size: u64, align: u64) -> Result<u64, DrawError> {
        let name = match heap {
            Heap::RenderContext => "rc",
            Heap::Usc => "usc",
            Heap::General => "general",
        };
        let mut next = self.next.borrow_mut();
        let (next, end) = next.get_mut(name).unwrap();
        let va = next.next_multiple_of(align);
        if va + size > *end {
            return Err(DrawError::Memory(format!("{name} heap full")));
        }
        *next = va + size;
        Ok(va)
    }
    fn write(&mut self, va: u64, data: &[u8]) -> Result<(), DrawError> {
        self.pt
            .host_write(va, data)
            .map_err(|e| DrawError::Memory(format!("{e:?}")))
    }
}

impl GpuWriter for Mem {
    fn alloc(&mut self, heap: Heap, size: u64, align: u64) -> Result<u64, DrawError> {
        (&*self).alloc(heap, size, align)
    }
    fn write(&mut self, va: u64, data: &[u8]) -> Result<(), DrawError> {
        (&*self).write(va, data)
    }
}

// ---- G16 bodies ----

fn b(name: &str, f: &[(&str, u64)]) -> Instr {
    Instr::build(name, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn movf(dst: u32, v: f32) -> Instr {
    let mut i = b("mov_imm32", &[("imm", v.to_bits() as u64), ("b2_5", 1)]);
    i.set_gpr(Role::Dst, dst, Part::Full).unwrap();
    i
}

fn from_hex(h: &str) -> Instr {
    let bytes: Vec<u8> = (0..h.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
        .collect();
    decode_at(&bytes, 0).unwrap()
}

/// r`dst` = f32(r`src`), the measured i2f shape (source released).
fn i2f(dst: u32, src: u32) -> Instr {
    let mut i = from_hex("a70754220324ac20");
    i.set_gpr(Role::Dst, dst, Part::Full).unwrap();
    i.set_gpr(Role::SrcA, src, Part::Full).unwrap();
    i
}

/// r`dst` = u32(r`src`) rounded toward zero, the native unsigned f2i shape
/// `27 07 54 <dst<<1> 03 <src<<2> b4 08 02 00` (source released; byte 8 0x02 = U32, 0x03 with
/// the unsigned bit is a 16-bit saturating format: niklassheth/agx-re EXP-M4-43, measured M4).
fn f2u(dst: u32, src: u32) -> Instr {
    let mut i = from_hex("270754000300b4080200");
    i.set_gpr(Role::Dst, dst, Part::Full).unwrap();
    i.set_gpr(Role::SrcA, src, Part::Full).unwrap();
    i
}

fn falu(name: &str, dst: u64, a: u64, bb: u64) -> Instr {
    b(
        name,
        &[
            ("dst", dst),
            ("a_size", 1),
            ("a", a),
            ("a_keep", 1),
            ("b_size", 1),
            ("b", bb),
            ("b_keep", 1),
        ],
    )
}

fn fexport(name: &str, p: u64, a: u64, bb: u64, slot: u64) -> Instr {
    b(
        name,
        &[
            ("dst", p),
            ("a_size", 1),
            ("a", a),
            ("a_keep", 1),
            ("b_size", 1),
            ("b", bb),
            ("b_keep", 1),
            ("publish", 1),
            ("slot", slot - 1),
        ],
    )
}

fn vary_store(k: u64, p: u64, wait: u64) -> Instr {
    b(
        "vary_store",
        &[
            ("b1_hi", 1),
            ("wait", 1 << (wait - 1)),
            ("mode", 0x15),
            ("src", p),
            ("slot", k),
            ("b5_tag", 4),
        ],
    )
}

/// The vertex program's constants: vertex k is at (x0 + dx k, y0 + dy k², z) with red
/// varying r0 + dr k.
#[derive(Clone, Copy)]
struct Shape {
    x0: f32,
    dx: f32,
    y0: f32,
    dy: f32,
    z: f32,
    r0: f32,
    dr: f32,
}

impl Shape {
    /// Clip position and red of vertex k, computed on the host in the body's f32 order.
    fn vertex(&self, k: u32) -> ([f32; 4], f32) {
        let f = k as f32;
        (
            [
                f * self.dx + self.x0,
                f * f * self.dy + self.y0,
                self.z,
                1.0,
            ],
            f * self.dr + self.r0,
        )
    }
}

/// Vertex body: outputs position (4 scalars) and one user scalar (red).
fn vertex_body(s: Shape) -> Vec<u8> {
    let p = vec![
        b("get_sr", &[("form", 1), ("dst", 0), ("sr_sel", 0xdd)]),
        i2f(1, 0),
        movf(2, s.dx),
        movf(3, s.x0),
        movf(4, s.dy),
        movf(5, s.y0),
        movf(6, s.z),
        movf(7, 1.0),
        movf(8, s.dr),
        movf(9, s.r0),
        movf(10, 0.0),
        falu("fmul", 11, 1, 2),  // k*dx
        falu("fmul", 12, 1, 1),  // k*k
        falu("fmul", 13, 12, 4), // k*k*dy
        falu("fmul", 14, 1, 8),  // k*dr
        fexport("fadd_export", 0, 11, 3, 1),
        fexport("fadd_export", 1, 13, 5, 2),
        fexport("fadd_export", 2, 6, 10, 3),
        fexport("fmul_export", 3, 7, 7, 4),
        fexport("fadd_export", 4, 14, 9, 5),
        vary_store(0, 0, 1),
        vary_store(1, 1, 2),
        vary_store(2, 2, 3),
        vary_store(3, 3, 4),
        vary_store(4, 4, 5),
        b("stop", &[]),
    ];
    encode_program(&p)
}

fn iter(dst: u64, cf: u64) -> Instr {
    b(
        "iter",
        &[
            ("b1_01", 1),
            ("b2_hi", 0x15),
            ("dst", dst),
            ("coeff_sel", 3),
            ("slot", cf),
            ("b7", 2),
            ("loc", 0x10),
        ],
    )
}

/// Fragment body: red = iter(coefficient 1); tile word 0 = round(red * 255) (an RGBA8 word
/// with green, blue and alpha zero, i.e. gl_FragColor = vec4(red, 0, 0, 0)).
fn fragment_body() -> Vec<u8> {
    fragment_body_words(1)
}

/// The same colour into tile words 0..n (n render targets, one word each).
fn fragment_body_words(n: u64) -> Vec<u8> {
    let p = vec![
        iter(0, 1),
        movf(1, 255.0),
        movf(3, 0.5),
        falu("fmul", 2, 0, 1),
        falu("fadd", 4, 2, 3),
        f2u(5, 4),
        b("tile_setup", &[("b1", 2), ("access", 0x600)]),
        b("tile_setup", &[("b1", 2), ("access", 0x80c)]),
    ];
    let mut p = p;
    for rt in 0..n {
        p.push(b(
            "tile_store",
            &[
                ("mode", 0x54),
                ("src", 5),
                ("rt", rt),
                ("mask", 1),
                ("fmt", 0x4e),
            ],
        ));
    }
    p.extend([b("tile_fence", &[("access", 0x20c)]), b("stop", &[])]);
    encode_program(&p)
}

struct Programs {
    arena: EntryArena,
    tiles: TileCache,
}

impl Programs {
    fn new(mem: &mut Mem) -> Programs {
        mem.write(USC_BASE, &EntryArena::directory().unwrap())
            .unwrap();
        Programs {
            arena: EntryArena::new(EntryArena::DEFAULT_BYTES),
            tiles: TileCache::default(),
        }
    }
    fn vertex(&mut self, mem: &mut Mem, s: Shape) -> Arc<VertexProgram> {
        Arc::new(VertexProgram {
            body: self.arena.add_body(mem, &vertex_body(s)).unwrap(),
            outputs: 5,
            writes_point_size: false,
            publications: 5,
            scratch: 0,
        })
    }
    fn fragment(&mut self, mem: &mut Mem) -> Arc<FragmentProgram> {
        Arc::new(FragmentProgram {
            body: self.arena.add_body(mem, &fragment_body()).unwrap(),
            varyings: vec![Varying {
                slot: 0,
                components: 1,
                interp: Interp::Perspective,
                coefficient: 1,
            }],
            reads_frag_z: false,
            point_coord: None,
            discards: false,
            reads_tilebuffer: false,
            publications: 0,
            scratch: 0,
            origin_word: None,
        })
    }
}

// ---- scene set-up ----

fn framebuffer(depth: bool) -> Framebuffer {
    Framebuffer {
        width: W,
        height: H,
        samples: 1,
        colors: vec![Some(ColorTarget {
            va: IMG,
            plane: PlaneLayout::linear(W, H, 4),
            format: TileFormat::Rgba8Unorm,
        })],
        zs: depth.then_some(ZsTarget {
            depth: Some((ZsSurface { va: DEPTH }, ZlsFormat::F32)),
            stencil: None,
            width: W,
            height: H,
        }),
    }
}

const CLEAR: [f32; 4] = [10.0 / 255.0, 20.0 / 255.0, 30.0 / 255.0, 1.0];
const CLEAR_BYTES: [u8; 4] = [10, 20, 30, 255];

fn draw(
    vs: &Arc<VertexProgram>,
    fs: &Arc<FragmentProgram>,
    primitive: Primitive,
    indices: Indices,
) -> Draw {
    Draw {
        vs: vs.clone(),
        fs: fs.clone(),
        vs_args: vec![],
        fs_args: vec![],
        primitive,
        indices,
        instances: 1,
        raster: Raster::default(),
        viewport: Viewport::full(W, H),
        zs: DepthStencil::default(),
        occlusion: None,
    }
}

/// Builds the batch's renders with agx16-draw's G16 tile programs.
fn build(mem: &Mem, progs: &mut Programs, batch: &Batch) -> Result<Vec<BuiltRender>, String> {
    let mut programs = mem;
    let mut tiles = G16Tiles {
        cache: &mut progs.tiles,
        arena: &mut progs.arena,
        programs: &mut programs,
    };
    let mut data = mem;
    build_renders(batch, &mut tiles, &mut data).map_err(|e| e.to_string())
}

/// Builds the batch's renders (bodies into the same memory: the tests' program memory is the
/// render memory) and runs them in order on the model's hardware path.
fn run_batch(mem: &Mem, progs: &mut Programs, batch: &Batch) -> Result<gfx::RenderStats, String> {
    let built = build(mem, progs, batch)?;
    let mut total = gfx::RenderStats::default();
    for b in &built {
        let cmd = RenderCommand::from_bytes(&b.payload().unwrap()).expect("the model accepts it");
        let stats = gfx::run_render_with(&mem.pt, &cmd, &mut IsaStages::default())
            .map_err(|e| format!("{e}"))?;
        total.draws += stats.draws;
        total.vertices_shaded += stats.vertices_shaded;
        total.utiles += stats.utiles;
    }
    Ok(total)
}

fn pixels(mem: &Mem) -> Vec<[u8; 4]> {
    let plane = PlaneLayout::linear(W, H, 4);
    (0..W * H)
        .map(|i| {
            let mut c = [0u8; 4];
            mem.pt
                .host_read(IMG + plane.offset(i % W, i / W), &mut c)
                .unwrap();
            c
        })
        .collect()
}

/// Poisons the target, builds and runs the batch; returns the pixels and the stats.
fn render(mem: &Mem, progs: &mut Programs, batch: &Batch) -> (Vec<[u8; 4]>, gfx::RenderStats) {
    mem.pt
        .host_write(IMG, &vec![0xcd; (W * H * 4) as usize])
        .unwrap();
    let stats = run_batch(mem, progs, batch).expect("render");
    (pixels(mem), stats)
}

// ---- CPU reference ----

/// Clip position and RGBA colour of a vertex.
type RefVtx = ([f32; 4], [f32; 4]);
type RefTri = [RefVtx; 3];

/// A red-only vertex as the id-based vertex body produces it (fragment output (r, 0, 0, 0)).
fn red(v: ([f32; 4], f32)) -> RefVtx {
    (v.0, [v.1, 0.0, 0.0, 0.0])
}

/// GL assembly of a vertex-id run into triangles (provoking vertex irrelevant: smooth).
fn triangles(prim: Primitive, ids: &[u32]) -> Vec<[u32; 3]> {
    let n = ids.len();
    match prim {
        Primitive::Triangles => ids.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
        Primitive::TriangleStrip => (0..n.saturating_sub(2))
            .map(|i| {
                if i % 2 == 0 {
                    [ids[i], ids[i + 1], ids[i + 2]]
                } else {
                    [ids[i + 1], ids[i], ids[i + 2]]
                }
            })
            .collect(),
        Primitive::TriangleFan => (0..n.saturating_sub(2))
            .map(|i| [ids[0], ids[i + 1], ids[i + 2]])
            .collect(),
        _ => unreachable!(),
    }
}

struct RefFrame {
    color: Vec<[u8; 4]>,
    depth: Vec<f32>,
}

impl RefFrame {
    fn new(clear: [u8; 4]) -> RefFrame {
        RefFrame {
            color: vec![clear; (W * H) as usize],
            depth: vec![1.0; (W * H) as usize],
        }
    }

    /// Rasterises one triangle: window transform (full viewport, y down), 1/256 snapping,
    /// pixel centres, top-left rule, linear red, optional depth test `Less` with write.
    fn triangle(&mut self, t: RefTri, depth_less: bool, scissor: Option<[u32; 4]>) {
        let snap = |c: f64| (c * 256.0).round() / 256.0;
        let win: Vec<(f64, f64, f64, f64, [f32; 4])> = t
            .iter()
            .map(|(p, c)| {
                let w = p[3] as f64;
                (
                    snap(W as f64 / 2.0 + W as f64 / 2.0 * p[0] as f64 / w),
                    snap(H as f64 / 2.0 + H as f64 / 2.0 * p[1] as f64 / w),
                    p[2] as f64 / w,
                    w,
                    *c,
                )
            })
            .collect();
        let area = (win[1].0 - win[0].0) * (win[2].1 - win[0].1)
            - (win[2].0 - win[0].0) * (win[1].1 - win[0].1);
        if area == 0.0 {
            return;
        }
        let sg = area.signum();
        for py in 0..H {
            for px in 0..W {
                if let Some([x0, y0, x1, y1]) = scissor {
                    if px < x0 || px >= x1 || py < y0 || py >= y1 {
                        continue;
                    }
                }
                let (cx, cy) = (px as f64 + 0.5, py as f64 + 0.5);
                let mut bary = [0.0; 3];
                let mut inside = true;
                for (k, bk) in bary.iter_mut().enumerate() {
                    let (a, c) = (win[(k + 1) % 3], win[(k + 2) % 3]);
                    let e = sg * ((c.0 - a.0) * (cy - a.1) - (c.1 - a.1) * (cx - a.0));
                    let (dx, dy) = (sg * (c.0 - a.0), sg * (c.1 - a.1));
                    let top_left = (dy == 0.0 && dx > 0.0) || dy < 0.0;
                    if !(e > 0.0 || (e == 0.0 && top_left)) {
                        inside = false;
                    }
                    *bk = e / (sg * area);
                }
                if !inside {
                    continue;
                }
                let i = (py * W + px) as usize;
                let z = (0..3).map(|k| bary[k] * win[k].2).sum::<f64>() as f32;
                if depth_less {
                    if z >= self.depth[i] {
                        continue;
                    }
                    self.depth[i] = z;
                }
                // Perspective-correct: the attribute over w, interpolated, over 1/w interpolated.
                let den: f64 = (0..3).map(|k| bary[k] / win[k].3).sum();
                self.color[i] = std::array::from_fn(|ch| {
                    let num: f64 = (0..3)
                        .map(|k| bary[k] * win[k].4[ch] as f64 / win[k].3)
                        .sum();
                    ((num / den).clamp(0.0, 1.0) * 255.0).round() as u8
                });
            }
        }
    }

    fn draw(&mut self, s: Shape, prim: Primitive, runs: &[Vec<u32>], depth: bool) {
        for run in runs {
            for t in triangles(prim, run) {
                self.triangle(t.map(|k| red(s.vertex(k))), depth, None);
            }
        }
    }
}

/// Coverage exact (clear colour vs drawn), colour within one 8-bit step.
fn compare(got: &[[u8; 4]], want: &RefFrame) {
    let mut worst = 0;
    for (i, (g, w)) in got.iter().zip(&want.color).enumerate() {
        assert_eq!(
            *g == CLEAR_BYTES,
            *w == CLEAR_BYTES,
            "coverage differs at pixel {},{}: model {g:?} reference {w:?}",
            i as u32 % W,
            i as u32 / W
        );
        for k in 0..4 {
            worst = worst.max((g[k] as i32 - w[k] as i32).abs());
        }
    }
    assert!(worst <= 1, "colour differs by {worst} steps");
}

const TRI: Shape = Shape {
    x0: -0.9,
    dx: 0.9,
    y0: -0.9,
    dy: 0.45,
    z: 0.5,
    r0: 0.1,
    dr: 0.4,
};

fn setup() -> (Mem, Programs, Arc<FragmentProgram>) {
    let mut mem = Mem::new();
    let mut progs = Programs::new(&mut mem);
    let fs = progs.fragment(&mut mem);
    (mem, progs, fs)
}

fn clear_all(batch: &mut Batch) {
    let mask = ClearMask {
        color: 1,
        depth: true,
        stencil: false,
    };
    assert!(batch.clear(mask, CLEAR, 1.0, 0));
}

#[test]
fn a_clear_alone_fills_the_target() {
    let (mem, mut progs, _) = setup();
    let mut batch = Batch::new(framebuffer(false));
    clear_all(&mut batch);
    let (px, stats) = render(&mem, &mut progs, &batch);
    assert_eq!(stats.draws, 0);
    assert!(px.iter().all(|p| *p == CLEAR_BYTES));
}

#[test]
fn clear_and_triangle_match_the_reference() {
    let (mut mem, mut progs, fs) = setup();
    let vs = progs.vertex(&mut mem, TRI);
    let mut batch = Batch::new(framebuffer(false));
    clear_all(&mut batch);
    batch.draws.push(draw(
        &vs,
        &fs,
        Primitive::Triangles,
        Indices::Direct { first: 0, count: 3 },
    ));
    let (px, stats) = render(&mem, &mut progs, &batch);
    let mut want = RefFrame::new(CLEAR_BYTES);
    want.draw(TRI, Primitive::Triangles, &[vec![0, 1, 2]], false);
    assert!(want.color.iter().filter(|c| **c != CLEAR_BYTES).count() > 300);
    compare(&px, &want);
    // One render of the whole 64x64 framebuffer (its end-of-tile program locates each of the
    // four 32x32 tiles by its workgroup id): the draw runs once.
    assert_eq!((stats.draws, stats.utiles), (1, 4));
}

/// Vertex ids an index list names (restart splits runs), as GL defines them.
fn runs(indices: &[u32], base_vertex: i32, restart: Option<u32>) -> Vec<Vec<u32>> {
    indices
        .split(|i| Some(*i) == restart)
        .map(|r| r.iter().map(|i| (*i as i32 + base_vertex) as u32).collect())
        .collect()
}

fn index_buffer(mem: &mut Mem, size: IndexSize, indices: &[u32]) -> u64 {
    let bytes: Vec<u8> = match size {
        IndexSize::U8 => indices.iter().map(|i| *i as u8).collect(),
        IndexSize::U16 => indices
            .iter()
            .flat_map(|i| (*i as u16).to_le_bytes())
            .collect(),
        _ => indices.iter().flat_map(|i| i.to_le_bytes()).collect(),
    };
    // Index buffers live in the USC aperture (G16 index fetch); odd placement on purpose.
    let va = mem.alloc(Heap::Usc, bytes.len() as u64 + 8, 16).unwrap() + 2;
    mem.write(va, &bytes).unwrap();
    va
}

#[test]
fn indexed_lists_strips_and_fans_with_restart_and_base_vertex() {
    // (primitive, index size, indices, base vertex, restart)
    type Case = (Primitive, IndexSize, Vec<u32>, i32, Option<u32>);
    let cases: Vec<Case> = vec![
        (
            Primitive::TriangleStrip,
            IndexSize::U16,
            vec![0, 1, 2, 3, 0xffff, 1, 2, 3, 4],
            0,
            Some(0xffff),
        ),
        (
            Primitive::TriangleFan,
            IndexSize::U8,
            vec![0, 1, 2, 3, 4],
            0,
            None,
        ),
        (
            Primitive::TriangleFan,
            IndexSize::U8,
            vec![4, 3, 2, 0xff, 1, 2, 0],
            0,
            Some(0xff),
        ),
        (
            Primitive::Triangles,
            IndexSize::U32,
            vec![0, 1, 2, 2, 1, 3],
            1,
            None,
        ),
    ];
    for (prim, size, indices, base_vertex, restart) in cases {
        let (mut mem, mut progs, fs) = setup();
        let vs = progs.vertex(&mut mem, TRI);
        let va = index_buffer(&mut mem, size, &indices);
        let mut batch = Batch::new(framebuffer(false));
        clear_all(&mut batch);
        batch.draws.push(draw(
            &vs,
            &fs,
            prim,
            Indices::Indexed {
                va,
                size,
                count: indices.len() as u32,
                base_vertex,
                restart,
            },
        ));
        let (px, _) = render(&mem, &mut progs, &batch);
        let mut want = RefFrame::new(CLEAR_BYTES);
        want.draw(TRI, prim, &runs(&indices, base_vertex, restart), false);
        assert!(want.color.iter().filter(|c| **c != CLEAR_BYTES).count() > 100);
        compare(&px, &want);
    }
}

const NEAR: Shape = Shape {
    x0: -0.8,
    dx: 1.2,
    y0: 0.7,
    dy: -0.5,
    z: 0.25,
    r0: 0.9,
    dr: -0.3,
};

fn depth_draw(vs: &Arc<VertexProgram>, fs: &Arc<FragmentProgram>) -> Draw {
    let mut d = draw(
        vs,
        fs,
        Primitive::Triangles,
        Indices::Direct { first: 0, count: 3 },
    );
    d.zs = DepthStencil {
        depth_func: Some(ZsFunc::Less),
        depth_write: true,
        stencil: None,
    };
    d
}

fn stored_depth(mem: &Mem) -> Vec<f32> {
    let plane = Plane::twiddled(W, H, 4);
    (0..W * H)
        .map(|i| {
            let mut b = [0u8; 4];
            mem.pt
                .host_read(DEPTH + plane.offset(i % W, i / W), &mut b)
                .unwrap();
            f32::from_le_bytes(b)
        })
        .collect()
}

#[test]
fn depth_test_clear_store_and_load_across_renders() {
    let (mut mem, mut progs, fs) = setup();
    let far = progs.vertex(&mut mem, TRI);
    let near = progs.vertex(&mut mem, NEAR);
    // Render 1: clear depth to 1, near triangle first, far one after: the far one loses where
    // they overlap.
    let mut batch = Batch::new(framebuffer(true));
    clear_all(&mut batch);
    batch.draws.push(depth_draw(&near, &fs));
    batch.draws.push(depth_draw(&far, &fs));
    let (px, _) = render(&mem, &mut progs, &batch);
    let mut want = RefFrame::new(CLEAR_BYTES);
    want.draw(NEAR, Primitive::Triangles, &[vec![0, 1, 2]], true);
    want.draw(TRI, Primitive::Triangles, &[vec![0, 1, 2]], true);
    compare(&px, &want);
    // ZLS stored the depth the reference computed.
    assert_eq!(stored_depth(&mem), want.depth);
    assert!(want.depth.contains(&0.25) && want.depth.contains(&0.5));

    // Render 2 clears colour but keeps depth: the moved far triangle is hidden where render 1
    // stored the near one's depth, because ZLS loads the depth buffer.
    let mut batch = Batch::new(framebuffer(true));
    let mask = ClearMask {
        color: 1,
        depth: false,
        stencil: false,
    };
    assert!(batch.clear(mask, CLEAR, 1.0, 0));
    let mut moved = TRI;
    moved.x0 += 0.3;
    let moved_vs = progs.vertex(&mut mem, moved);
    batch.draws.push(depth_draw(&moved_vs, &fs));
    let (px2, _) = render(&mem, &mut progs, &batch);
    want.color = vec![CLEAR_BYTES; (W * H) as usize];
    want.draw(moved, Primitive::Triangles, &[vec![0, 1, 2]], true);
    compare(&px2, &want);
    assert_eq!(stored_depth(&mem), want.depth);
    // Without the depth buffer's contents the moved triangle would cover more.
    let mut fresh = RefFrame::new(CLEAR_BYTES);
    fresh.draw(moved, Primitive::Triangles, &[vec![0, 1, 2]], true);
    assert_ne!(fresh.color, want.color);
}

#[test]
fn twiddled_colour_targets_and_renders_split_per_tile() {
    // A 64x64 target is four 32x32 renders; the end-of-tile programs export each to its own
    // image position, in the GPU-tiled layout here.
    let (mut mem, mut progs, fs) = setup();
    let vs = progs.vertex(&mut mem, TRI);
    let mut fb = framebuffer(false);
    let plane = PlaneLayout::twiddled(W, H, 4);
    fb.colors[0].as_mut().unwrap().plane = plane;
    let mut batch = Batch::new(fb);
    clear_all(&mut batch);
    batch.draws.push(draw(
        &vs,
        &fs,
        Primitive::Triangles,
        Indices::Direct { first: 0, count: 3 },
    ));
    mem.pt
        .host_write(IMG, &vec![0xcd; (W * H * 4) as usize])
        .unwrap();
    let stats = run_batch(&mem, &mut progs, &batch).unwrap();
    assert_eq!(stats.utiles, 4);
    let px: Vec<[u8; 4]> = (0..W * H)
        .map(|i| {
            let mut c = [0u8; 4];
            mem.pt
                .host_read(IMG + plane.offset(i % W, i / W), &mut c)
                .unwrap();
            c
        })
        .collect();
    let mut want = RefFrame::new(CLEAR_BYTES);
    want.draw(TRI, Primitive::Triangles, &[vec![0, 1, 2]], false);
    compare(&px, &want);
}

/// A render without a colour clear keeps what memory holds: the background program reads each
/// pixel of the target (a twiddled one through a texture descriptor, a linear one with device
/// loads at y * stride + x * 4) and the triangle lands on top. The earlier contents are a
/// per-pixel pattern written by the host, so a reload from the wrong pixel, a lost byte or a
/// clear shows. Control: the same batch with a clear gives the clear colour around the
/// triangle (the pattern is really read). The linear target's rows are padded past the image
/// (stride 320 for 256 bytes of pixels) so a reload that ignores the stride shows too.
#[test]
fn a_render_without_a_clear_reloads_the_targets_earlier_contents() {
    let (mut mem, mut progs, fs) = setup();
    let vs = progs.vertex(&mut mem, TRI);
    let twiddled = PlaneLayout::twiddled(W, H, 4);
    let mut padded = PlaneLayout::linear(W, H, 4);
    padded.row_stride = 320;
    for plane in [twiddled, padded] {
        let mut fb = framebuffer(false);
        fb.colors[0].as_mut().unwrap().plane = plane;
        let earlier = |x: u32, y: u32| [(x * 3) as u8, (y * 5) as u8, (x ^ y) as u8 | 0x80, 200];
        let fill = |mem: &Mem| {
            mem.pt
                .host_write(
                    IMG,
                    &vec![0x5a; (plane.row_stride.max(256) * H as u64) as usize],
                )
                .unwrap();
            for y in 0..H {
                for x in 0..W {
                    mem.pt
                        .host_write(IMG + plane.offset(x, y), &earlier(x, y))
                        .unwrap();
                }
            }
        };
        let read = |mem: &Mem| -> Vec<[u8; 4]> {
            (0..W * H)
                .map(|i| {
                    let mut c = [0u8; 4];
                    mem.pt
                        .host_read(IMG + plane.offset(i % W, i / W), &mut c)
                        .unwrap();
                    c
                })
                .collect()
        };
        let tri = draw(
            &vs,
            &fs,
            Primitive::Triangles,
            Indices::Direct { first: 0, count: 3 },
        );
        let mut batch = Batch::new(fb.clone());
        batch.draws.push(tri.clone());
        fill(&mem);
        run_batch(&mem, &mut progs, &batch).unwrap();
        let mut want = RefFrame::new(CLEAR_BYTES);
        want.color = (0..W * H).map(|i| earlier(i % W, i / W)).collect();
        want.draw(TRI, Primitive::Triangles, &[vec![0, 1, 2]], false);
        let px = read(&mem);
        if let Some(i) = (0..px.len()).find(|&i| px[i] != want.color[i]) {
            eprintln!(
                "{:?}: first difference at ({}, {}): got {:?}, want {:?}",
                plane,
                i as u32 % W,
                i as u32 / W,
                px[i],
                want.color[i]
            );
        }
        compare(&px, &want);
        // Outside the triangle the reload is exact, not within a step.
        let kept = (0..W * H)
            .filter(|&i| px[i as usize] == earlier(i % W, i / W))
            .count();
        assert!(kept > 2000 && kept < (W * H) as usize, "{kept} pixels kept");

        // Control: with a clear the pattern is gone.
        let mut cleared = Batch::new(fb.clone());
        clear_all(&mut cleared);
        cleared.draws.push(tri.clone());
        fill(&mem);
        run_batch(&mem, &mut progs, &cleared).unwrap();
        let mut want = RefFrame::new(CLEAR_BYTES);
        want.draw(TRI, Primitive::Triangles, &[vec![0, 1, 2]], false);
        compare(&read(&mem), &want);
    }
}

/// Linear targets of 1-, 2-, 8- and 16-byte pixels (raw formats) keep their bytes across a
/// render without a clear: the background loads the aligned 32-bit word holding a narrow pixel
/// and shifts it out, or the pixel's words for wide ones. The image is 37 pixels wide (odd, so
/// every sub-word position occurs, and not a multiple of the 32-pixel tile) with padded rows;
/// the render has no draws (background and end-of-tile store only), so every pixel byte must
/// come back unchanged, and the bytes between rows must stay untouched. The twiddled path is
/// the control: the same check passes through the texture reload.
#[test]
fn linear_raw_targets_reload_every_byte() {
    let (mem, mut progs, _) = setup();
    let (w, h) = (37u32, 21u32);
    for bytes in [1u32, 2, 8, 16] {
        let stride = (w * bytes).next_multiple_of(16) + 16;
        let mut plane = PlaneLayout::linear(w, h, bytes);
        plane.row_stride = stride as u64;
        let fb = Framebuffer {
            width: w,
            height: h,
            samples: 1,
            colors: vec![Some(ColorTarget {
                va: IMG,
                plane,
                format: TileFormat::Raw { bytes: bytes as u8 },
            })],
            zs: None,
        };
        let image: Vec<u8> = (0..stride * h)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        mem.pt.host_write(IMG, &image).unwrap();
        // No draws: the render is the background reload and the end-of-tile store alone.
        let batch = Batch::new(fb.clone());
        let stats = run_batch(&mem, &mut progs, &batch).unwrap();
        assert!(stats.utiles > 0, "{bytes}-byte pixels: no tile ran");
        let mut got = vec![0u8; image.len()];
        mem.pt.host_read(IMG, &mut got).unwrap();
        if let Some(i) = (0..got.len()).find(|&i| got[i] != image[i]) {
            panic!(
                "{bytes}-byte pixels: byte {i} (row {}, column byte {}) is {:#x}, was {:#x}",
                i as u32 / stride,
                i as u32 % stride,
                got[i],
                image[i]
            );
        }
        // Control: the same render with a clear of 0xa5 bytes rewrites every pixel byte (the
        // store really writes the tile back) and still leaves the row padding alone.
        let mut cleared = Batch::new(fb);
        let words = vec![0xa5a5_a5a5u32; bytes.div_ceil(4) as usize];
        let mask = ClearMask {
            color: 1,
            depth: false,
            stencil: false,
        };
        assert!(cleared.clear_words(mask, &[Some(words)], 1.0, 0));
        run_batch(&mem, &mut progs, &cleared).unwrap();
        mem.pt.host_read(IMG, &mut got).unwrap();
        for (i, (&g, &was)) in got.iter().zip(&image).enumerate() {
            let in_pixel = (i as u32 % stride) < w * bytes;
            let want = if in_pixel { 0xa5 } else { was };
            assert_eq!(g, want, "{bytes}-byte pixels, cleared: byte {i}");
        }
    }
}

#[test]
fn scissored_draw_stays_inside_the_rectangle() {
    let (mut mem, mut progs, fs) = setup();
    let vs = progs.vertex(&mut mem, TRI);
    let mut batch = Batch::new(framebuffer(false));
    clear_all(&mut batch);
    let mut d = draw(
        &vs,
        &fs,
        Primitive::Triangles,
        Indices::Direct { first: 0, count: 3 },
    );
    d.raster.scissor = Some([16, 20, 48, 40]);
    batch.draws.push(d);
    let (px, _) = render(&mem, &mut progs, &batch);
    let mut want = RefFrame::new(CLEAR_BYTES);
    let t = [0, 1, 2].map(|k| red(TRI.vertex(k)));
    want.triangle(t, false, Some([16, 20, 48, 40]));
    compare(&px, &want);
}

/// A single-sample render that draws without clearing runs only the tiles its primitives
/// touch (no PROCESS_EMPTY_TILES): the other tiles keep their bytes, and the drawn one
/// keeps them outside the triangle. A clear brings every tile back.
#[test]
fn load_only_render_runs_only_touched_tiles() {
    // One corner of the 64x64 target: inside the first 32x32 tile.
    let small = Shape {
        x0: -0.9,
        dx: 0.3,
        y0: -0.9,
        dy: 0.1,
        z: 0.5,
        r0: 0.1,
        dr: 0.4,
    };
    let (mut mem, mut progs, fs) = setup();
    let vs = progs.vertex(&mut mem, small);
    let mut batch = Batch::new(framebuffer(false));
    batch.draws.push(draw(
        &vs,
        &fs,
        Primitive::Triangles,
        Indices::Direct { first: 0, count: 3 },
    ));
    let (px, stats) = render(&mem, &mut progs, &batch);
    assert_eq!(stats.utiles, 1, "only the touched tile runs");
    let mut want = RefFrame::new([0xcd; 4]);
    want.triangle([0, 1, 2].map(|k| red(small.vertex(k))), false, None);
    assert!(
        want.color.iter().any(|p| *p != [0xcd; 4]),
        "the triangle covers pixels"
    );
    compare(&px, &want);
    let mut cleared = Batch::new(framebuffer(false));
    clear_all(&mut cleared);
    cleared.draws = batch.draws;
    let (_, stats) = render(&mem, &mut progs, &cleared);
    assert_eq!(
        stats.utiles,
        ((W / 32) * (H / 32)) as u64,
        "a clear runs every tile"
    );
}

#[test]
fn inconsistent_programs_are_errors_not_panics() {
    let (mut mem, mut progs, fs) = setup();
    let vs = progs.vertex(&mut mem, TRI);
    let mut bad_fs = (*fs).clone();
    bad_fs.varyings[0].slot = 3; // the vertex program has one user scalar
    let mut batch = Batch::new(framebuffer(false));
    clear_all(&mut batch);
    batch.draws.push(draw(
        &vs,
        &Arc::new(bad_fs),
        Primitive::Triangles,
        Indices::Direct { first: 0, count: 3 },
    ));
    let err = build(&mem, &mut progs, &batch).unwrap_err();
    assert!(err.starts_with("program:"), "{err}");
    // 8 samples do not exist on G16; a 4-sample target must be a plane of sample groups.
    let mut fb = framebuffer(false);
    fb.samples = 8;
    let err = build(&mem, &mut progs, &Batch::new(fb)).unwrap_err();
    assert!(err.contains("8 samples"), "{err}");
    let mut fb = framebuffer(false);
    fb.samples = 4;
    let err = build(&mem, &mut progs, &Batch::new(fb)).unwrap_err();
    assert!(err.contains("16-byte sample groups"), "{err}");
}

// ---- programs compiled by agx16-compiler from IR, fed through the launcher ABI ----

mod compiled {
    use super::*;
    use agx16_compiler::abi;
    use agx16_compiler::ir::{Builder, Interp as CInterp, Op, Src, Stage, SysVal, TexKind, Type};
    use agx16_compiler::pipeline::Options;

    /// Root-record qword of vertex buffer 0 (sim/GFX.md "Render-stage uniform ABI": six
    /// roots, then the stage's buffers).
    const VB_QWORD: u8 = 6;

    /// `gl_Position = a_pos; v_col = a_col;` with both attributes fetched from one
    /// interleaved buffer (8 floats per vertex) by the program itself.
    fn vertex_program() -> Vec<u8> {
        let (code, scratch_words) = vertex_program_at(Options::default());
        assert_eq!(scratch_words, 0);
        code
    }

    /// [`vertex_program`] compiled with `opts`; returns the code and its scratch words.
    fn vertex_program_at(opts: Options) -> (Vec<u8>, u32) {
        let mut b = Builder::new(Stage::Vertex);
        let id = b.sysval(SysVal::VertexId);
        let idx = abi::mul_const(&mut b, Src::val(id), 8);
        let pos = b.load_global(VB_QWORD, idx, Type::F32, 4);
        let idx4 = b.alu(Op::IAdd, Type::I32, [idx, Src::imm(4)]);
        let col = b.load_global(VB_QWORD, Src::val(idx4), Type::F32, 4);
        for k in 0..4u8 {
            b.store_output(k, Src::comp(pos, k));
        }
        for k in 0..4u8 {
            b.store_output(4 + k, Src::comp(col, k));
        }
        let (c, info) = abi::compile_ir_graphics(&b.finish(), 0, opts).unwrap();
        assert_eq!(info.outputs, 8);
        (c.code, c.mir.scratch_words)
    }

    /// `gl_FragColor = v_col` into an RGBA8 tile word.
    fn fragment_program() -> Vec<u8> {
        let mut b = Builder::new(Stage::Fragment);
        let c: [Src; 4] =
            std::array::from_fn(|k| Src::val(b.load_varying(1 + k as u8, CInterp::Perspective)));
        let word = abi::pack_unorm_4x8(&mut b, c);
        b.store_tile(0, word);
        let (c, info) = abi::compile_ir_graphics(&b.finish(), 0, Options::default()).unwrap();
        assert_eq!(info.tile_words, 1);
        c.code
    }

    /// A fragment program of `code` that reads the colour as one four-component perspective
    /// varying.
    fn colour_fragment(
        mem: &mut Mem,
        progs: &mut Programs,
        code: &[u8],
        publications: u32,
    ) -> Arc<FragmentProgram> {
        Arc::new(FragmentProgram {
            body: progs.arena.add_body(mem, code).unwrap(),
            varyings: vec![Varying {
                slot: 0,
                components: 4,
                interp: Interp::Perspective,
                coefficient: 1,
            }],
            reads_frag_z: false,
            point_coord: None,
            discards: false,
            reads_tilebuffer: false,
            publications,
            scratch: 0,
            origin_word: None,
        })
    }

    /// Uploads `verts` as one interleaved vertex buffer (position, colour) and returns the
    /// vertex stage's argument words: zero roots, then the buffer's address in qword
    /// [`VB_QWORD`].
    fn vertex_args(mem: &mut Mem, verts: &[RefVtx]) -> Vec<u32> {
        let data: Vec<u8> = verts
            .iter()
            .flat_map(|(p, c)| p.iter().chain(c))
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let vb = mem.upload(Heap::General, &data, 64).unwrap();
        let mut args = vec![0u32; 2 * VB_QWORD as usize];
        args.extend([vb as u32, (vb >> 32) as u32]);
        args
    }

    const VERTS: [RefVtx; 5] = [
        ([-0.7, -0.8, 0.3, 1.0], [1.0, 0.0, 0.0, 1.0]),
        ([1.2, -1.1, 0.6, 2.0], [0.0, 1.0, 0.0, 1.0]),
        ([-0.1, 0.9, 0.4, 1.0], [0.0, 0.0, 1.0, 0.5]),
        ([0.9, 0.6, 0.2, 1.0], [1.0, 1.0, 0.0, 1.0]),
        ([0.1, -0.2, 0.9, 1.0], [0.2, 0.4, 0.6, 0.8]),
    ];

    #[test]
    fn compiled_programs_fetch_vertices_through_the_root_record_and_match_the_reference() {
        let (mut mem, mut progs, _) = setup();
        let vs = Arc::new(VertexProgram {
            body: progs.arena.add_body(&mut mem, &vertex_program()).unwrap(),
            outputs: 8,
            writes_point_size: false,
            // The whole publication namespace until the compiler reports its high-water mark.
            publications: 128,
            scratch: 0,
        });
        let fs = colour_fragment(&mut mem, &mut progs, &fragment_program(), 0);
        let args = vertex_args(&mut mem, &VERTS);
        let indices = [0u32, 1, 2, 2, 1, 3, 4, 0, 2];
        let va = index_buffer(&mut mem, IndexSize::U16, &indices);
        let mut batch = Batch::new(framebuffer(false));
        clear_all(&mut batch);
        let mut d = draw(
            &vs,
            &fs,
            Primitive::Triangles,
            Indices::Indexed {
                va,
                size: IndexSize::U16,
                count: indices.len() as u32,
                base_vertex: 0,
                restart: None,
            },
        );
        d.vs_args = args.clone();
        batch.draws.push(d);
        let (px, stats) = render(&mem, &mut progs, &batch);
        let mut want = RefFrame::new(CLEAR_BYTES);
        for t in indices.chunks(3) {
            want.triangle([0, 1, 2].map(|k| VERTS[t[k] as usize]), false, None);
        }
        assert!(want.color.iter().filter(|c| **c != CLEAR_BYTES).count() > 500);
        compare(&px, &want);
        // Five distinct vertices, shaded once: one render of the whole framebuffer.
        assert_eq!(stats.vertices_shaded, 5);

        // Control: without the buffer's address in root qword 6 the program fetches from
        // address 0, which faults: the image above depends on the root record.
        let mut batch = Batch::new(framebuffer(false));
        let mut d = draw(
            &vs,
            &fs,
            Primitive::Triangles,
            Indices::Direct { first: 0, count: 3 },
        );
        d.vs_args = vec![0u32; 14];
        clear_all(&mut batch);
        batch.draws.push(d);
        let err = run_batch(&mem, &mut progs, &batch).unwrap_err();
        assert!(err.to_lowercase().contains("fault"), "{err}");
    }

    /// The same draw with the vertex program compiled for 5 registers, so it spills: the
    /// launcher gives the stage 4 bytes of scratch per spilled word as frame extent A (B = 0,
    /// the measured shape) and the image equals the reference. With one byte less the model
    /// refuses the spill access.
    #[test]
    fn a_spilling_vertex_program_runs_with_its_scratch_frame() {
        let opts = Options {
            gprs: 5,
            schedule: true,
        };
        let (code, words) = vertex_program_at(opts);
        assert!(
            words > 0,
            "the vertex program no longer spills at 5 registers"
        );
        let (mut mem, mut progs, _) = setup();
        let body = progs.arena.add_body(&mut mem, &code).unwrap();
        let fs = colour_fragment(&mut mem, &mut progs, &fragment_program(), 0);
        let args = vertex_args(&mut mem, &VERTS);
        let batch_with = |scratch: u16| {
            let vs = Arc::new(VertexProgram {
                body,
                outputs: 8,
                writes_point_size: false,
                publications: 128,
                scratch,
            });
            let mut batch = Batch::new(framebuffer(false));
            clear_all(&mut batch);
            let mut d = draw(
                &vs,
                &fs,
                Primitive::Triangles,
                Indices::Direct { first: 0, count: 3 },
            );
            d.vs_args = args.clone();
            batch.draws.push(d);
            batch
        };
        let (px, _) = render(&mem, &mut progs, &batch_with(4 * words as u16));
        let mut want = RefFrame::new(CLEAR_BYTES);
        want.triangle([VERTS[0], VERTS[1], VERTS[2]], false, None);
        assert!(want.color.iter().filter(|c| **c != CLEAR_BYTES).count() > 100);
        compare(&px, &want);
        let err = run_batch(&mem, &mut progs, &batch_with(4 * words as u16 - 1)).unwrap_err();
        assert!(err.contains("extent A"), "{err}");
    }

    /// `gl_FragColor = texture2D(u_tex, v_col.xy)`: unit 0 through texture and sampler table
    /// entries 0 (what agx16-gallium fills per draw).
    fn textured_fragment_program() -> (Vec<u8>, u32) {
        let mut b = Builder::new(Stage::Fragment);
        let u = b.load_varying(1, CInterp::Perspective);
        let v = b.load_varying(2, CInterp::Perspective);
        let t = b.texture(
            0,
            0,
            TexKind::Sample,
            agx16_compiler::ir::TexDim::D2,
            [Src::val(u), Src::val(v)],
        );
        let word = abi::pack_unorm_4x8(&mut b, std::array::from_fn(|k| Src::comp(t, k as u8)));
        b.store_tile(0, word);
        let (c, info) = abi::compile_ir_graphics(&b.finish(), 0, Options::default()).unwrap();
        (c.code, info.publications)
    }

    /// An 8x8 texture magnified 8 times over the 64x64 target through `StageTextures`: each
    /// pixel is the nearest texel of its centre's (u, v) (GL ES 3.0 §3.8.10; texel edges fall
    /// on multiples of 8 pixels, never on a centre), so the image is exact. Controls: a zero
    /// sampler root (no table uploaded) is refused by name.
    #[test]
    fn stage_texture_tables_feed_a_compiled_sample_and_match_the_texels() {
        use agx16_cmdstream::descriptors::{
            Channels, MipFilter, NumericType, Sampler, Swizzle, Wrap,
        };
        use agx16_cmdstream::layout::{ImageDesc, ImageLayout, Tiling};
        use agx16_cmdstream::texture_layout::{texture_for, TextureFormat};

        let (mut mem, mut progs, _) = setup();
        let vs = Arc::new(VertexProgram {
            body: progs.arena.add_body(&mut mem, &vertex_program()).unwrap(),
            outputs: 8,
            writes_point_size: false,
            publications: 128,
            scratch: 0,
        });
        let (code, publications) = textured_fragment_program();
        let fs = colour_fragment(&mut mem, &mut progs, &code, publications);
        // Full-screen quad, (u, v) = (ndc + 1) / 2 in the colour's x, y.
        let corner = |x: f32, y: f32| -> RefVtx {
            (
                [x, y, 0.5, 1.0],
                [(x + 1.0) / 2.0, (y + 1.0) / 2.0, 0.0, 1.0],
            )
        };
        let quad = [
            corner(-1.0, -1.0),
            corner(1.0, -1.0),
            corner(-1.0, 1.0),
            corner(-1.0, 1.0),
            corner(1.0, -1.0),
            corner(1.0, 1.0),
        ];
        let vs_args = vertex_args(&mut mem, &quad);
        let texel = |x: u32, y: u32| -> [u8; 4] {
            [
                (x * 31) as u8,
                (y * 29) as u8,
                ((x ^ y) * 37) as u8,
                255 - (x * y) as u8,
            ]
        };
        let layout = ImageLayout::new(ImageDesc::simple_2d(8, 8, 4, Tiling::Twiddled)).unwrap();
        let mut image = vec![0u8; layout.total_bytes() as usize];
        for y in 0..8 {
            for x in 0..8 {
                let at = layout.element_offset(0, 0, x, y, 0) as usize;
                image[at..at + 4].copy_from_slice(&texel(x, y));
            }
        }
        let tex_va = mem.upload(Heap::General, &image, 128).unwrap();
        let format = TextureFormat {
            channels: Channels::R8G8B8A8,
            numeric_type: NumericType::Unorm,
            swizzle: [Swizzle::R, Swizzle::G, Swizzle::B, Swizzle::A],
            srgb: false,
        };
        let mut sampler = Sampler {
            mip_filter: MipFilter::None,
            wrap_s: Wrap::ClampToEdge,
            wrap_t: Wrap::ClampToEdge,
            wrap_r: Wrap::ClampToEdge,
            compare_sense: true,
            compare_test: agx16_cmdstream::Hex(7),
            ..Default::default()
        };
        sampler.set_lod_range(0.0, 14.0);
        let tables = StageTextures {
            textures: vec![Some(texture_for(&layout, tex_va, format).unwrap())],
            samplers: vec![Some(sampler)],
        };
        let mut fs_args = vec![0u32; 12];
        tables.upload(&mut mem, &mut fs_args).unwrap();
        // Roots 0 and 1 now hold the two tables' addresses.
        assert!(fs_args[0] | fs_args[1] != 0 && fs_args[2] | fs_args[3] != 0);
        let mut d = draw(
            &vs,
            &fs,
            Primitive::Triangles,
            Indices::Direct { first: 0, count: 6 },
        );
        d.vs_args = vs_args.clone();
        d.fs_args = fs_args.clone();
        let mut batch = Batch::new(framebuffer(false));
        clear_all(&mut batch);
        batch.draws.push(d.clone());
        let (px, _) = render(&mem, &mut progs, &batch);
        for y in 0..H {
            for x in 0..W {
                let want = texel(x / 8, y / 8);
                assert_eq!(px[(y * W + x) as usize], want, "pixel ({x}, {y})");
            }
        }

        // Control: the sampler root left zero (only the texture table uploaded).
        let only_textures = StageTextures {
            samplers: vec![],
            ..tables
        };
        let mut args = vec![0u32; 12];
        only_textures.upload(&mut mem, &mut args).unwrap();
        assert_eq!(args[2..4], [0, 0]);
        d.fs_args = args;
        let mut batch = Batch::new(framebuffer(false));
        clear_all(&mut batch);
        batch.draws.push(d);
        let err = run_batch(&mem, &mut progs, &batch).unwrap_err();
        assert!(err.contains("sampler table root"), "{err}");
    }
}

#[test]
fn a_bgra8_target_clears_to_bgra_bytes() {
    // The tile word holds the pixel's bytes in memory order; the export is a byte copy.
    let (mem, mut progs, _) = setup();
    let mut fb = framebuffer(false);
    fb.colors[0].as_mut().unwrap().format = TileFormat::Bgra8Unorm;
    let mut batch = Batch::new(fb);
    clear_all(&mut batch);
    let (px, _) = render(&mem, &mut progs, &batch);
    assert!(px.iter().all(|p| *p == [30, 20, 10, 255]), "{:?}", px[0]);
}

#[test]
fn two_colour_targets_get_their_own_clears_and_the_same_fragments() {
    let (mut mem, mut progs, _) = setup();
    let vs = progs.vertex(&mut mem, TRI);
    let fs = Arc::new(FragmentProgram {
        body: progs
            .arena
            .add_body(&mut mem, &fragment_body_words(2))
            .unwrap(),
        ..(*progs.fragment(&mut mem)).clone()
    });
    const IMG2: u64 = IMG + 0x8000;
    let mut fb = framebuffer(false);
    fb.colors.push(Some(ColorTarget {
        va: IMG2,
        plane: PlaneLayout::twiddled(W, H, 4),
        format: TileFormat::Rgba8Unorm,
    }));
    let mut batch = Batch::new(fb);
    // Slot 0 takes CLEAR, slot 1 another colour: two clears before any draw.
    let one = |bit| ClearMask {
        color: bit,
        depth: false,
        stencil: false,
    };
    assert!(batch.clear(one(1), CLEAR, 1.0, 0));
    let other = [0.5, 0.25, 1.0, 0.0];
    assert!(batch.clear(one(2), other, 1.0, 0));
    batch.draws.push(draw(
        &vs,
        &fs,
        Primitive::Triangles,
        Indices::Direct { first: 0, count: 3 },
    ));
    mem.pt.host_write(IMG2, &vec![0xcd; 0x4000]).unwrap();
    let (px, _) = render(&mem, &mut progs, &batch);
    let mut want = RefFrame::new(CLEAR_BYTES);
    want.draw(TRI, Primitive::Triangles, &[vec![0, 1, 2]], false);
    compare(&px, &want);
    // Target 1 (twiddled): the same fragments over its own clear colour.
    let plane = PlaneLayout::twiddled(W, H, 4);
    let other_bytes = TileFormat::Rgba8Unorm.pack(other).unwrap();
    for i in 0..W * H {
        let mut c = [0u8; 4];
        mem.pt
            .host_read(IMG2 + plane.offset(i % W, i / W), &mut c)
            .unwrap();
        let w = want.color[i as usize];
        let expect = if w == CLEAR_BYTES { other_bytes } else { w };
        assert!(
            c.iter().zip(expect).all(|(a, b)| a.abs_diff(b) <= 1),
            "target 1 pixel {},{}: {c:?} vs {expect:?}",
            i % W,
            i / W
        );
    }
}

/// `FragmentProgram::origin_word`: each render's fragment root record carries that
/// render's origin (x, y as f32) at the named words, which a program adds to gl_FragCoord.xy
/// (the M4 reports render pixels). The body stores root word 12 (origin x) raw as the tile
/// word, so every pixel of the 64x64 target holds the f32 bits of its render's x origin:
/// 0.0 left of x = 32, 32.0 right of it. Control: without an origin word the root record is
/// the draw's own (zero there), in every render.
#[test]
fn each_render_gets_its_origin_in_the_fragment_root_record() {
    let (mut mem, mut progs, fs) = setup();
    let vs = progs.vertex(&mut mem, TRI);
    let body = encode_program(&[
        b(
            "uniform_mov",
            &[("dst", 0), ("u_size", 1), ("u", 12), ("b3", 0x08)],
        ),
        b("tile_setup", &[("b1", 2), ("access", 0x600)]),
        b("tile_setup", &[("b1", 2), ("access", 0x80c)]),
        b(
            "tile_store",
            &[("mode", 0x54), ("src", 0), ("mask", 1), ("fmt", 0x4e)],
        ),
        b("tile_fence", &[("access", 0x20c)]),
        b("stop", &[]),
    ]);
    // The RGBA8 target alone (32x32 utiles): one render of the whole framebuffer, origin
    // (0, 0). With four more 16-byte targets (68 tilebuffer bytes a pixel: 32x16 utiles, whose
    // tile index no source establishes) one render per 32x16 rectangle, each with its origin.
    let wide = |mut fb: Framebuffer| {
        for k in 1..5u64 {
            fb.colors.push(Some(ColorTarget {
                va: IMG + 0x1_0000 * k,
                plane: PlaneLayout::linear(W, H, 16),
                format: TileFormat::Raw { bytes: 16 },
            }));
        }
        fb
    };
    for (fb, renders) in [(framebuffer(false), 1), (wide(framebuffer(false)), 8)] {
        // A full-screen pair of triangles through the id-based vertex body is not available,
        // so the clear colour marks what the triangle does not cover; covered pixels are
        // checked.
        for origin_word in [Some(12), None] {
            let fs = Arc::new(FragmentProgram {
                body: progs.arena.add_body(&mut mem, &body).unwrap(),
                origin_word,
                ..(*fs).clone()
            });
            let mut d = draw(
                &vs,
                &fs,
                Primitive::Triangles,
                Indices::Direct { first: 0, count: 3 },
            );
            d.fs_args = vec![0; 14];
            let split = renders > 1;
            let mut batch = Batch::new(fb.clone());
            let mut words = vec![Some(vec![u32::from_le_bytes(CLEAR_BYTES)])];
            words.resize(fb.colors.len(), Some(vec![0; 4]));
            let mask = ClearMask {
                color: (1 << fb.colors.len()) - 1,
                depth: false,
                stencil: false,
            };
            assert!(batch.clear_words(mask, &words, 1.0, 0));
            batch.draws.push(d);
            let (px, stats) = render(&mem, &mut progs, &batch);
            assert_eq!(
                (stats.draws, stats.utiles),
                (renders, 4 * (1 + split as u64))
            );
            let mut want = RefFrame::new(CLEAR_BYTES);
            want.draw(TRI, Primitive::Triangles, &[vec![0, 1, 2]], false);
            let mut right = 0;
            for (i, p) in px.iter().enumerate() {
                if want.color[i] == CLEAR_BYTES {
                    assert_eq!(*p, CLEAR_BYTES, "uncovered pixel {i}");
                    continue;
                }
                let x = i as u32 % W;
                let ox = if x >= 32 && origin_word.is_some() && split {
                    32.0f32
                } else {
                    0.0
                };
                assert_eq!(
                    *p,
                    ox.to_bits().to_le_bytes(),
                    "pixel ({x}, {}), {renders} renders",
                    i as u32 / W
                );
                right += (x >= 32) as usize;
            }
            assert!(right > 50, "the triangle reaches the right utiles");
        }
    }
}

#[test]
fn point_coord_is_bound_for_point_sprites() {
    // A fragment program reading only gl_PointCoord.s (coefficient 1, red = iter(1)): the
    // builder's CF table binds it with source PointCoord and points are drawn as sprites.
    // Reference (GL point rules, size 1): the pixel whose centre lies in [x - 0.5, x + 0.5)
    // x [y - 0.5, y + 0.5) of the window position, s = centre - (x - 0.5). The body stores
    // red = (s + 2) / 4: the quad's helper lanes beside the sprite iterate s < 0, which the
    // plain body's float-to-unsigned conversion would refuse.
    let (mut mem, mut progs, _) = setup();
    let pts = Shape {
        x0: -0.8,
        dx: 0.73,
        y0: -0.48,
        dy: 0.3,
        z: 0.5,
        r0: 0.0,
        dr: 0.0,
    };
    let vs = progs.vertex(&mut mem, pts);
    let body = encode_program(&[
        iter(0, 1),
        movf(1, 2.0),
        falu("fadd", 2, 0, 1),
        movf(3, 255.0 / 4.0),
        falu("fmul", 4, 2, 3),
        movf(6, 0.5),
        falu("fadd", 7, 4, 6),
        f2u(5, 7),
        b("tile_setup", &[("b1", 2), ("access", 0x600)]),
        b("tile_setup", &[("b1", 2), ("access", 0x80c)]),
        b(
            "tile_store",
            &[
                ("mode", 0x54),
                ("src", 5),
                ("rt", 0),
                ("mask", 1),
                ("fmt", 0x4e),
            ],
        ),
        b("tile_fence", &[("access", 0x20c)]),
        b("stop", &[]),
    ]);
    let fs = Arc::new(FragmentProgram {
        body: progs.arena.add_body(&mut mem, &body).unwrap(),
        varyings: vec![],
        point_coord: Some(1),
        ..(*progs.fragment(&mut mem)).clone()
    });
    assert_eq!(fs.coefficient_registers(), 3);
    let mut batch = Batch::new(framebuffer(false));
    clear_all(&mut batch);
    batch.draws.push(draw(
        &vs,
        &fs,
        Primitive::Points,
        Indices::Direct { first: 0, count: 3 },
    ));
    let (px, _) = render(&mem, &mut progs, &batch);
    let mut want = vec![CLEAR_BYTES; (W * H) as usize];
    for k in 0..3 {
        let (p, _) = pts.vertex(k);
        let x = (p[0] as f64 + 1.0) * W as f64 / 2.0;
        let y = (p[1] as f64 + 1.0) * H as f64 / 2.0;
        // Pixel n has its centre n + 0.5 in [x - 0.5, x + 0.5): n = ceil(x - 1).
        let (nx, ny) = ((x - 1.0).ceil(), (y - 1.0).ceil());
        let s = nx + 0.5 - (x - 0.5);
        want[(ny as u32 * W + nx as u32) as usize] =
            [((s + 2.0) * 255.0 / 4.0).round() as u8, 0, 0, 0];
    }
    assert_eq!(want.iter().filter(|c| **c != CLEAR_BYTES).count(), 3);
    for (i, (g, w)) in px.iter().zip(&want).enumerate() {
        assert!(
            (g[0] as i32 - w[0] as i32).abs() <= 1 && g[1..] == w[1..],
            "pixel {i}: {g:?} vs {w:?}"
        );
    }
}

/// Raw colour targets of 1, 2, 8 and 16 bytes per pixel next to an RGBA8 one, with an unbound
/// slot between them: each takes whole tile words after the previous bound target, is cleared
/// to its own packed words and exported byte for byte through a same-width integer view. The
/// body stores the RGBA8 colour word into every tile word, so a covered pixel of a raw target
/// holds that word's bytes repeated and an uncovered one its clear bytes; slot 0 matches the
/// reference rasteriser as before. (At most four bound targets: the end-of-tile program has
/// four block-store publication tuples.)
fn raw_targets(widths: &[u8], gap_after: usize, offsets: &[Option<u32>]) {
    raw_targets_with(widths, gap_after, offsets, false)
}

/// Pixel `i`'s bytes before a reloading render (distinct per pixel and byte).
fn earlier_bytes(i: u32, bytes: u8) -> Vec<u8> {
    (0..bytes as u32)
        .map(|k| (i * 7 + k * 31 + i / 64 * 13) as u8)
        .collect()
}

/// As above; with `reload` the raw targets are not cleared but hold [`earlier_bytes`], which
/// the background program fetches back (an unsigned-integer view of the same width) and the
/// uncovered pixels keep.
fn raw_targets_with(widths: &[u8], gap_after: usize, offsets: &[Option<u32>], reload: bool) {
    let (mut mem, mut progs, _) = setup();
    let vs = progs.vertex(&mut mem, TRI);
    let mut fb = framebuffer(false);
    let targets: Vec<(u64, u8)> = widths
        .iter()
        .enumerate()
        .map(|(k, &b)| (IMG + 0x10000 * (k as u64 + 1), b))
        .collect();
    let mut clears: Vec<Option<Vec<u32>>> = vec![Some(tile_words(&CLEAR_BYTES))];
    let clear_bytes = |bytes: u8| -> Vec<u8> { (0..bytes).map(|k| 0x41 + 7 * k).collect() };
    for (k, &(va, bytes)) in targets.iter().enumerate() {
        if k == gap_after {
            fb.colors.push(None);
            clears.push(None);
        }
        fb.colors.push(Some(ColorTarget {
            va,
            plane: PlaneLayout::twiddled(W, H, bytes as u32),
            format: TileFormat::Raw { bytes },
        }));
        clears.push((!reload).then(|| tile_words(&clear_bytes(bytes))));
    }
    let layout = fb.tile_layout();
    assert_eq!(layout.offsets, offsets);
    let words = layout.sample_bytes / 4;
    let fs = Arc::new(FragmentProgram {
        body: progs
            .arena
            .add_body(&mut mem, &fragment_body_words(words as u64))
            .unwrap(),
        ..(*progs.fragment(&mut mem)).clone()
    });
    let mut batch = Batch::new(fb);
    let mask = ClearMask {
        color: 0xff,
        depth: false,
        stencil: false,
    };
    assert!(batch.clear_words(mask, &clears, 1.0, 0));
    batch.draws.push(draw(
        &vs,
        &fs,
        Primitive::Triangles,
        Indices::Direct { first: 0, count: 3 },
    ));
    for &(va, bytes) in &targets {
        mem.pt.host_write(va, &vec![0xcd; 0x10000]).unwrap();
        if reload {
            let plane = PlaneLayout::twiddled(W, H, bytes as u32);
            for i in 0..W * H {
                let at = va + plane.offset(i % W, i / W);
                mem.pt.host_write(at, &earlier_bytes(i, bytes)).unwrap();
            }
        }
    }
    let (px, _) = render(&mem, &mut progs, &batch);
    let mut want = RefFrame::new(CLEAR_BYTES);
    want.draw(TRI, Primitive::Triangles, &[vec![0, 1, 2]], false);
    compare(&px, &want);
    let mut covered = 0;
    for &(va, bytes) in &targets {
        let plane = PlaneLayout::twiddled(W, H, bytes as u32);
        for i in 0..W * H {
            let mut got = vec![0u8; bytes as usize];
            mem.pt
                .host_read(va + plane.offset(i % W, i / W), &mut got)
                .unwrap();
            let expect: Vec<u8> = if want.color[i as usize] == CLEAR_BYTES {
                if reload {
                    earlier_bytes(i, bytes)
                } else {
                    clear_bytes(bytes)
                }
            } else {
                covered += 1;
                // Slot 0's own pixel: the same tile word.
                let mut c = [0u8; 4];
                mem.pt.host_read(IMG + 4 * i as u64, &mut c).unwrap();
                c.iter().cycle().take(bytes as usize).copied().collect()
            };
            assert_eq!(got, expect, "{bytes}-byte target pixel {},{}", i % W, i / W);
        }
    }
    assert!(covered > 0);
}

#[test]
fn raw_targets_of_one_two_and_sixteen_bytes_after_a_gap() {
    raw_targets(&[1, 16, 2], 1, &[Some(0), Some(4), None, Some(8), Some(24)]);
}

#[test]
fn raw_targets_of_eight_and_four_bytes() {
    raw_targets(&[8, 4], 0, &[Some(0), None, Some(4), Some(12)]);
}

/// Eight bound targets: targets 4..7 export through publication tuples 0..12 again, each
/// after the previous store's join (agx16-isa `block_store_sequence`); the model refuses a
/// tuple rewritten before its join, so a wrong order fails here.
#[test]
fn eight_bound_targets_export_through_reused_tuples() {
    let offsets = [0, 4, 8, 24, 28, 36, 40, 56].map(Some);
    raw_targets(&[1, 16, 2, 8, 4, 16, 4], 7, &offsets);
    raw_targets_with(&[1, 16, 2, 8, 4, 16, 4], 7, &offsets, true);
}

/// 4 + 7 * 16 = 116 tilebuffer bytes per pixel (the 1x budget is 128): a 32x16 utile.
#[test]
fn eight_wide_targets_fill_the_tilebuffer() {
    let wide = [0, 4, 20, 36, 52, 68, 84, 100].map(Some);
    raw_targets(&[16; 3], 3, &wide[..4]);
    raw_targets(&[16; 4], 4, &wide[..5]);
    raw_targets(&[16; 7], 7, &wide);
}

#[test]
fn a_ninth_colour_slot_is_refused_by_name() {
    let (mut mem, mut progs, fs) = setup();
    let vs = progs.vertex(&mut mem, TRI);
    let mut fb = framebuffer(false);
    for k in 1..9u64 {
        fb.colors.push(Some(ColorTarget {
            va: IMG + 0x10000 * k,
            plane: PlaneLayout::twiddled(W, H, 4),
            format: TileFormat::Rgba8Unorm,
        }));
    }
    let mut batch = Batch::new(fb);
    let mask = ClearMask {
        color: 0x1ff,
        depth: false,
        stencil: false,
    };
    assert!(batch.clear(mask, CLEAR, 1.0, 0));
    batch.draws.push(draw(
        &vs,
        &fs,
        Primitive::Triangles,
        Indices::Direct { first: 0, count: 3 },
    ));
    let err = run_batch(&mem, &mut progs, &batch).unwrap_err();
    assert!(err.contains("9 colour targets (at most 8)"), "{err}");
}

#[test]
fn raw_targets_without_a_clear_reload_their_earlier_bytes() {
    raw_targets_with(
        &[1, 16, 2],
        1,
        &[Some(0), Some(4), None, Some(8), Some(24)],
        true,
    );
    raw_targets_with(&[8, 4], 0, &[Some(0), None, Some(4), Some(12)], true);
}

#[test]
fn a_framebuffer_smaller_than_its_target_clears_only_its_area() {
    let (mut mem, mut progs, fs) = setup();
    let vs = progs.vertex(&mut mem, TRI);
    let mut fb = framebuffer(false);
    fb.width = 32;
    fb.height = 32;
    let mut batch = Batch::new(fb.clone());
    clear_all(&mut batch);
    batch.draws.push(draw(
        &vs,
        &fs,
        Primitive::Triangles,
        Indices::Direct { first: 0, count: 3 },
    ));
    mem.pt
        .host_write(IMG, &vec![0xcd; (W * H * 4) as usize])
        .unwrap();
    let (px, _) = render(&mem, &mut progs, &batch);
    let mut want = RefFrame::new(CLEAR_BYTES);
    want.draw(TRI, Primitive::Triangles, &[vec![0, 1, 2]], false);
    let mut inside = 0;
    for (i, p) in px.iter().enumerate() {
        let (x, y) = (i as u32 % W, i as u32 / W);
        if x < 32 && y < 32 {
            inside += 1;
            let w = want.color[i];
            assert!(
                p.iter().zip(w).all(|(a, b)| a.abs_diff(b) <= 1),
                "{x},{y}: {p:?} vs {w:?}"
            );
        } else {
            assert_eq!(*p, [0xcd; 4], "{x},{y} is outside the render area");
        }
    }
    assert_eq!(inside, 32 * 32);
    fb.width = 40;
    let mut batch = Batch::new(fb);
    clear_all(&mut batch);
    let err = run_batch(&mem, &mut progs, &batch).unwrap_err();
    assert!(err.contains("render area ends inside a utile"), "{err}");
}

#[test]
fn occlusion_counting_adds_each_draws_passing_samples_to_its_slot() {
    let (mut mem, mut progs, fs) = setup();
    let far = progs.vertex(&mut mem, TRI);
    let near = progs.vertex(&mut mem, NEAR);
    let slots = mem.alloc(Heap::General, 8 * 8, 8).unwrap();
    mem.write(slots, &[0u8; 64]).unwrap();
    let mut batch = Batch::new(framebuffer(true));
    clear_all(&mut batch);
    batch.occlusion_base = slots;
    // The near triangle first (every covered sample passes), then the far one, which fails
    // where the near one covers it; a third draw counts nothing.
    for (vs, slot) in [(&near, Some(1)), (&far, Some(4)), (&far, None)] {
        let mut d = depth_draw(vs, &fs);
        d.occlusion = slot;
        batch.draws.push(d);
    }
    render(&mem, &mut progs, &batch);
    let mut want = RefFrame::new(CLEAR_BYTES);
    want.draw(NEAR, Primitive::Triangles, &[vec![0, 1, 2]], true);
    let covered = |f: &RefFrame| f.color.iter().filter(|c| **c != CLEAR_BYTES).count() as u64;
    let near_samples = covered(&want);
    want.draw(TRI, Primitive::Triangles, &[vec![0, 1, 2]], true);
    let far_samples = covered(&want) - near_samples;
    assert!(near_samples > 100 && far_samples > 100);
    let mut got = [0u8; 64];
    mem.pt.host_read(slots, &mut got).unwrap();
    let got: Vec<u64> = got
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(got, [0, near_samples, 0, 0, far_samples, 0, 0, 0]);
}

/// A long-lived process creates and deletes programs without end: removed bodies give their
/// entry blocks back, so an arena of a few blocks serves many times as many programs, and
/// each draw launches its own body (a reused block left pointing at an old body would draw
/// the old shape and fail the comparison).
#[test]
fn removed_bodies_give_their_entry_blocks_back() {
    let mut mem = Mem::new();
    mem.write(USC_BASE, &EntryArena::directory().unwrap())
        .unwrap();
    let small = agx16_cmdstream::launch::HELPER_DIRECTORY_BYTES
        + 12 * agx16_cmdstream::launch::ENTRY_BLOCK_BYTES;
    let mut progs = Programs {
        arena: EntryArena::new(small),
        tiles: TileCache::default(),
    };
    assert_eq!(progs.arena.capacity(), 12);
    let fs = progs.fragment(&mut mem);
    let mut entries = std::collections::BTreeSet::new();
    for i in 0..24u32 {
        // Each program draws a different triangle (inside the clip volume) with a different
        // red ramp.
        let s = Shape {
            x0: -0.9 + 0.02 * (i % 7) as f32,
            dx: 0.6 + 0.05 * (i % 5) as f32,
            y0: -0.8 + 0.03 * (i % 3) as f32,
            dy: 0.35 + 0.025 * (i % 4) as f32,
            z: 0.5,
            r0: 0.1 + 0.02 * (i % 11) as f32,
            dr: 0.3,
        };
        let vs = progs.vertex(&mut mem, s);
        entries.insert(vs.body.entry_offset);
        let mut batch = Batch::new(framebuffer(false));
        clear_all(&mut batch);
        batch.draws.push(draw(
            &vs,
            &fs,
            Primitive::Triangles,
            Indices::Direct { first: 0, count: 3 },
        ));
        let (px, _) = render(&mem, &mut progs, &batch);
        let mut want = RefFrame::new(CLEAR_BYTES);
        want.draw(s, Primitive::Triangles, &[vec![0, 1, 2]], false);
        compare(&px, &want);
        progs.arena.remove_body(&mut mem, &vs.body);
        // The fragment program and the tile programs stay; the vertex program's block is free.
        assert_eq!(progs.arena.used(), 1 + progs.tiles.body_count() as u64);
    }
    // 24 vertex programs (twice the arena) went through one block.
    assert_eq!(entries.len(), 1, "{entries:?}");
    // A full arena refuses a new body with a clear error and works again after a removal.
    let mut held = Vec::new();
    let err = loop {
        match progs.arena.add_body(&mut mem, &vertex_body(TRI)) {
            Ok(b) => held.push(b),
            Err(e) => break e.to_string(),
        }
    };
    assert!(err.contains("entry arena is full"), "{err}");
    progs.arena.remove_body(&mut mem, &held.pop().unwrap());
    assert!(progs.arena.add_body(&mut mem, &vertex_body(TRI)).is_ok());
}

// ---- multisampling ----

mod msaa {
    use super::*;
    use agx16_compiler::abi;
    use agx16_compiler::ir::{Builder, Interp as CInterp, Op, Src, Stage, Type, Value};
    use agx16_compiler::pipeline::Options;

    /// The covered samples of the first `samples` as a store mask (the coverage word's low
    /// bits) and the fragment's colour `vec4(red, 0, 0, 0)` packed as RGBA8.
    fn coverage_and_red(b: &mut Builder, samples: u32) -> (Value, Value) {
        let cov = b.coverage();
        let mask = b.alu(
            Op::And,
            Type::I32,
            [Src::val(cov), Src::imm((1 << samples) - 1)],
        );
        let r = b.load_varying(1, CInterp::Perspective);
        let word = abi::pack_unorm_4x8(
            b,
            [
                Src::val(r),
                Src::imm_f32(0.0),
                Src::imm_f32(0.0),
                Src::imm_f32(0.0),
            ],
        );
        (mask, word)
    }

    /// `b`'s program with one perspective varying (the red channel) as a fragment program.
    fn red_program(
        mem: &mut Mem,
        progs: &mut Programs,
        b: Builder,
        reads_tilebuffer: bool,
    ) -> Arc<FragmentProgram> {
        let (c, info) = abi::compile_ir_graphics(&b.finish(), 0, Options::default()).unwrap();
        Arc::new(FragmentProgram {
            body: progs.arena.add_body(mem, &c.code).unwrap(),
            varyings: vec![Varying {
                slot: 0,
                components: 1,
                interp: Interp::Perspective,
                coefficient: 1,
            }],
            reads_frag_z: false,
            point_coord: None,
            discards: false,
            reads_tilebuffer,
            publications: info.publications,
            scratch: 0,
            origin_word: None,
        })
    }

    /// `gl_FragColor = vec4(red, 0, 0, 0)` into the covered samples of a multisampled RGBA8
    /// target: the coverage word's low bits as the store mask (agx16-compiler's
    /// multisample colour store).
    fn fragment_ms(mem: &mut Mem, progs: &mut Programs, samples: u32) -> Arc<FragmentProgram> {
        let mut b = Builder::new(Stage::Fragment);
        let (mask, word) = coverage_and_red(&mut b, samples);
        b.store_tile_masked(0, word, Src::val(mask));
        red_program(mem, progs, b, false)
    }

    /// As [`fragment_ms`] but writing only red: each sample's word is read (`tile_read_mask`
    /// of that sample) and its green, blue and alpha bytes kept (a colour mask merged per
    /// sample, as agx16-compiler does for GL colour masks on multisampled targets).
    fn fragment_ms_red_only(
        mem: &mut Mem,
        progs: &mut Programs,
        samples: u32,
    ) -> Arc<FragmentProgram> {
        let mut b = Builder::new(Stage::Fragment);
        let (mask, word) = coverage_and_red(&mut b, samples);
        let red = b.alu(Op::And, Type::I32, [Src::val(word), Src::imm(0xff)]);
        for s in 0..samples {
            let one = b.alu(Op::Copy, Type::I32, [Src::imm(1 << s)]);
            let d = b.load_tile_masked(0, Src::val(one));
            let gba = b.alu(Op::And, Type::I32, [Src::val(d), Src::imm(0xffff_ff00)]);
            let v = b.alu(Op::Or, Type::I32, [Src::val(red), Src::val(gba)]);
            let ms = b.alu(Op::And, Type::I32, [Src::val(mask), Src::imm(1 << s)]);
            b.store_tile_masked(0, v, Src::val(ms));
        }
        red_program(mem, progs, b, true)
    }

    fn framebuffer_ms(samples: u32, depth: bool) -> Framebuffer {
        let mut fb = framebuffer(depth);
        fb.samples = samples;
        fb.colors[0].as_mut().unwrap().plane = Plane::twiddled(W, H, 4 * samples);
        fb
    }

    /// Sample positions (x, y in pixels) of the standard pattern, decoded from the packed
    /// word independently of the model (x low nibble, y high nibble, 1/16 pixel).
    fn positions(samples: u32) -> Vec<(f64, f64)> {
        let w: u64 = match samples {
            2 => 0x44cc,
            _ => 0xeaa2_6e26,
        };
        (0..samples)
            .map(|s| {
                let b = (w >> (8 * s)) & 0xff;
                ((b & 0xf) as f64 / 16.0, (b >> 4) as f64 / 16.0)
            })
            .collect()
    }

    /// Per-sample CPU reference: coverage and depth at each sample position (top-left rule,
    /// 1/256 snapping), colour shaded once at the pixel centre (perspective-correct red)
    /// and written to the covered samples that pass.
    struct RefMs {
        n: usize,
        color: Vec<[u8; 4]>,
        depth: Vec<f32>,
    }

    impl RefMs {
        fn new(n: usize) -> RefMs {
            RefMs {
                n,
                color: vec![CLEAR_BYTES; (W * H) as usize * n],
                depth: vec![1.0; (W * H) as usize * n],
            }
        }

        fn triangle(&mut self, t: RefTri, pos: &[(f64, f64)], depth_less: bool) {
            let snap = |c: f64| (c * 256.0).round() / 256.0;
            let win: Vec<(f64, f64, f64, f64, f32)> = t
                .iter()
                .map(|(p, c)| {
                    let w = p[3] as f64;
                    (
                        snap(W as f64 / 2.0 + W as f64 / 2.0 * p[0] as f64 / w),
                        snap(H as f64 / 2.0 + H as f64 / 2.0 * p[1] as f64 / w),
                        p[2] as f64 / w,
                        w,
                        c[0],
                    )
                })
                .collect();
            let area = (win[1].0 - win[0].0) * (win[2].1 - win[0].1)
                - (win[2].0 - win[0].0) * (win[1].1 - win[0].1);
            if area == 0.0 {
                return;
            }
            let sg = area.signum();
            let bary = |cx: f64, cy: f64| {
                let mut b = [0.0; 3];
                let mut inside = true;
                for (k, bk) in b.iter_mut().enumerate() {
                    let (a, c) = (win[(k + 1) % 3], win[(k + 2) % 3]);
                    let e = sg * ((c.0 - a.0) * (cy - a.1) - (c.1 - a.1) * (cx - a.0));
                    let (dx, dy) = (sg * (c.0 - a.0), sg * (c.1 - a.1));
                    inside &= e > 0.0 || (e == 0.0 && ((dy == 0.0 && dx > 0.0) || dy < 0.0));
                    *bk = e / (sg * area);
                }
                (b, inside)
            };
            for py in 0..H {
                for px in 0..W {
                    let (bc, _) = bary(px as f64 + 0.5, py as f64 + 0.5);
                    let den: f64 = (0..3).map(|k| bc[k] / win[k].3).sum();
                    let num: f64 = (0..3).map(|k| bc[k] * win[k].4 as f64 / win[k].3).sum();
                    let red = ((num / den).clamp(0.0, 1.0) * 255.0).round() as u8;
                    for (s, (ox, oy)) in pos.iter().enumerate() {
                        let (b, inside) = bary(px as f64 + ox, py as f64 + oy);
                        if !inside {
                            continue;
                        }
                        let i = (py * W + px) as usize * self.n + s;
                        let z = (0..3).map(|k| b[k] * win[k].2).sum::<f64>() as f32;
                        if depth_less {
                            if z >= self.depth[i] {
                                continue;
                            }
                            self.depth[i] = z;
                        }
                        self.color[i] = [red, 0, 0, 0];
                    }
                }
            }
        }
    }

    /// Every sample of the multisampled target (pixel-major, samples together).
    fn samples_of(mem: &Mem, n: u32) -> Vec<[u8; 4]> {
        let plane = Plane::twiddled(W, H, 4 * n);
        let mut out = Vec::new();
        for i in 0..W * H {
            for s in 0..n {
                let mut c = [0u8; 4];
                mem.pt
                    .host_read(IMG + plane.offset(i % W, i / W) + 4 * s as u64, &mut c)
                    .unwrap();
                out.push(c);
            }
        }
        out
    }

    fn compare_ms(got: &[[u8; 4]], want: &RefMs) {
        let mut worst = 0;
        for (i, (g, w)) in got.iter().zip(&want.color).enumerate() {
            let (px, s) = (i / want.n, i % want.n);
            assert_eq!(
                *g == CLEAR_BYTES,
                *w == CLEAR_BYTES,
                "coverage differs at pixel {},{} sample {s}: model {g:?} reference {w:?}",
                px as u32 % W,
                px as u32 / W
            );
            for k in 0..4 {
                worst = worst.max((g[k] as i32 - w[k] as i32).abs());
            }
        }
        assert!(worst <= 1, "colour differs by {worst} steps");
    }

    /// Edges at slopes that split pixels between samples (TRI's edges have slopes 1/2, 1 and
    /// 3/2, which never separate the 2x samples on the diagonal).
    const MS_FAR: Shape = Shape {
        x0: -0.83,
        dx: 0.87,
        y0: -0.91,
        dy: 0.37,
        z: 0.5,
        r0: 0.1,
        dr: 0.4,
    };
    /// Over parts of both and of the clear.
    const MS_THIRD: Shape = Shape {
        x0: -0.5,
        dx: 0.7,
        y0: -0.95,
        dy: 0.45,
        z: 0.5,
        r0: 0.3,
        dr: 0.25,
    };
    /// Inside the clip volume (clipping re-snaps vertices, which the reference does not model).
    const MS_NEAR: Shape = Shape {
        x0: -0.77,
        dx: 0.8,
        y0: 0.71,
        dy: -0.4,
        z: 0.25,
        r0: 0.9,
        dr: -0.3,
    };

    /// 2x and 4x: a clear and a triangle, every sample against the per-sample reference;
    /// edge pixels are partly covered (some samples drawn, some clear), so a store to the
    /// wrong samples, a clear of only sample 0 or an export of only sample 0 shows. Then a
    /// second batch without a clear reloads every sample and draws a nearer triangle with
    /// multisampled depth loaded and tested per sample.
    #[test]
    fn multisampled_triangles_match_the_per_sample_reference() {
        for n in [2u32, 4] {
            let (mut mem, mut progs, _) = setup();
            let fs = fragment_ms(&mut mem, &mut progs, n);
            let far = progs.vertex(&mut mem, MS_FAR);
            let near = progs.vertex(&mut mem, MS_NEAR);
            mem.pt
                .host_write(IMG, &vec![0xcd; (W * H * 4 * n) as usize])
                .unwrap();
            let pos = positions(n);
            let mut want = RefMs::new(n as usize);

            let mut batch = Batch::new(framebuffer_ms(n, true));
            clear_all(&mut batch);
            batch.draws.push(depth_draw(&far, &fs));
            run_batch(&mem, &mut progs, &batch).expect("render");
            want.triangle([0, 1, 2].map(|k| red(MS_FAR.vertex(k))), &pos, true);
            let got = samples_of(&mem, n);
            compare_ms(&got, &want);
            // Partly covered pixels exist (the point of multisampling).
            let partial = got
                .chunks(n as usize)
                .filter(|p| p.contains(&CLEAR_BYTES) && p.iter().any(|c| *c != CLEAR_BYTES))
                .count();
            assert!(partial > 10, "{n}x: {partial} partly covered pixels");

            // Reload colour and depth, draw the nearer triangle with the depth test.
            let mut batch = Batch::new(framebuffer_ms(n, true));
            batch.draws.push(depth_draw(&near, &fs));
            run_batch(&mem, &mut progs, &batch).expect("reload render");
            want.triangle([0, 1, 2].map(|k| red(MS_NEAR.vertex(k))), &pos, true);
            let got = samples_of(&mem, n);
            compare_ms(&got, &want);

            // A third render writes only red with a third triangle (no depth test): each
            // covered sample keeps its own green, blue and alpha (the clear's where earlier
            // triangles left it).
            let fs_red = fragment_ms_red_only(&mut mem, &mut progs, n);
            let third = progs.vertex(&mut mem, MS_THIRD);
            let mut batch = Batch::new(framebuffer_ms(n, false));
            batch.draws.push(draw(
                &third,
                &fs_red,
                Primitive::Triangles,
                Indices::Direct { first: 0, count: 3 },
            ));
            run_batch(&mem, &mut progs, &batch).expect("colour-masked render");
            let before = want.color.clone();
            let mut red_only = RefMs::new(n as usize);
            red_only.color = vec![[0, 0, 0, 0]; before.len()];
            red_only.triangle([0, 1, 2].map(|k| red(MS_THIRD.vertex(k))), &pos, false);
            let got = samples_of(&mem, n);
            let mut kept = 0;
            for (i, (g, (b, r))) in got
                .iter()
                .zip(before.iter().zip(&red_only.color))
                .enumerate()
            {
                let want = if *r == [0, 0, 0, 0] {
                    *b
                } else {
                    kept += (b[1..] == CLEAR_BYTES[1..]) as usize;
                    [r[0], b[1], b[2], b[3]]
                };
                assert!(
                    (0..4).all(|k| (g[k] as i32 - want[k] as i32).abs() <= 1),
                    "{n}x sample {i}: model {g:?} want {want:?}"
                );
            }
            assert!(
                kept > 100,
                "{n}x: {kept} samples kept the clear's green/blue/alpha"
            );
        }
    }
}

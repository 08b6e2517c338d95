//! The programmable stages the fixed-function pipeline calls: vertex, background, fragment
//! and end-of-tile. [`IsaStages`] runs them as the hardware does (launcher programs in the
//! USC heap); other implementations (tests, future host references) plug in here.

use super::coeff::Plane;
use super::unestablished;
use crate::error::SimError;
use crate::mem::GpuMemory;

/// One vertex-stage invocation.
#[derive(Debug, Clone, Copy)]
pub struct VertexInvocation {
    /// Index of the draw in the render.
    pub draw: usize,
    /// USC VA of the vertex launch (setup) program (VDM state vertex word 1).
    pub launch: u64,
    pub vertex_id: u32,
    pub instance_id: u32,
    /// Scalar outputs the stage must produce: position x,y,z,w, user scalars, point size.
    pub outputs: usize,
}

/// The tilebuffer of one utile: `sample_size` bytes per sample, `samples` per pixel. The
/// model addresses it by pixel, sample and byte (pixel-major, samples minor); the physical
/// arrangement inside the M4's tile memory is not observable.
#[derive(Debug, Clone)]
pub struct TileBuffer {
    /// Framebuffer pixel of the utile's top-left corner.
    pub origin: (u32, u32),
    pub width: u32,
    pub height: u32,
    pub samples: u32,
    pub sample_size: u32,
    pub bytes: Vec<u8>,
}

impl TileBuffer {
    pub fn new(
        origin: (u32, u32),
        width: u32,
        height: u32,
        samples: u32,
        sample_size: u32,
    ) -> Self {
        TileBuffer {
            origin,
            width,
            height,
            samples,
            sample_size,
            bytes: vec![0; (width * height * samples * sample_size) as usize],
        }
    }

    /// Bytes of every sample of the pixel at utile-relative (x, y), or `None` outside.
    pub fn pixel(&self, x: u32, y: u32) -> Option<&[u8]> {
        let r = self.range(x, y, 0, self.samples)?;
        self.bytes.get(r)
    }

    pub fn pixel_mut(&mut self, x: u32, y: u32) -> Option<&mut [u8]> {
        let r = self.range(x, y, 0, self.samples)?;
        self.bytes.get_mut(r)
    }

    /// Bytes of one sample of a pixel.
    pub fn sample(&self, x: u32, y: u32, s: u32) -> Option<&[u8]> {
        let r = self.range(x, y, s, 1)?;
        self.bytes.get(r)
    }

    pub fn sample_mut(&mut self, x: u32, y: u32, s: u32) -> Option<&mut [u8]> {
        let r = self.range(x, y, s, 1)?;
        self.bytes.get_mut(r)
    }

    fn range(&self, x: u32, y: u32, s: u32, n: u32) -> Option<std::ops::Range<usize>> {
        (x < self.width && y < self.height && s + n <= self.samples).then(|| {
            let at = (((y * self.width + x) * self.samples + s) * self.sample_size) as usize;
            at..at + (n * self.sample_size) as usize
        })
    }
}

/// One fragment-stage invocation: one pixel, shaded once (at the pixel centre) for all its
/// covered samples.
#[derive(Debug, Clone)]
pub struct Fragment<'a> {
    pub draw: usize,
    /// USC VA of the fragment launch program (PPP fragment-shader record).
    pub launch: u64,
    /// Framebuffer pixel.
    pub x: u32,
    pub y: u32,
    pub front_facing: bool,
    /// Samples of the pixel this invocation covers (bit n = sample n) after the early
    /// tests; the program's tilebuffer writes land on these samples only.
    pub sample_mask: u8,
    /// Samples whose depth/stencil test has not run before the program (passes with late
    /// tests: the covered samples; early tests: none).
    pub pending_tests: u8,
    /// A helper lane: no sample of it to shade; it runs only so the quad's derivatives
    /// have four lanes, and the model drops its writes.
    pub helper: bool,
    /// Coefficient registers of the primitive (see [`super::coeff`]).
    pub coefficients: &'a [Plane],
}

impl Fragment<'_> {
    /// Pixel centre the iterators sample at.
    pub fn centre(&self) -> (f32, f32) {
        (self.x as f32 + 0.5, self.y as f32 + 0.5)
    }

    /// Value of coefficient register `cf` at the pixel centre, as a linear (screen-space)
    /// or flat iteration reads it; `None` past the bound registers.
    pub fn iterate_linear(&self, cf: usize) -> Option<f32> {
        let (x, y) = self.centre();
        self.coefficients.get(cf).map(|p| p.at(x, y))
    }

    /// What the hardware iterator (`iter` at the pixel centre) returns for register `cf`:
    /// the plane's value, divided by coefficient 0 (1/W) when the register's binding is
    /// perspective (the mode lives in the CF binding table, not in the instruction).
    pub fn iterate(&self, cf: usize) -> Option<f32> {
        match self.coefficients.get(cf)?.perspective {
            true => self.iterate_perspective(cf),
            false => self.iterate_linear(cf),
        }
    }

    /// Perspective-correct iteration: the register holds attribute/W, coefficient 0 holds
    /// 1/W, and the iterator divides one by the other at the pixel centre.
    pub fn iterate_perspective(&self, cf: usize) -> Option<f32> {
        let v = self.iterate_linear(cf)?;
        let inv_w = self.iterate_linear(0)?;
        Some(v / inv_w)
    }
}

/// What the fragment stage decided.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FragmentResult {
    /// The fragment was discarded: no depth/stencil update, no occlusion count.
    pub discard: bool,
    /// The program writes coverage: its depth/stencil tests ran at its coverage writes
    /// (`tested`) and `killed` samples were discarded (`super::body` "Coverage").
    pub coverage_writes: bool,
    pub killed: u8,
    pub tested: u8,
    /// The depth (f32 bits) the program's depth store gave its tested samples.
    pub depth_bits: Option<u32>,
}

/// The programmable stages of a render.
pub trait Stages {
    /// Runs the vertex stage for one vertex; returns exactly `inv.outputs` scalars.
    fn vertex(&mut self, mem: &dyn GpuMemory, inv: &VertexInvocation)
        -> Result<Vec<f32>, SimError>;
    /// Runs the vertex stage for up to one SIMD-group of vertices of one draw and instance;
    /// returns one output vector per invocation, in order. The default calls
    /// [`Stages::vertex`] for each; a SIMD implementation overrides it.
    fn vertices(
        &mut self,
        mem: &dyn GpuMemory,
        invs: &[VertexInvocation],
    ) -> Result<Vec<Vec<f32>>, SimError> {
        invs.iter().map(|inv| self.vertex(mem, inv)).collect()
    }
    /// Runs the background program (`bg_usc`) on a fresh utile.
    fn background(
        &mut self,
        mem: &dyn GpuMemory,
        usc: u64,
        tile: &mut TileBuffer,
    ) -> Result<(), SimError>;
    /// Runs the fragment stage for one covered pixel that passed the early tests.
    fn fragment(
        &mut self,
        mem: &dyn GpuMemory,
        frag: &Fragment,
        tile: &mut TileBuffer,
    ) -> Result<FragmentResult, SimError>;
    /// Runs the fragment stage on one SIMD-group of 1..=8 aligned 2x2 quads of one primitive
    /// (lanes 4q..4q+3 are quad q's pixels in order (0,0), (1,0), (0,1), (1,1)); returns one
    /// result per lane. The default runs [`Stages::fragment`] for each non-helper lane; a
    /// SIMD implementation overrides it to shade the group together.
    fn fragments(
        &mut self,
        mem: &dyn GpuMemory,
        quad: &[Fragment],
        tile: &mut TileBuffer,
    ) -> Result<Vec<FragmentResult>, SimError> {
        quad.iter()
            .map(|f| {
                if f.helper {
                    Ok(FragmentResult::default())
                } else {
                    self.fragment(mem, f, tile)
                }
            })
            .collect()
    }
    /// Runs the end-of-tile program (`eot_usc`) on a finished utile.
    fn end_of_tile(
        &mut self,
        mem: &dyn GpuMemory,
        usc: u64,
        tile: &TileBuffer,
    ) -> Result<(), SimError>;
    /// Whether the fragment stage of the launcher at `launch` may write device memory, so
    /// that tiles shaded on different threads could write the same bytes
    /// (`super::run_render_parallel` then keeps the serial order). The default: it may.
    fn fragment_may_store(&mut self, _mem: &dyn GpuMemory, _launch: u64) -> bool {
        true
    }
}

/// The hardware path: every stage enters through a launcher (setup) program in the USC
/// heap. The model runs vertex and fragment launchers as setup invocations
/// ([`super::launcher::run_stage_setup`]: pointer loads, argument transfers into the body's
/// uniform registers, stage target, entry jump) and the body with those uniforms.
/// Vertex and fragment bodies run on the shader core with the graphics IO forms established
/// so far ([`super::body`]: vertex id, exports and varying stores, coefficient iteration,
/// tilebuffer words, tile access brackets); background and end-of-tile programs run per
/// utile through [`super::tile_programs`] (tile words in, block image store out).
#[derive(Default)]
pub struct IsaStages {
    /// Decoded bodies and the argument words their launcher transferred, by launcher VA.
    bodies: rustc_hash::FxHashMap<u64, StageProgram>,
    /// Decoded bodies by body VA, for the render (one IsaStages serves one render): draws
    /// that change only uniforms get new launchers that reach the same body, and the USC heap
    /// does not change under a running render, so the body is read and looked up once.
    by_va: rustc_hash::FxHashMap<u64, std::rc::Rc<super::body::Body>>,
    /// Background and end-of-tile programs by launcher VA.
    tile_programs: super::tile_programs::TilePrograms,
}

/// A stage body and the uniform registers its launcher's setup invocation filled.
#[derive(Clone)]
struct StageProgram {
    body: std::rc::Rc<super::body::Body>,
    uniforms: std::rc::Rc<[u32]>,
    /// Publication words the launcher's frame reserves (2 per encoded pair).
    publications: u32,
    /// Per-invocation scratch bytes: the frame's extent A, as for compute (`core::scratch`).
    scratch: u32,
    allocation: agx16_isa::meaning::StageAllocation,
}

impl std::fmt::Debug for IsaStages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IsaStages({} bodies)", self.bodies.len())
    }
}

impl IsaStages {
    /// Runs the launcher's setup invocation once per launcher VA and render (the root
    /// record it reads is immutable batch memory in the driver, agx_apple9.c
    /// `agx_apple9_prepare_draw`; per-draw state gets a new launcher) and loads its body.
    fn body(
        &mut self,
        mem: &dyn GpuMemory,
        launch: u64,
        stage: super::launcher::RenderStage,
    ) -> Result<StageProgram, SimError> {
        if let Some(b) = self.bodies.get(&launch) {
            return Ok(b.clone());
        }
        let l = super::launcher::run_stage_setup(mem, launch, stage)?;
        let body = match self.by_va.get(&l.body) {
            Some(b) => b.clone(),
            None => {
                let b = super::body::Body::load_shared(mem, l.body)?;
                self.by_va.insert(l.body, b.clone());
                b
            }
        };
        let p = StageProgram {
            body,
            uniforms: l.arguments.into(),
            publications: l.frame.publication_words,
            scratch: super::launcher::stage_scratch(&l.frame, launch)?,
            allocation: l.allocation,
        };
        self.bodies.insert(launch, p.clone());
        Ok(p)
    }
}

/// The fragment launcher's tile allocation names the render's sample count
/// (GravityLinux/mesa agx_apple9.c `agx_apple9_prepare_draw` passes the pipeline's samples to
/// the launch builder; README.apple9-launchers.md: 1x/2x/4x layouts ran on T8132). A layout
/// for another count than the render's tilebuffer has no established meaning.
fn check_tile_layout(p: &StageProgram, launch: u64, tile: &TileBuffer) -> Result<(), SimError> {
    use agx16_isa::meaning::StageAllocation;
    match p.allocation {
        StageAllocation::Tile { samples, .. } if samples as u32 == tile.samples => Ok(()),
        a => Err(unestablished(
            launch,
            "fragment launcher",
            format!(
                "{a:?} for a {}-sample render: the launcher's tile layout must be the \
                 render's",
                tile.samples
            ),
        )),
    }
}

impl Stages for IsaStages {
    fn vertex(
        &mut self,
        mem: &dyn GpuMemory,
        inv: &VertexInvocation,
    ) -> Result<Vec<f32>, SimError> {
        let mut out = self.vertices(mem, std::slice::from_ref(inv))?;
        Ok(out.swap_remove(0))
    }
    fn vertices(
        &mut self,
        mem: &dyn GpuMemory,
        invs: &[VertexInvocation],
    ) -> Result<Vec<Vec<f32>>, SimError> {
        let Some(first) = invs.first() else {
            return Ok(vec![]);
        };
        let p = self.body(mem, first.launch, super::launcher::RenderStage::Vertex)?;
        super::body::run_vertex_batch(mem, &p.body, &p.uniforms, p.scratch, p.publications, invs)
    }
    fn background(
        &mut self,
        mem: &dyn GpuMemory,
        usc: u64,
        tile: &mut TileBuffer,
    ) -> Result<(), SimError> {
        let p = self.tile_programs.load(mem, usc)?;
        super::tile_programs::run_background(mem, &p, tile)
    }
    fn fragment(
        &mut self,
        mem: &dyn GpuMemory,
        frag: &Fragment,
        tile: &mut TileBuffer,
    ) -> Result<FragmentResult, SimError> {
        let p = self.body(mem, frag.launch, super::launcher::RenderStage::Fragment)?;
        check_tile_layout(&p, frag.launch, tile)?;
        let r = super::body::run_fragment_quad(
            mem,
            &p.body,
            &p.uniforms,
            p.scratch,
            std::slice::from_ref(frag),
            tile,
        )?;
        Ok(r[0])
    }
    fn fragments(
        &mut self,
        mem: &dyn GpuMemory,
        quad: &[Fragment],
        tile: &mut TileBuffer,
    ) -> Result<Vec<FragmentResult>, SimError> {
        let Some(first) = quad.first() else {
            return Ok(vec![]);
        };
        if quad.iter().any(|f| f.launch != first.launch) {
            return Err(super::unestablished(
                first.launch,
                "fragment launcher",
                "one quad with two fragment programs",
            ));
        }
        let p = self.body(mem, first.launch, super::launcher::RenderStage::Fragment)?;
        check_tile_layout(&p, first.launch, tile)?;
        super::body::run_fragment_quad(mem, &p.body, &p.uniforms, p.scratch, quad, tile)
    }
    fn end_of_tile(
        &mut self,
        mem: &dyn GpuMemory,
        usc: u64,
        tile: &TileBuffer,
    ) -> Result<(), SimError> {
        let p = self.tile_programs.load(mem, usc)?;
        super::tile_programs::run_end_of_tile(mem, &p, tile)
    }
    /// A body with a device store may; one that cannot be loaded is reported as storing, so
    /// the serial order reports the failure where it occurs.
    fn fragment_may_store(&mut self, mem: &dyn GpuMemory, launch: u64) -> bool {
        match self.body(mem, launch, super::launcher::RenderStage::Fragment) {
            Ok(p) => p
                .body
                .prog
                .ops
                .iter()
                .any(|op| matches!(op.kind, crate::core::ops::Kind::Store { .. })),
            Err(_) => true,
        }
    }
}

//! Compiled programs as the render path binds them: a body in the USC aperture reached
//! through an entry block of the entry arena, plus the interface facts the command words
//! need (vertex output count, the fragment program's coefficient bindings).

use crate::mem::{DrawError, GpuWriter, Heap};
use agx16_cmdstream::launch::{entry_block, helper_directory, ENTRY_BLOCK_BYTES, ENTRY_IN_BLOCK};
use agx16_cmdstream::launch::{ENTRY_ARENA_BYTES, HELPER_DIRECTORY_BYTES};
use agx16_cmdstream::vdm::USC_BASE;

/// A body uploaded to the USC aperture and its entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShaderBody {
    pub body_va: u64,
    /// Bytes allocated for the body at `body_va` (code and read-ahead padding), what
    /// [`EntryArena::remove_body`] gives back.
    pub body_bytes: u64,
    /// USC offset of the entry (what a launcher's stage target selects).
    pub entry_offset: u64,
}

/// How a varying is interpolated across a primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interp {
    Perspective,
    Linear,
    /// Constant: the provoking vertex's value.
    Flat,
}

/// One varying the fragment program iterates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Varying {
    /// Index of its first scalar among the vertex program's user outputs (after position).
    pub slot: u8,
    /// 1..=4 scalars.
    pub components: u8,
    pub interp: Interp,
    /// First coefficient register the program's `iter` reads it from (coefficient 0 is
    /// 1/W, then Z when the program reads the fragment depth).
    pub coefficient: u8,
}

/// A vertex program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexProgram {
    pub body: ShaderBody,
    /// Scalar outputs: position (4), user scalars, then point size when written.
    pub outputs: u8,
    pub writes_point_size: bool,
    /// Publication high-water mark in 32-bit words (launcher frame).
    pub publications: u32,
    /// Spill/scratch bytes (launcher frame extent A).
    pub scratch: u16,
}

/// A fragment program compiled for the framebuffer's tile layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FragmentProgram {
    pub body: ShaderBody,
    pub varyings: Vec<Varying>,
    /// Reads the fragment's window depth (coefficient 1).
    pub reads_frag_z: bool,
    /// Reads gl_PointCoord (s, t) from this coefficient and the next (bound with source
    /// PointCoord).
    pub point_coord: Option<u8>,
    /// May discard (punch-through pass).
    pub discards: bool,
    /// Reads the tilebuffer (blending, framebuffer fetch).
    pub reads_tilebuffer: bool,
    pub publications: u32,
    pub scratch: u16,
    /// Root-record word of two f32 words the builder sets to each render's origin (framebuffer
    /// pixel of the render's (0, 0)): the program adds them to gl_FragCoord.xy, because a batch
    /// with a large tilebuffer is drawn as one render per utile rectangle and the M4 reports
    /// render pixels (0, 0 for the usual whole-framebuffer render).
    pub origin_word: Option<usize>,
}

impl FragmentProgram {
    /// Coefficient registers the program's bindings fill.
    pub fn coefficient_registers(&self) -> u8 {
        let fixed = 1 + self.reads_frag_z as u8;
        self.varyings
            .iter()
            .map(|v| v.coefficient + v.components)
            .max()
            .unwrap_or(0)
            .max(fixed)
            .max(self.point_coord.map_or(0, |c| c + 2))
    }
}

/// The entry arena at the bottom of the USC aperture: the helper directory, then one entry
/// block per body (agx16-cmdstream `launch::arena`). The driver owns one per device and
/// places it at `USC_BASE`. Blocks of removed bodies are handed out again (lowest first), so
/// a long-lived process (a dEQP run of hundreds of cases, a browser) that creates and
/// destroys programs never fills it; only the live bodies count against the 8 MiB
/// (43,000+ entries) the 24-bit stage target reaches.
#[derive(Clone, Debug)]
pub struct EntryArena {
    bytes: u64,
    next: u64,
    /// Blocks of removed bodies, by offset (reused lowest first).
    free: std::collections::BTreeSet<u64>,
}

impl EntryArena {
    /// The driver's arena size: 8 MiB holds 40,000+ entries.
    pub const DEFAULT_BYTES: u64 = ENTRY_ARENA_BYTES;

    /// An arena of `bytes` (at most the 8 MiB the 24-bit stage target reaches).
    pub fn new(bytes: u64) -> EntryArena {
        EntryArena {
            bytes: bytes.min(ENTRY_ARENA_BYTES),
            next: HELPER_DIRECTORY_BYTES,
            free: Default::default(),
        }
    }

    /// The helper directory, to be written at `USC_BASE` before any entry is used.
    pub fn directory() -> Result<Vec<u8>, DrawError> {
        Ok(helper_directory()?)
    }

    /// Uploads `code` into the USC aperture and writes an entry block for it at `USC_BASE`
    /// + a free block (through `mem`, which must map the arena).
    pub fn add_body(
        &mut self,
        mem: &mut dyn GpuWriter,
        code: &[u8],
    ) -> Result<ShaderBody, DrawError> {
        let block = match self.free.first() {
            Some(&b) => b,
            None if self.next + ENTRY_BLOCK_BYTES <= self.bytes => self.next,
            None => {
                return Err(DrawError::Memory(format!(
                    "the {}-byte entry arena is full ({} live bodies)",
                    self.bytes,
                    self.used()
                )))
            }
        };
        // Bodies are read in 16-byte granules past their end: pad so the last one is mapped.
        let mut padded = code.to_vec();
        padded.resize(code.len() + 64, 0);
        let body_va = mem.upload(Heap::Usc, &padded, 128)?;
        let entry = entry_block(USC_BASE, block, body_va, false)
            .map_err(DrawError::from)
            .and_then(|e| mem.write(USC_BASE + block, &e));
        if let Err(e) = entry {
            mem.free(Heap::Usc, body_va, padded.len() as u64);
            return Err(e);
        }
        if !self.free.remove(&block) {
            self.next += ENTRY_BLOCK_BYTES;
        }
        Ok(ShaderBody {
            body_va,
            body_bytes: padded.len() as u64,
            entry_offset: block + ENTRY_IN_BLOCK,
        })
    }

    /// Gives `body`'s entry block and memory back for later bodies. The caller guarantees
    /// that no submitted work still launches it (the driver removes a program only when
    /// the renders that used it have completed).
    pub fn remove_body(&mut self, mem: &mut dyn GpuWriter, body: &ShaderBody) {
        let block = body.entry_offset - ENTRY_IN_BLOCK;
        debug_assert!(block >= HELPER_DIRECTORY_BYTES && block < self.next);
        if !self.free.insert(block) {
            debug_assert!(false, "entry block {block:#x} removed twice");
            return;
        }
        mem.free(Heap::Usc, body.body_va, body.body_bytes);
        // Give the top of the arena back so `next` stays tight.
        while self
            .free
            .last()
            .is_some_and(|&b| b + ENTRY_BLOCK_BYTES == self.next)
        {
            self.next -= ENTRY_BLOCK_BYTES;
            self.free.pop_last();
        }
    }

    /// Live entry blocks (handed out and not removed).
    pub fn used(&self) -> u64 {
        (self.next - HELPER_DIRECTORY_BYTES) / ENTRY_BLOCK_BYTES - self.free.len() as u64
    }

    /// How many entry blocks the arena holds at most.
    pub fn capacity(&self) -> u64 {
        (self.bytes - HELPER_DIRECTORY_BYTES) / ENTRY_BLOCK_BYTES
    }
}

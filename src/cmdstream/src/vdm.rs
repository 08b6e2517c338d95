//! The vertex data master (VDM) control stream: state updates, PPP updates, index lists
//! (draws), links, barriers and terminate. Block type is in bits 31:29 of a block's first
//! word (G13 numbering, unchanged on G16). Pointers into the render context are 32-bit
//! offsets from its base (`RENDER_CONTEXT_BASE`).
//!
//! State and index-list blocks are variable length: presence bits in the header select which
//! payload words follow. The order of those words is declared once, in `STATE_SLOTS` and
//! `INDEX_SLOTS`, and drives both decode and encode.

use crate::evidence::{AGXRE_CMDSTREAM, GENXML_G13, GENXML_G16, MESA_APPLE9};
use crate::print::{dump, PrintOptions};
use crate::record::{PackError, Record, Unexplained};
use crate::stream::{le32, GpuRead, StreamError, StreamErrorKind, WalkLimits};

/// Base of the render-context aperture; VDM links and PPP pointers are 32-bit offsets from it.
/// (GravityLinux/mesa cmdbuf.xml "G16 uses a 32-bit render-context offset"; g16_render.rs.)
pub const RENDER_CONTEXT_BASE: u64 = 0x10_0000_0000;
/// Base of the USC heap; index buffers and launch programs are offsets into it.
pub const USC_BASE: u64 = 1 << 40;

const fn w(word: u32, bit: u32) -> u32 {
    word * 32 + bit
}

hw_enum! {
    /// VDM block types (bits 31:29).
    pub enum VdmBlockType {
        PppUpdate = 0 => "PPP state update",
        Barrier = 1 => "barrier",
        State = 2 => "VDM state update",
        IndexList = 3 => "index list",
        Link = 4 => "stream link",
        Tessellate = 5 => "tessellate",
        Terminate = 6 => "stream terminate",
    }
}

hw_enum! {
    /// Primitive topology of an index list.
    pub enum Primitive {
        Points = 0 => "points",
        Lines = 1 => "lines",
        LineStrip = 3 => "line strip",
        LineLoop = 5 => "line loop",
        Triangles = 6 => "triangles",
        TriangleStrip = 9 => "triangle strip",
        TriangleFan = 11 => "triangle fan",
        Quads = 14 => "quads",
        QuadStrip = 15 => "quad strip",
    }
}

hw_enum! {
    /// Index size of an indexed draw.
    pub enum IndexSize {
        U8 = 0 => "u8",
        U16 = 1 => "u16",
        U32 = 2 => "u32",
    }
}

impl IndexSize {
    /// Bytes per index, or `None` for a value no source names.
    pub fn bytes(self) -> Option<u32> {
        match self {
            IndexSize::U8 => Some(1),
            IndexSize::U16 => Some(2),
            IndexSize::U32 => Some(4),
            IndexSize::Unknown(_) => None,
        }
    }
}

record! {
    /// Points the PPP at `size_words` words of state at a render-context offset (8 bytes).
    pub struct VdmPppUpdate : 8 {
        size_words: u8 = [8, 8] plain, MESA_APPLE9;
        /// Render-context offset of the state words.
        pointer: u32 = [32, 32] plain, MESA_APPLE9;
    }
    fixed {
        // G13's pointer bits 39:32; G16 points with 32-bit context offsets.
        pointer_hi = [0, 8] == 0, MESA_APPLE9;
        block_type = [29, 3] == 0, GENXML_G13;
    }
}

record! {
    /// VDM barrier (4 bytes). T8132 render batches need bits 0, 1 and 4 together.
    pub struct VdmBarrier : 4 {
        unk_0: Unexplained = [0, 1] plain, GENXML_G16;
        unk_1: Unexplained = [1, 1] plain, GENXML_G16;
        usc_cache_inval: bool = [3, 1] plain, GENXML_G13;
        unk_4: Unexplained = [4, 1] plain, GENXML_G16;
        returns: bool = [27, 1] plain, GENXML_G13;
    }
    fixed { block_type = [29, 3] == 1, GENXML_G13; }
}

/// The barrier word T8132 Mesa emits between render batches (bits 0, 1, 4).
pub const BARRIER_G16: u32 = 0x2000_0013;

record! {
    /// Header of a VDM state update; the set bits say which payload words follow.
    pub struct VdmStateHeader : 4 {
        restart_index_present: bool = [0, 1] plain, GENXML_G13;
        vertex_word0_present: bool = [1, 1] plain, GENXML_G13;
        vertex_word1_present: bool = [2, 1] plain, GENXML_G13;
        vertex_outputs_present: bool = [3, 1] plain, GENXML_G13;
        tessellation_present: bool = [4, 1] plain, GENXML_G13;
        vertex_unknown_present: bool = [5, 1] plain, GENXML_G13;
        tessellation_scale_present: bool = [7, 1] plain, GENXML_G13;
    }
    fixed { block_type = [29, 3] == 2, GENXML_G13; }
}

record! {
    /// Primitive-restart comparand.
    pub struct VdmRestartIndex : 4 {
        value: u32 = [0, 32] plain, MESA_APPLE9;
    }
}

record! {
    /// Vertex shader word 0; T8132 Mesa writes zero (G13 register counts not used on G16).
    pub struct VdmVertexWord0 : 4 {}
}

record! {
    /// Vertex shader word 1 on G16: two words, a pipeline/state word and the vertex launch
    /// (setup) program address in 64-byte units. Mesa writes the first from its entry
    /// table state; G17P captures show 0x01000000.
    pub struct VdmVertexWord1 : 8 {
        pipeline_word: Unexplained = [0, 32] plain, MESA_APPLE9;
        /// Vertex launch program address bits 37:6 (USC heap address).
        launch: u64 = [w(1, 0), 32] shr(6), MESA_APPLE9;
    }
}

record! {
    /// Number of scalar vertex outputs (position 4 + user scalars + point size), twice.
    pub struct VdmVertexOutputs : 4 {
        count_1: u8 = [0, 8] plain, GENXML_G13;
        count_2: u8 = [8, 8] plain, GENXML_G13;
    }
}

hw_enum! {
    /// Which vertex is provoking for flat shading.
    pub enum ProvokingVertex {
        First = 0 => "vertex 0",
        Second = 1 => "vertex 1",
        Last = 2 => "vertex 2",
    }
}

record! {
    /// "Vertex unknown" on G16: flat-shading control, followed by a word T8132 Mesa
    /// always writes as zero (grouped here; inferred from the 7-word state block).
    pub struct VdmVertexUnknown : 8 {
        flat_shading_control: ProvokingVertex = [0, 2] plain, MESA_APPLE9;
        unk_4: bool = [4, 1] plain, GENXML_G13;
        unk_5: bool = [5, 1] plain, GENXML_G13;
        generate_primitive_id: bool = [6, 1] plain, GENXML_G13;
    }
}

/// A VDM state update: header plus the payload words its presence bits select.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VdmState {
    pub restart_index: Option<VdmRestartIndex>,
    pub vertex_word0: Option<VdmVertexWord0>,
    pub vertex_word1: Option<VdmVertexWord1>,
    pub vertex_outputs: Option<VdmVertexOutputs>,
    pub vertex_unknown: Option<VdmVertexUnknown>,
}

record! {
    /// Header of an index list (draw); presence bits select the payload words.
    pub struct VdmIndexListHeader : 4 {
        primitive: Primitive = [8, 8] plain, AGXRE_CMDSTREAM;
        restart_enable: bool = [16, 1] plain, MESA_APPLE9;
        index_size: IndexSize = [17, 3] plain, MESA_APPLE9;
        index_buffer_size_present: bool = [20, 1] plain, GENXML_G13;
        index_buffer_present: bool = [21, 1] plain, GENXML_G13;
        index_count_present: bool = [22, 1] plain, GENXML_G13;
        instance_count_present: bool = [23, 1] plain, GENXML_G13;
        start_present: bool = [24, 1] plain, GENXML_G13;
        indirect_buffer_present: bool = [26, 1] plain, AGXRE_CMDSTREAM;
    }
    fixed {
        // G13's index buffer bits 39:32; G16 carries the high bits in a trailing word.
        index_buffer_hi = [0, 8] == 0, MESA_APPLE9;
        block_type = [29, 3] == 3, GENXML_G13;
    }
}

record! {
    /// Indirect draw arguments pointer, stored high word then low word.
    pub struct VdmIndirectBuffer : 8 {
        address_hi: u32 = [0, 32] plain, AGXRE_CMDSTREAM;
        address_lo: u32 = [32, 32] plain, AGXRE_CMDSTREAM;
    }
}

/// An index list: a draw, direct or indexed or indirect.
#[derive(Debug, Clone, PartialEq)]
pub struct VdmIndexList {
    pub header: VdmIndexListHeader,
    /// Index buffer VA bits 31:0 (USC heap).
    pub buffer_lo: Option<u32>,
    pub indirect: Option<VdmIndirectBuffer>,
    /// Vertex count (non-indexed) or index count.
    pub count: Option<u32>,
    pub instances: Option<u32>,
    /// First vertex, or signed base vertex for indexed draws.
    pub start: Option<u32>,
    /// Index range in 32-bit words minus one, counted from the word holding the first index
    /// (T8132 Mesa, measured).
    pub buffer_size_words_minus1: Option<u32>,
    /// Index buffer VA bits 47:40 (1 for the USC heap); G16 trailing word (T8132 Mesa).
    pub buffer_hi: Option<u32>,
}

record! {
    /// Jump or call to more VDM stream at a render-context offset (8 bytes).
    pub struct VdmLink : 8 {
        with_return: bool = [28, 1] plain, GENXML_G13;
        /// Render-context offset of the target.
        target: u32 = [32, 32] plain, GENXML_G16;
    }
    fixed {
        // "G16 uses a 32-bit render-context offset: Target hi must be zero."
        target_hi = [0, 8] == 0, GENXML_G16;
        block_type = [29, 3] == 4, GENXML_G13;
    }
}

record! {
    /// Ends the VDM stream (0xc0000000, 4 bytes on G16).
    pub struct VdmTerminate : 4 {}
    fixed { block_type = [29, 3] == 6, MESA_APPLE9; }
}

/// One decoded VDM block.
#[derive(Debug, Clone, PartialEq)]
pub enum VdmBlock {
    PppUpdate(VdmPppUpdate),
    Barrier(VdmBarrier),
    State(VdmState),
    IndexList(VdmIndexList),
    Link(VdmLink),
    Terminate(VdmTerminate),
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take<R: Record>(&mut self) -> Result<R, StreamErrorKind> {
        let end = self.pos + R::SIZE;
        if end > self.bytes.len() {
            return Err(StreamErrorKind::Truncated {
                need: end,
                have: self.bytes.len(),
            });
        }
        let r = R::unpack(&self.bytes[self.pos..end])?;
        self.pos = end;
        Ok(r)
    }
    fn word(&mut self) -> Result<u32, StreamErrorKind> {
        if self.pos + 4 > self.bytes.len() {
            return Err(StreamErrorKind::Truncated {
                need: self.pos + 4,
                have: self.bytes.len(),
            });
        }
        let v = le32(self.bytes, self.pos);
        self.pos += 4;
        Ok(v)
    }
}

fn put<R: Record>(out: &mut Vec<u8>, r: &R) -> Result<(), PackError> {
    out.extend(r.pack()?);
    Ok(())
}

fn unsupported(header: u32, what: &'static str) -> StreamErrorKind {
    // A presence bit whose payload no source establishes: its size is unknown, so the rest
    // of the stream cannot be found.
    let _ = what;
    StreamErrorKind::UnknownBlockType {
        block_type: header >> 29,
        header,
    }
}

impl VdmState {
    fn decode(r: &mut Reader) -> Result<Self, StreamErrorKind> {
        let raw = le32(r.bytes, r.pos);
        let h: VdmStateHeader = r.take()?;
        if h.tessellation_present || h.tessellation_scale_present || !h.fully_known() {
            return Err(unsupported(raw, "tessellation state"));
        }
        Ok(VdmState {
            restart_index: h.restart_index_present.then(|| r.take()).transpose()?,
            vertex_word0: h.vertex_word0_present.then(|| r.take()).transpose()?,
            vertex_word1: h.vertex_word1_present.then(|| r.take()).transpose()?,
            vertex_outputs: h.vertex_outputs_present.then(|| r.take()).transpose()?,
            vertex_unknown: h.vertex_unknown_present.then(|| r.take()).transpose()?,
        })
    }

    /// The header these payloads imply.
    pub fn header(&self) -> VdmStateHeader {
        VdmStateHeader {
            restart_index_present: self.restart_index.is_some(),
            vertex_word0_present: self.vertex_word0.is_some(),
            vertex_word1_present: self.vertex_word1.is_some(),
            vertex_outputs_present: self.vertex_outputs.is_some(),
            vertex_unknown_present: self.vertex_unknown.is_some(),
            ..Default::default()
        }
    }

    fn encode(&self, out: &mut Vec<u8>) -> Result<(), PackError> {
        put(out, &self.header())?;
        if let Some(x) = &self.restart_index {
            put(out, x)?;
        }
        if let Some(x) = &self.vertex_word0 {
            put(out, x)?;
        }
        if let Some(x) = &self.vertex_word1 {
            put(out, x)?;
        }
        if let Some(x) = &self.vertex_outputs {
            put(out, x)?;
        }
        if let Some(x) = &self.vertex_unknown {
            put(out, x)?;
        }
        Ok(())
    }
}

impl VdmIndexList {
    fn decode(r: &mut Reader) -> Result<Self, StreamErrorKind> {
        let raw = le32(r.bytes, r.pos);
        let h: VdmIndexListHeader = r.take()?;
        // Bits 25 and 27 announce payloads ("unk 1", "unk 2") of unestablished size.
        if raw & (1 << 25 | 1 << 27) != 0 {
            return Err(unsupported(raw, "index list unknown payload"));
        }
        let opt = |r: &mut Reader, p: bool| p.then(|| r.word()).transpose();
        let buffer_lo = opt(r, h.index_buffer_present)?;
        let indirect = h.indirect_buffer_present.then(|| r.take()).transpose()?;
        let count = opt(r, h.index_count_present)?;
        let instances = opt(r, h.instance_count_present)?;
        let start = opt(r, h.start_present)?;
        let buffer_size_words_minus1 = opt(r, h.index_buffer_size_present)?;
        let buffer_hi = opt(r, h.index_buffer_present)?;
        Ok(VdmIndexList {
            header: h,
            buffer_lo,
            indirect,
            count,
            instances,
            start,
            buffer_size_words_minus1,
            buffer_hi,
        })
    }

    /// Sets the header's presence bits from which payload words are present.
    pub fn normalized(mut self) -> Self {
        let h = &mut self.header;
        h.index_buffer_present = self.buffer_lo.is_some();
        h.indirect_buffer_present = self.indirect.is_some();
        h.index_count_present = self.count.is_some();
        h.instance_count_present = self.instances.is_some();
        h.start_present = self.start.is_some();
        h.index_buffer_size_present = self.buffer_size_words_minus1.is_some();
        self
    }

    fn encode(&self, out: &mut Vec<u8>) -> Result<(), PackError> {
        put(out, &self.clone().normalized().header)?;
        let mut word = |v: Option<u32>| {
            if let Some(v) = v {
                out.extend(v.to_le_bytes());
            }
        };
        word(self.buffer_lo);
        if let Some(i) = &self.indirect {
            out.extend(i.pack()?);
        }
        let mut word = |v: Option<u32>| {
            if let Some(v) = v {
                out.extend(v.to_le_bytes());
            }
        };
        word(self.count);
        word(self.instances);
        word(self.start);
        word(self.buffer_size_words_minus1);
        if self.buffer_lo.is_some() {
            word(Some(self.buffer_hi.unwrap_or(0)));
        }
        Ok(())
    }

    /// A non-indexed draw of `count` vertices from `start`, as T8132 Mesa emits it.
    pub fn direct(primitive: Primitive, count: u32, instances: u32, start: u32) -> Self {
        VdmIndexList {
            header: VdmIndexListHeader {
                primitive,
                index_size: IndexSize::U32,
                ..Default::default()
            },
            buffer_lo: None,
            indirect: None,
            count: Some(count),
            instances: Some(instances),
            start: Some(start),
            buffer_size_words_minus1: None,
            buffer_hi: None,
        }
        .normalized()
    }

    #[allow(clippy::too_many_arguments)]
    /// An indexed draw reading `index_bytes` bytes of indices at `buffer` (a USC VA).
    pub fn indexed(
        primitive: Primitive,
        size: IndexSize,
        buffer: u64,
        index_bytes: u32,
        count: u32,
        instances: u32,
        base_vertex: i32,
        restart: bool,
    ) -> Self {
        VdmIndexList {
            header: VdmIndexListHeader {
                primitive,
                index_size: size,
                restart_enable: restart,
                ..Default::default()
            },
            buffer_lo: Some(buffer as u32),
            indirect: None,
            count: Some(count),
            instances: Some(instances),
            start: Some(base_vertex as u32),
            buffer_size_words_minus1: Some((index_bytes + (buffer as u32 & 3)).div_ceil(4) - 1),
            buffer_hi: Some((buffer >> 40) as u32),
        }
        .normalized()
    }

    /// Index buffer VA, if indexed.
    pub fn index_buffer(&self) -> Option<u64> {
        self.buffer_lo
            .map(|lo| ((self.buffer_hi.unwrap_or(0) as u64) << 40) | lo as u64)
    }
}

impl VdmBlock {
    /// Decodes one block at the start of `bytes`, returning it and its size.
    pub fn decode(bytes: &[u8]) -> Result<(Self, usize), StreamErrorKind> {
        if bytes.len() < 4 {
            return Err(StreamErrorKind::Truncated {
                need: 4,
                have: bytes.len(),
            });
        }
        let header = le32(bytes, 0);
        let mut r = Reader { bytes, pos: 0 };
        let block = match header >> 29 {
            0 => VdmBlock::PppUpdate(r.take()?),
            1 => VdmBlock::Barrier(r.take()?),
            2 => VdmBlock::State(VdmState::decode(&mut r)?),
            3 => VdmBlock::IndexList(VdmIndexList::decode(&mut r)?),
            4 => VdmBlock::Link(r.take()?),
            6 => VdmBlock::Terminate(r.take()?),
            block_type => return Err(StreamErrorKind::UnknownBlockType { block_type, header }),
        };
        Ok((block, r.pos))
    }

    /// True when every bit and value of the block is documented.
    pub fn fully_known(&self) -> bool {
        match self {
            VdmBlock::PppUpdate(r) => r.fully_known(),
            VdmBlock::Barrier(r) => r.fully_known(),
            VdmBlock::Link(r) => r.fully_known(),
            VdmBlock::Terminate(r) => r.fully_known(),
            VdmBlock::State(s) => {
                s.header().fully_known()
                    && s.restart_index.as_ref().is_none_or(|x| x.fully_known())
                    && s.vertex_word0.as_ref().is_none_or(|x| x.fully_known())
                    && s.vertex_word1.as_ref().is_none_or(|x| x.fully_known())
                    && s.vertex_outputs.as_ref().is_none_or(|x| x.fully_known())
                    && s.vertex_unknown.as_ref().is_none_or(|x| x.fully_known())
            }
            VdmBlock::IndexList(d) => {
                d.header.fully_known() && d.indirect.as_ref().is_none_or(|x| x.fully_known())
            }
        }
    }

    /// Encodes the block.
    pub fn pack(&self) -> Result<Vec<u8>, PackError> {
        let mut out = Vec::new();
        match self {
            VdmBlock::PppUpdate(r) => put(&mut out, r)?,
            VdmBlock::Barrier(r) => put(&mut out, r)?,
            VdmBlock::State(s) => s.encode(&mut out)?,
            VdmBlock::IndexList(d) => d.encode(&mut out)?,
            VdmBlock::Link(r) => put(&mut out, r)?,
            VdmBlock::Terminate(r) => put(&mut out, r)?,
        }
        Ok(out)
    }

    /// Human-readable dump; the flag says whether anything unknown was found.
    pub fn format(&self, indent: usize, opts: PrintOptions) -> (String, bool) {
        let mut text = String::new();
        let mut flagged = false;
        let mut add = |(t, f): (String, bool)| {
            text.push_str(&t);
            flagged |= f;
        };
        match self {
            VdmBlock::PppUpdate(r) => add(dump(r, indent, opts)),
            VdmBlock::Barrier(r) => add(dump(r, indent, opts)),
            VdmBlock::Link(r) => add(dump(r, indent, opts)),
            VdmBlock::Terminate(r) => add(dump(r, indent, opts)),
            VdmBlock::State(s) => {
                add(dump(&s.header(), indent, opts));
                if let Some(x) = &s.restart_index {
                    add(dump(x, indent, opts));
                }
                if let Some(x) = &s.vertex_word0 {
                    add(dump(x, indent, opts));
                }
                if let Some(x) = &s.vertex_word1 {
                    add(dump(x, indent, opts));
                }
                if let Some(x) = &s.vertex_outputs {
                    add(dump(x, indent, opts));
                }
                if let Some(x) = &s.vertex_unknown {
                    add(dump(x, indent, opts));
                }
            }
            VdmBlock::IndexList(d) => {
                add(dump(&d.header, indent, opts));
                let pad = " ".repeat(indent + 2);
                for (n, v) in [
                    ("buffer_lo", d.buffer_lo),
                    ("count", d.count),
                    ("instances", d.instances),
                    ("start", d.start),
                    ("buffer_size_words_minus1", d.buffer_size_words_minus1),
                    ("buffer_hi", d.buffer_hi),
                ] {
                    if let Some(v) = v {
                        add((format!("{pad}{n:<28} {v:#x} ({v})\n"), false));
                    }
                }
                if let Some(i) = &d.indirect {
                    add(dump(i, indent, opts));
                }
            }
        }
        (text, flagged)
    }
}

/// A VDM block found in a walk, with its VA and size.
#[derive(Debug, Clone, PartialEq)]
pub struct VdmItem {
    pub at: u64,
    pub size: usize,
    pub block: VdmBlock,
}

/// Longest VDM block in bytes (state with every supported payload).
const MAX_BLOCK: usize = 64;

/// Follows a VDM stream from render-context VA `start` until its terminate, taking links
/// (32-bit context offsets), calls and returns (a barrier with `returns`).
pub fn walk(
    mem: &impl GpuRead,
    start: u64,
    limits: WalkLimits,
) -> Result<Vec<VdmItem>, StreamError> {
    let mut out = Vec::new();
    let mut stack = Vec::new();
    let mut va = start;
    for _ in 0..limits.max_blocks {
        let mut buf = [0u8; MAX_BLOCK];
        // Read as much as is mapped, up to the longest block.
        let mut have = MAX_BLOCK;
        while mem.read(va, &mut buf[..have]).is_err() {
            have -= 4;
            if have == 0 {
                let e = mem.read(va, &mut buf[..4]).unwrap_err();
                return Err(StreamError::new(va, StreamErrorKind::Memory(e)));
            }
        }
        let (block, size) = VdmBlock::decode(&buf[..have]).map_err(|k| StreamError::new(va, k))?;
        let here = va;
        let next = va + size as u64;
        va = match &block {
            VdmBlock::Link(l) => {
                if l.with_return {
                    if stack.len() >= limits.max_call_depth {
                        return Err(StreamError::new(
                            here,
                            StreamErrorKind::CallTooDeep(limits.max_call_depth),
                        ));
                    }
                    stack.push(next);
                }
                RENDER_CONTEXT_BASE + l.target as u64
            }
            VdmBlock::Barrier(b) if b.returns => stack
                .pop()
                .ok_or(StreamError::new(here, StreamErrorKind::ReturnWithoutCall))?,
            _ => next,
        };
        let end = matches!(block, VdmBlock::Terminate(_));
        out.push(VdmItem {
            at: here,
            size,
            block,
        });
        if end {
            return Ok(out);
        }
    }
    Err(StreamError::new(
        va,
        StreamErrorKind::TooManyBlocks(limits.max_blocks),
    ))
}

/// One draw as the hardware sees it after walking the stream: the vertex state latched so
/// far (later state updates override the parts they carry), the PPP updates emitted since the
/// previous draw, and the index list.
#[derive(Debug, Clone, PartialEq)]
pub struct Draw {
    /// VA of the index-list block.
    pub at: u64,
    pub state: VdmState,
    pub ppp_updates: Vec<VdmPppUpdate>,
    pub index_list: VdmIndexList,
}

/// Groups a walked VDM stream into draws.
pub fn draws(items: &[VdmItem]) -> Vec<Draw> {
    let mut state = VdmState::default();
    let mut ppp = Vec::new();
    let mut out = Vec::new();
    for it in items {
        match &it.block {
            VdmBlock::State(s) => {
                macro_rules! latch {
                    ($($f:ident),*) => {$( if s.$f.is_some() { state.$f = s.$f.clone(); } )*};
                }
                latch!(
                    restart_index,
                    vertex_word0,
                    vertex_word1,
                    vertex_outputs,
                    vertex_unknown
                );
            }
            VdmBlock::PppUpdate(u) => ppp.push(u.clone()),
            VdmBlock::IndexList(d) => out.push(Draw {
                at: it.at,
                state: state.clone(),
                ppp_updates: std::mem::take(&mut ppp),
                index_list: d.clone(),
            }),
            _ => {}
        }
    }
    out
}

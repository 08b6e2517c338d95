//! Decoding and encoding whole VDM blocks, variable-length ones included.

use super::*;
use crate::print::{dump, PrintOptions};
use crate::record::{PackError, Record};
use crate::stream::{le32, StreamErrorKind};

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
    let at = out.len();
    out.resize(at + R::SIZE, 0);
    r.pack_into(&mut out[at..])
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
        self.pack_onto(&mut out)?;
        Ok(out)
    }

    /// [`VdmBlock::pack`] appended to `out` (a stream's blocks into one buffer).
    pub fn pack_onto(&self, out: &mut Vec<u8>) -> Result<(), PackError> {
        match self {
            VdmBlock::PppUpdate(r) => put(out, r),
            VdmBlock::Barrier(r) => put(out, r),
            VdmBlock::State(s) => s.encode(out),
            VdmBlock::IndexList(d) => d.encode(out),
            VdmBlock::Link(r) => put(out, r),
            VdmBlock::Terminate(r) => put(out, r),
        }
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

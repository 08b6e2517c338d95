//! Whole CDM blocks: decode by type, the streaming reader, and the walker.

use super::*;
use crate::print::{format_fields, PrintOptions};
use crate::record::Record;
use crate::stream::{le32, GpuRead, StreamError, StreamErrorKind, WalkLimits};

/// One decoded CDM block.
#[derive(Debug, Clone, PartialEq)]
pub enum CdmBlock {
    LaunchDirect(CdmLaunchDirect),
    LaunchIndirectGlobal(CdmLaunchIndirectGlobal),
    LaunchIndirectLocal(CdmLaunchIndirectLocal),
    Link(CdmLink),
    Terminate(CdmTerminate),
    Barrier(CdmBarrier),
    Return(CdmReturn),
}

/// Size in bytes of the block a header word starts, or why it is not a known block.
pub fn block_size(header: u32) -> Result<usize, StreamErrorKind> {
    Ok(match (block_type(header), launch_mode(header)) {
        (0, 0) => CdmLaunchDirect::SIZE,
        (0, 1) => CdmLaunchIndirectGlobal::SIZE,
        (0, 2) => CdmLaunchIndirectLocal::SIZE,
        (0, mode) => return Err(StreamErrorKind::UnknownMode { mode, header }),
        (1, _) => CdmLink::SIZE,
        (2, _) => CdmTerminate::SIZE,
        (3, _) => CdmBarrier::SIZE,
        (4, _) => CdmReturn::SIZE,
        (block_type, _) => return Err(StreamErrorKind::UnknownBlockType { block_type, header }),
    })
}

impl CdmBlock {
    /// Decodes the block at the start of `bytes`.
    pub fn decode(bytes: &[u8]) -> Result<Self, StreamErrorKind> {
        if bytes.len() < 4 {
            return Err(StreamErrorKind::Truncated {
                need: 4,
                have: bytes.len(),
            });
        }
        let header = le32(bytes, 0);
        let need = block_size(header)?;
        if bytes.len() < need {
            return Err(StreamErrorKind::Truncated {
                need,
                have: bytes.len(),
            });
        }
        Ok(match (block_type(header), launch_mode(header)) {
            (0, 0) => CdmBlock::LaunchDirect(CdmLaunchDirect::unpack(bytes)?),
            (0, 1) => CdmBlock::LaunchIndirectGlobal(CdmLaunchIndirectGlobal::unpack(bytes)?),
            (0, _) => CdmBlock::LaunchIndirectLocal(CdmLaunchIndirectLocal::unpack(bytes)?),
            (1, _) => CdmBlock::Link(CdmLink::unpack(bytes)?),
            (2, _) => CdmBlock::Terminate(CdmTerminate::unpack(bytes)?),
            (3, _) => CdmBlock::Barrier(CdmBarrier::unpack(bytes)?),
            _ => CdmBlock::Return(CdmReturn::unpack(bytes)?),
        })
    }

    /// Size in bytes.
    pub fn size(&self) -> usize {
        match self {
            CdmBlock::LaunchDirect(_) => CdmLaunchDirect::SIZE,
            CdmBlock::LaunchIndirectGlobal(_) => CdmLaunchIndirectGlobal::SIZE,
            CdmBlock::LaunchIndirectLocal(_) => CdmLaunchIndirectLocal::SIZE,
            CdmBlock::Link(_) => CdmLink::SIZE,
            CdmBlock::Terminate(_) => CdmTerminate::SIZE,
            CdmBlock::Barrier(_) => CdmBarrier::SIZE,
            CdmBlock::Return(_) => CdmReturn::SIZE,
        }
    }

    /// Encodes the block.
    pub fn pack(&self) -> Result<Vec<u8>, PackError> {
        match self {
            CdmBlock::LaunchDirect(r) => r.pack(),
            CdmBlock::LaunchIndirectGlobal(r) => r.pack(),
            CdmBlock::LaunchIndirectLocal(r) => r.pack(),
            CdmBlock::Link(r) => r.pack(),
            CdmBlock::Terminate(r) => r.pack(),
            CdmBlock::Barrier(r) => r.pack(),
            CdmBlock::Return(r) => r.pack(),
        }
    }

    /// True when every bit and value is documented.
    pub fn fully_known(&self) -> bool {
        match self {
            CdmBlock::LaunchDirect(r) => r.fully_known(),
            CdmBlock::LaunchIndirectGlobal(r) => r.fully_known(),
            CdmBlock::LaunchIndirectLocal(r) => r.fully_known(),
            CdmBlock::Link(r) => r.fully_known(),
            CdmBlock::Terminate(r) => r.fully_known(),
            CdmBlock::Barrier(r) => r.fully_known(),
            CdmBlock::Return(r) => r.fully_known(),
        }
    }

    /// Human-readable dump; the flag says whether anything unknown was found.
    pub fn format(&self, indent: usize, opts: PrintOptions) -> (String, bool) {
        let bytes = match self.pack() {
            Ok(b) => b,
            Err(e) => return (format!("{}<cannot pack: {e}>\n", " ".repeat(indent)), true),
        };
        let (name, fields) = match self {
            CdmBlock::LaunchDirect(_) => (CdmLaunchDirect::NAME, CdmLaunchDirect::fields()),
            CdmBlock::LaunchIndirectGlobal(_) => (
                CdmLaunchIndirectGlobal::NAME,
                CdmLaunchIndirectGlobal::fields(),
            ),
            CdmBlock::LaunchIndirectLocal(_) => (
                CdmLaunchIndirectLocal::NAME,
                CdmLaunchIndirectLocal::fields(),
            ),
            CdmBlock::Link(_) => (CdmLink::NAME, CdmLink::fields()),
            CdmBlock::Terminate(_) => (CdmTerminate::NAME, CdmTerminate::fields()),
            CdmBlock::Barrier(_) => (CdmBarrier::NAME, CdmBarrier::fields()),
            CdmBlock::Return(_) => (CdmReturn::NAME, CdmReturn::fields()),
        };
        format_fields(name, fields, &bytes, indent, opts)
    }
}

/// A block found in a buffer or walk: where, how big, what.
#[derive(Debug, Clone, PartialEq)]
pub struct CdmItem {
    /// Byte offset in the buffer (for [`CdmReader`]) or GPU VA (for [`walk`]).
    pub at: u64,
    pub size: usize,
    pub block: CdmBlock,
}

/// Streaming decoder over a byte buffer: yields blocks in order until a terminate, the
/// end of the buffer, or the first error (which carries the offset). Does not follow links.
pub struct CdmReader<'a> {
    bytes: &'a [u8],
    offset: usize,
    done: bool,
}

impl<'a> CdmReader<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        CdmReader {
            bytes,
            offset: 0,
            done: false,
        }
    }
}

impl Iterator for CdmReader<'_> {
    type Item = Result<CdmItem, StreamError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.offset >= self.bytes.len() {
            return None;
        }
        let at = self.offset;
        match CdmBlock::decode(&self.bytes[at..]) {
            Ok(block) => {
                let size = block.size();
                self.offset += size;
                self.done = matches!(block, CdmBlock::Terminate(_));
                Some(Ok(CdmItem {
                    at: at as u64,
                    size,
                    block,
                }))
            }
            Err(kind) => {
                self.done = true;
                Some(Err(StreamError::new(at as u64, kind)))
            }
        }
    }
}

/// Follows a CDM stream through GPU memory from `start` until its terminate, taking links,
/// calls and returns, and returns every block visited in execution order.
pub fn walk(
    mem: &impl GpuRead,
    start: u64,
    limits: WalkLimits,
) -> Result<Vec<CdmItem>, StreamError> {
    let mut out = Vec::new();
    let mut stack: Vec<u64> = Vec::new();
    let mut va = start;
    for _ in 0..limits.max_blocks {
        if va & 3 != 0 {
            return Err(StreamError::new(va, StreamErrorKind::Misaligned));
        }
        let mut buf = [0u8; 0x28];
        mem.read(va, &mut buf[..4])
            .map_err(|e| StreamError::new(va, StreamErrorKind::Memory(e)))?;
        let size = block_size(le32(&buf, 0)).map_err(|k| StreamError::new(va, k))?;
        mem.read(va + 4, &mut buf[4..size])
            .map_err(|e| StreamError::new(va, StreamErrorKind::Memory(e)))?;
        let block = CdmBlock::decode(&buf[..size]).map_err(|k| StreamError::new(va, k))?;
        let next = va + size as u64;
        let here = va;
        va = match &block {
            CdmBlock::Link(l) => {
                if l.with_return {
                    if stack.len() >= limits.max_call_depth {
                        return Err(StreamError::new(
                            here,
                            StreamErrorKind::CallTooDeep(limits.max_call_depth),
                        ));
                    }
                    stack.push(next);
                }
                l.target()
            }
            CdmBlock::Return(_) => stack
                .pop()
                .ok_or(StreamError::new(here, StreamErrorKind::ReturnWithoutCall))?,
            CdmBlock::Terminate(_) if !stack.is_empty() => {
                return Err(StreamError::new(
                    here,
                    StreamErrorKind::TerminateInCall(stack.len()),
                ))
            }
            _ => next,
        };
        let end = matches!(block, CdmBlock::Terminate(_));
        out.push(CdmItem {
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

impl CdmBlock {
    /// The launch this block describes, if it is one.
    pub fn launch(&self) -> Option<Launch> {
        Some(match self {
            CdmBlock::LaunchDirect(l) => Launch {
                pipeline: l.pipeline(),
                register_tier: l.register_tier,
                grid: Grid::Direct {
                    global: [l.global_x, l.global_y, l.global_z],
                    local: [l.local_x, l.local_y, l.local_z],
                },
            },
            CdmBlock::LaunchIndirectGlobal(l) => Launch {
                pipeline: l.pipeline(),
                register_tier: l.register_tier,
                grid: Grid::IndirectGlobal {
                    pointer: l.indirect(),
                    local: [l.local_x, l.local_y, l.local_z],
                },
            },
            CdmBlock::LaunchIndirectLocal(l) => Launch {
                pipeline: l.pipeline(),
                register_tier: l.register_tier,
                grid: Grid::IndirectLocal {
                    pointer: l.indirect(),
                },
            },
            _ => return None,
        })
    }
}

//! Builders the driver uses to emit control streams into GPU memory: a bounded pool of
//! fixed-size chunks at ascending VAs, and a stream builder that links chunk to chunk when
//! one fills up and ends the stream with a terminate.
//!
//! Chunks ascend within one region because the G16 kernel requires every CDM block to lie
//! in `[cdm_ctrl_stream_base, cdm_ctrl_stream_end)` with the terminate last
//! (GravityLinux/linux:drivers/gpu/drm/asahi/g16_cdm.rs).

use crate::cdm::{CdmBlock, CdmLink, CdmTerminate};
use crate::record::{PackError, Record};
use crate::stream::GpuRead;
use crate::vdm::{VdmBlock, VdmLink, VdmTerminate, RENDER_CONTEXT_BASE};
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BuildError {
    #[error("stream pool exhausted ({0} chunks)")]
    PoolExhausted(usize),
    #[error("block of {block} bytes does not fit a {chunk}-byte chunk")]
    BlockTooLarge { block: usize, chunk: usize },
    #[error("VA {0:#x} is outside the 32-bit render-context window")]
    OutsideContext(u64),
    #[error(transparent)]
    Pack(#[from] PackError),
}

/// One chunk of stream memory: where it lives on the GPU and its bytes (to upload).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub va: u64,
    pub bytes: Vec<u8>,
}

/// A bounded region of GPU VA handed out as fixed-size chunks in ascending order.
#[derive(Debug, Clone)]
pub struct ChunkPool {
    base: u64,
    chunk_size: usize,
    max_chunks: usize,
}

impl ChunkPool {
    /// `size` bytes at `base`, in chunks of `chunk_size` bytes (multiples of 4).
    pub fn new(base: u64, size: u64, chunk_size: usize) -> Self {
        let chunk_size = chunk_size & !3;
        ChunkPool {
            base,
            chunk_size,
            max_chunks: (size / chunk_size.max(1) as u64) as usize,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Cdm,
    Vdm,
}

/// A finished stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltStream {
    /// VA of the first block.
    pub start: u64,
    /// One past the terminate (what `cdm_ctrl_stream_end` wants).
    pub end: u64,
    pub chunks: Vec<Chunk>,
}

impl GpuRead for BuiltStream {
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), String> {
        let c = self
            .chunks
            .iter()
            .find(|c| va >= c.va && va + out.len() as u64 <= c.va + c.bytes.len() as u64)
            .ok_or_else(|| format!("{va:#x} is not in the stream"))?;
        let o = (va - c.va) as usize;
        out.copy_from_slice(&c.bytes[o..o + out.len()]);
        Ok(())
    }
}

/// Emits blocks into chunks, linking to the next chunk when one fills.
#[derive(Debug, Clone)]
pub struct StreamBuilder {
    pool: ChunkPool,
    kind: Kind,
    chunks: Vec<Chunk>,
}

/// Room every chunk keeps for the link to its successor, or the terminate.
const TAIL: usize = 8;

impl StreamBuilder {
    /// A compute (CDM) stream.
    pub fn cdm(pool: ChunkPool) -> Self {
        StreamBuilder {
            pool,
            kind: Kind::Cdm,
            chunks: Vec::new(),
        }
    }

    /// A vertex (VDM) stream; the pool must lie in the render-context window.
    pub fn vdm(pool: ChunkPool) -> Self {
        StreamBuilder {
            pool,
            kind: Kind::Vdm,
            chunks: Vec::new(),
        }
    }

    fn new_chunk(&mut self) -> Result<(), BuildError> {
        let n = self.chunks.len();
        if n >= self.pool.max_chunks {
            return Err(BuildError::PoolExhausted(n));
        }
        let va = self.pool.base + (n * self.pool.chunk_size) as u64;
        if self.kind == Kind::Vdm
            && (va < RENDER_CONTEXT_BASE
                || va + self.pool.chunk_size as u64 - RENDER_CONTEXT_BASE > u32::MAX as u64)
        {
            return Err(BuildError::OutsideContext(va));
        }
        self.chunks.push(Chunk {
            va,
            bytes: Vec::with_capacity(self.pool.chunk_size),
        });
        Ok(())
    }

    fn link_bytes(&self, target: u64) -> Result<Vec<u8>, BuildError> {
        Ok(match self.kind {
            Kind::Cdm => CdmLink::to(target, false)?.pack()?,
            Kind::Vdm => VdmLink {
                with_return: false,
                target: (target - RENDER_CONTEXT_BASE) as u32,
                unknown: [0; 2],
            }
            .pack()?,
        })
    }

    /// Appends one encoded block; returns its VA.
    pub fn push_bytes(&mut self, block: &[u8]) -> Result<u64, BuildError> {
        let room = self.pool.chunk_size.saturating_sub(TAIL);
        if block.len() > room {
            return Err(BuildError::BlockTooLarge {
                block: block.len(),
                chunk: self.pool.chunk_size,
            });
        }
        if self.chunks.is_empty() {
            self.new_chunk()?;
        }
        if self.chunks.last().unwrap().bytes.len() + block.len() > room {
            self.new_chunk()?;
            let target = self.chunks.last().unwrap().va;
            let link = self.link_bytes(target)?;
            let n = self.chunks.len();
            self.chunks[n - 2].bytes.extend(link);
        }
        let c = self.chunks.last_mut().unwrap();
        let va = c.va + c.bytes.len() as u64;
        c.bytes.extend_from_slice(block);
        Ok(va)
    }

    /// Appends a CDM block (CDM streams only).
    pub fn push_cdm(&mut self, b: &CdmBlock) -> Result<u64, BuildError> {
        debug_assert_eq!(self.kind, Kind::Cdm);
        self.push_bytes(&b.pack()?)
    }

    /// Appends a VDM block (VDM streams only).
    pub fn push_vdm(&mut self, b: &VdmBlock) -> Result<u64, BuildError> {
        debug_assert_eq!(self.kind, Kind::Vdm);
        self.push_bytes(&b.pack()?)
    }

    /// Terminates the stream and hands back its chunks for upload.
    pub fn finish(mut self) -> Result<BuiltStream, BuildError> {
        if self.chunks.is_empty() {
            self.new_chunk()?;
        }
        let term = match self.kind {
            Kind::Cdm => CdmTerminate::default().pack()?,
            Kind::Vdm => VdmTerminate::default().pack()?,
        };
        let c = self.chunks.last_mut().unwrap();
        c.bytes.extend(term);
        let end = c.va + c.bytes.len() as u64;
        Ok(BuiltStream {
            start: self.chunks[0].va,
            end,
            chunks: self.chunks,
        })
    }
}

//! The `AGX16_DUMP` capture file format, its one definition: the kernel writes it (streaming, via
//! `CaptureHeader`/`write_mapping_header`), `agx16-decode` and the model read it. Layout (LE):
//! `"AGX16CAP"`, u32 version 1, u32 0, u64 job id, u32 queue id, u32 0, u64 usc_exec_base,
//! u32 cmdbuf length + the raw UAPI command buffer, u32 mapping count, then per mapping
//! u64 va start, u64 va end, u32 flags (1 read, 2 write, 4 single page), u32 0, u64 byte
//! count and the bytes (one page for single-page mappings, else the whole range).

use crate::stream::GpuRead;
use thiserror::Error;

pub const MAGIC: &[u8; 8] = b"AGX16CAP";
pub const VERSION: u32 = 1;
const PAGE: u64 = 0x4000;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CaptureError {
    #[error("not an AGX16 capture (bad magic)")]
    Magic,
    #[error("capture version {0}, this reader knows {VERSION}")]
    Version(u32),
    #[error("capture truncated at byte {0}")]
    Truncated(usize),
    #[error("mapping {index}: {why}")]
    Mapping { index: usize, why: &'static str },
}

/// One mapped range and its contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    pub start: u64,
    pub end: u64,
    pub flags: u32,
    /// Whole range, or one page repeated over the range for single-page mappings.
    pub bytes: Vec<u8>,
}

impl Mapping {
    pub fn single_page(&self) -> bool {
        self.flags & 4 != 0
    }
}

/// A parsed capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Capture {
    pub job_id: u64,
    pub queue_id: u32,
    pub usc_exec_base: u64,
    pub cmdbuf: Vec<u8>,
    pub mappings: Vec<Mapping>,
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], CaptureError> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.b.len());
        let end = end.ok_or(CaptureError::Truncated(self.at))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, CaptureError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn u64(&mut self) -> Result<u64, CaptureError> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
}

impl Capture {
    pub fn parse(bytes: &[u8]) -> Result<Self, CaptureError> {
        let mut c = Cursor { b: bytes, at: 0 };
        if c.take(8)? != MAGIC {
            return Err(CaptureError::Magic);
        }
        let version = c.u32()?;
        if version != VERSION {
            return Err(CaptureError::Version(version));
        }
        c.u32()?;
        let job_id = c.u64()?;
        let queue_id = c.u32()?;
        c.u32()?;
        let usc_exec_base = c.u64()?;
        let len = c.u32()? as usize;
        let cmdbuf = c.take(len)?.to_vec();
        let count = c.u32()? as usize;
        let mut mappings = Vec::with_capacity(count.min(4096));
        for index in 0..count {
            let start = c.u64()?;
            let end = c.u64()?;
            let flags = c.u32()?;
            c.u32()?;
            let n = c.u64()?;
            if end <= start {
                return Err(CaptureError::Mapping {
                    index,
                    why: "empty or inverted range",
                });
            }
            let expect = if flags & 4 != 0 { PAGE } else { end - start };
            if n != expect {
                return Err(CaptureError::Mapping {
                    index,
                    why: "byte count does not match the range",
                });
            }
            let bytes = c.take(n as usize)?.to_vec();
            mappings.push(Mapping {
                start,
                end,
                flags,
                bytes,
            });
        }
        Ok(Capture {
            job_id,
            queue_id,
            usc_exec_base,
            cmdbuf,
            mappings,
        })
    }

    /// Serialises in the same format (for tests and tools that synthesise captures).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut o = Vec::new();
        let header = CaptureHeader {
            job_id: self.job_id,
            queue_id: self.queue_id,
            usc_exec_base: self.usc_exec_base,
        };
        let io = |r: std::io::Result<()>| r.expect("writing to a Vec cannot fail");
        io(header.write(&mut o, &self.cmdbuf, self.mappings.len()));
        for m in &self.mappings {
            io(write_mapping_header(
                &mut o,
                m.start,
                m.end,
                m.flags,
                m.bytes.len() as u64,
            ));
            o.extend(&m.bytes);
        }
        o
    }
}

/// The fixed part of a capture, for writers that stream mapping contents
/// (the kernel's `AGX16_DUMP`) instead of holding them in memory.
#[derive(Debug, Clone, Copy)]
pub struct CaptureHeader {
    pub job_id: u64,
    pub queue_id: u32,
    pub usc_exec_base: u64,
}

impl CaptureHeader {
    /// Writes everything up to the first mapping.
    pub fn write(
        &self,
        w: &mut impl std::io::Write,
        cmdbuf: &[u8],
        mappings: usize,
    ) -> std::io::Result<()> {
        w.write_all(MAGIC)?;
        w.write_all(&VERSION.to_le_bytes())?;
        w.write_all(&0u32.to_le_bytes())?;
        w.write_all(&self.job_id.to_le_bytes())?;
        w.write_all(&self.queue_id.to_le_bytes())?;
        w.write_all(&0u32.to_le_bytes())?;
        w.write_all(&self.usc_exec_base.to_le_bytes())?;
        w.write_all(&(cmdbuf.len() as u32).to_le_bytes())?;
        w.write_all(cmdbuf)?;
        w.write_all(&(mappings as u32).to_le_bytes())
    }
}

/// Writes one mapping's header; its `byte_count` content bytes follow.
pub fn write_mapping_header(
    w: &mut impl std::io::Write,
    start: u64,
    end: u64,
    flags: u32,
    byte_count: u64,
) -> std::io::Result<()> {
    w.write_all(&start.to_le_bytes())?;
    w.write_all(&end.to_le_bytes())?;
    w.write_all(&flags.to_le_bytes())?;
    w.write_all(&0u32.to_le_bytes())?;
    w.write_all(&byte_count.to_le_bytes())
}

impl GpuRead for Capture {
    fn read(&self, va: u64, out: &mut [u8]) -> Result<(), String> {
        let mut done = 0usize;
        while done < out.len() {
            let a = va + done as u64;
            let m = self
                .mappings
                .iter()
                .find(|m| (m.start..m.end).contains(&a))
                .ok_or_else(|| format!("{a:#x} is not mapped in the capture"))?;
            let off = if m.single_page() {
                (a - m.start) % PAGE
            } else {
                a - m.start
            };
            let avail = if m.single_page() {
                PAGE - off
            } else {
                m.end - a
            };
            let n = (avail as usize).min(out.len() - done);
            let src = m.bytes.get(off as usize..off as usize + n).ok_or_else(|| {
                format!("mapping at {:#x} holds fewer bytes than its range", m.start)
            })?;
            out[done..done + n].copy_from_slice(src);
            done += n;
        }
        Ok(())
    }
}

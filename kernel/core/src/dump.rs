//! `AGX16_DUMP=DIR`: capture each submission and the memory it can reach,
//! taken on the GPU thread right before execution (after dependencies), so
//! the file holds exactly what the model consumed.
//!
//! File layout (little endian), `DIR/submit-<pid>-<job>.agx16cap`:
//! `"AGX16CAP"`, u32 version (1), u32 0, u64 job id, u32 queue id, u32 0,
//! u64 usc_exec_base, u32 cmdbuf length + the raw UAPI command buffer,
//! u32 mapping count, then per mapping: u64 va start, u64 va end,
//! u32 flags (1 read, 2 write, 4 single page), u32 0, u64 byte count and the
//! bytes (one page for single-page mappings, else the whole range).

use crate::job::Job;
use std::io::Write;
use std::path::PathBuf;

pub const MAGIC: &[u8; 8] = b"AGX16CAP";
pub const VERSION: u32 = 1;

pub struct Capture {
    pub dir: PathBuf,
    pub cmdbuf: Vec<u8>,
}

impl Capture {
    pub fn write(&self, job: &Job) {
        let path = self
            .dir
            .join(format!("submit-{}-{}.agx16cap", std::process::id(), job.id));
        let result = std::fs::File::create(&path)
            .and_then(|f| self.write_to(&mut std::io::BufWriter::new(f), job));
        if let Err(e) = result {
            log::error!("agx16: capture {} failed: {e}", path.display());
        }
    }

    pub fn write_to(&self, w: &mut impl Write, job: &Job) -> std::io::Result<()> {
        w.write_all(MAGIC)?;
        w.write_all(&VERSION.to_le_bytes())?;
        w.write_all(&0u32.to_le_bytes())?;
        w.write_all(&job.id.to_le_bytes())?;
        w.write_all(&job.queue_id.to_le_bytes())?;
        w.write_all(&0u32.to_le_bytes())?;
        w.write_all(&job.usc_exec_base.to_le_bytes())?;
        w.write_all(&(self.cmdbuf.len() as u32).to_le_bytes())?;
        w.write_all(&self.cmdbuf)?;
        let maps = job.vm.mappings();
        w.write_all(&(maps.len() as u32).to_le_bytes())?;
        let mut page = vec![0u8; 0x4000];
        for m in maps {
            let flags = u32::from(m.read) | u32::from(m.write) << 1 | u32::from(m.single) << 2;
            let len = if m.single {
                0x4000
            } else {
                m.va.end - m.va.start
            };
            w.write_all(&m.va.start.to_le_bytes())?;
            w.write_all(&m.va.end.to_le_bytes())?;
            w.write_all(&flags.to_le_bytes())?;
            w.write_all(&0u32.to_le_bytes())?;
            w.write_all(&len.to_le_bytes())?;
            let mut done = 0;
            while done < len {
                let n = (len - done).min(page.len() as u64) as usize;
                m.bo.read(m.offset + done, &mut page[..n])
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                w.write_all(&page[..n])?;
                done += n as u64;
            }
        }
        w.flush()
    }
}

/// One mapping of a captured VM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapturedMapping {
    pub va: std::ops::Range<u64>,
    pub read: bool,
    pub write: bool,
    pub single_page: bool,
    /// One page for single-page mappings, else the whole range.
    pub bytes: Vec<u8>,
}

/// A parsed capture file, for replay tools (`agx16-sim replay`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureFile {
    pub job_id: u64,
    pub queue_id: u32,
    pub usc_exec_base: u64,
    /// The raw UAPI command buffer (drm_asahi_cmd_header + payloads).
    pub cmdbuf: Vec<u8>,
    pub mappings: Vec<CapturedMapping>,
}

struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        if self.0.len() < n {
            return Err(format!("capture truncated: need {n} more bytes"));
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
}

impl CaptureFile {
    pub fn parse(bytes: &[u8]) -> Result<CaptureFile, String> {
        let mut c = Cursor(bytes);
        if c.take(8)? != MAGIC {
            return Err("not an agx16 capture (bad magic)".into());
        }
        let version = c.u32()?;
        if version != VERSION {
            return Err(format!("capture version {version}, expected {VERSION}"));
        }
        c.u32()?;
        let job_id = c.u64()?;
        let queue_id = c.u32()?;
        c.u32()?;
        let usc_exec_base = c.u64()?;
        let len = c.u32()? as usize;
        let cmdbuf = c.take(len)?.to_vec();
        let count = c.u32()?;
        let mut mappings = Vec::new();
        for _ in 0..count {
            let start = c.u64()?;
            let end = c.u64()?;
            let flags = c.u32()?;
            c.u32()?;
            let n = usize::try_from(c.u64()?).map_err(|_| "mapping too large".to_string())?;
            mappings.push(CapturedMapping {
                va: start..end,
                read: flags & 1 != 0,
                write: flags & 2 != 0,
                single_page: flags & 4 != 0,
                bytes: c.take(n)?.to_vec(),
            });
        }
        if !c.0.is_empty() {
            return Err(format!("{} trailing bytes after the capture", c.0.len()));
        }
        Ok(CaptureFile {
            job_id,
            queue_id,
            usc_exec_base,
            cmdbuf,
            mappings,
        })
    }
}

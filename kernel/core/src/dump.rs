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
//!
//! The reader lives with the other format decoders: `agx16_cmdstream::capture`
//! (and `agx16-decode` prints a capture).

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

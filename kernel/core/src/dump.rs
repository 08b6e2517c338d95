//! `AGX16_DUMP=DIR`: capture each submission and the memory it can reach,
//! taken on the GPU thread right before execution (after dependencies), so
//! the file holds exactly what the model consumed.
//!
//! The file format (`DIR/submit-<pid>-<job>.agx16cap`) is written and read
//! through `agx16_cmdstream::capture`, its one definition; `agx16-decode` prints
//! a capture and `agx16-sim replay` re-runs its compute work.

use crate::job::Job;
use std::io::Write;
use std::path::PathBuf;

use agx16_cmdstream::capture::{write_mapping_header, CaptureHeader};
pub use agx16_cmdstream::capture::{MAGIC, VERSION};

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
        let maps = job.vm.mappings();
        let header = CaptureHeader {
            job_id: job.id,
            queue_id: job.queue_id,
            usc_exec_base: job.usc_exec_base,
        };
        header.write(w, &self.cmdbuf, maps.len())?;
        let mut page = vec![0u8; 0x4000];
        for m in maps {
            let flags = u32::from(m.read) | u32::from(m.write) << 1 | u32::from(m.single) << 2;
            let len = if m.single {
                0x4000
            } else {
                m.va.end - m.va.start
            };
            write_mapping_header(w, m.va.start, m.va.end, flags, len)?;
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

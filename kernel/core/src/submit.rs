//! DRM_IOCTL_ASAHI_SUBMIT: parse and validate everything, attach the job's
//! fence to the out-syncs, and hand the job to the queue's GPU thread.
//!
//! Rules: GravityLinux/linux drivers/gpu/drm/asahi/g16_drm.rs (`submit`,
//! `compute_parameters`, `render_parameters`), read from its source. All
//! validation happens before any state changes.

use crate::device::File;
use crate::dump::Capture;
use crate::errno::{Errno, KResult};
use crate::fence::Fence;
use crate::host::Host;
use crate::ioctl::{read_array, read_extensible};
use crate::job::{Command, Job, PreparedCommand, TimestampTarget};
use crate::params::{MAX_ATTACHMENTS, MAX_COMMANDS_PER_SUBMISSION};
use crate::render::{check_compute, check_render};
use crate::syncobj::{PointFences, Syncobj};
use crate::uapi::asahi as a;
use std::sync::atomic::Ordering;
use std::sync::Arc;

const MAX_CMDBUF: u32 = 1 << 20;
const MAX_SYNCS: u32 = 4096;
const HEADER: usize = std::mem::size_of::<a::CmdHeader>();
const ATTACHMENT: usize = std::mem::size_of::<a::Attachment>();

enum Out {
    Binary(Arc<Syncobj>),
    Timeline(Arc<Syncobj>, u64),
}

/// The command buffer split into commands, barriers checked.
fn parse_cmdbuf(bytes: &[u8]) -> KResult<(Vec<Command>, Vec<a::Attachment>)> {
    let mut commands = Vec::new();
    let mut attachments = Vec::new();
    let (mut renders, mut computes) = (0u16, 0u16);
    let mut off = 0usize;
    while off < bytes.len() {
        let header: a::CmdHeader =
            bytemuck::pod_read_unaligned(bytes.get(off..off + HEADER).ok_or(Errno::EINVAL)?);
        off += HEADER;
        let end = off + header.size as usize;
        let payload = bytes.get(off..end).ok_or(Errno::EINVAL)?;
        off = end;
        let barrier_ok = |b: u16, n: u16| b == a::BARRIER_NONE || b <= n;
        match header.cmd_type {
            a::CMD_RENDER | a::CMD_COMPUTE => {
                if !barrier_ok(header.vdm_barrier, renders)
                    || !barrier_ok(header.cdm_barrier, computes)
                    || u32::from(renders + computes) == MAX_COMMANDS_PER_SUBMISSION
                {
                    return Err(Errno::EINVAL);
                }
                if header.cmd_type == a::CMD_RENDER {
                    commands.push(Command::Render(Box::new(read_extensible(payload)?)));
                    renders += 1;
                } else {
                    commands.push(Command::Compute(read_extensible(payload)?));
                    computes += 1;
                }
            }
            a::SET_VERTEX_ATTACHMENTS
            | a::SET_FRAGMENT_ATTACHMENTS
            | a::SET_COMPUTE_ATTACHMENTS => {
                if header.vdm_barrier != a::BARRIER_NONE
                    || header.cdm_barrier != a::BARRIER_NONE
                    || payload.len() % ATTACHMENT != 0
                    || payload.len() / ATTACHMENT > MAX_ATTACHMENTS as usize
                {
                    return Err(Errno::EINVAL);
                }
                for chunk in payload.chunks_exact(ATTACHMENT) {
                    let att: a::Attachment = bytemuck::pod_read_unaligned(chunk);
                    if att.flags != 0 || att.pad != 0 || att.pointer.checked_add(att.size).is_none()
                    {
                        return Err(Errno::EINVAL);
                    }
                    attachments.push(att);
                }
            }
            _ => return Err(Errno::ENOTSUPP),
        }
    }
    if commands.is_empty() {
        return Err(Errno::EINVAL);
    }
    Ok((commands, attachments))
}

impl File {
    pub fn submit(&self, host: &dyn Host, v: &mut a::Submit) -> KResult<i32> {
        if v.flags != 0
            || v.pad != 0
            || v.cmdbuf_size == 0
            || v.cmdbuf_size > MAX_CMDBUF
            || v.in_sync_count > MAX_SYNCS
            || v.out_sync_count > MAX_SYNCS
        {
            return Err(Errno::EINVAL);
        }
        let mut cmdbuf = vec![0u8; v.cmdbuf_size as usize];
        host.copy_from_user(v.cmdbuf, &mut cmdbuf)?;
        let (commands, attachments) = parse_cmdbuf(&cmdbuf)?;
        let count = (v.in_sync_count + v.out_sync_count) as usize;
        let syncs: Vec<a::Sync> = read_array(host, v.syncs, count, 16)?;

        let mut deps = Vec::new();
        let mut outs = Vec::new();
        for (i, sync) in syncs.iter().enumerate() {
            let timeline = match sync.sync_type {
                a::SYNC_SYNCOBJ if sync.timeline_value == 0 => false,
                a::SYNC_TIMELINE_SYNCOBJ => true,
                _ => return Err(Errno::EINVAL),
            };
            let obj = self.syncobj(sync.handle).ok_or(Errno::ENOENT)?;
            if i < v.in_sync_count as usize {
                let point = if timeline { sync.timeline_value } else { 0 };
                let fences: PointFences = obj.find(point).ok_or(Errno::EINVAL)?;
                deps.push(fences);
            } else if timeline {
                outs.push(Out::Timeline(obj, sync.timeline_value));
            } else {
                outs.push(Out::Binary(obj));
            }
        }

        let s = self.state.lock();
        let queue = s.queues.get(&v.queue_id).ok_or(Errno::ENOENT)?;
        let vm = s.vms.get(&queue.vm_id).ok_or(Errno::ENOENT)?;
        let view = vm.snapshot();
        for att in &attachments {
            if !view.covers(att.pointer, att.size, true) {
                return Err(Errno::EINVAL);
            }
        }
        let resolve = |t: &a::Timestamp| -> KResult<Option<TimestampTarget>> {
            if t.handle == 0 {
                return if t.offset == 0 {
                    Ok(None)
                } else {
                    Err(Errno::EINVAL)
                };
            }
            let obj = s.timestamps.get(&t.handle).ok_or(Errno::ENOENT)?;
            let off = u64::from(t.offset);
            if off & 7 != 0 || off + 8 > obj.range {
                return Err(Errno::EINVAL);
            }
            Ok(Some(TimestampTarget {
                bo: obj.bo.clone(),
                offset: obj.offset + off,
            }))
        };
        let mut prepared = Vec::with_capacity(commands.len());
        for command in commands {
            let timestamps = match &command {
                Command::Compute(c) => {
                    check_compute(&view, c)?;
                    [resolve(&c.ts.start)?, resolve(&c.ts.end)?, None, None]
                }
                Command::Render(r) => {
                    check_render(&view, &vm.kernel, r)?;
                    [
                        resolve(&r.ts_vtx.start)?,
                        resolve(&r.ts_vtx.end)?,
                        resolve(&r.ts_frag.start)?,
                        resolve(&r.ts_frag.end)?,
                    ]
                }
            };
            prepared.push(PreparedCommand {
                command,
                timestamps,
            });
        }

        // Nothing below can fail: publish the fence, then queue the job.
        let dev = &self.device;
        let done = Fence::new(&dev.hub);
        for out in outs {
            match out {
                Out::Binary(o) => o.replace(Some(done.clone())),
                Out::Timeline(o, point) => o.add_point(point, done.clone()),
            }
        }
        let id = dev.next_job.fetch_add(1, Ordering::Relaxed);
        let capture = dev.dump_dir.as_ref().map(|dir| Capture {
            dir: dir.clone(),
            cmdbuf: cmdbuf.clone(),
        });
        dev.engine
            .stats
            .jobs_submitted
            .fetch_add(1, Ordering::Relaxed);
        queue.worker.push(Job {
            id,
            queue_id: v.queue_id,
            usc_exec_base: queue.usc_exec_base,
            commands: prepared,
            deps,
            done,
            vm: view,
            capture,
        });
        Ok(0)
    }
}

//! asahi driver ioctls except SUBMIT (see submit.rs).
//!
//! Validation rules: GravityLinux/linux drivers/gpu/drm/asahi/g16_drm.rs
//! (read from its source; that driver runs on a real M4). Unlike it, a
//! VM_BIND batch is validated completely before any of it is applied, so a
//! bad record changes nothing.

use crate::device::{next_id, File, Queue, TimestampObject};
use crate::errno::{Errno, KResult};
use crate::gem::Bo;
use crate::host::Host;
use crate::ioctl::read_array;
use crate::job::{gpu_time_ns, Worker};
use crate::params::{self, PAGE_MASK, USC_EXEC_BASE, VM_END, VM_KERNEL_MIN_SIZE, VM_START};
use crate::uapi::asahi as a;
use crate::vm::Vm;
use std::sync::atomic::Ordering;

/// Limits on VM_BIND batches (g16_drm vm_bind).
const MAX_BINDS: u32 = 4096;
const MAX_BIND_BYTES: usize = 1 << 20;
/// Each queue owns a GPU thread here, so a file may hold a bounded number
/// (a host resource limit; beyond it QUEUE_CREATE fails with ENOMEM as a
/// kernel out of memory would).
pub const MAX_QUEUES_PER_FILE: usize = 64;

impl File {
    pub fn get_params(&self, host: &dyn Host, v: &mut a::GetParams) -> KResult<i32> {
        if v.param_group != 0 || v.pad != 0 {
            return Err(Errno::EINVAL);
        }
        let params = params::params_global(&self.device.config);
        let bytes = bytemuck::bytes_of(&params);
        // Older userspace may pass a shorter buffer: never write past it.
        let n = usize::try_from(v.size)
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        host.copy_to_user(v.pointer, &bytes[..n])?;
        Ok(0)
    }

    pub fn get_time(&self, v: &mut a::GetTime) -> KResult<i32> {
        if v.flags != 0 {
            return Err(Errno::EINVAL);
        }
        v.gpu_timestamp = gpu_time_ns();
        Ok(0)
    }

    pub fn vm_create(&self, v: &mut a::VmCreate) -> KResult<i32> {
        let size = v
            .kernel_end
            .checked_sub(v.kernel_start)
            .ok_or(Errno::EINVAL)?;
        if v.pad != 0
            || v.kernel_start < VM_START
            || v.kernel_end > VM_END
            || size < VM_KERNEL_MIN_SIZE
            || (v.kernel_start | v.kernel_end) & PAGE_MASK != 0
        {
            return Err(Errno::EINVAL);
        }
        let mut s = self.state.lock();
        let s = &mut *s;
        let id = next_id(&mut s.next_vm, &s.vms).ok_or(Errno::ENOSPC)?;
        s.vms.insert(id, Vm::new(id, v.kernel_start..v.kernel_end));
        v.vm_id = id;
        Ok(0)
    }

    pub fn vm_destroy(&self, v: &mut a::VmDestroy) -> KResult<i32> {
        if v.pad != 0 {
            return Err(Errno::EINVAL);
        }
        let mut s = self.state.lock();
        let in_use = s.queues.values().any(|q| q.vm_id == v.vm_id);
        match s.vms.get_mut(&v.vm_id) {
            Some(vm) if vm.visible => {
                if in_use {
                    // Queues keep using it until the last one is destroyed.
                    vm.visible = false;
                } else {
                    s.vms.remove(&v.vm_id);
                }
                Ok(0)
            }
            _ => Err(Errno::ENOENT),
        }
    }

    pub fn vm_bind(&self, host: &dyn Host, v: &mut a::VmBind) -> KResult<i32> {
        if v.pad != 0 || v.num_binds > MAX_BINDS || v.stride == 0 {
            return Err(Errno::EINVAL);
        }
        let bytes = (v.stride as usize)
            .checked_mul(v.num_binds as usize)
            .ok_or(Errno::EINVAL)?;
        if bytes > MAX_BIND_BYTES {
            return Err(Errno::EINVAL);
        }
        let records: Vec<a::GemBindOp> =
            read_array(host, v.userptr, v.num_binds as usize, v.stride as usize)?;
        let mut s = self.state.lock();
        let s = &mut *s;
        let vm = s
            .vms
            .get_mut(&v.vm_id)
            .filter(|vm| vm.visible)
            .ok_or(Errno::ENOENT)?;
        let mut ops = Vec::with_capacity(records.len());
        for r in &records {
            ops.push(vm.prepare(self.id, r, |h| s.bos.get(&h).cloned())?);
        }
        vm.apply(ops)?;
        Ok(0)
    }

    pub fn gem_create(&self, v: &mut a::GemCreate) -> KResult<i32> {
        let private = v.flags & a::GEM_VM_PRIVATE != 0;
        if v.flags & !(a::GEM_WRITEBACK | a::GEM_VM_PRIVATE) != 0
            || (!private && v.vm_id != 0)
            || v.size == 0
            || v.pad != 0
        {
            return Err(Errno::EINVAL);
        }
        let size = v.size.checked_add(PAGE_MASK).ok_or(Errno::EINVAL)? & !PAGE_MASK;
        let mut s = self.state.lock();
        if private && !s.vms.get(&v.vm_id).is_some_and(|vm| vm.visible) {
            return Err(Errno::ENOENT);
        }
        let dev = &self.device;
        // Reserve the accounting before allocating, give it back on failure.
        let used = dev.memory_used.fetch_add(size, Ordering::Relaxed);
        if used
            .checked_add(size)
            .is_none_or(|t| t > dev.config.memory_limit)
        {
            dev.memory_used.fetch_sub(size, Ordering::Relaxed);
            return Err(Errno::ENOMEM);
        }
        let backing = match dev.allocator.allocate(size) {
            Ok(b) => b,
            Err(e) => {
                dev.memory_used.fetch_sub(size, Ordering::Relaxed);
                return Err(e);
            }
        };
        let bo = Bo::new(
            size,
            v.flags,
            private.then_some((self.id, v.vm_id)),
            backing,
            dev.memory_used.clone(),
        );
        v.handle = s.bos.insert(std::sync::Arc::new(bo)).ok_or(Errno::ENOSPC)?;
        Ok(0)
    }

    pub fn gem_mmap_offset(&self, v: &mut a::GemMmapOffset) -> KResult<i32> {
        if v.flags != 0 {
            return Err(Errno::EINVAL);
        }
        // drm_gem_object_lookup failure is ENOENT.
        v.offset = self.bo(v.handle).ok_or(Errno::ENOENT)?.mmap_offset;
        Ok(0)
    }

    pub fn gem_bind_object(&self, v: &mut a::GemBindObject) -> KResult<i32> {
        if v.pad != 0 || v.vm_id != 0 {
            return Err(Errno::EINVAL);
        }
        let mut s = self.state.lock();
        let s = &mut *s;
        match v.op {
            a::BIND_OBJECT_OP_BIND => {
                if v.flags != a::BIND_OBJECT_USAGE_TIMESTAMPS
                    || v.range == 0
                    || (v.offset | v.range) & PAGE_MASK != 0
                {
                    return Err(Errno::EINVAL);
                }
                let bo = s.bos.get(&v.handle).cloned().ok_or(Errno::ENOENT)?;
                if v.offset.checked_add(v.range).ok_or(Errno::EINVAL)? > bo.size {
                    return Err(Errno::EINVAL);
                }
                let id = next_id(&mut s.next_timestamp, &s.timestamps).ok_or(Errno::ENOSPC)?;
                s.timestamps.insert(
                    id,
                    TimestampObject {
                        bo,
                        offset: v.offset,
                        range: v.range,
                    },
                );
                v.object_handle = id;
                Ok(0)
            }
            a::BIND_OBJECT_OP_UNBIND => {
                if v.flags != 0 || v.offset != 0 || v.range != 0 || v.handle != 0 {
                    return Err(Errno::EINVAL);
                }
                s.timestamps
                    .remove(&v.object_handle)
                    .map(|_| 0)
                    .ok_or(Errno::ENOENT)
            }
            _ => Err(Errno::EINVAL),
        }
    }

    pub fn queue_create(&self, v: &mut a::QueueCreate) -> KResult<i32> {
        // G16: only LOW/MEDIUM priorities and the fixed USC heap.
        if v.flags != 0 || v.priority > a::PRIORITY_MEDIUM || v.usc_exec_base != USC_EXEC_BASE {
            return Err(Errno::EINVAL);
        }
        let mut s = self.state.lock();
        let s = &mut *s;
        if !s.vms.get(&v.vm_id).is_some_and(|vm| vm.visible) {
            return Err(Errno::ENOENT);
        }
        if s.queues.len() >= MAX_QUEUES_PER_FILE {
            return Err(Errno::ENOMEM);
        }
        let id = next_id(&mut s.next_queue, &s.queues).ok_or(Errno::ENOSPC)?;
        let worker = Worker::spawn(
            self.device.engine.clone(),
            format!("agx16-q{}.{}", self.id, id),
        )
        .map_err(|_| Errno::ENOMEM)?;
        s.queues.insert(
            id,
            Queue {
                vm_id: v.vm_id,
                priority: v.priority,
                usc_exec_base: v.usc_exec_base,
                worker,
            },
        );
        v.queue_id = id;
        Ok(0)
    }

    pub fn queue_destroy(&self, v: &mut a::QueueDestroy) -> KResult<i32> {
        if v.pad != 0 {
            return Err(Errno::EINVAL);
        }
        let mut s = self.state.lock();
        let queue = s.queues.remove(&v.queue_id).ok_or(Errno::ENOENT)?;
        let vm_id = queue.vm_id;
        drop(queue);
        // A VM hidden by VM_DESTROY dies with its last queue.
        if !s.queues.values().any(|q| q.vm_id == vm_id)
            && s.vms.get(&vm_id).is_some_and(|vm| !vm.visible)
        {
            s.vms.remove(&vm_id);
        }
        Ok(0)
    }
}

//! The device (one per host) and open files (one per `open()` of the node).

use crate::backend::{GpuBackend, NoBackend};
use crate::backing::{BackingAllocator, HeapAllocator};
use crate::fence::Hub;
use crate::gem::Bo;
use crate::job::{Engine, Stats, Worker};
use crate::params::DeviceConfig;
use crate::syncobj::Syncobj;
use crate::vm::Vm;
use parking_lot::Mutex;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub struct Device {
    pub config: DeviceConfig,
    pub hub: Arc<Hub>,
    pub(crate) allocator: Box<dyn BackingAllocator>,
    pub(crate) engine: Arc<Engine>,
    /// Bytes of live BO memory.
    pub(crate) memory_used: Arc<AtomicU64>,
    pub(crate) dump_dir: Option<PathBuf>,
    next_file: AtomicU64,
    pub(crate) next_job: AtomicU64,
}

impl Device {
    pub fn new(
        config: DeviceConfig,
        allocator: Box<dyn BackingAllocator>,
        backend: Arc<dyn GpuBackend>,
        dump_dir: Option<PathBuf>,
    ) -> Arc<Device> {
        Arc::new(Device {
            config,
            hub: Arc::new(Hub::default()),
            allocator,
            engine: Arc::new(Engine {
                backend,
                stats: Arc::new(Stats::default()),
                timeout: Duration::from_millis(config.job_timeout_ms),
                clock: config.job_clock,
            }),
            memory_used: Arc::new(AtomicU64::new(0)),
            dump_dir,
            next_file: AtomicU64::new(1),
            next_job: AtomicU64::new(1),
        })
    }

    /// Heap-backed device with no GPU backend (for tests).
    pub fn for_tests() -> Arc<Device> {
        Device::new(
            DeviceConfig::default(),
            Box::new(HeapAllocator),
            Arc::new(NoBackend),
            None,
        )
    }

    pub fn stats(&self) -> &Stats {
        &self.engine.stats
    }

    pub fn memory_used(&self) -> u64 {
        self.memory_used.load(Ordering::Relaxed)
    }

    pub fn open(self: &Arc<Self>) -> Arc<File> {
        Arc::new(File {
            id: self.next_file.fetch_add(1, Ordering::Relaxed),
            device: self.clone(),
            state: Mutex::new(FileState::default()),
        })
    }
}

pub struct Queue {
    pub vm_id: u32,
    pub priority: u32,
    pub usc_exec_base: u64,
    pub(crate) worker: Worker,
}

/// A buffer bound with GEM_BIND_OBJECT(TIMESTAMPS).
#[derive(Clone)]
pub struct TimestampObject {
    pub bo: Arc<Bo>,
    pub offset: u64,
    pub range: u64,
}

#[derive(Default)]
pub struct FileState {
    pub(crate) bos: BoTable,
    pub(crate) vms: BTreeMap<u32, Vm>,
    pub(crate) queues: BTreeMap<u32, Queue>,
    pub(crate) syncobjs: BTreeMap<u32, Arc<Syncobj>>,
    pub(crate) timestamps: BTreeMap<u32, TimestampObject>,
    pub(crate) next_vm: u32,
    pub(crate) next_queue: u32,
    pub(crate) next_timestamp: u32,
}

/// The GEM handles of one file. Handles are the lowest free number >= 1
/// (idr_alloc(1, 0) as GEM uses), found in O(log n) from the set of freed
/// numbers; objects are also indexed by identity (mmap offsets, PRIME
/// import), so no operation scans every object.
#[derive(Default)]
pub(crate) struct BoTable {
    map: BTreeMap<u32, Arc<Bo>>,
    by_id: HashMap<u64, u32>,
    /// Handles below `top` that are free.
    freed: BTreeSet<u32>,
    /// Highest handle ever given out (0: none).
    top: u32,
}

impl BoTable {
    pub(crate) fn get(&self, handle: &u32) -> Option<&Arc<Bo>> {
        self.map.get(handle)
    }

    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// The handle this file holds for the object with identity `id`.
    pub(crate) fn handle_of(&self, id: u64) -> Option<u32> {
        self.by_id.get(&id).copied()
    }

    /// Insert under the lowest free handle; None when handles ran out.
    pub(crate) fn insert(&mut self, bo: Arc<Bo>) -> Option<u32> {
        let handle = match self.freed.pop_first() {
            Some(h) => h,
            None => {
                self.top = self.top.checked_add(1)?;
                self.top
            }
        };
        self.by_id.insert(bo.id, handle);
        self.map.insert(handle, bo);
        Some(handle)
    }

    pub(crate) fn remove(&mut self, handle: &u32) -> Option<Arc<Bo>> {
        let bo = self.map.remove(handle)?;
        self.by_id.remove(&bo.id);
        self.freed.insert(*handle);
        Some(bo)
    }
}

/// Lowest free handle >= 1 (idr_alloc(1, 0) as GEM and syncobj use).
pub(crate) fn lowest_free<T>(map: &BTreeMap<u32, T>) -> Option<u32> {
    let mut want = 1u32;
    for &k in map.keys() {
        if k != want {
            break;
        }
        want = want.checked_add(1)?;
    }
    Some(want)
}

/// Monotonic id >= 1 that is not in use (VM, queue, timestamp ids).
pub(crate) fn next_id<T>(counter: &mut u32, map: &BTreeMap<u32, T>) -> Option<u32> {
    for _ in 0..2 {
        let id = counter.wrapping_add(1).max(1);
        *counter = id;
        if !map.contains_key(&id) {
            return Some(id);
        }
    }
    None
}

/// Object counts of one open file, for leak checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ObjectCounts {
    pub bos: usize,
    pub vms: usize,
    pub queues: usize,
    pub syncobjs: usize,
    pub timestamps: usize,
    pub mappings: usize,
}

pub struct File {
    pub id: u64,
    pub device: Arc<Device>,
    pub(crate) state: Mutex<FileState>,
}

impl File {
    pub fn counts(&self) -> ObjectCounts {
        let s = self.state.lock();
        ObjectCounts {
            bos: s.bos.len(),
            vms: s.vms.len(),
            queues: s.queues.len(),
            syncobjs: s.syncobjs.len(),
            timestamps: s.timestamps.len(),
            mappings: s.vms.values().map(|v| v.mapping_count()).sum(),
        }
    }

    /// The BO behind a fake mmap offset, if this file holds a handle to it
    /// (drm_vma_node_is_allowed; an offset this file
    /// cannot see is reported like an unknown one, EINVAL) and `len` fits (drm_gem_mmap_obj).
    pub fn mmap_lookup(&self, offset: u64, len: u64) -> crate::errno::KResult<Arc<Bo>> {
        use crate::errno::Errno;
        let s = self.state.lock();
        let bo = crate::gem::id_of_mmap_offset(offset)
            .and_then(|id| s.bos.handle_of(id))
            .and_then(|h| s.bos.get(&h))
            .ok_or(Errno::EINVAL)?;
        if len == 0 || len > bo.size {
            return Err(Errno::EINVAL);
        }
        Ok(bo.clone())
    }

    pub fn syncobj(&self, handle: u32) -> Option<Arc<Syncobj>> {
        self.state.lock().syncobjs.get(&handle).cloned()
    }

    pub fn bo(&self, handle: u32) -> Option<Arc<Bo>> {
        self.state.lock().bos.get(&handle).cloned()
    }
}

//! File descriptors the shim owns: opens of the render node and the fds it
//! hands out for dma-bufs, syncobjs and sync files.

use agx16_kernel::fence::Fence;
use agx16_kernel::gem::Bo;
use agx16_kernel::syncobj::Syncobj;
use agx16_kernel::File;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

#[derive(Clone)]
pub enum Entry {
    Drm(Arc<File>),
    DmaBuf(Arc<Bo>),
    Syncobj(Arc<Syncobj>),
    SyncFile(Arc<Fence>),
}

fn table() -> &'static Mutex<HashMap<i32, Entry>> {
    static TABLE: OnceLock<Mutex<HashMap<i32, Entry>>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashMap::new()))
}

pub fn insert(fd: i32, entry: Entry) {
    table().lock().insert(fd, entry);
}

pub fn get(fd: i32) -> Option<Entry> {
    table().lock().get(&fd).cloned()
}

pub fn remove(fd: i32) -> Option<Entry> {
    table().lock().remove(&fd)
}

pub fn drm_file(fd: i32) -> Option<Arc<File>> {
    match get(fd)? {
        Entry::Drm(f) => Some(f),
        _ => None,
    }
}

/// Find a BO exported earlier by the inode of its memfd (for dma-buf fds
/// the application duplicated or received without going through us).
pub fn dmabuf_by_inode(ino: u64) -> Option<Arc<Bo>> {
    table().lock().values().find_map(|e| match e {
        Entry::DmaBuf(bo) if crate::host::bo_inode(bo) == Some(ino) => Some(bo.clone()),
        _ => None,
    })
}

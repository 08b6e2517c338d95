//! File descriptors the shim owns: opens of the render node and the fds it
//! hands out for dma-bufs, syncobjs and sync files.
//!
//! Each entry remembers the inode behind its fd. A program can close fds
//! without going through our `close` (close_range, closefrom, exec), and
//! the number may come back as an unrelated file; a lookup whose inode no
//! longer matches drops the stale entry instead of treating that file as
//! ours. The render node is a memfd per open, so inodes are unique.

use crate::real::real;
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

type Table = Mutex<HashMap<i32, (u64, Entry)>>;

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// (device, inode) of an open fd folded into one key.
pub fn identity(fd: i32) -> Option<u64> {
    // SAFETY: fstat into a local struct.
    unsafe {
        let mut st: libc::stat64 = std::mem::zeroed();
        ((real().fstat64)(fd, &mut st) == 0).then_some(st.st_ino ^ st.st_dev.rotate_left(48))
    }
}

pub fn insert(fd: i32, entry: Entry) {
    if let Some(id) = identity(fd) {
        table().lock().insert(fd, (id, entry));
    }
}

pub fn get(fd: i32) -> Option<Entry> {
    let (id, entry) = table().lock().get(&fd).cloned()?;
    if identity(fd) == Some(id) {
        Some(entry)
    } else {
        table().lock().remove(&fd);
        None
    }
}

pub fn remove(fd: i32) -> Option<Entry> {
    table().lock().remove(&fd).map(|(_, e)| e)
}

/// Find a BO exported earlier by the identity of its memfd (for dma-buf
/// fds the application duplicated or received without going through us).
pub fn dmabuf_by_identity(id: u64) -> Option<Arc<Bo>> {
    table().lock().values().find_map(|(fid, e)| match e {
        Entry::DmaBuf(bo) if *fid == id => Some(bo.clone()),
        _ => None,
    })
}

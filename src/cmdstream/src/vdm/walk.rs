//! Following a VDM stream through memory, and grouping it into draws.

use super::*;
use crate::stream::{GpuRead, StreamError, StreamErrorKind, WalkLimits};

/// A VDM block found in a walk, with its VA and size.
#[derive(Debug, Clone, PartialEq)]
pub struct VdmItem {
    pub at: u64,
    pub size: usize,
    pub block: VdmBlock,
}

/// Longest VDM block in bytes (state with every supported payload).
const MAX_BLOCK: usize = 64;
/// Bytes a [`Walker`] reads ahead at once (a draw is a dozen blocks); where that much is
/// not mapped it reads block by block.
const READ_AHEAD: usize = 1024;

/// Follows a VDM stream from render-context VA `start` until its terminate, taking links
/// (32-bit context offsets), calls and returns (a barrier with `returns`).
pub fn walk(
    mem: &impl GpuRead,
    start: u64,
    limits: WalkLimits,
) -> Result<Vec<VdmItem>, StreamError> {
    Walker::new(mem, start, limits).collect()
}

/// [`walk`] one block at a time: the blocks in stream order, then `None` after the terminate
/// or after the first error.
pub struct Walker<'m, M: GpuRead> {
    mem: &'m M,
    va: u64,
    stack: Vec<u64>,
    limits: WalkLimits,
    blocks: usize,
    done: bool,
    /// `READ_AHEAD` bytes read at `ahead_va` (`ahead_len` 0: none).
    ahead: Box<[u8; READ_AHEAD]>,
    ahead_va: u64,
    ahead_len: usize,
    /// Where the last read-ahead failed: none is tried again within `READ_AHEAD` bytes after
    /// it (it would reach the same unmapped bytes).
    ahead_failed: Option<u64>,
}

impl<'m, M: GpuRead> Walker<'m, M> {
    pub fn new(mem: &'m M, start: u64, limits: WalkLimits) -> Self {
        Walker {
            mem,
            va: start,
            stack: Vec::new(),
            limits,
            blocks: 0,
            done: false,
            ahead: Box::new([0; READ_AHEAD]),
            ahead_va: 0,
            ahead_len: 0,
            ahead_failed: None,
        }
    }

    /// The `MAX_BLOCK` bytes at `va` from the read-ahead, when it holds them.
    fn ahead_block(&self, va: u64) -> Option<&[u8]> {
        let at = usize::try_from(va.checked_sub(self.ahead_va)?).ok()?;
        self.ahead
            .get(at..at.checked_add(MAX_BLOCK)?.min(self.ahead_len))
            .filter(|b| b.len() == MAX_BLOCK)
    }

    fn next_block(&mut self) -> Result<VdmItem, StreamError> {
        let (mem, va) = (self.mem, self.va);
        let mut buf = [0u8; MAX_BLOCK];
        let mut have = MAX_BLOCK;
        let failed_near = self
            .ahead_failed
            .is_some_and(|f| va >= f && va - f < READ_AHEAD as u64);
        if self.ahead_block(va).is_none() && !failed_near {
            self.ahead_len = 0;
            if mem.read(va, &mut self.ahead[..]).is_ok() {
                (self.ahead_va, self.ahead_len) = (va, READ_AHEAD);
            } else {
                self.ahead_failed = Some(va);
            }
        }
        if let Some(b) = self.ahead_block(va) {
            buf.copy_from_slice(b);
        } else {
            // Read as much as is mapped, up to the longest block.
            while mem.read(va, &mut buf[..have]).is_err() {
                have -= 4;
                if have == 0 {
                    let e = mem.read(va, &mut buf[..4]).unwrap_err();
                    return Err(StreamError::new(va, StreamErrorKind::Memory(e)));
                }
            }
        }
        let (block, size) = VdmBlock::decode(&buf[..have]).map_err(|k| StreamError::new(va, k))?;
        let here = va;
        let next = va + size as u64;
        self.va = match &block {
            VdmBlock::Link(l) => {
                if l.with_return {
                    if self.stack.len() >= self.limits.max_call_depth {
                        return Err(StreamError::new(
                            here,
                            StreamErrorKind::CallTooDeep(self.limits.max_call_depth),
                        ));
                    }
                    self.stack.push(next);
                }
                RENDER_CONTEXT_BASE + l.target as u64
            }
            VdmBlock::Barrier(b) if b.returns => self
                .stack
                .pop()
                .ok_or(StreamError::new(here, StreamErrorKind::ReturnWithoutCall))?,
            _ => next,
        };
        Ok(VdmItem {
            at: here,
            size,
            block,
        })
    }
}

impl<M: GpuRead> Iterator for Walker<'_, M> {
    type Item = Result<VdmItem, StreamError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.blocks == self.limits.max_blocks {
            self.done = true;
            return Some(Err(StreamError::new(
                self.va,
                StreamErrorKind::TooManyBlocks(self.limits.max_blocks),
            )));
        }
        self.blocks += 1;
        let item = self.next_block();
        self.done = match &item {
            Ok(it) => matches!(it.block, VdmBlock::Terminate(_)),
            Err(_) => true,
        };
        Some(item)
    }
}

/// One draw as the hardware sees it after walking the stream: the vertex state latched so
/// far (later state updates override the parts they carry), the PPP updates emitted since the
/// previous draw, and the index list.
#[derive(Debug, Clone, PartialEq)]
pub struct Draw {
    /// VA of the index-list block.
    pub at: u64,
    pub state: VdmState,
    pub ppp_updates: Vec<VdmPppUpdate>,
    pub index_list: VdmIndexList,
}

/// Groups a walked VDM stream into draws.
pub fn draws(items: &[VdmItem]) -> Vec<Draw> {
    let mut g = DrawGrouper::default();
    items.iter().filter_map(|it| g.push(it)).collect()
}

/// [`draws`] one block at a time: the vertex state latched so far and the PPP updates since
/// the last draw.
#[derive(Debug, Default)]
pub struct DrawGrouper {
    state: VdmState,
    ppp: Vec<VdmPppUpdate>,
}

impl DrawGrouper {
    /// Takes the next block of the stream; an index list gives its draw.
    pub fn push(&mut self, it: &VdmItem) -> Option<Draw> {
        match &it.block {
            VdmBlock::State(s) => {
                macro_rules! latch {
                    ($($f:ident),*) => {$( if s.$f.is_some() { self.state.$f = s.$f.clone(); } )*};
                }
                latch!(
                    restart_index,
                    vertex_word0,
                    vertex_word1,
                    vertex_outputs,
                    vertex_unknown
                );
                None
            }
            VdmBlock::PppUpdate(u) => {
                self.ppp.push(u.clone());
                None
            }
            VdmBlock::IndexList(d) => Some(Draw {
                at: it.at,
                state: self.state.clone(),
                ppp_updates: std::mem::take(&mut self.ppp),
                index_list: d.clone(),
            }),
            _ => None,
        }
    }
}

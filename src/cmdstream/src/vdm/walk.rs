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

/// Follows a VDM stream from render-context VA `start` until its terminate, taking links
/// (32-bit context offsets), calls and returns (a barrier with `returns`).
pub fn walk(
    mem: &impl GpuRead,
    start: u64,
    limits: WalkLimits,
) -> Result<Vec<VdmItem>, StreamError> {
    let mut out = Vec::new();
    let mut stack = Vec::new();
    let mut va = start;
    for _ in 0..limits.max_blocks {
        let mut buf = [0u8; MAX_BLOCK];
        // Read as much as is mapped, up to the longest block.
        let mut have = MAX_BLOCK;
        while mem.read(va, &mut buf[..have]).is_err() {
            have -= 4;
            if have == 0 {
                let e = mem.read(va, &mut buf[..4]).unwrap_err();
                return Err(StreamError::new(va, StreamErrorKind::Memory(e)));
            }
        }
        let (block, size) = VdmBlock::decode(&buf[..have]).map_err(|k| StreamError::new(va, k))?;
        let here = va;
        let next = va + size as u64;
        va = match &block {
            VdmBlock::Link(l) => {
                if l.with_return {
                    if stack.len() >= limits.max_call_depth {
                        return Err(StreamError::new(
                            here,
                            StreamErrorKind::CallTooDeep(limits.max_call_depth),
                        ));
                    }
                    stack.push(next);
                }
                RENDER_CONTEXT_BASE + l.target as u64
            }
            VdmBlock::Barrier(b) if b.returns => stack
                .pop()
                .ok_or(StreamError::new(here, StreamErrorKind::ReturnWithoutCall))?,
            _ => next,
        };
        let end = matches!(block, VdmBlock::Terminate(_));
        out.push(VdmItem {
            at: here,
            size,
            block,
        });
        if end {
            return Ok(out);
        }
    }
    Err(StreamError::new(
        va,
        StreamErrorKind::TooManyBlocks(limits.max_blocks),
    ))
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
    let mut state = VdmState::default();
    let mut ppp = Vec::new();
    let mut out = Vec::new();
    for it in items {
        match &it.block {
            VdmBlock::State(s) => {
                macro_rules! latch {
                    ($($f:ident),*) => {$( if s.$f.is_some() { state.$f = s.$f.clone(); } )*};
                }
                latch!(
                    restart_index,
                    vertex_word0,
                    vertex_word1,
                    vertex_outputs,
                    vertex_unknown
                );
            }
            VdmBlock::PppUpdate(u) => ppp.push(u.clone()),
            VdmBlock::IndexList(d) => out.push(Draw {
                at: it.at,
                state: state.clone(),
                ppp_updates: std::mem::take(&mut ppp),
                index_list: d.clone(),
            }),
            _ => {}
        }
    }
    out
}

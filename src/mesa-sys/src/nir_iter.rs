//! Safe-ish walkers over NIR's intrusive `exec_list`s, which bindgen cannot express.

use crate::{exec_list, exec_node};

/// Iterates the elements of an `exec_list` whose `exec_node` sits at byte `node_offset` inside `T`.
///
/// # Safety
/// `list` must be a valid, initialised `exec_list` of `T`s that outlives the iterator and is not
/// modified while iterating.
pub unsafe fn exec_list_iter<'a, T: 'a>(
    list: *const exec_list,
    node_offset: usize,
) -> impl Iterator<Item = &'a T> {
    // The list's head sentinel is `head_sentinel`; the tail sentinel has `next == NULL`.
    let mut node: *const exec_node = unsafe { (*list).head_sentinel.next };
    std::iter::from_fn(move || {
        // SAFETY: the caller guarantees a well-formed list; a node with a NULL `next` is the tail sentinel.
        unsafe {
            if node.is_null() || (*node).next.is_null() {
                return None;
            }
            let item = &*((node as *const u8).sub(node_offset) as *const T);
            node = (*node).next;
            Some(item)
        }
    })
}

/// Number of instructions in a function implementation (NIR numbers blocks' start and end too, so
/// `nir_index_instrs` alone over-counts by two per block).
///
/// # Safety
/// `impl_` must be a valid function implementation; instruction and block indices are rewritten.
pub unsafe fn instr_count(impl_: *mut crate::nir_function_impl) -> u32 {
    unsafe {
        crate::nir_index_blocks(impl_);
        crate::nir_index_instrs(impl_) - 2 * (*impl_).num_blocks
    }
}

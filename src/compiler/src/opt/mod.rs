//! Machine-independent optimisation passes on the SSA IR.

pub mod const_fold;
pub mod copy_prop;
pub mod dce;
pub mod legalize;
pub mod lower_ops;
pub mod modifiers;
pub mod select_branch;
pub mod shifts;
pub mod split_vectors;
pub mod uses;

use crate::ir::Function;
use crate::target::Target;

/// The standard pipeline: iterate the cheap passes to a fixed point, then legalise operands
/// (immediates and uniforms the target cannot take become register copies).
pub fn optimize(f: &mut Function, target: &dyn Target) {
    if target.split_vector_memory() {
        split_vectors::run(f);
    }
    lower_ops::run(f, target.lowered_ops());
    for _ in 0..8 {
        let mut changed = copy_prop::run(f);
        changed |= const_fold::run(f);
        changed |= modifiers::run(f);
        changed |= copy_prop::run(f);
        changed |= dce::run(f);
        if !changed {
            break;
        }
    }
    if !target.saturate() {
        select_branch::lower_saturate(f);
    }
    if target.selects_as_branches() && select_branch::run(f) {
        copy_prop::run(f);
        dce::run(f);
    }
    if target.shift_amounts_saturate() {
        shifts::mask_amounts(f);
    }
    legalize::run(f, target);
    dce::run(f);
}

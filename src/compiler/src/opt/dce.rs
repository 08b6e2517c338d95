//! Dead-code elimination: drop side-effect-free instructions whose result nobody reads.

use super::uses::use_counts;
use crate::ir::Function;

pub fn run(f: &mut Function) -> bool {
    let mut changed = false;
    loop {
        let uses = use_counts(f);
        let mut removed = false;
        for b in &mut f.blocks {
            b.instrs.retain(|i| {
                let dead =
                    !i.op.has_side_effect() && i.dst.is_some_and(|d| uses[d.0 as usize] == 0);
                removed |= dead;
                !dead
            });
        }
        if !removed {
            return changed;
        }
        changed = true;
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::*;

    #[test]
    fn removes_unused_chain_keeps_stores() {
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let a = b.iadd(x, Src::imm(1));
        let _dead = b.iadd(a, Src::imm(2));
        b.store_global(0, x, a);
        let mut f = b.finish();
        assert!(super::run(&mut f));
        assert_eq!(f.instr_count(), 3);
        validate::validate(&f).unwrap();
    }
}

//! Launcher (setup-program) forms: pointer loads, stage allocation, stage target,
//! publication/scratch frame, argument transfers, and the entry arena's jump.
//!
//! Facts: GravityLinux/mesa src/gallium/drivers/asahi/README.apple9-launchers.md
//! (launchers generated from these layouts ran on T8132 = M4, measured); the
//! meanings come from `agx16_isa::meaning` (one mapping for model and builder).
//! Fields the sources leave unexplained are refused unless they hold the values
//! every hardware-run launcher holds.

use super::{check, src};
use crate::core::ops::{Kind, Op, Src};
use agx16_isa::meaning::{self, POINTER_LOAD_SLOT};
use agx16_isa::{Instr, Op as F, Operand, Role};

fn gpr(i: &Instr, role: Role) -> Result<u8, String> {
    match src(i, role)? {
        Src::Gpr(r, crate::core::ops::Part::Full) => Ok(r),
        other => Err(format!(
            "{} is {other:?}, not a full register",
            role.as_str()
        )),
    }
}

pub fn lower(i: &Instr, op: &mut Op) -> Result<Kind, String> {
    match i.form.op {
        F::PointerLoad => {
            // `67 00 54 <dst<<1> <base> .. <fmt|token> 00 <offset> 40 26 00`: results on
            // slot 2 (token 2), the only slot the launchers used.
            check::fields(i, &["ld_format", "offset"], &[])?;
            let count = meaning::pointer_load_count(i)?;
            if op.hazard.produce != Some(POINTER_LOAD_SLOT) {
                return Err(format!(
                    "pointer load publishing on slot {:?} (only slot {POINTER_LOAD_SLOT} ran)",
                    op.hazard.produce
                ));
            }
            let (dst, base) = (gpr(i, Role::Dst)?, gpr(i, Role::SrcA)?);
            if base % 2 != 0 {
                return Err(format!(
                    "root pair r{base}:r{} is odd-aligned (unmeasured)",
                    base + 1
                ));
            }
            if dst as usize + 2 * count as usize > 64 {
                return Err(format!("r{dst}+{} words leave r0..r63", 2 * count));
            }
            Ok(Kind::PointerLoad {
                dst,
                base,
                offset: i.field("offset").unwrap_or(0) as u8,
                count,
            })
        }
        F::ArgumentStore => {
            check::fields(i, &[], &[])?;
            let word = match i.operand(Role::Dst).map(|o| o.value) {
                Some(Operand::Uniform { index, .. }) => index,
                _ => return Err("argument transfer without a destination word".into()),
            };
            let w = i.wait().map(|w| w.slots.0).unwrap_or(0);
            if w != 0 && w != 1 << (POINTER_LOAD_SLOT - 1) {
                return Err(format!(
                    "argument transfer waits on slots {w:#b} (only slot 2 ran)"
                ));
            }
            op.hazard.drains_slots = true;
            Ok(Kind::ArgStore {
                word,
                src: Src::Gpr(gpr(i, Role::SrcA)?, crate::core::ops::Part::Full),
            })
        }
        F::StageAllocation => {
            let (a, _) = meaning::stage_allocation(i)?;
            Ok(Kind::StageAlloc(a))
        }
        F::StageTarget => {
            // Header bits 9..15 passed zero/one controls but the combined encoding
            // leaves them zero; byte 7 bit 1 / byte 8 bit 7 are match bits (required).
            check::fields(i, &["target"], &[])?;
            Ok(Kind::StageTarget {
                entry: meaning::stage_entry(i)?,
            })
        }
        F::LaunchFrame => {
            let f = meaning::launch_frame(i)?;
            // B's role is not established; only B = 0 ran in the isolating tests
            // (README "Resource ABI": "B = 0 passes those tests").
            if f.extent_b != 0 {
                return Err(format!(
                    "frame extent B = {} (role not established; only 0 measured)",
                    f.extent_b
                ));
            }
            Ok(Kind::LaunchFrame(f))
        }
        other => Err(format!("{other:?} is not a launcher form")),
    }
}

/// The entry arena's `JMP_EXEC_ANY` (mode 0x54): byte displacement from the jump to
/// the stage body (README "Independent shader entry ABI": transfers active lanes,
/// no return address, an immediately following STOP ends lanes that are not active).
pub fn entry_jump(i: &Instr) -> Result<i64, String> {
    if i.form.op != F::Jump {
        return Err(format!(
            "entry starts with {}, not JMP_EXEC_ANY",
            i.form.name
        ));
    }
    check::fields(i, &[], &[("mode", &[0x54])])?;
    match i.operand(Role::SrcA).map(|o| o.value) {
        Some(Operand::ImmInt(d)) if d % 2 == 0 => Ok(d),
        other => Err(format!(
            "entry jump displacement {other:?} is not an even byte offset"
        )),
    }
}

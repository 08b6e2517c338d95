//! NIR intrinsics → IR: system values and SSBO access (compute).
//!
//! Buffer binding n is device base slot n (the driver fills slot n with buffer n's address);
//! byte offsets become 32-bit element indices, which is what `device_load`/`device_store`
//! address (element index scaled by the access size; niklassheth/agx-re EXP-M4-35 kernels,
//! measured).

use super::import::{cstr, Importer};
use crate::error::CompileError;
use crate::ir::{Op, Src, SysVal, Type};
use agx16_mesa_sys as m;

pub(super) unsafe fn const_src(s: &m::nir_src, what: &str) -> Result<u64, CompileError> {
    unsafe {
        if m::nir_src_is_const(*s) {
            Ok(m::nir_src_as_uint(*s))
        } else {
            Err(CompileError::Unsupported(format!("non-constant {what}")))
        }
    }
}

/// The 32-bit element index for a byte offset. `ishl(x, 2)` and `iadd(ishl(x, 2), 4k)` (what
/// array indexing produces) give `x` and `x + k` directly: offsets are below the driver's
/// maximum SSBO size (far under 4 GiB), so the shift cannot have wrapped. Anything else is
/// shifted right by two.
pub(super) unsafe fn element_index(
    im: &mut Importer,
    off: *const m::nir_def,
) -> Result<Src, CompileError> {
    unsafe {
        let parent = (*off).parent_instr;
        if (*parent).type_ == m::nir_instr_type_alu {
            let a = m::nir_instr_as_alu(parent);
            let name = cstr(m::nir_op_infos[(*a).op as usize].name);
            let srcs = (*a)
                .src
                .as_slice(2.min(m::nir_op_infos[(*a).op as usize].num_inputs as usize));
            let is_const = |k: usize| m::nir_src_is_const(srcs[k].src);
            // The component the ALU source selects (a constant may be a vector: a swizzled
            // load_const after vectorised address arithmetic, e.g. UBO array offsets).
            let value = |k: usize| m::nir_src_comp_as_uint(srcs[k].src, srcs[k].swizzle[0] as u32);
            if name == "ishl" && is_const(1) && value(1) == 2 {
                return im.comp(srcs[0].src.ssa, srcs[0].swizzle[0]);
            }
            if name == "iadd" {
                for (x, c) in [(0, 1), (1, 0)] {
                    // (A vector operand is read through its swizzle by the fallback below.)
                    if is_const(c)
                        && value(c).is_multiple_of(4)
                        && (*srcs[x].src.ssa).num_components == 1
                    {
                        let k = (value(c) / 4) as u32;
                        let base = element_index(im, srcs[x].src.ssa)?;
                        return Ok(Src::val(im.b.iadd(base, Src::imm(k))));
                    }
                }
            }
        }
        let o = im.comp(off, 0)?;
        Ok(Src::val(im.b.alu(
            Op::Shr { signed: false },
            Type::I32,
            [o, Src::imm(2)],
        )))
    }
}

pub(super) unsafe fn import(
    im: &mut Importer,
    x: *const m::nir_intrinsic_instr,
) -> Result<(), CompileError> {
    unsafe {
        let name = cstr(m::nir_intrinsic_infos[(*x).intrinsic as usize].name);
        let info = &m::nir_intrinsic_infos[(*x).intrinsic as usize];
        let srcs = (*x).src.as_slice(info.num_srcs as usize);
        let comps = (*x).def.num_components;
        let sysval = |im: &mut Importer, f: fn(u8) -> SysVal| {
            let parts: Vec<Src> = (0..comps).map(|k| Src::val(im.b.sysval(f(k)))).collect();
            if comps == 1 {
                parts[0].value().unwrap()
            } else {
                im.b.collect(Type::I32, &parts)
            }
        };
        if super::gfx::import_intrinsic(im, x, &name)? {
            return Ok(());
        }
        match name.as_str() {
            "load_global_invocation_id" => {
                let v = sysval(im, SysVal::GlobalId);
                im.define(&(*x).def, v);
            }
            "load_local_invocation_id" => {
                let v = sysval(im, SysVal::LocalId);
                im.define(&(*x).def, v);
            }
            "load_workgroup_id" => {
                let v = sysval(im, SysVal::GroupId);
                im.define(&(*x).def, v);
            }
            "load_ssbo" => {
                if (*x).def.bit_size != 32 {
                    return Err(CompileError::Unsupported(format!(
                        "{}-bit load_ssbo",
                        (*x).def.bit_size
                    )));
                }
                let binding = const_src(&srcs[0], "SSBO index")?;
                let idx = element_index(im, srcs[1].ssa)?;
                let v = im.b.load_global(binding as u8, idx, Type::I32, comps);
                im.define(&(*x).def, v);
            }
            "store_ssbo" => {
                let n = (*srcs[0].ssa).num_components;
                let mask = m::nir_intrinsic_write_mask(x);
                if mask != (1 << n) - 1 || (*srcs[0].ssa).bit_size != 32 {
                    return Err(CompileError::Unsupported(format!(
                        "store_ssbo with write mask {mask:#x} of {n} components"
                    )));
                }
                let binding = const_src(&srcs[1], "SSBO index")?;
                let idx = element_index(im, srcs[2].ssa)?;
                let val = Src::val(im.value(srcs[0].ssa)?);
                im.b.store_global(binding as u8, idx, val);
            }
            "terminate" | "demote" => super::gfx::kill(im, None)?,
            "terminate_if" | "demote_if" => {
                let c = im.comp(srcs[0].ssa, 0)?;
                super::gfx::kill(im, Some(c))?
            }
            _ => return Err(CompileError::Unsupported(format!("NIR intrinsic `{name}`"))),
        }
        Ok(())
    }
}

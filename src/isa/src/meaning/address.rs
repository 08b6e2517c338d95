//! Where a device load/store takes its base address from.
//!
//! GravityLinux/mesa agx_apple9_ir.c DEVICE_LOAD_INDIRECT / DEVICE_STORE_INDIRECT (authored
//! T8132 pointer-chasing mains): byte 12 bit 5 (loads) or bit 3 (stores) makes byte 4 a GPR
//! pair holding the full address instead of the uniform pair `base_slot` names. The launcher's
//! `ptr_load` is that load shape.

use crate::instr::Instr;
use crate::op::Op;

/// Base address source of a device memory access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AddressBase {
    /// Uniform pair u[2n]:u[2n+1] (field `base_slot` = n).
    UniformPair(u8),
    /// GPR pair r[n]:r[n+1].
    GprPair(u8),
}

/// The base of a `device_load`, `device_store` or `ptr_load`.
pub fn address_base(i: &Instr) -> Result<AddressBase, String> {
    let byte4 = |name: &str| i.field(name).unwrap_or(0) as u8;
    let b12 = i.field("elem_size").unwrap_or(0);
    match i.form.op {
        Op::PointerLoad => Ok(AddressBase::GprPair(byte4("base"))),
        Op::DeviceLoad if b12 & 0x20 != 0 => Ok(AddressBase::GprPair(byte4("base_slot"))),
        Op::DeviceStore if b12 & 0x08 != 0 => Ok(AddressBase::GprPair(byte4("base_slot"))),
        Op::DeviceLoad | Op::DeviceStore => Ok(AddressBase::UniformPair(byte4("base_slot"))),
        _ => Err(format!("{} is not a device load/store", i.form.name)),
    }
}

//! agx16's `nir_shader_compiler_options`: what Mesa's passes lower before the backend sees NIR.

use agx16_mesa_sys::nir_shader_compiler_options;
use std::sync::OnceLock;

struct Opts(nir_shader_compiler_options);
// SAFETY: the options are written once and then only read; the raw pointers inside are null.
unsafe impl Sync for Opts {}
unsafe impl Send for Opts {}

static OPTIONS: OnceLock<Opts> = OnceLock::new();

/// The options the Gallium driver hands to Mesa for every stage.
pub fn options() -> &'static nir_shader_compiler_options {
    &OPTIONS
        .get_or_init(|| {
            let mut o = nir_shader_compiler_options::default();
            // No divide, power, modulo, flrp, sign or fract instructions are selected: Mesa
            // expands them into multiplies, reciprocals, exp2/log2 and floor.
            o.lower_fdiv = true;
            o.lower_fpow = true;
            o.lower_fmod = true;
            o.lower_flrp16 = true;
            o.lower_flrp32 = true;
            o.lower_flrp64 = true;
            o.lower_fsign = true;
            o.lower_isign = true;
            o.lower_ffract = true;
            o.lower_fdph = true;
            o.lower_scmp = true;
            o.lower_vector_cmp = true;
            o.lower_ldexp = true;
            o.lower_sincos = true;
            o.lower_fisnormal = true;
            o.lower_bitfield_extract = true;
            o.lower_bitfield_insert = true;
            o.lower_uadd_carry = true;
            o.lower_usub_borrow = true;
            o.lower_mul_high = true;
            // The IR carries negate as a source modifier; keep fneg/ineg visible.
            o.lower_ineg = true;
            // Fused multiply-add is a native form (ffma, EXP-M4-54 kernels).
            o.fuse_ffma32 = true;
            Opts(o)
        })
        .0
}

//! Mesa's own NIR passes, run before import: scalarise, SSA, 32-bit booleans, clean-up.

use agx16_mesa_sys as m;

/// Run the lowering and optimisation loop on `s`.
///
/// # Safety
/// `s` must be a valid NIR shader.
pub unsafe fn run(s: *mut m::nir_shader) {
    unsafe {
        m::nir_lower_vars_to_ssa(s);
        m::nir_lower_alu_to_scalar(s, None, std::ptr::null());
        m::nir_lower_phis_to_scalar(s, false);
        for _ in 0..16 {
            let mut progress = false;
            progress |= m::nir_copy_prop(s);
            progress |= m::nir_opt_remove_phis(s);
            progress |= m::nir_opt_dce(s);
            progress |= m::nir_opt_dead_cf(s);
            progress |= m::nir_opt_cse(s);
            progress |= m::nir_opt_algebraic(s);
            progress |= m::nir_opt_constant_folding(s);
            if !progress {
                break;
            }
        }
        m::nir_lower_bool_to_int32(s);
        m::nir_copy_prop(s);
        m::nir_opt_dce(s);
    }
}

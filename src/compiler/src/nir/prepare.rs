//! Mesa's own NIR passes, run before import: scalarise, SSA, integer division, the option-driven
//! ALU lowerings, 32-bit booleans, clean-up.

use agx16_mesa_sys as m;

/// Run the lowering and optimisation loop on `s`.
///
/// # Safety
/// `s` must be a valid NIR shader.
pub unsafe fn run(s: *mut m::nir_shader) {
    unsafe {
        // Local arrays indexed by a variable (up to 16 elements) become if-ladders of direct
        // accesses, which vars_to_ssa turns into SSA values (no scratch addressing needed).
        m::nir_lower_indirect_derefs(s, m::nir_var_function_temp, 16);
        m::nir_lower_vars_to_ssa(s);
        // Integer division and modulo as a reciprocal estimate refined with multiplies and
        // compares (no divide instruction).
        let idiv = m::nir_lower_idiv_options { allow_fp16: false };
        m::nir_lower_idiv(s, &idiv);
        m::nir_lower_alu_to_scalar(s, None, std::ptr::null());
        m::nir_lower_phis_to_scalar(s, false);
        for _ in 0..16 {
            let mut progress = false;
            // The option-driven ALU lowerings (bit count, bit reverse, mul_high) and the
            // scalarisation of what the algebraic pass builds (pack_uvec2_to_uint).
            progress |= m::nir_lower_alu(s);
            progress |= m::nir_lower_alu_to_scalar(s, None, std::ptr::null());
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

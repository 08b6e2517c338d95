//! Mesa's own NIR passes, run before import: scalarise, SSA, integer division, the option-driven
//! ALU lowerings, 32-bit booleans, clean-up.

use agx16_mesa_sys as m;

/// Run the lowering and optimisation loop on `s`.
///
/// # Safety
/// `s` must be a valid NIR shader.
pub unsafe fn run(s: *mut m::nir_shader) {
    unsafe {
        // Local arrays indexed by a variable (up to 256 elements; the length counts array
        // elements, so vec4[256] too) become if-ladders of direct accesses, which vars_to_ssa
        // then turns into SSA values: scratch is addressed only by the instruction's word field
        // (agx16-sim core/scratch.rs), so no dynamically addressed memory holds them. Elements
        // beyond the registers are loop-carried in scratch by the allocator (`ra::spill`
        // memory phis, coalesced along each element's phis); the ladders cost code linear in
        // the length per access (a 256-element array read and written in a loop: ~94 KB),
        // which is what bounds the length. Larger arrays stay unsupported, named at import.
        // Arrays whose every access is direct go to SSA first, as asahi's agx_compile.c orders
        // vars_to_ssa before lowering the remaining indirect derefs.
        m::nir_lower_vars_to_ssa(s);
        m::nir_remove_dead_variables(s, m::nir_var_function_temp, std::ptr::null());
        m::nir_lower_indirect_derefs(s, m::nir_var_function_temp, 256);
        m::nir_lower_vars_to_ssa(s);
        // Integer division and modulo as a reciprocal estimate refined with multiplies and
        // compares (no divide instruction).
        m::nir_shader_alu_pass(
            s,
            Some(nonzero_divisor),
            m::nir_metadata_control_flow,
            std::ptr::null_mut(),
        );
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
            // Loops that run once (`do { } while (false)`, GLSL's wrapper of a `switch`) lose
            // their loop (Mesa's wrapper unroll; with no unroll budget in the options nothing
            // else is unrolled but loops that never iterate): their unconditional break would
            // be a break-unwind with no if, which is not measured.
            progress |= m::nir_opt_loop_unroll(s);
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
        if std::env::var("AGX16_DEBUG").is_ok_and(|d| d.split(',').any(|x| x == "nir")) {
            print_stderr(s);
        }
    }
}

unsafe extern "C" {
    fn fdopen(fd: std::ffi::c_int, mode: *const std::ffi::c_char) -> *mut m::FILE;
    fn fflush(f: *mut m::FILE) -> std::ffi::c_int;
}

/// `AGX16_DEBUG=nir`: the shader as it reaches the importer, on stderr.
unsafe fn print_stderr(s: *mut m::nir_shader) {
    unsafe {
        let f = fdopen(2, c"w".as_ptr());
        if !f.is_null() {
            m::nir_print_shader(s, f);
            fflush(f);
        }
    }
}

/// A divisor of 0 becomes 1 (`umax(d, 1)`; other divisors, negative ones included, are kept):
/// GLSL leaves division and modulo by zero undefined, and nir_lower_idiv would otherwise convert
/// the reciprocal of 0 (infinity) to an integer, whose result the M4 measurements do not cover.
unsafe extern "C" fn nonzero_divisor(
    b: *mut m::nir_builder,
    alu: *mut m::nir_alu_instr,
    _: *mut std::ffi::c_void,
) -> bool {
    unsafe {
        if !matches!(
            (*alu).op,
            m::nir_op_udiv | m::nir_op_idiv | m::nir_op_umod | m::nir_op_imod | m::nir_op_irem
        ) {
            return false;
        }
        (*b).cursor = m::nir_before_instr(&mut (*alu).instr);
        let src = &mut (*alu).src.as_mut_slice(2)[1].src;
        let nonzero = m::nir_umax_imm(b, src.ssa, 1);
        m::nir_src_rewrite(src, nonzero);
        true
    }
}

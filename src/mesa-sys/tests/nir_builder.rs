//! The bindings against the real NIR: build a shader with nir_builder, let NIR's own constant folding
//! and validator work on it, and read the result back through the bound struct layouts.

use agx16_mesa_sys as sys;
use agx16_mesa_sys::nir_iter::exec_list_iter;
use std::mem::offset_of;

/// f32 values of every load_const in the entry point's first block.
unsafe fn load_const_f32s(shader: *mut sys::nir_shader) -> Vec<f32> {
    let entry = sys::nir_shader_get_entrypoint(shader);
    let block = sys::nir_start_block(entry);
    exec_list_iter::<sys::nir_instr>(&(*block).instr_list, offset_of!(sys::nir_instr, node))
        .filter(|instr| instr.type_ == sys::nir_instr_type_load_const)
        .map(|instr| {
            let load = &*(instr as *const sys::nir_instr as *const sys::nir_load_const_instr);
            assert_eq!(load.def.bit_size, 32);
            load.value.as_slice(1)[0].f32_
        })
        .collect()
}

#[test]
fn nir_builder_constant_folding_and_validation_through_the_bindings() {
    unsafe {
        sys::glsl_type_singleton_init_or_ref();
        let options: sys::nir_shader_compiler_options = std::mem::zeroed();
        let mut b = sys::nir_builder_init_simple_shader(
            sys::MESA_SHADER_FRAGMENT,
            &options,
            c"agx16-test".as_ptr(),
        );
        let x = sys::nir_imm_float(&mut b, 1.5);
        let y = sys::nir_imm_float(&mut b, 2.0);
        let sum = sys::nir_fadd(&mut b, x, y);
        // Keep the sum alive: write it to a fragment output.
        let out = sys::nir_variable_create(
            b.shader,
            sys::nir_var_shader_out,
            sys::glsl_float_type(),
            c"color".as_ptr(),
        );
        (*out).data.location = sys::FRAG_RESULT_DATA0 as i32;
        sys::nir_store_var(&mut b, out, sum, 1);

        let entry = sys::nir_shader_get_entrypoint(b.shader);
        assert_eq!(
            agx16_mesa_sys::nir_iter::instr_count(entry),
            5,
            "2 constants, fadd, deref, store"
        );
        assert_eq!(load_const_f32s(b.shader), vec![1.5, 2.0]);

        assert!(
            sys::nir_opt_constant_folding(b.shader),
            "NIR must fold 1.5 + 2.0"
        );
        sys::nir_opt_dce(b.shader);
        assert!(
            load_const_f32s(b.shader).contains(&3.5),
            "folded value read through the bindings"
        );
        sys::nir_validate_shader(b.shader, c"after folding".as_ptr());

        sys::ralloc_free(b.shader as *mut std::ffi::c_void);
        sys::glsl_type_singleton_decref();
    }
}

//! The NIR front-end: compute shaders built with Mesa's nir_builder go through Mesa's passes,
//! the importer and the G16 backend, then run on the M4 model; results are compared with values
//! computed here on the CPU. Needs the Mesa build (`--features nir-static`).
#![cfg(feature = "nir-static")]

use agx16_compiler::nir::api::{agx16_compile_nir, agx16_compile_result_free, Agx16CompileResult};
use agx16_compiler::nir::{compile_nir, options::options};
use agx16_compiler::pipeline::Options;
use agx16_mesa_sys as m;
use agx16_sim::{run_compute, Code, ComputeLaunch, PageTable};

const THREADS: u32 = 32;

struct Shader(m::nir_builder);

impl Shader {
    fn new() -> Self {
        unsafe {
            m::glsl_type_singleton_init_or_ref();
            Shader(m::nir_builder_init_simple_shader(
                m::MESA_SHADER_COMPUTE as _,
                options(),
                c"agx16-test".as_ptr(),
            ))
        }
    }
    fn b(&mut self) -> *mut m::nir_builder {
        &mut self.0
    }
    fn intrinsic(
        &mut self,
        op: m::nir_intrinsic_op,
        comps: u32,
        srcs: &[*mut m::nir_def],
        dest: bool,
    ) -> *mut m::nir_intrinsic_instr {
        unsafe {
            let i = m::nir_intrinsic_instr_create(self.0.shader, op);
            (*i).num_components = comps as u8;
            let s = (*i).src.as_mut_slice(srcs.len());
            for (k, d) in srcs.iter().enumerate() {
                s[k] = m::nir_src_for_ssa(*d);
            }
            if dest {
                m::nir_def_init(&mut (*i).instr, &mut (*i).def, comps, 32);
            }
            i
        }
    }
    fn insert(&mut self, i: *mut m::nir_intrinsic_instr) {
        unsafe { m::nir_builder_instr_insert(&mut self.0, &mut (*i).instr) }
    }
    fn global_id_x(&mut self) -> *mut m::nir_def {
        let i = self.intrinsic(m::nir_intrinsic_load_global_invocation_id, 3, &[], true);
        self.insert(i);
        unsafe { m::nir_channel(self.b(), &mut (*i).def, 0) }
    }
    fn load_ssbo(&mut self, binding: i32, off: *mut m::nir_def) -> *mut m::nir_def {
        unsafe {
            let buf = m::nir_imm_int(self.b(), binding);
            let i = self.intrinsic(m::nir_intrinsic_load_ssbo, 1, &[buf, off], true);
            m::nir_intrinsic_set_align(i, 4, 0);
            self.insert(i);
            &mut (*i).def
        }
    }
    fn store_ssbo(&mut self, v: *mut m::nir_def, binding: i32, off: *mut m::nir_def) {
        unsafe {
            let buf = m::nir_imm_int(self.b(), binding);
            let i = self.intrinsic(m::nir_intrinsic_store_ssbo, 1, &[v, buf, off], false);
            m::nir_intrinsic_set_write_mask(i, 1);
            m::nir_intrinsic_set_align(i, 4, 0);
            self.insert(i);
        }
    }
}

impl Drop for Shader {
    fn drop(&mut self) {
        unsafe { m::ralloc_free(self.0.shader as *mut _) }
    }
}

fn run(code: &[u8], input: &[u32]) -> Vec<u32> {
    let pt = PageTable::new();
    let (a, b) = (0x10_0000_0000u64, 0x10_0010_0000u64);
    pt.map(a, 0x10000, true, true).unwrap();
    pt.map(b, 0x10000, true, true).unwrap();
    pt.host_write(
        a,
        &input
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let launch = ComputeLaunch {
        code: Code::Bytes(code.to_vec()),
        uniforms: vec![a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32],
        grid: [THREADS, 1, 1],
        threadgroup: [THREADS, 1, 1],
        tg_memory: 0,
        budget: 1 << 20,
    };
    run_compute(&pt, &launch).unwrap();
    let mut out = vec![0u8; input.len() * 4];
    pt.host_read(b, &mut out).unwrap();
    out.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// fp32 add as M4 does it: denormals flushed, NaNs canonical (see eval.rs for the evidence).
fn m4_fadd(a: f32, b: f32) -> u32 {
    let ftz = |x: f32| {
        if x.is_subnormal() {
            0.0f32.copysign(x)
        } else {
            x
        }
    };
    let r = ftz(ftz(a) + ftz(b));
    if r.is_nan() {
        0x7fc0_0000
    } else {
        r.to_bits()
    }
}

#[test]
fn ssbo_add_constant_runs_on_the_model() {
    let mut s = Shader::new();
    let x = s.global_id_x();
    let off = unsafe { m::nir_ishl_imm(s.b(), x, 2) };
    let v = s.load_ssbo(0, off);
    let c = unsafe { m::nir_imm_float(s.b(), 1.5) };
    let r = unsafe { m::nir_fadd(s.b(), v, c) };
    s.store_ssbo(r, 1, off);
    let compiled = unsafe { compile_nir(s.0.shader, Options::default()) }.unwrap();
    assert!(compiled.stats.instrs >= 4 && compiled.stats.bytes as usize == compiled.code.len());
    let input: Vec<u32> = (0..THREADS)
        .map(|k| {
            [
                1.0f32.to_bits(),
                0x7f80_0000,
                0xff80_0000,
                0x0000_0001,
                0xffff_ffff,
                (-1.5f32).to_bits(),
                1e30f32.to_bits(),
                k,
            ][k as usize % 8]
        })
        .collect();
    let got = run(&compiled.code, &input);
    let want: Vec<u32> = input
        .iter()
        .map(|w| m4_fadd(f32::from_bits(*w), 1.5))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn unsupported_nir_is_an_error_naming_the_instruction() {
    let mut s = Shader::new();
    let x = s.global_id_x();
    let off = unsafe { m::nir_ishl_imm(s.b(), x, 2) };
    let v = s.load_ssbo(0, off);
    let r = unsafe { m::nir_uclz(s.b(), v) };
    s.store_ssbo(r, 1, off);
    let e = unsafe { compile_nir(s.0.shader, Options::default()) }.unwrap_err();
    assert!(e.to_string().contains("NIR ALU op `uclz`"), "{e}");
}

#[test]
fn c_entry_point_reports_errors_and_code() {
    let mut r = Agx16CompileResult {
        code: std::ptr::null_mut(),
        code_size: 0,
        stats: Default::default(),
        error: std::ptr::null_mut(),
    };
    assert!(!unsafe { agx16_compile_nir(std::ptr::null_mut(), &mut r) });
    assert!(!r.error.is_null());
    unsafe { agx16_compile_result_free(&mut r) };

    let mut s = Shader::new();
    let x = s.global_id_x();
    let off = unsafe { m::nir_ishl_imm(s.b(), x, 2) };
    let v = s.load_ssbo(0, off);
    s.store_ssbo(v, 1, off);
    let ok = unsafe { agx16_compile_nir(s.0.shader, &mut r) };
    assert!(
        ok,
        "{}",
        unsafe { std::ffi::CStr::from_ptr(r.error) }.to_string_lossy()
    );
    assert!(r.error.is_null() && r.code_size > 0 && r.stats.bytes as usize == r.code_size);
    let code = unsafe { std::slice::from_raw_parts(r.code, r.code_size) }.to_vec();
    let input: Vec<u32> = (0..THREADS).map(|k| k.wrapping_mul(0x9e37_79b9)).collect();
    assert_eq!(run(&code, &input), input);
    unsafe { agx16_compile_result_free(&mut r) };
}

/// `acc = 0; for (i = 0; i < (x & 3) + 1; i++) acc += v; r = acc < 10 ? acc * 2 : acc + 1`
/// written with local variables, so Mesa's vars_to_ssa makes the loop and if phis. The
/// imported program runs (no control-flow forms on the model yet) on the reference interpreter
/// and, allocated and scheduled, on the MIR interpreter; both must give the CPU result.
#[test]
fn loops_ifs_and_phis_import_and_allocate_correctly() {
    use agx16_compiler::interp::{self, Env};
    use agx16_compiler::isel::{G16Regs, G16Target};
    use agx16_compiler::mir::interp as minterp;
    use agx16_compiler::pipeline::compile_to_mir;
    let mut s = Shader::new();
    let x = s.global_id_x();
    let off = unsafe { m::nir_ishl_imm(s.b(), x, 2) };
    let v = s.load_ssbo(0, off);
    unsafe {
        let b = s.b();
        let imp = m::nir_shader_get_entrypoint((*b).shader);
        let acc = m::nir_local_variable_create(imp, m::glsl_float_type(), c"acc".as_ptr());
        let i = m::nir_local_variable_create(imp, m::glsl_uint_type(), c"i".as_ptr());
        m::nir_store_var(b, acc, m::nir_imm_float(b, 0.0), 1);
        m::nir_store_var(b, i, m::nir_imm_int(b, 0), 1);
        let n = m::nir_iadd_imm(b, m::nir_iand_imm(b, x, 3), 1);
        let lp = m::nir_push_loop(b);
        let iv = m::nir_load_var(b, i);
        m::nir_break_if(b, m::nir_uge(b, iv, n));
        let a = m::nir_load_var(b, acc);
        m::nir_store_var(b, acc, m::nir_fadd(b, a, v), 1);
        m::nir_store_var(b, i, m::nir_iadd_imm(b, iv, 1), 1);
        m::nir_pop_loop(b, lp);
        let a = m::nir_load_var(b, acc);
        let small = m::nir_flt(b, a, m::nir_imm_float(b, 10.0));
        let nif = m::nir_push_if(b, small);
        let t = m::nir_fmul_imm(b, a, 2.0);
        m::nir_push_else(b, nif);
        let e = m::nir_fadd_imm(b, a, 1.0);
        m::nir_pop_if(b, nif);
        let r = m::nir_if_phi(b, t, e);
        s.store_ssbo(r, 1, off);
    }
    unsafe { agx16_compiler::nir::prepare::run(s.0.shader) };
    let f = unsafe { agx16_compiler::nir::import(s.0.shader) }.unwrap();
    assert!(
        f.blocks
            .iter()
            .any(|b| b.instrs.iter().any(|i| i.op == agx16_compiler::ir::Op::Phi)),
        "{f}"
    );
    let p = compile_to_mir(&f, &G16Target, &G16Regs, Options::default()).unwrap();
    let inputs = [1.5f32, -2.0, 3.0, 4.75, 0.0, 100.0, -0.25, 2.5];
    for (t, x) in inputs.iter().enumerate() {
        let t = t as u32;
        let trips = (t & 3) + 1;
        let mut acc = 0.0f32;
        for _ in 0..trips {
            acc += x;
        }
        let want = if acc < 10.0 { acc * 2.0 } else { acc + 1.0 };
        for run_mir in [false, true] {
            let mut env = Env {
                global_id: [t, 0, 0],
                ..Default::default()
            };
            env.buffers
                .insert(0, inputs.iter().map(|v| v.to_bits()).collect());
            env.buffers.insert(1, vec![0; inputs.len()]);
            if run_mir {
                minterp::run(&p, &mut env).unwrap_or_else(|e| panic!("{e}\n{p}"));
            } else {
                interp::run(&f, &mut env).unwrap();
            }
            assert_eq!(
                f32::from_bits(env.buffers[&1][t as usize]),
                want,
                "thread {t} mir={run_mir}\n{f}"
            );
        }
    }
}

/// The same shape end to end on the model: the trip count comes from the SSBO, the loop is
/// left through the latch update, the if/else through the exec-mask stack.
#[test]
fn nir_loop_and_if_run_on_the_model() {
    let mut s = Shader::new();
    let x = s.global_id_x();
    let off = unsafe { m::nir_ishl_imm(s.b(), x, 2) };
    let n = s.load_ssbo(0, off);
    unsafe {
        let b = s.b();
        let imp = m::nir_shader_get_entrypoint((*b).shader);
        let acc = m::nir_local_variable_create(imp, m::glsl_float_type(), c"acc".as_ptr());
        let i = m::nir_local_variable_create(imp, m::glsl_uint_type(), c"i".as_ptr());
        m::nir_store_var(b, acc, m::nir_imm_float(b, 0.0), 1);
        m::nir_store_var(b, i, m::nir_imm_int(b, 0), 1);
        let lp = m::nir_push_loop(b);
        let iv = m::nir_load_var(b, i);
        m::nir_break_if(b, m::nir_uge(b, iv, n));
        let a = m::nir_load_var(b, acc);
        m::nir_store_var(b, acc, m::nir_fadd_imm(b, a, 1.5), 1);
        m::nir_store_var(b, i, m::nir_iadd_imm(b, iv, 1), 1);
        m::nir_pop_loop(b, lp);
        let a = m::nir_load_var(b, acc);
        let small = m::nir_flt(b, a, m::nir_imm_float(b, 4.0));
        let nif = m::nir_push_if(b, small);
        let t = m::nir_fmul_imm(b, a, 2.0);
        m::nir_push_else(b, nif);
        let e = m::nir_fadd_imm(b, a, 1.0);
        m::nir_pop_if(b, nif);
        let r = m::nir_if_phi(b, t, e);
        s.store_ssbo(r, 1, off);
    }
    let compiled =
        unsafe { compile_nir(s.0.shader, Options::default()) }.unwrap_or_else(|e| panic!("{e}"));
    let input: Vec<u32> = (0..THREADS).map(|k| k % 6).collect();
    let got = run(&compiled.code, &input);
    let want: Vec<u32> = input
        .iter()
        .map(|&n| {
            let acc = (0..n).fold(0.0f32, |a, _| a + 1.5);
            (if acc < 4.0 { acc * 2.0 } else { acc + 1.0 }).to_bits()
        })
        .collect();
    assert_eq!(got, want, "{}", compiled.mir);
}

/// Integer min/max and subtract from NIR: `imax(v, -5) - umin(v, 100)`, on values around the
/// signed/unsigned boundaries (wrapping subtract, signed vs unsigned order).
#[test]
fn integer_min_max_subtract_run_on_the_model() {
    let mut s = Shader::new();
    let x = s.global_id_x();
    let off = unsafe { m::nir_ishl_imm(s.b(), x, 2) };
    let v = s.load_ssbo(0, off);
    let r = unsafe {
        let lo = m::nir_imm_int(s.b(), -5);
        let hi = m::nir_imm_int(s.b(), 100);
        let a = m::nir_imax(s.b(), v, lo);
        let b = m::nir_umin(s.b(), v, hi);
        m::nir_isub(s.b(), a, b)
    };
    s.store_ssbo(r, 1, off);
    let compiled = unsafe { compile_nir(s.0.shader, Options::default()) }.unwrap();
    let input: Vec<u32> = (0..THREADS)
        .map(|t| match t % 8 {
            0 => 0x8000_0000,
            1 => 0x7fff_ffff,
            2 => 0xffff_ffff,
            3 => 0xffff_fffa,
            4 => 100,
            5 => 101,
            6 => 0,
            _ => t.wrapping_mul(0x9e37_79b9),
        })
        .collect();
    let got = run(&compiled.code, &input);
    for (k, &v) in input.iter().enumerate() {
        let want = (v as i32).max(-5).wrapping_sub(v.min(100) as i32) as u32;
        assert_eq!(got[k], want, "input {v:#x}");
    }
}

/// `x * 0.5` and `max(x, -x * 2.0)` from NIR: fmul by inline minifloat immediates and fmax.
#[test]
fn fmul_immediate_and_fmax_run_on_the_model() {
    let mut s = Shader::new();
    let x = s.global_id_x();
    let off = unsafe { m::nir_ishl_imm(s.b(), x, 2) };
    let v = s.load_ssbo(0, off);
    let r = unsafe {
        let h = m::nir_fmul_imm(s.b(), v, 0.5);
        let d = m::nir_fmul_imm(s.b(), v, -2.0);
        m::nir_fmax(s.b(), h, d)
    };
    s.store_ssbo(r, 1, off);
    let compiled = unsafe { compile_nir(s.0.shader, Options::default()) }.unwrap();
    let vals = [
        1.0f32,
        -1.0,
        0.0,
        -0.0,
        3.5,
        -1e30,
        1e30,
        f32::INFINITY,
        -7.25,
    ];
    let input: Vec<u32> = (0..THREADS as usize)
        .map(|t| vals[t % vals.len()].to_bits())
        .collect();
    let got = run(&compiled.code, &input);
    for (k, &w) in input.iter().enumerate() {
        let v = f32::from_bits(w);
        // Products of normal inputs: no denormals, no NaN (inf * -2 = -inf).
        let want = (v * 0.5).max(v * -2.0);
        let g = f32::from_bits(got[k]);
        assert!(g == want, "input {v}: got {g}, want {want}");
    }
}

/// `v < 1.0 ? clamp(v * 0.5, 0, 1) : float(v > 2.0)` from NIR: bcsel, fsat and b2f32 reach
/// the backend as selects and saturates, which become predicate-compare branches.
#[test]
fn select_saturate_and_bool_to_float_run_on_the_model() {
    let mut s = Shader::new();
    let x = s.global_id_x();
    let off = unsafe { m::nir_ishl_imm(s.b(), x, 2) };
    let v = s.load_ssbo(0, off);
    let r = unsafe {
        let one = m::nir_imm_float(s.b(), 1.0);
        let two = m::nir_imm_float(s.b(), 2.0);
        let lt = m::nir_flt(s.b(), v, one);
        let h = m::nir_fmul_imm(s.b(), v, 0.5);
        let sat = m::nir_fsat(s.b(), h);
        let gt = m::nir_flt(s.b(), two, v);
        let g = m::nir_b2f32(s.b(), gt);
        m::nir_bcsel(s.b(), lt, sat, g)
    };
    s.store_ssbo(r, 1, off);
    let compiled = unsafe { compile_nir(s.0.shader, Options::default()) }.unwrap();
    let vals = [
        -1.0f32,
        0.5,
        1.5,
        3.0,
        -0.0,
        1e30,
        f32::NEG_INFINITY,
        0.9,
        2.0,
        1.0,
    ];
    let input: Vec<u32> = (0..THREADS as usize)
        .map(|t| vals[t % vals.len()].to_bits())
        .collect();
    let got = run(&compiled.code, &input);
    for (k, &w) in input.iter().enumerate() {
        let v = f32::from_bits(w);
        let want = if v < 1.0 {
            (v * 0.5).clamp(0.0, 1.0)
        } else if v > 2.0 {
            1.0
        } else {
            0.0
        };
        let g = f32::from_bits(got[k]);
        assert!(g == want, "input {v}: got {g}, want {want}");
    }
}

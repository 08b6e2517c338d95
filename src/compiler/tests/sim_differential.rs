//! Differential execution on the M4 model: programs built with the IR builder, compiled to G16
//! machine code, run on agx16-sim over edge-case inputs and compared bit for bit with the CPU
//! reference interpreter.

use agx16_compiler::interp::{self, Env};
use agx16_compiler::ir::*;
use agx16_compiler::pipeline::{compile_g16, Options};
use agx16_compiler::testgen::{edge_word, random_g16_kernel, Rng};

const THREADS: u32 = 64;

/// Run `code` with `buffers[k]` bound to base slot k; returns the buffers afterwards.
fn run_on_model(code: &[u8], buffers: &[Vec<u32>]) -> Result<Vec<Vec<u32>>, String> {
    run_on_model_with(code, buffers, &[])
}

/// The uniform words of a launch: buffer k's address in words 2k/2k+1, then `extra`.
fn launch_uniforms(buffers: usize, extra: &[u32]) -> Vec<u32> {
    let mut u = Vec::new();
    for slot in 0..buffers {
        let va = agx16_sim::harness::buffer_va(slot as u64);
        u.extend([va as u32, (va >> 32) as u32]);
    }
    u.extend_from_slice(extra);
    u
}

/// `run_on_model` with `extra` uniform words after the buffer addresses.
fn run_on_model_with(
    code: &[u8],
    buffers: &[Vec<u32>],
    extra: &[u32],
) -> Result<Vec<Vec<u32>>, String> {
    agx16_sim::harness::run_with_buffers(code, buffers, extra, THREADS, 0)
}

/// Compile, run on the model and on the reference; assert equal outputs.
fn check(f: &Function, inputs: usize, seed: u64, opts: Options) {
    check_with(f, inputs, seed, opts, |w| w, |a, b| a == b);
}

/// `check` with the edge-case input words passed through `input` and outputs compared by `same`.
fn check_with(
    f: &Function,
    inputs: usize,
    seed: u64,
    opts: Options,
    input: impl Fn(u32) -> u32,
    same: impl Fn(u32, u32) -> bool,
) {
    let c = compile_g16(f, opts).unwrap_or_else(|e| panic!("compile: {e}\n{f}"));
    let mut r = Rng::new(seed);
    // Inputs have twice the thread count so kernels may read a neighbour.
    let mut bufs: Vec<Vec<u32>> = (0..inputs)
        .map(|_| (0..2 * THREADS).map(|_| input(edge_word(&mut r))).collect())
        .collect();
    // Up to four outputs per thread.
    bufs.push(vec![0; THREADS as usize * 4]);
    let got = run_on_model(&c.code, &bufs).unwrap_or_else(|e| panic!("model: {e}\n{f}\n{}", c.mir));
    let mut env = Env::default();
    for (k, b) in bufs.iter().enumerate() {
        env.buffers.insert(k as u8, b.clone());
    }
    for t in 0..THREADS {
        env.global_id = [t, 0, 0];
        interp::run(f, &mut env).unwrap();
    }
    let want = &env.buffers[&(inputs as u8)];
    let ok =
        got[inputs].len() == want.len() && got[inputs].iter().zip(want).all(|(g, w)| same(*g, *w));
    assert!(
        ok,
        "seed {seed}\n{f}\n{}\nmodel {:08x?}\nreference {:08x?}",
        c.mir, got[inputs], want
    );
}

fn kernel(inputs: u8, body: impl FnOnce(&mut Builder, &[Value]) -> Vec<Value>) -> Function {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let ins: Vec<Value> = (0..inputs)
        .map(|k| b.load_global(k, x, Type::F32, 1))
        .collect();
    let outs = body(&mut b, &ins);
    for (k, o) in outs.iter().enumerate() {
        let idx = if k == 0 {
            x
        } else {
            b.iadd(x, Src::imm(THREADS * k as u32))
        };
        b.store_global(inputs, idx, *o);
    }
    b.finish()
}

#[test]
fn fadd_immediate_matches_reference() {
    let f = kernel(1, |b, i| vec![b.fadd(i[0], Src::imm_f32(1.5))]);
    for seed in 0..4 {
        check(&f, 1, seed, Options::default());
    }
}

#[test]
#[ignore = "agx16-sim refuses the raw bits of the only ffma bytes known (EXP-M4-55 k_sin template; request filed with sim); NIR ffma is split into fmul + fadd (lower_ffma32), so only IR built by hand reaches this form"]
fn fused_multiply_add_with_negation_matches_reference() {
    let f = kernel(3, |b, i| {
        let n = Src {
            neg: true,
            ..Src::val(i[1])
        };
        vec![b.ffma(i[0], n, i[2])]
    });
    for seed in 0..4 {
        check(&f, 3, seed, Options::default());
    }
}

#[test]
fn chained_float_ops_reuse_and_release_registers() {
    let f = kernel(2, |b, i| {
        let m = b.fmul(i[0], i[1]);
        let s = b.fadd(
            m,
            Src {
                neg: true,
                ..Src::val(i[0])
            },
        );
        let t = b.fmul(s, i[1]);
        let u = b.fadd(t, m);
        vec![u, s]
    });
    for seed in 0..4 {
        check(&f, 2, seed, Options::default());
    }
}

#[test]
fn integer_add_and_xor_match_reference() {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let a = b.load_global(0, x, Type::I32, 1);
    let c = b.load_global(1, x, Type::I32, 1);
    let s = b.iadd(a, Src::imm(37));
    let y = b.alu(Op::Xor, Type::I32, [Src::val(s), Src::val(c)]);
    b.store_global(2, x, y);
    let f = b.finish();
    for seed in 0..4 {
        check(&f, 2, seed, Options::default());
    }
}

#[test]
fn vector_load_is_split_and_matches_reference() {
    // Four consecutive words per thread: tuple load split into scalar loads.
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let v = b.load_global(0, x, Type::F32, 2);
    let s = b.fadd(Src::comp(v, 0), Src::comp(v, 1));
    b.store_global(1, x, s);
    let f = b.finish();
    for seed in 0..4 {
        check(&f, 1, seed, Options::default());
    }
}

#[test]
fn random_kernels_with_ifs_and_loops_match_reference_on_the_model() {
    for seed in 0..60 {
        // Four outputs per thread: the output buffer holds 2 * THREADS words, so k * THREADS
        // must stay below that: outputs 0 and 1.
        let f = random_g16_kernel(seed, 12 + (seed as usize % 4) * 8, 2, 2, THREADS);
        check(&f, 2, seed, Options::default());
    }
}

/// Distance in units in the last place between two finite floats of the same sign.
fn ulps(a: f32, b: f32) -> u32 {
    if a == b {
        return 0;
    }
    if a.is_sign_negative() != b.is_sign_negative() {
        return u32::MAX;
    }
    a.to_bits().abs_diff(b.to_bits())
}

/// out = f(in) on the model, against Rust's f32 functions within the GLSL ES 3.00 precision
/// of each (floor exact; 1/x 2.5 ULP; inversesqrt 2 ULP; exp2/log2 3 ULP).
#[test]
fn special_functions_match_reference_within_glsl_precision() {
    type Case = (Sfu, fn(f32) -> f32, u32);
    let cases: [Case; 5] = [
        (Sfu::Floor, f32::floor, 0),
        (Sfu::Rcp, |x| 1.0 / x, 2),
        (Sfu::Rsqrt, |x| 1.0 / x.sqrt(), 2),
        (Sfu::Exp2, f32::exp2, 3),
        (Sfu::Log2, f32::log2, 3),
    ];
    let mut r = Rng::new(7);
    let input: Vec<u32> = (0..2 * THREADS)
        .map(|k| match k % 4 {
            0 => [1.0f32, 0.5, 3.75, 100.25, 1e-3, 7e5, 0.0, f32::INFINITY][(k / 4 % 8) as usize]
                .to_bits(),
            1 => (1.0 + (r.below(1 << 20) as f32) / 4096.0).to_bits(),
            2 => (r.below(1 << 16) as f32 / 256.0 - 100.0).to_bits(),
            _ => (r.below(1000) as f32 * 0.37 + 0.01).to_bits(),
        })
        .collect();
    for (sfu, f, tol) in cases {
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let v = b.load_global(0, x, Type::F32, 1);
        let y = b.sfu(sfu, v);
        b.store_global(1, x, y);
        let func = b.finish();
        let c = compile_g16(&func, Options::default()).unwrap_or_else(|e| panic!("{sfu:?}: {e}"));
        let got = run_on_model(&c.code, &[input.clone(), vec![0; 2 * THREADS as usize]])
            .unwrap_or_else(|e| panic!("{sfu:?}: {e}"));
        for t in 0..THREADS as usize {
            let a = f32::from_bits(input[t]);
            let want = f(a);
            let g = f32::from_bits(got[1][t]);
            let ok = if want.is_nan() {
                g.is_nan()
            } else {
                ulps(want, g) <= tol
            };
            assert!(
                ok,
                "{sfu:?}({a:e}) = {g:e} ({:#x}), want {want:e} within {tol} ULP",
                got[1][t]
            );
        }
    }
}

#[test]
fn floor_with_negated_and_absolute_source_matches_reference() {
    for (neg, abs) in [(true, false), (false, true), (true, true)] {
        let f = kernel(1, |b, i| {
            vec![b.sfu(
                Sfu::Floor,
                Src {
                    neg,
                    abs,
                    ..Src::val(i[0])
                },
            )]
        });
        check(&f, 1, 3, Options::default());
    }
}

/// 16-bit floats end to end: half loads into register halves, hadd (with a negated source)
/// and half stores, on edge-case half inputs (NaN, ±inf, denormals, ±0, extremes).
#[test]
fn half_precision_add_matches_reference() {
    for neg in [false, true] {
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let a = b.load_global(0, x, Type::F16, 1);
        let c = b.load_global(1, x, Type::F16, 1);
        let r = b.alu(
            Op::FAdd,
            Type::F16,
            [Src::val(a), Src { neg, ..Src::val(c) }],
        );
        b.store_global(2, x, r);
        let f = b.finish();
        for seed in 0..4 {
            check(&f, 2, seed, Options::default());
        }
    }
}

/// Structured if/else on the model: the compare fuses into a predicate compare and the
/// exec-mask push; each arm computes its value under the mask, and the phi's copies at the end
/// of each arm merge them. Float and integer conditions, both polarities, nested once.
#[test]
fn if_else_with_phis_matches_reference() {
    let conds: [(Op, bool); 6] = [
        (Op::FCmp(Cmp::Lt), true),
        (Op::FCmp(Cmp::Eq), true),
        (Op::FCmp(Cmp::Ne), true),
        (
            Op::ICmp {
                cond: Cmp::Lt,
                signed: true,
            },
            false,
        ),
        (
            Op::ICmp {
                cond: Cmp::Ge,
                signed: false,
            },
            false,
        ),
        (
            Op::ICmp {
                cond: Cmp::Eq,
                signed: true,
            },
            false,
        ),
    ];
    for (op, float) in conds {
        for nested in [false, true] {
            let mut b = Builder::new(Stage::Compute);
            let x = b.sysval(SysVal::GlobalId(0));
            let ty = if float { Type::F32 } else { Type::I32 };
            let a = b.load_global(0, x, ty, 1);
            let c = b.load_global(1, x, ty, 1);
            let p = b.alu(op, Type::Bool, [Src::val(a), Src::val(c)]);
            b.if_(p);
            let t = if float {
                b.fadd(a, Src::imm_f32(1.5))
            } else {
                b.iadd(a, Src::imm(7))
            };
            let t = if nested {
                let q = b.alu(op, Type::Bool, [Src::val(c), Src::val(t)]);
                b.if_(q);
                let u = if float {
                    b.fmul(t, t)
                } else {
                    b.alu(Op::Xor, Type::I32, [Src::val(t), Src::val(c)])
                };
                b.else_();
                let (tt, ee, _) = b.end_if();
                b.phi(Shape::scalar(ty), &[(tt, Src::val(u)), (ee, Src::val(t))])
            } else {
                t
            };
            let then_end = b.current_block();
            b.else_();
            let e = if float {
                b.fmul(a, c)
            } else {
                b.iadd(c, Src::imm(100))
            };
            let else_end = b.current_block();
            let (_, _, _) = b.end_if();
            let r = b.phi(
                Shape::scalar(ty),
                &[(then_end, Src::val(t)), (else_end, Src::val(e))],
            );
            b.store_global(2, x, r);
            let f = b.finish();
            for seed in 0..3 {
                check(&f, 2, seed, Options::default());
            }
        }
    }
}

/// A loop with a data-dependent trip count per lane (`for (i = 0; i < n; i++) acc = acc * v +
/// 1.5`), left through `if (i >= n) break;` at the top: lanes leave at different iterations,
/// the header phis carry the values out. Also the break at the bottom (do-while shape).
#[test]
fn loops_with_per_lane_trip_counts_match_reference() {
    for bottom in [false, true] {
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let n = b.load_global(0, x, Type::I32, 1);
        let v = b.load_global(1, x, Type::F32, 1);
        let pre = b.current_block();
        b.loop_();
        let i = b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
        let acc = b.phi(Shape::scalar(Type::F32), &[(pre, Src::val(v))]);
        let test = |b: &mut Builder, i: Value| {
            let c = b.icmp(Cmp::Ge, false, i, n);
            b.if_(c);
            b.break_();
            b.end_if();
        };
        if !bottom {
            test(&mut b, i);
        }
        let m = b.fmul(acc, v);
        let acc2 = b.fadd(m, Src::imm_f32(1.5));
        let i2 = b.iadd(i, Src::imm(1));
        if bottom {
            test(&mut b, i2);
        }
        let latch = b.current_block();
        b.add_phi_src(i, latch, Src::val(i2));
        b.add_phi_src(acc, latch, Src::val(acc2));
        b.end_loop();
        b.store_global(2, x, acc);
        let x2 = b.iadd(x, Src::imm(THREADS));
        b.store_global(2, x2, i);
        let f = b.finish();
        let c = compile_g16(&f, Options::default()).unwrap_or_else(|e| panic!("{e}\n{f}"));
        let mut r = Rng::new(11);
        let counts: Vec<u32> = (0..2 * THREADS).map(|_| r.below(7) as u32).collect();
        let vals: Vec<u32> = (0..2 * THREADS).map(|_| edge_word(&mut r)).collect();
        let bufs = vec![counts, vals, vec![0; 2 * THREADS as usize]];
        let got =
            run_on_model(&c.code, &bufs).unwrap_or_else(|e| panic!("model: {e}\n{f}\n{}", c.mir));
        let mut env = Env::default();
        for (k, buf) in bufs.iter().enumerate() {
            env.buffers.insert(k as u8, buf.clone());
        }
        for t in 0..THREADS {
            env.global_id = [t, 0, 0];
            interp::run(&f, &mut env).unwrap();
        }
        assert_eq!(got[2], env.buffers[&2], "bottom={bottom}\n{f}\n{}", c.mir);
    }
}

/// Any 32-bit constant: values outside the minifloat and the 7-bit move come from the 8-byte
/// move-immediate into a register.
#[test]
fn wide_constants_match_reference() {
    let f = kernel(1, |b, i| {
        let m = b.fmul(i[0], Src::imm_f32(10.0));
        let a = b.fadd(m, Src::imm_f32(0.1));
        let k = b.fmul(a, Src::imm_f32(-3.25e7));
        let k = b.fadd(k, Src::imm_f32(f32::MIN_POSITIVE));
        vec![a, k]
    });
    for seed in 0..3 {
        check(&f, 1, seed, Options::default());
    }
}

/// int <-> float conversions on the model, NaN and out-of-range float -> int included (GLSL
/// leaves those undefined; the model saturates as EXP-M4-43 measured on M4 and gives 0 for NaN,
/// agx16_sim::value_rules, as the compiler's constant folder does).
#[test]
fn conversions_match_reference() {
    for signed in [true, false] {
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let fv = b.load_global(0, x, Type::F32, 1);
        let iv = b.load_global(1, x, Type::I32, 1);
        let a = b.alu(Op::F2I { signed }, Type::I32, [Src::val(fv)]);
        let c = b.alu(Op::I2F { signed }, Type::F32, [Src::val(iv)]);
        b.store_global(2, x, a);
        let x2 = b.iadd(x, Src::imm(THREADS));
        b.store_global(2, x2, c);
        let f = b.finish();
        let comp = compile_g16(&f, Options::default()).unwrap_or_else(|e| panic!("{e}\n{f}"));
        let mut r = Rng::new(5);
        let floats: Vec<u32> = (0..2 * THREADS)
            .map(|k| {
                let v = match k % 4 {
                    0 => r.below(1 << 20) as f32 / 7.0,
                    1 => -(r.below(1000) as f32) / 3.0,
                    2 => [
                        0.0f32,
                        -0.0,
                        0.5,
                        -0.5,
                        2147483520.0,
                        1e-40,
                        f32::NAN,
                        f32::INFINITY,
                        f32::NEG_INFINITY,
                        -3e9,
                        5e9,
                        -7.0,
                    ][(k / 4 % 12) as usize],
                    _ => r.below(u32::MAX as u64) as f32 / 2.0,
                };
                v.to_bits()
            })
            .collect();
        let ints: Vec<u32> = (0..2 * THREADS).map(|_| edge_word(&mut r)).collect();
        let bufs = vec![floats, ints, vec![0; 2 * THREADS as usize]];
        let got =
            run_on_model(&comp.code, &bufs).unwrap_or_else(|e| panic!("model: {e}\n{}", comp.mir));
        let mut env = Env::default();
        for (k, buf) in bufs.iter().enumerate() {
            env.buffers.insert(k as u8, buf.clone());
        }
        for t in 0..THREADS {
            env.global_id = [t, 0, 0];
            interp::run(&f, &mut env).unwrap();
        }
        assert_eq!(got[2], env.buffers[&2], "signed={signed}\n{}", comp.mir);
    }
}

/// A break under a nested if (`loop { acc += v; if (acc > lim) { if (i odd) break; } i++;
/// if (i >= n) break; }`): the inner break unwinds the loop from two ifs deep.
#[test]
fn break_under_nested_ifs_matches_reference() {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let n = b.load_global(0, x, Type::I32, 1);
    let v = b.load_global(1, x, Type::F32, 1);
    let pre = b.current_block();
    b.loop_();
    let i = b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
    let acc = b.phi(Shape::scalar(Type::F32), &[(pre, Src::imm_f32(0.0))]);
    let acc2 = b.fadd(acc, v);
    let big = b.fcmp(Cmp::Lt, Src::imm_f32(3.0), acc2);
    b.if_(big);
    let odd = b.icmp(Cmp::Eq, false, i, Src::imm(1));
    b.if_(odd);
    b.break_();
    b.end_if();
    b.end_if();
    let i2 = b.iadd(i, Src::imm(1));
    let done = b.icmp(Cmp::Ge, false, i2, n);
    b.if_(done);
    b.break_();
    b.end_if();
    let latch = b.current_block();
    b.add_phi_src(i, latch, Src::val(i2));
    b.add_phi_src(acc, latch, Src::val(acc2));
    b.end_loop();
    b.store_global(2, x, acc);
    let x2 = b.iadd(x, Src::imm(THREADS));
    b.store_global(2, x2, i);
    let f = b.finish();
    let c = compile_g16(&f, Options::default()).unwrap_or_else(|e| panic!("{e}\n{f}"));
    let mut r = Rng::new(3);
    let counts: Vec<u32> = (0..2 * THREADS).map(|_| r.below(6) as u32).collect();
    let vals: Vec<u32> = (0..2 * THREADS)
        .map(|_| (r.below(40) as f32 / 8.0).to_bits())
        .collect();
    let bufs = vec![counts, vals, vec![0; 2 * THREADS as usize]];
    let got = run_on_model(&c.code, &bufs).unwrap_or_else(|e| panic!("model: {e}\n{f}\n{}", c.mir));
    let mut env = Env::default();
    for (k, buf) in bufs.iter().enumerate() {
        env.buffers.insert(k as u8, buf.clone());
    }
    for t in 0..THREADS {
        env.global_id = [t, 0, 0];
        interp::run(&f, &mut env).unwrap();
    }
    assert_eq!(got[2], env.buffers[&2], "\n{f}\n{}", c.mir);
}

/// Kernel `out[x] = op(in0[x], in1[x])` on 32-bit values of `ty`.
fn binary(op: Op, ty: Type) -> Function {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let a = b.load_global(0, x, ty, 1);
    let c = b.load_global(1, x, ty, 1);
    let r = b.alu(op, ty, [Src::val(a), Src::val(c)]);
    b.store_global(2, x, r);
    b.finish()
}

fn is_nan32(w: u32) -> bool {
    f32::from_bits(w).is_nan()
}

/// fmin/fmax (minmax selectors 1/0) on NaN, ±inf, denormals, ±0 and extremes. GLSL ES 3.00
/// leaves the sign of min(-0, +0) open and lets denormals flush to zero (§4.5.1), so the two
/// zeros compare equal and a denormal may come back as zero (agx16-sim flushes them here; the
/// reference does not; hardware behaviour unmeasured). A NaN operand loses on both sides
/// (minNum/maxNum: the A18 measurement agx16_sim::value_rules cites; Rust's f32::min/max).
#[test]
fn float_min_max_match_reference() {
    for op in [Op::FMin, Op::FMax] {
        let f = binary(op, Type::F32);
        for seed in 0..6 {
            check_with(
                &f,
                2,
                seed,
                Options::default(),
                |w| w,
                |g, w| {
                    let denormal = w & 0x7f80_0000 == 0;
                    g == w || (g & 0x7fff_ffff == 0 && (denormal || w & 0x7fff_ffff == 0))
                },
            );
        }
    }
}

/// A NaN operand of fmin/fmax no longer stops the model: the other operand wins (minNum), on
/// every lane, with NaN on either side; strict mode (agx16_sim::value_rules) still refuses it.
#[test]
fn float_min_max_of_nan_returns_the_other_operand() {
    let f = binary(Op::FMin, Type::F32);
    let c = compile_g16(&f, Options::default()).unwrap();
    let nan = vec![0x7fc0_0000u32; 2 * THREADS as usize];
    let one = vec![0x3f80_0000u32; 2 * THREADS as usize];
    let out = vec![0u32; 2 * THREADS as usize];
    for bufs in [
        [nan.clone(), one.clone(), out.clone()],
        [one.clone(), nan.clone(), out.clone()],
    ] {
        let got = run_on_model(&c.code, &bufs).unwrap();
        assert!(got[2][..THREADS as usize].iter().all(|&w| w == 0x3f80_0000));
    }
    let e = agx16_sim::value_rules::with_strict(true, || {
        run_on_model(&c.code, &[nan, one, out]).unwrap_err()
    });
    assert!(e.contains("fminmax_nan") && e.contains("strict"), "{e}");
}

#[test]
fn integer_min_max_match_reference() {
    for signed in [false, true] {
        for op in [Op::IMin { signed }, Op::IMax { signed }] {
            let f = binary(op, Type::I32);
            for seed in 0..4 {
                check(&f, 2, seed, Options::default());
            }
        }
    }
}

/// Register-register subtract, wrapping on overflow (edge words include 0x7fffffff,
/// 0x80000000, 0xffffffff), and `0 - x` (the literal 0 becomes a register).
#[test]
fn integer_subtract_matches_reference() {
    let f = binary(Op::ISub, Type::I32);
    for seed in 0..4 {
        check(&f, 2, seed, Options::default());
    }
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let a = b.load_global(0, x, Type::I32, 1);
    let n = b.alu(Op::ISub, Type::I32, [Src::imm(0), Src::val(a)]);
    let m = b.alu(Op::ISub, Type::I32, [Src::val(n), Src::imm(1000)]);
    b.store_global(1, x, m);
    let f = b.finish();
    for seed in 0..4 {
        check(&f, 1, seed, Options::default());
    }
}

/// fmul by minifloat immediates (fmul_imm), negated too, on NaN, ±inf, denormals (flushed).
#[test]
fn fmul_immediate_matches_reference() {
    for k in [0.5f32, -2.0, 3.0, 1.5, -0.125, 4.0] {
        let f = kernel(1, |b, i| vec![b.fmul(i[0], Src::imm_f32(k))]);
        let c = compile_g16(&f, Options::default()).unwrap();
        assert!(
            c.stats.instrs <= 5 && c.stats.copies == 0,
            "the immediate is inline: {}",
            c.mir
        );
        for seed in 0..3 {
            check(&f, 1, seed, Options::default());
        }
    }
}

/// 16-bit multiply (hmul) with a negated source, on half edge cases.
#[test]
fn half_precision_multiply_matches_reference() {
    for neg in [false, true] {
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let a = b.load_global(0, x, Type::F16, 1);
        let c = b.load_global(1, x, Type::F16, 1);
        let r = b.alu(
            Op::FMul,
            Type::F16,
            [Src { neg, ..Src::val(a) }, Src::val(c)],
        );
        b.store_global(2, x, r);
        let f = b.finish();
        for seed in 0..4 {
            check(&f, 2, seed, Options::default());
        }
    }
}

/// Uniform operands: words after the buffer table read through `uniform_mov` (the legaliser
/// turns each uniform source into a move), used by fadd/fmul, integer add/xor and min, with
/// edge-case uniform values (NaN, ±inf, denormal, 0x80000000).
#[test]
fn uniform_operands_match_reference() {
    let words: [[u32; 3]; 4] = [
        [0x3fc0_0000, 0x8000_0000, 0x0000_0025],
        [0x7fc0_0000, 0xffff_ffff, 0x7f80_0000],
        [0x0000_0001, 0x1234_5678, 0xff80_0000],
        [0xc120_0000, 0x7fff_ffff, 0x3f80_0000],
    ];
    for w in words {
        let u0 = 6; // three buffers take words 0..5
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let a = b.load_global(0, x, Type::F32, 1);
        let c = b.load_global(1, x, Type::I32, 1);
        let s = b.fadd(a, Src::uniform(u0));
        let m = b.fmul(s, Src::uniform(u0 + 2));
        let i = b.alu(Op::Xor, Type::I32, [Src::val(c), Src::uniform(u0 + 1)]);
        let j = b.alu(Op::IAdd, Type::I32, [Src::val(i), Src::uniform(u0 + 1)]);
        let k = b.alu(
            Op::IMin { signed: true },
            Type::I32,
            [Src::val(j), Src::uniform(u0)],
        );
        b.store_global(2, x, m);
        let y = b.iadd(x, Src::imm(THREADS));
        b.store_global(2, y, k);
        let f = b.finish();
        let c = compile_g16(&f, Options::default()).unwrap_or_else(|e| panic!("{e}\n{f}"));
        let mut r = Rng::new(u64::from(w[0]));
        let mut bufs: Vec<Vec<u32>> = (0..2)
            .map(|_| (0..2 * THREADS).map(|_| edge_word(&mut r)).collect())
            .collect();
        bufs.push(vec![0; 2 * THREADS as usize]);
        let got = run_on_model_with(&c.code, &bufs, &w)
            .unwrap_or_else(|e| panic!("model: {e}\n{f}\n{}", c.mir));
        let mut env = Env {
            uniforms: launch_uniforms(3, &w),
            ..Env::default()
        };
        for (k, b) in bufs.iter().enumerate() {
            env.buffers.insert(k as u8, b.clone());
        }
        for t in 0..THREADS {
            env.global_id = [t, 0, 0];
            interp::run(&f, &mut env).unwrap();
        }
        assert_eq!(got[2], env.buffers[&2], "uniforms {w:08x?}\n{f}\n{}", c.mir);
    }
}

/// `x >> k` (signed, immediate k) selects `ishr_imm` with the control bytes of Apple's
/// `a7 01 54 06 02 0c 20 78 62 00` (EXP-M4-13 dec2_k_ashr_amt) and runs on the model like the
/// reference (arithmetic: the sign fills).
#[test]
fn arithmetic_shift_by_immediate_matches_reference() {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let a = b.load_global(0, x, Type::I32, 1);
    let r = b.alu(
        Op::Shr { signed: true },
        Type::I32,
        [Src::val(a), Src::imm(8)],
    );
    b.store_global(1, x, r);
    let f = b.finish();
    let c = compile_g16(&f, Options::default()).unwrap();
    let apple = agx16_isa::decode_at(
        &[0xa7, 0x01, 0x54, 0x06, 0x02, 0x0c, 0x20, 0x78, 0x62, 0x00],
        0,
    )
    .unwrap();
    let prog = agx16_isa::decode_program(&c.code).unwrap();
    let (_, sh) = prog
        .iter()
        .find(|(_, i)| i.form.name == "ishr_imm")
        .expect("ishr_imm selected");
    for field in ["mode", "src_class", "b8", "b9", "amount"] {
        assert_eq!(sh.field(field), apple.field(field), "{field}\n{}", c.mir);
    }
    let input: Vec<u32> = (0..2 * THREADS)
        .map(|i| 0x8000_1234u32.wrapping_add(i.wrapping_mul(0x0101_0735)))
        .collect();
    let got = run_on_model(&c.code, &[input.clone(), vec![0; 2 * THREADS as usize]])
        .unwrap_or_else(|e| panic!("model: {e}\n{}", c.mir));
    let want: Vec<u32> = input.iter().map(|&v| ((v as i32) >> 8) as u32).collect();
    assert_eq!(
        got[1][..THREADS as usize],
        want[..THREADS as usize],
        "{}",
        c.mir
    );
}

/// Early returns under one and two ifs (`if (a < 0) { out[x] = 1; return; } if (b == 3) { if
/// (a < 5) return; } out[x] = a + b;` and a loop before the returns): the program runs in a
/// loop scope entered once, returns unwind it, the rest leave through the latch update.
#[test]
fn early_returns_under_ifs_match_reference() {
    for with_loop in [false, true] {
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let a = b.load_global(0, x, Type::I32, 1);
        let c = b.load_global(1, x, Type::I32, 1);
        let a = if with_loop {
            // a' = a + 3 * (c & 3) by a counted loop.
            let pre = b.current_block();
            let n = b.alu(Op::And, Type::I32, [Src::val(c), Src::imm(3)]);
            b.loop_();
            let i = b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
            let s = b.phi(Shape::scalar(Type::I32), &[(pre, Src::val(a))]);
            let done = b.icmp(Cmp::Ge, false, i, n);
            b.if_(done);
            b.break_();
            b.end_if();
            let s2 = b.iadd(s, Src::imm(3));
            let i2 = b.iadd(i, Src::imm(1));
            let latch = b.current_block();
            b.add_phi_src(i, latch, Src::val(i2));
            b.add_phi_src(s, latch, Src::val(s2));
            b.end_loop();
            s
        } else {
            a
        };
        let neg = b.icmp(Cmp::Lt, true, a, Src::imm(0));
        b.if_(neg);
        b.store_global(2, x, Src::imm(1));
        b.return_();
        b.end_if();
        let three = b.icmp(Cmp::Eq, false, c, Src::imm(3));
        b.if_(three);
        let small = b.icmp(Cmp::Lt, true, a, Src::imm(5));
        b.if_(small);
        b.return_();
        b.end_if();
        b.end_if();
        let s = b.iadd(a, Src::val(c));
        b.store_global(2, x, s);
        let f = b.finish();
        let comp = compile_g16(&f, Options::default()).unwrap_or_else(|e| panic!("{e}\n{f}"));
        let mut r = Rng::new(11);
        let av: Vec<u32> = (0..2 * THREADS)
            .map(|_| (r.below(16) as i32 - 6) as u32)
            .collect();
        let cv: Vec<u32> = (0..2 * THREADS).map(|_| r.below(5) as u32).collect();
        let bufs = vec![av, cv, vec![0xdead_beef; 2 * THREADS as usize]];
        let got = run_on_model(&comp.code, &bufs)
            .unwrap_or_else(|e| panic!("model: {e}\n{f}\n{}", comp.mir));
        let mut env = Env::default();
        for (k, buf) in bufs.iter().enumerate() {
            env.buffers.insert(k as u8, buf.clone());
        }
        for t in 0..THREADS {
            env.global_id = [t, 0, 0];
            interp::run(&f, &mut env).unwrap();
        }
        assert_eq!(
            got[2], env.buffers[&2],
            "loop={with_loop}\n{f}\n{}",
            comp.mir
        );
        // Every branch taken by some lane: returned early (0xdeadbeef kept), 1 stored, sums.
        let out = &env.buffers[&2][..THREADS as usize];
        assert!(out.contains(&0xdead_beef) && out.contains(&1));
    }
}

fn with_mods(v: Value, neg: bool, abs: bool) -> Src {
    Src {
        neg,
        abs,
        ..Src::val(v)
    }
}

/// Standalone fabs/fneg/-|x| (copies with modifiers) become and/xor/or with a sign mask: bit
/// exact on NaN payloads, ±inf, denormals (not flushed: no float arithmetic happens).
#[test]
fn standalone_abs_and_neg_match_reference() {
    let f = kernel(1, |b, i| {
        [(false, true), (true, false), (true, true)]
            .into_iter()
            .map(|(neg, abs)| b.copy(Type::F32, with_mods(i[0], neg, abs)))
            .collect()
    });
    for seed in 0..4 {
        check_with(&f, 1, seed, Options::default(), |w| w, |a, b| a == b);
    }
}

/// abs and neg on ALU sources the forms cannot encode in place: |a| + b, -|a| * b,
/// -a + 1.5 (immediate form), min(-a, |b|), (-a) * (-b).
#[test]
fn abs_and_neg_on_alu_sources_match_reference() {
    let f = kernel(2, |b, i| {
        let (x, y) = (i[0], i[1]);
        vec![
            b.fadd(with_mods(x, false, true), y),
            b.fmul(with_mods(x, true, true), y),
            b.fadd(with_mods(x, true, false), Src::imm_f32(1.5)),
            b.fmul(with_mods(x, true, false), with_mods(y, true, false)),
        ]
    });
    for seed in 0..4 {
        check(&f, 2, seed, Options::default());
    }
    let f = kernel(2, |b, i| {
        vec![b.alu(
            Op::FMin,
            Type::F32,
            [with_mods(i[0], true, false), with_mods(i[1], false, true)],
        )]
    });
    for seed in 0..4 {
        check_with(
            &f,
            2,
            seed,
            Options::default(),
            |w| if is_nan32(w) { 0xc040_0000 } else { w },
            |g, w| {
                let denormal = w & 0x7f80_0000 == 0;
                g == w || (g & 0x7fff_ffff == 0 && (denormal || w & 0x7fff_ffff == 0))
            },
        );
    }
}

/// Selects and compares used as values (`c ? a : b`, `int(c)`, `float(c)`) on integer and float
/// compares over edge cases (NaN compares unordered, ±0 equal, signed/unsigned order): each
/// select becomes an if/else on a predicate compare with a phi.
#[test]
fn selects_and_compare_values_match_reference() {
    let conds: [(bool, Op); 10] = [
        (true, Op::FCmp(Cmp::Lt)),
        (true, Op::FCmp(Cmp::Ge)),
        (true, Op::FCmp(Cmp::Eq)),
        (true, Op::FCmp(Cmp::Ne)),
        (
            false,
            Op::ICmp {
                cond: Cmp::Lt,
                signed: true,
            },
        ),
        (
            false,
            Op::ICmp {
                cond: Cmp::Lt,
                signed: false,
            },
        ),
        (
            false,
            Op::ICmp {
                cond: Cmp::Ge,
                signed: true,
            },
        ),
        (
            false,
            Op::ICmp {
                cond: Cmp::Ge,
                signed: false,
            },
        ),
        (
            false,
            Op::ICmp {
                cond: Cmp::Eq,
                signed: false,
            },
        ),
        (
            false,
            Op::ICmp {
                cond: Cmp::Ne,
                signed: false,
            },
        ),
    ];
    for (float, op) in conds {
        let ty = if float { Type::F32 } else { Type::I32 };
        let mut b = Builder::new(Stage::Compute);
        let x = b.sysval(SysVal::GlobalId(0));
        let a = b.load_global(0, x, ty, 1);
        let c = b.load_global(1, x, ty, 1);
        let cond = b.alu(op, Type::Bool, [Src::val(a), Src::val(c)]);
        let s = b.select(ty, cond, Src::val(a), Src::val(c));
        let as_int = b.select(Type::I32, cond, Src::imm(1), Src::imm(0));
        let as_float = b.select(Type::F32, cond, Src::imm_f32(1.0), Src::imm_f32(0.0));
        b.store_global(2, x, s);
        let x1 = b.iadd(x, Src::imm(THREADS));
        b.store_global(2, x1, as_int);
        let x2 = b.iadd(x, Src::imm(2 * THREADS));
        b.store_global(2, x2, as_float);
        let f = b.finish();
        for seed in 0..4 {
            check(&f, 2, seed, Options::default());
        }
    }
}

/// Saturation (`clamp(x, 0, 1)` on a copy and folded into fadd/fmul) becomes compares and
/// selects: NaN gives 0 like the reference; ±inf, ±0, values around 1. A positive denormal may
/// come back as 0 (the compare flushes it; GLSL ES 3.00 §4.5.1 allows flushing).
#[test]
fn saturate_matches_reference() {
    let f = kernel(2, |b, i| {
        let s = b.saturate(Type::F32, i[0]);
        let a = b.fadd(i[0], i[1]);
        let sa = b.saturate(Type::F32, a);
        let m = b.fmul(i[0], Src::imm_f32(0.5));
        let sm = b.saturate(Type::F32, m);
        vec![s, sa, sm]
    });
    let c = compile_g16(&f, Options::default()).unwrap();
    assert!(!c.mir.to_string().contains(".sat"), "{}", c.mir);
    for seed in 0..6 {
        check_with(
            &f,
            2,
            seed,
            Options::default(),
            |w| w,
            |g, w| g == w || (g == 0 && w & 0x7f80_0000 == 0),
        );
    }
}

/// `for (i = 0; i < n; i++) { if (v odd at i) { acc += 1; continue; } if (i == 2) { if (4 <
/// acc) { acc -= 3; continue; } } acc += 10; }` with per-lane n: the header phis take values
/// from both continues and the latch; lanes that continue wait at the wrapper's pop.
#[test]
fn continue_under_ifs_matches_reference() {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let n = b.load_global(0, x, Type::I32, 1);
    let v = b.load_global(1, x, Type::I32, 1);
    let pre = b.current_block();
    b.loop_();
    let i = b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
    let acc = b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
    let done = b.icmp(Cmp::Ge, true, i, n);
    b.if_(done);
    b.break_();
    b.end_if();
    let i2 = b.iadd(i, Src::imm(1));
    let bits = b.alu(Op::Xor, Type::I32, [Src::val(v), Src::val(i)]);
    let one = b.alu(Op::And, Type::I32, [Src::val(bits), Src::imm(1)]);
    let odd = b.icmp(Cmp::Eq, false, one, Src::imm(1));
    b.if_(odd);
    let acc1 = b.iadd(acc, Src::imm(1));
    let c1 = b.current_block();
    b.continue_();
    b.end_if();
    let two = b.icmp(Cmp::Eq, false, i, Src::imm(2));
    b.if_(two);
    let big = b.icmp(Cmp::Lt, true, Src::imm(4), acc);
    b.if_(big);
    let acc3 = b.alu(Op::ISub, Type::I32, [Src::val(acc), Src::imm(3)]);
    let c2 = b.current_block();
    b.continue_();
    b.end_if();
    b.end_if();
    let acc10 = b.iadd(acc, Src::imm(10));
    let latch = b.current_block();
    for (blk, iv, av) in [(c1, i2, acc1), (c2, i2, acc3), (latch, i2, acc10)] {
        b.add_phi_src(i, blk, Src::val(iv));
        b.add_phi_src(acc, blk, Src::val(av));
    }
    b.end_loop();
    b.store_global(2, x, acc);
    let f = b.finish();
    let c = compile_g16(&f, Options::default()).unwrap_or_else(|e| panic!("{e}\n{f}"));
    let mut r = Rng::new(5);
    let counts: Vec<u32> = (0..2 * THREADS).map(|_| r.below(6) as u32).collect();
    let vals: Vec<u32> = (0..2 * THREADS).map(|_| r.next_u64() as u32).collect();
    let bufs = vec![counts, vals, vec![0; 2 * THREADS as usize]];
    let got = run_on_model(&c.code, &bufs).unwrap_or_else(|e| panic!("model: {e}\n{f}\n{}", c.mir));
    let mut env = Env::default();
    for (k, buf) in bufs.iter().enumerate() {
        env.buffers.insert(k as u8, buf.clone());
    }
    for t in 0..THREADS {
        env.global_id = [t, 0, 0];
        interp::run(&f, &mut env).unwrap();
    }
    assert_eq!(got[2], env.buffers[&2], "\n{f}\n{}", c.mir);
}

/// A break after a continue in the same loop would have to leave two loop scopes at once: a
/// NoForm error naming it, not wrong code.
#[test]
fn break_after_continue_is_a_clear_error() {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let n = b.load_global(0, x, Type::I32, 1);
    let pre = b.current_block();
    b.loop_();
    let i = b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
    let i2 = b.iadd(i, Src::imm(1));
    let odd = b.icmp(Cmp::Eq, false, i, Src::imm(1));
    b.if_(odd);
    let c1 = b.current_block();
    b.continue_();
    b.end_if();
    let done = b.icmp(Cmp::Ge, false, i2, n);
    b.if_(done);
    b.break_();
    b.end_if();
    let latch = b.current_block();
    b.add_phi_src(i, c1, Src::val(i2));
    b.add_phi_src(i, latch, Src::val(i2));
    b.end_loop();
    b.store_global(1, x, i);
    let e = compile_g16(&b.finish(), Options::default()).unwrap_err();
    assert!(e.to_string().contains("break after a continue"), "{e}");
}

/// 40 random kernels with continues under ifs at random points of a loop and early returns
/// after it, on the model vs the reference.
#[test]
fn random_continue_and_return_kernels_match_reference() {
    use agx16_compiler::testgen::random_control_kernel;
    for seed in 0..40 {
        let f = random_control_kernel(seed, THREADS);
        let c = compile_g16(&f, Options::default()).unwrap_or_else(|e| panic!("{e}\n{f}"));
        let mut r = Rng::new(seed ^ 0x55);
        let counts: Vec<u32> = (0..2 * THREADS).map(|_| r.below(6) as u32).collect();
        let ints: Vec<u32> = (0..2 * THREADS).map(|_| edge_word(&mut r)).collect();
        let floats: Vec<u32> = (0..2 * THREADS).map(|_| edge_word(&mut r)).collect();
        let bufs = vec![counts, ints, floats, vec![7; 2 * THREADS as usize]];
        let got = run_on_model(&c.code, &bufs)
            .unwrap_or_else(|e| panic!("model: {e}\nseed {seed}\n{f}\n{}", c.mir));
        let mut env = Env::default();
        for (k, buf) in bufs.iter().enumerate() {
            env.buffers.insert(k as u8, buf.clone());
        }
        for t in 0..THREADS {
            env.global_id = [t, 0, 0];
            interp::run(&f, &mut env).unwrap();
        }
        assert_eq!(got[3], env.buffers[&3], "seed {seed}\n{f}\n{}", c.mir);
    }
}

/// Select operands with modifiers (`c ? -|a| : -b`): computed in their arm as sign-bit ops.
#[test]
fn select_of_modified_operands_matches_reference() {
    let f = kernel(2, |b, i| {
        let c = b.fcmp(Cmp::Lt, i[0], i[1]);
        vec![b.select(
            Type::F32,
            c,
            with_mods(i[0], true, true),
            with_mods(i[1], true, false),
        )]
    });
    for seed in 0..4 {
        check(&f, 2, seed, Options::default());
    }
}

/// binary16 ↔ binary32 (`agx16_compiler::half`, integer/float arithmetic) on the model, bit for
/// bit equal to the reference interpreter (whose results the unit tests check against the exact
/// conversions): every half in both positions of a word widened, and f32 words around every
/// half-step boundary narrowed to nearest even and toward zero.
#[test]
fn half_conversions_match_reference_on_the_model() {
    use agx16_compiler::half::{f32_to_half, half_to_f32};
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let w = b.load_global(0, x, Type::I32, 1);
    let v = b.load_global(1, x, Type::F32, 1);
    let outs = [
        half_to_f32(&mut b, Src::val(w), false),
        half_to_f32(&mut b, Src::val(w), true),
        f32_to_half(&mut b, Src::val(v), false),
        f32_to_half(&mut b, Src::val(v), true),
    ];
    for (k, o) in outs.iter().enumerate() {
        let idx = b.iadd(x, Src::imm(THREADS * k as u32));
        b.store_global(2, idx, *o);
    }
    let f = b.finish();
    let comp = compile_g16(&f, Options::default()).unwrap_or_else(|e| panic!("{e}\n{f}"));
    assert_eq!(comp.stats.spills, 0);
    // Narrowing inputs: each half's f32 value and its neighbours half a half-step away (ties
    // and either side), specials and denormals of both formats.
    let mut floats: Vec<u32> = vec![
        0x0000_0001,
        0x807f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xff80_0001,
        0x7f7f_ffff,
        0x477f_f000,
        0x477f_efff,
        0x477f_f001,
        0x4780_0000,
        0x387f_f000,
        0x3300_0000,
        0x3300_0001,
    ];
    for h in (0..0x7c00u32).step_by(3) {
        let v = agx16_compiler::eval::f16_to_f32(h as u16).to_bits();
        floats.extend([
            v,
            v + 0x1000 * (h & 1),
            v + 0xfff,
            (v + 0x1001) | (h & 2) << 30,
        ]);
    }
    let launches = 32768 / THREADS as usize;
    for l in 0..launches {
        let words: Vec<u32> = (0..THREADS as usize * 2)
            .map(|t| {
                let i = (l * THREADS as usize + t % THREADS as usize) as u32;
                i | (i + 0x8000) << 16
            })
            .collect();
        let fl: Vec<u32> = (0..THREADS as usize * 2)
            .map(|t| floats[(l * THREADS as usize + t) % floats.len()])
            .collect();
        let bufs = vec![words, fl, vec![0; 4 * THREADS as usize]];
        let got =
            run_on_model(&comp.code, &bufs).unwrap_or_else(|e| panic!("model: {e}\n{}", comp.mir));
        let mut env = Env::default();
        for (k, buf) in bufs.iter().enumerate() {
            env.buffers.insert(k as u8, buf.clone());
        }
        for t in 0..THREADS {
            env.global_id = [t, 0, 0];
            interp::run(&f, &mut env).unwrap();
        }
        assert_eq!(got[2], env.buffers[&2], "launch {l}\n{}", comp.mir);
    }
}

/// fadd/fmul put the negate on source B, so `-x + y` is encoded as `y + -x`; the release bits
/// must follow the swap (found by tests/glsl_fuzz.rs: x, still read afterwards, was released
/// and read as zero, while the dying y was kept).
#[test]
fn swapped_negated_sources_keep_their_release_bits() {
    for op in [Op::FAdd, Op::FMul] {
        let f = kernel(2, |b, v| {
            let neg_x = Src {
                neg: true,
                ..Src::val(v[0])
            };
            let t = b.alu(op, Type::F32, [neg_x, Src::val(v[1])]);
            vec![b.fmul(t, v[0])]
        });
        check(&f, 2, 31, Options::default());
    }
}

/// A compare that conditions an if and is also read as a value after it: the value use becomes
/// a select right after the compare, split into a branch, so the if's compare must be copied
/// to its own block's end (found by tests/glsl_fuzz.rs as a loop exit compare Mesa also read
/// in an `||`; before, the if's compare was left as a standalone `pcmp`, which has no form).
#[test]
fn compare_read_by_an_if_and_later_as_a_value_matches_reference() {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let a = b.load_global(0, x, Type::I32, 1);
    let c = b.icmp(Cmp::Lt, true, a, Src::imm(5));
    b.if_(c);
    let t = b.iadd(a, Src::imm(7));
    let tb = b.current_block();
    b.else_();
    let e = b.alu(Op::Xor, Type::I32, [Src::val(a), Src::imm(0x55)]);
    let eb = b.current_block();
    b.end_if();
    let v = b.phi(
        Shape::scalar(Type::I32),
        &[(tb, Src::val(t)), (eb, Src::val(e))],
    );
    let d = b.icmp(Cmp::Ne, false, v, Src::imm(9));
    let both = b.alu(Op::And, Type::Bool, [Src::val(c), Src::val(d)]);
    let out = b.alu(
        Op::Select,
        Type::I32,
        [Src::val(both), Src::val(v), Src::imm(3)],
    );
    b.store_global(1, x, out);
    let f = b.finish();
    check(&f, 1, 77, Options::default());
}

//! Rewrites of ops a target has no form for into ops it has, run before the other passes so
//! the result is optimised like everything else. Each rewrite is exact on the IR's semantics
//! (`eval.rs`), so the reference interpreter gives the same results before and after.

use crate::ir::{Function, Instr, Op, Operand, Sfu, Shape, Src, Type};

/// Which rewrites a target asks for (`Target::lowered_ops`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Lowered {
    /// f32 `sqrt x` as `x * sqrt_factor(x)`.
    pub sqrt: bool,
    /// f32 round-to-nearest-even through the adder's own rounding.
    pub rint: bool,
    /// 32-bit `imul a, b` as `imad a, b, 0`.
    pub imul: bool,
    /// Undefined scalars (e.g. the unwritten elements of a local array in a phi) as 0: any
    /// value is correct, and 0 needs only a move.
    pub undef: bool,
}

/// 2^23: every f32 of at least this magnitude is an integer.
const TWO_23: u32 = 0x4b00_0000;

pub fn run(f: &mut Function, l: Lowered) -> bool {
    if l == Lowered::default() {
        return false;
    }
    let mut changed = false;
    for bi in 0..f.blocks.len() {
        let old = std::mem::take(&mut f.blocks[bi].instrs);
        let mut out = Vec::with_capacity(old.len());
        for mut i in old {
            let ty = i.dst.map(|d| f.ty(d));
            let scalar = i.dst.is_some_and(|d| f.shape(d).comps == 1);
            match (i.op, ty) {
                (Op::Sfu(Sfu::Sqrt), Some(Type::F32)) if l.sqrt && scalar => {
                    // sqrt(x) = x * factor(x); the factor is 1 at ±0 and +inf, so those come
                    // out as x itself, and NaN for negative x.
                    let s = i.srcs[0];
                    let t = f.new_value(Shape::scalar(Type::F32));
                    out.push(Instr::new(Op::Sfu(Sfu::SqrtFactor), Some(t), [s]));
                    i.op = Op::FMul;
                    i.srcs = [s, Src::val(t)].into_iter().collect();
                    changed = true;
                }
                (Op::Sfu(Sfu::Rint), Some(Type::F32)) if l.rint && scalar && !i.sat => {
                    rint(f, &mut i, &mut out);
                    changed = true;
                }
                (Op::Undef, Some(_)) if l.undef && scalar => {
                    i.op = Op::Copy;
                    i.srcs = [Src::imm(0)].into_iter().collect();
                    changed = true;
                }
                // A vector undef (NIR keeps `undef` vectors that feed a vecN): components of
                // zero, which copy propagation hands to the readers.
                (Op::Undef, Some(_)) if l.undef => {
                    let comps = f.shape(i.dst.unwrap()).comps;
                    i.op = Op::Collect;
                    i.srcs = (0..comps).map(|_| Src::imm(0)).collect();
                    changed = true;
                }
                (Op::IMul, Some(Type::I32)) if l.imul && scalar => {
                    i.op = Op::IMad;
                    i.srcs.push(Src::imm(0));
                    changed = true;
                }
                _ => {}
            }
            out.push(i);
        }
        f.blocks[bi].instrs = out;
    }
    changed
}

/// `rint(x)`: for |x| < 2^23, `(|x| + 2^23) - 2^23` is |x| rounded to an integer by the add's
/// round-to-nearest-even, and x's sign bit is put back (so -0.3 gives -0); larger magnitudes,
/// infinities and NaN are already their own result. A denormal x is flushed by the add and
/// gives ±0, its correct rounding.
fn rint(f: &mut Function, i: &mut Instr, out: &mut Vec<Instr>) {
    let x = i.srcs[0];
    let val = |f: &mut Function, op: Op, srcs: Vec<Src>, out: &mut Vec<Instr>| {
        let v = f.new_value(Shape::scalar(Type::F32));
        out.push(Instr::new(op, Some(v), srcs));
        Src::val(v)
    };
    let x = match x.op {
        Operand::Value { .. } if x.has_modifiers() => val(f, Op::Copy, vec![x], out),
        _ => x,
    };
    let a = val(
        f,
        Op::Copy,
        vec![Src {
            abs: true,
            neg: false,
            ..x
        }],
        out,
    );
    let up = val(f, Op::FAdd, vec![a, Src::imm(TWO_23)], out);
    let whole = val(
        f,
        Op::FAdd,
        vec![
            up,
            Src {
                neg: true,
                ..Src::imm(TWO_23)
            },
        ],
        out,
    );
    let sign = val(f, Op::And, vec![x, Src::imm(0x8000_0000)], out);
    let signed = val(f, Op::Or, vec![whole, sign], out);
    let small = {
        let c = f.new_value(Shape::scalar(Type::Bool));
        out.push(Instr::new(
            Op::FCmp(crate::ir::Cmp::Lt),
            Some(c),
            [a, Src::imm(TWO_23)],
        ));
        Src::val(c)
    };
    i.op = Op::Select;
    i.srcs = [small, signed, x].into_iter().collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::eval;
    use crate::interp::{self, Env};
    use crate::ir::{validate, Builder, Stage, SysVal};

    /// The rewritten programs give the reference semantics' results on edge inputs (sqrt of a
    /// denormal is that of the flushed ±0; the product of the factor is within 2 ULP).
    #[test]
    fn rewrites_keep_the_reference_results() {
        let xs: Vec<u32> = vec![
            0,
            0x8000_0000,
            0x3f00_0000,
            0xbf00_0000,
            0x3fc0_0000,
            0x4020_0000,
            0xc020_0000,
            0x3e99_999a,
            0xbe99_999a,
            0x4b00_0001,
            0xcb7f_ffff,
            0x4aff_ffff,
            0x7f7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x0000_0001,
            0x8000_0001,
            0x4040_0000,
            0x3f80_0001,
            0x1234_5678,
            0xcaff_fffd,
            0x4b7f_ffff,
        ];
        let cases = [
            (
                Sfu::Sqrt,
                Lowered {
                    sqrt: true,
                    ..Default::default()
                },
            ),
            (
                Sfu::Rint,
                Lowered {
                    rint: true,
                    ..Default::default()
                },
            ),
        ];
        for (sfu, lowered) in cases {
            let mut b = Builder::new(Stage::Compute);
            let t = b.sysval(SysVal::GlobalId(0));
            let x = b.load_global(0, t, Type::F32, 1);
            let y = b.sfu(sfu, x);
            b.store_global(1, t, y);
            let f0 = b.finish();
            let mut f1 = f0.clone();
            assert!(run(&mut f1, lowered));
            validate::validate(&f1).unwrap_or_else(|e| panic!("{e}\n{f1}"));
            let mut env = Env::default();
            env.buffers.insert(0, xs.clone());
            env.buffers.insert(1, vec![0; xs.len()]);
            for k in 0..xs.len() {
                env.global_id = [k as u32, 0, 0];
                interp::run(&f1, &mut env).unwrap();
            }
            for (k, &bits) in xs.iter().enumerate() {
                let flushed = if bits & 0x7f80_0000 == 0 {
                    bits & 0x8000_0000
                } else {
                    bits
                };
                let want = eval(Op::Sfu(sfu), Type::F32, &[Type::F32], &[flushed], false);
                let (got, want) = (env.buffers[&1][k], want.unwrap());
                // x * (1/sqrt x) is within 2 ULP of sqrt x; rint is exact.
                let ulps = if sfu == Sfu::Sqrt { 2 } else { 0 };
                assert!(
                    got.abs_diff(want) <= ulps,
                    "{sfu:?}({bits:#x}) = {got:#x}, want {want:#x}"
                );
            }
        }
    }

    #[test]
    fn imul_becomes_imad_with_a_zero_addend() {
        let mut b = Builder::new(Stage::Compute);
        let t = b.sysval(SysVal::GlobalId(0));
        let y = b.alu(Op::IMul, Type::I32, [Src::val(t), Src::imm(0xfff1)]);
        b.store_global(1, t, y);
        let mut f = b.finish();
        assert!(run(
            &mut f,
            Lowered {
                imul: true,
                ..Default::default()
            }
        ));
        let i = f
            .blocks
            .iter()
            .flat_map(|b| &b.instrs)
            .find(|i| i.op == Op::IMad)
            .unwrap();
        assert_eq!(i.srcs.len(), 3);
        let mut env = Env::default();
        env.buffers.insert(1, vec![0; 8]);
        for k in 0..8 {
            env.global_id = [k, 0, 0];
            interp::run(&f, &mut env).unwrap();
        }
        assert_eq!(
            env.buffers[&1],
            (0..8u32).map(|k| k * 0xfff1).collect::<Vec<_>>()
        );
    }
}

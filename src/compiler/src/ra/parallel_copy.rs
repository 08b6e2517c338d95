//! Sequentialising a parallel copy (phi moves at the end of a predecessor). Cycles are broken
//! with three XORs, so no scratch register is needed (G16 has no validated general GPR move;
//! copies themselves become logic ops in instruction selection). The logic form writes only
//! r0–r15 (agx16-isa `ilogic` reach), so a swap involving a higher register uses wrapping adds
//! and subtracts instead (`iadd_reg`/`isub_reg` write r0–r94): a += b; b = a - b; a -= b.

use crate::error::CompileError;
use crate::ir::{Op, Type};
use crate::mir::{MInstr, MOperand, MSrc, Reg};

#[derive(Clone, Copy, Debug)]
struct Move {
    dst: Reg,
    src: MOperand,
}

fn src(op: MOperand, ty: Type) -> MSrc {
    MSrc {
        op,
        ty,
        neg: false,
        abs: false,
        release: false,
    }
}

fn unit_ty(r: Reg) -> Type {
    if r.halves == 1 {
        Type::I16
    } else {
        Type::I32
    }
}

/// Split tuple moves into 32-bit units (16-bit where a side is not GPR-aligned).
fn units(dst: Reg, s: MOperand) -> Vec<Move> {
    match s {
        MOperand::Reg(sr) => {
            let step = if dst.half.is_multiple_of(2)
                && sr.half.is_multiple_of(2)
                && dst.halves.is_multiple_of(2)
            {
                2
            } else {
                1
            };
            (0..dst.halves / step)
                .map(|k| Move {
                    dst: Reg {
                        half: dst.half + (k * step) as u16,
                        halves: step,
                    },
                    src: MOperand::Reg(Reg {
                        half: sr.half + (k * step) as u16,
                        halves: step,
                    }),
                })
                .collect()
        }
        other => vec![Move { dst, src: other }],
    }
}

/// Sequential copies implementing `dst_i = src_i` for all i at once.
pub fn sequentialize(copies: &[(Reg, MOperand)]) -> Result<Vec<MInstr>, CompileError> {
    let mut pending: Vec<Move> = copies
        .iter()
        .flat_map(|&(d, s)| units(d, s))
        .filter(|m| m.src != MOperand::Reg(m.dst))
        .collect();
    let mut out = Vec::new();
    let reads = |ms: &[Move], r: Reg, skip: usize| {
        ms.iter()
            .enumerate()
            .any(|(k, m)| k != skip && matches!(m.src, MOperand::Reg(s) if s.overlaps(r)))
    };
    while !pending.is_empty() {
        if let Some(k) = (0..pending.len()).find(|&k| !reads(&pending, pending[k].dst, k)) {
            let m = pending.remove(k);
            out.push(MInstr::new(
                Op::Copy,
                unit_ty(m.dst),
                Some(m.dst),
                [src(m.src, unit_ty(m.dst))],
            ));
            continue;
        }
        // Every remaining destination is still read: the moves form cycles of registers.
        let m = pending.remove(0);
        let MOperand::Reg(s) = m.src else {
            unreachable!("immediates never block")
        };
        if s.halves != m.dst.halves || s.overlaps(m.dst) {
            return Err(CompileError::Internal(format!(
                "parallel copy cycle with mixed units {} <- {s}",
                m.dst
            )));
        }
        let ty = unit_ty(s);
        let (a, b) = (m.dst, s);
        let xor = |d: Reg, x: Reg, y: Reg| {
            MInstr::new(
                Op::Xor,
                ty,
                Some(d),
                [src(MOperand::Reg(x), ty), src(MOperand::Reg(y), ty)],
            )
        };
        let arith = |op: Op, d: Reg, x: Reg, y: Reg| MInstr { op, ..xor(d, x, y) };
        if ty == Type::I32 && (a.gpr() > 15 || b.gpr() > 15) {
            out.push(arith(Op::IAdd, a, a, b));
            out.push(arith(Op::ISub, b, a, b));
            out.push(arith(Op::ISub, a, a, b));
        } else {
            out.push(xor(a, a, b));
            out.push(xor(b, b, a));
            out.push(xor(a, a, b));
        }
        // The registers swapped contents: readers of a now find it in b and vice versa.
        for p in &mut pending {
            if let MOperand::Reg(r) = &mut p.src {
                if *r == a {
                    *r = b;
                } else if *r == b {
                    *r = a;
                } else if r.overlaps(a) || r.overlaps(b) {
                    return Err(CompileError::Internal(format!(
                        "parallel copy partial overlap at {a}"
                    )));
                }
            }
        }
        pending.retain(|p| p.src != MOperand::Reg(p.dst));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn run<const N: usize>(file: &mut [u16; N], prog: &[MInstr]) {
        for i in prog {
            let rd = |f: &[u16; N], s: &MSrc| match s.op {
                MOperand::Reg(r) => (r.half..r.end())
                    .map(|h| f[h as usize] as u32)
                    .rev()
                    .fold(0, |a, x| a << 16 | x),
                MOperand::Imm(b) => b,
                _ => unreachable!(),
            };
            let v = match i.op {
                Op::Copy => rd(file, &i.srcs[0]),
                Op::Xor => rd(file, &i.srcs[0]) ^ rd(file, &i.srcs[1]),
                Op::IAdd => rd(file, &i.srcs[0]).wrapping_add(rd(file, &i.srcs[1])),
                Op::ISub => rd(file, &i.srcs[0]).wrapping_sub(rd(file, &i.srcs[1])),
                _ => unreachable!(),
            };
            let d = i.dst.unwrap();
            for (k, h) in (d.half..d.end()).enumerate() {
                file[h as usize] = (v >> (16 * k)) as u16;
            }
        }
    }

    /// Cycles through registers above r15 (found by tests/glsl_fuzz.rs: an XOR swap of r17 and
    /// r21 had no encoding) swap with adds and subtracts; XORs only ever write r0–r15.
    #[test]
    fn cycles_through_high_registers_avoid_the_logic_form() {
        let r = |g: u16| Reg {
            half: g * 2,
            halves: 2,
        };
        for cycle in [vec![17u16, 21], vec![3, 20, 40], vec![30, 2], vec![1, 5]] {
            let copies: Vec<(Reg, MOperand)> = (0..cycle.len())
                .map(|k| (r(cycle[k]), MOperand::Reg(r(cycle[(k + 1) % cycle.len()]))))
                .collect();
            let mut file = [0u16; 96];
            for (h, x) in file.iter_mut().enumerate() {
                *x = (h as u16).wrapping_mul(0x9e37) ^ 0xffff;
            }
            let before = file;
            let prog = sequentialize(&copies).unwrap();
            for i in &prog {
                if i.op == Op::Xor {
                    assert!(i.dst.unwrap().gpr() <= 15, "{i}");
                }
            }
            run(&mut file, &prog);
            for (d, s) in &copies {
                let MOperand::Reg(s) = s else { unreachable!() };
                let (d, s) = (d.half as usize, s.half as usize);
                assert_eq!(file[d..d + 2], before[s..s + 2], "{cycle:?}");
            }
        }
    }

    proptest! {
        /// Any permutation-with-duplicates of 32-bit registers is copied exactly.
        #[test]
        fn random_parallel_copies_match_simultaneous_semantics(srcs in proptest::collection::vec(0u16..8, 1..8), imm in any::<u32>()) {
            let copies: Vec<(Reg, MOperand)> = srcs.iter().enumerate().map(|(d, &s)| {
                let src = if s == 7 { MOperand::Imm(imm) } else { MOperand::Reg(Reg { half: s * 2, halves: 2 }) };
                (Reg { half: d as u16 * 2, halves: 2 }, src)
            }).collect();
            let mut file = [0u16; 16];
            for (h, x) in file.iter_mut().enumerate() { *x = (h as u16 + 1).wrapping_mul(0x1111); }
            let before = file;
            let prog = sequentialize(&copies).unwrap();
            run(&mut file, &prog);
            for (d, s) in &copies {
                let want = match s {
                    MOperand::Reg(r) => [before[r.half as usize], before[r.half as usize + 1]],
                    MOperand::Imm(b) => [*b as u16, (*b >> 16) as u16],
                    _ => unreachable!(),
                };
                prop_assert_eq!([file[d.half as usize], file[d.half as usize + 1]], want);
            }
        }
    }
}

//! Random well-typed programs with control flow, for differential tests and benchmarks.
//! Inputs: binding 0 holds `IN_WORDS` words per thread; outputs: binding 1, `OUT_WORDS` per thread.

use crate::ir::*;

pub const IN_WORDS: u32 = 8;
pub const OUT_WORDS: u32 = 6;

/// A small deterministic generator (xorshift64*), so failures reproduce from the seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    pub fn chance(&mut self, pct: u64) -> bool {
        self.below(100) < pct
    }
}

/// Interesting input words: NaN, ±inf, denormals, ±0, extremes, small integers.
pub fn edge_word(r: &mut Rng) -> u32 {
    const EDGE: [u32; 14] = [
        0x7fc0_0000,
        0x7f80_0000,
        0xff80_0000,
        0x0000_0001,
        0x8000_0001,
        0x0000_0000,
        0x8000_0000,
        0x7f7f_ffff,
        0x3f80_0000,
        0xbf00_0000,
        0x4120_0000,
        0x8000_0000,
        0x7fff_ffff,
        0xffff_ffff,
    ];
    match r.below(3) {
        0 => EDGE[r.below(EDGE.len() as u64) as usize],
        1 => r.below(16) as u32,
        _ => r.next_u64() as u32,
    }
}

struct Gen<'a> {
    b: Builder,
    r: &'a mut Rng,
    floats: Vec<Value>,
    ints: Vec<Value>,
    base: Value,
    ops: usize,
    depth: u32,
}

impl Gen<'_> {
    fn pick(&mut self, float: bool) -> Value {
        let pool = if float { &self.floats } else { &self.ints };
        pool[self.r.below(pool.len() as u64) as usize]
    }

    fn fsrc(&mut self) -> Src {
        let v = self.pick(true);
        let mut s = Src::val(v);
        if self.r.chance(15) {
            s.neg = true;
        }
        if self.r.chance(10) {
            s.abs = true;
        }
        if self.r.chance(8) {
            s = Src::imm_f32([0.5f32, 1.0, 2.0, -3.0, 0.1][self.r.below(5) as usize]);
        }
        s
    }

    fn isrc(&mut self) -> Src {
        if self.r.chance(15) {
            return Src::imm([0, 1, 3, 0x7fff_ffff, 0xffff_fff0][self.r.below(5) as usize]);
        }
        Src::val(self.pick(false))
    }

    fn alu(&mut self) {
        let k = self.r.below(13);
        match k {
            12 => {
                // Half precision: two f16 values (register halves) added, widened back.
                let (a, c) = (self.fsrc(), self.fsrc());
                let ha = self.b.alu(Op::FConv, Type::F16, [a]);
                let hc = self.b.alu(Op::FConv, Type::F16, [c]);
                let hs = self
                    .b
                    .alu(Op::FAdd, Type::F16, [Src::val(ha), Src::val(hc)]);
                let w = self.b.alu(Op::FConv, Type::F32, [Src::val(hs)]);
                self.floats.push(w);
            }
            0..=3 => {
                let op = [Op::FAdd, Op::FMul, Op::FMin, Op::FMax][k as usize];
                let (a, c) = (self.fsrc(), self.fsrc());
                let v = self.b.alu(op, Type::F32, [a, c]);
                if self.r.chance(10) {
                    let s = self.b.op(Op::Copy, Shape::scalar(Type::F32), [Src::val(v)]);
                    self.floats.push(s);
                }
                self.floats.push(v);
            }
            4 => {
                let (a, c, d) = (self.fsrc(), self.fsrc(), self.fsrc());
                let v = self.b.ffma(a, c, d);
                self.floats.push(v);
            }
            5 => {
                let s = [
                    Sfu::Floor,
                    Sfu::Ceil,
                    Sfu::Trunc,
                    Sfu::Rint,
                    Sfu::Rcp,
                    Sfu::Sqrt,
                ][self.r.below(6) as usize];
                let a = self.fsrc();
                let v = self.b.sfu(s, a);
                self.floats.push(v);
            }
            6..=8 => {
                let ops = [
                    Op::IAdd,
                    Op::ISub,
                    Op::IMul,
                    Op::And,
                    Op::Or,
                    Op::Xor,
                    Op::Shl,
                    Op::Shr { signed: true },
                    Op::IMin { signed: false },
                    Op::IMax { signed: true },
                ];
                let op = ops[self.r.below(ops.len() as u64) as usize];
                let (a, c) = (self.isrc(), self.isrc());
                let v = self.b.alu(op, Type::I32, [a, c]);
                self.ints.push(v);
            }
            9 => {
                let a = self.fsrc();
                let v = self.b.alu(
                    Op::F2I {
                        signed: self.r.chance(50),
                    },
                    Type::I32,
                    [a],
                );
                self.ints.push(v);
                let i = self.isrc();
                let w = self.b.alu(
                    Op::I2F {
                        signed: self.r.chance(50),
                    },
                    Type::F32,
                    [i],
                );
                self.floats.push(w);
            }
            _ => {
                let cmp = [Cmp::Eq, Cmp::Ne, Cmp::Lt, Cmp::Ge][self.r.below(4) as usize];
                let c = if self.r.chance(50) {
                    let (a, d) = (self.fsrc(), self.fsrc());
                    self.b.fcmp(cmp, a, d)
                } else {
                    let (a, d) = (self.isrc(), self.isrc());
                    self.b.icmp(cmp, self.r.chance(50), a, d)
                };
                let (x, y) = (self.pick(true), self.pick(true));
                let v = self.b.select(Type::F32, c, x, y);
                self.floats.push(v);
            }
        }
    }

    fn cond(&mut self) -> Value {
        let (a, c) = (self.isrc(), self.isrc());
        self.b.icmp(Cmp::Lt, true, a, c)
    }

    fn if_else(&mut self) {
        let c = self.cond();
        let (fl, il) = (self.floats.len(), self.ints.len());
        self.b.if_(c);
        self.body(3);
        let tf = self.pick(true);
        let ti = self.pick(false);
        self.floats.truncate(fl);
        self.ints.truncate(il);
        self.b.else_();
        self.body(3);
        let ef = self.pick(true);
        let ei = self.pick(false);
        self.floats.truncate(fl);
        self.ints.truncate(il);
        let (t, e, _) = self.b.end_if();
        let pf = self.b.phi(
            Shape::scalar(Type::F32),
            &[(t, Src::val(tf)), (e, Src::val(ef))],
        );
        let pi = self.b.phi(
            Shape::scalar(Type::I32),
            &[(t, Src::val(ti)), (e, Src::val(ei))],
        );
        self.floats.push(pf);
        self.ints.push(pi);
    }

    fn loop_(&mut self) {
        let trip = if self.r.chance(50) {
            Src::imm(1 + self.r.below(4) as u32)
        } else {
            let t = self.pick(false);
            let m = self.b.alu(Op::And, Type::I32, [Src::val(t), Src::imm(3)]);
            let one = self.b.iadd(m, Src::imm(1));
            Src::val(one)
        };
        let acc0 = self.pick(true);
        let pre = self.b.current_block();
        let header = self.b.loop_();
        let i = self.b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
        let acc = self
            .b
            .phi(Shape::scalar(Type::F32), &[(pre, Src::val(acc0))]);
        let (fl, il) = (self.floats.len(), self.ints.len());
        self.floats.push(acc);
        self.ints.push(i);
        self.body(4);
        let next_acc = self.pick(true);
        let i2 = self.b.iadd(i, Src::imm(1));
        let done = self.b.icmp(Cmp::Ge, true, i2, trip);
        self.b.if_(done);
        self.b.break_();
        self.b.end_if();
        let latch = self.b.current_block();
        let _ = header;
        self.b.add_phi_src(i, latch, Src::val(i2));
        self.b.add_phi_src(acc, latch, Src::val(next_acc));
        self.floats.truncate(fl);
        self.ints.truncate(il);
        self.b.end_loop();
        self.floats.push(acc);
        self.ints.push(i);
    }

    fn body(&mut self, n: usize) {
        for _ in 0..n {
            if self.ops == 0 {
                return;
            }
            self.ops -= 1;
            let k = self.r.below(100);
            if k < 8 && self.depth < 2 {
                self.depth += 1;
                self.if_else();
                self.depth -= 1;
            } else if k < 13 && self.depth < 2 {
                self.depth += 1;
                self.loop_();
                self.depth -= 1;
            } else {
                self.alu();
            }
        }
    }
}

/// A random program of about `ops` operations.
pub fn random_program(seed: u64, ops: usize) -> Function {
    let mut r = Rng::new(seed);
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let base = b.alu(Op::IMul, Type::I32, [Src::val(x), Src::imm(IN_WORDS)]);
    let mut g = Gen {
        b,
        r: &mut r,
        floats: Vec::new(),
        ints: vec![x],
        base,
        ops,
        depth: 0,
    };
    // Scalar and vector loads.
    let v4 = g.b.load_global(0, Src::val(base), Type::F32, 4);
    for c in 0..4 {
        let v = g.b.copy(Type::F32, Src::comp(v4, c));
        g.floats.push(v);
    }
    for k in 4..IN_WORDS {
        let idx = g.b.iadd(base, Src::imm(k));
        if k % 2 == 0 {
            let v = g.b.load_global(0, Src::val(idx), Type::I32, 1);
            g.ints.push(v);
        } else {
            let v = g.b.load_global(0, Src::val(idx), Type::F32, 1);
            g.floats.push(v);
        }
    }
    let _ = g.base;
    g.body(ops);
    let ob =
        g.b.alu(Op::IMul, Type::I32, [Src::val(x), Src::imm(OUT_WORDS)]);
    for k in 0..OUT_WORDS {
        let idx = g.b.iadd(ob, Src::imm(k));
        let v = if k % 2 == 0 {
            g.pick(true)
        } else {
            g.pick(false)
        };
        g.b.store_global(1, idx, v);
    }
    g.b.finish()
}

/// End the current arm of the open if: then → else, or else → merge with phis.
#[allow(clippy::type_complexity)]
fn close_arm(
    b: &mut Builder,
    open: &mut Option<(usize, usize, Option<(BlockId, Value, Value)>)>,
    floats: &mut Vec<Value>,
    ints: &mut Vec<Value>,
) {
    let Some((fl, il, then)) = open.take() else {
        return;
    };
    let (fv, iv) = (floats[floats.len() - 1], ints[ints.len() - 1]);
    let end = b.current_block();
    floats.truncate(fl);
    ints.truncate(il);
    match then {
        None => {
            b.else_();
            *open = Some((fl, il, Some((end, fv, iv))));
        }
        Some((tb, tf, ti)) => {
            b.end_if();
            floats.push(b.phi(
                Shape::scalar(Type::F32),
                &[(tb, Src::val(tf)), (end, Src::val(fv))],
            ));
            ints.push(b.phi(
                Shape::scalar(Type::I32),
                &[(tb, Src::val(ti)), (end, Src::val(iv))],
            ));
        }
    }
}

/// A random kernel (straight-line code and one-level if/else) using only operations with validated G16 forms (fadd/fmul on
/// registers, fadd with a minifloat immediate, iadd with a small immediate, xor), reading
/// `inputs` buffers at the thread index and writing `outputs` words per thread to the next
/// binding (`out[x + k * threads]`); also floor with negated/absolute sources,
/// register+register integer adds, isub/min/max, fmul by immediates, selects on compares and
/// abs/neg on fadd sources.
pub fn random_g16_kernel(
    seed: u64,
    ops: usize,
    inputs: u8,
    outputs: u32,
    threads: u32,
) -> Function {
    let mut r = Rng::new(seed);
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let mut floats = Vec::new();
    let mut ints = Vec::new();
    for k in 0..inputs {
        if k % 2 == 0 {
            floats.push(b.load_global(k, x, Type::F32, 1));
        } else {
            ints.push(b.load_global(k, x, Type::I32, 1));
        }
    }
    if ints.is_empty() {
        ints.push(x);
    }
    // An open if: pool sizes at its start, and (then-end block, float, int) once in the else arm.
    type Arm = (usize, usize, Option<(BlockId, Value, Value)>);
    let mut open: Option<Arm> = None;
    for step in 0..ops {
        let pick = |r: &mut Rng, p: &Vec<Value>| p[r.below(p.len() as u64) as usize];
        // Structured if/else (one level) now and then, merging a float and an int by phis.
        if open.is_none() && r.chance(12) && step + 4 < ops {
            let (a, c) = (pick(&mut r, &floats), pick(&mut r, &floats));
            let (i, j) = (pick(&mut r, &ints), pick(&mut r, &ints));
            let cond = match r.below(4) {
                0 => b.fcmp(Cmp::Lt, a, c),
                1 => b.fcmp(Cmp::Ne, a, c),
                2 => b.icmp(Cmp::Lt, true, i, j),
                _ => b.icmp(Cmp::Ge, false, i, j),
            };
            b.if_(cond);
            open = Some((floats.len(), ints.len(), None));
            continue;
        }
        if open.is_some() && r.chance(20) {
            close_arm(&mut b, &mut open, &mut floats, &mut ints);
            continue;
        }
        // A counted loop (constant trip count 0..=3, break at the top or the bottom) carrying a
        // float and an int through phis.
        if open.is_none() && r.chance(6) {
            let f0 = pick(&mut r, &floats);
            let i0 = pick(&mut r, &ints);
            let trip = Src::imm(r.below(4) as u32);
            let pre = b.current_block();
            b.loop_();
            let i = b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
            let fa = b.phi(Shape::scalar(Type::F32), &[(pre, Src::val(f0))]);
            let ia = b.phi(Shape::scalar(Type::I32), &[(pre, Src::val(i0))]);
            let top = r.chance(50);
            let leave = |b: &mut Builder, i: Value| {
                let c = b.icmp(Cmp::Ge, false, i, trip);
                b.if_(c);
                b.break_();
                b.end_if();
            };
            if top {
                leave(&mut b, i);
            }
            let v = pick(&mut r, &floats);
            let fa2 = b.fadd(
                fa,
                Src {
                    neg: r.chance(30),
                    ..Src::val(v)
                },
            );
            let ia2 = b.iadd(ia, Src::imm(1 + r.below(9) as u32));
            let i2 = b.iadd(i, Src::imm(1));
            if !top {
                leave(&mut b, i2);
            }
            let latch = b.current_block();
            b.add_phi_src(i, latch, Src::val(i2));
            b.add_phi_src(fa, latch, Src::val(fa2));
            b.add_phi_src(ia, latch, Src::val(ia2));
            b.end_loop();
            floats.push(fa);
            ints.push(ia);
            continue;
        }
        match r.below(11) {
            7 => {
                let (a, c) = (pick(&mut r, &ints), pick(&mut r, &ints));
                let op = [
                    Op::ISub,
                    Op::IMin { signed: true },
                    Op::IMax { signed: true },
                    Op::IMin { signed: false },
                    Op::IMax { signed: false },
                ][r.below(5) as usize];
                ints.push(b.alu(op, Type::I32, [Src::val(a), Src::val(c)]));
            }
            8 => {
                let a = pick(&mut r, &floats);
                let imm = [0.5f32, -1.0, 3.0, -0.25][r.below(4) as usize];
                floats.push(b.fmul(a, Src::imm_f32(imm)));
            }
            9 => {
                // A select on a compare (lowered to a branch with a phi).
                let (i, j) = (pick(&mut r, &ints), pick(&mut r, &ints));
                let (a, c) = (pick(&mut r, &floats), pick(&mut r, &floats));
                if r.chance(50) {
                    let cond = b.icmp(Cmp::Lt, r.chance(50), i, j);
                    ints.push(b.select(Type::I32, cond, Src::val(j), Src::val(i)));
                } else {
                    let cond = b.fcmp(Cmp::Lt, a, c);
                    floats.push(b.select(Type::F32, cond, Src::val(a), Src::imm_f32(0.5)));
                }
            }
            10 => {
                // abs/neg on sources no form encodes (sign-bit logic ops).
                let (a, c) = (pick(&mut r, &floats), pick(&mut r, &floats));
                let sa = Src {
                    abs: true,
                    neg: r.chance(50),
                    ..Src::val(a)
                };
                floats.push(b.fadd(sa, Src::val(c)));
            }
            6 => {
                let a = pick(&mut r, &floats);
                let src = Src {
                    neg: r.chance(30),
                    abs: r.chance(30),
                    ..Src::val(a)
                };
                floats.push(b.sfu(Sfu::Floor, src));
            }
            0 | 1 => {
                let (a, c) = (pick(&mut r, &floats), pick(&mut r, &floats));
                let cs = Src {
                    neg: r.chance(30),
                    ..Src::val(c)
                };
                let op = if r.chance(50) { Op::FAdd } else { Op::FMul };
                floats.push(b.alu(op, Type::F32, [Src::val(a), cs]));
            }
            2 => {
                let a = pick(&mut r, &floats);
                let imm = [0.5f32, 1.0, 1.5, -2.0, 30.0][r.below(5) as usize];
                floats.push(b.fadd(a, Src::imm_f32(imm)));
            }
            3 | 4 => {
                let a = pick(&mut r, &ints);
                let c = if r.chance(40) {
                    Src::val(pick(&mut r, &ints))
                } else {
                    Src::imm(r.below(200) as u32)
                };
                ints.push(b.iadd(a, c));
            }
            _ => {
                let (a, c) = (pick(&mut r, &ints), pick(&mut r, &ints));
                let op = [Op::Xor, Op::And, Op::Or, Op::Not][r.below(4) as usize];
                let srcs: Vec<Src> = if op == Op::Not {
                    vec![Src::val(a)]
                } else {
                    vec![Src::val(a), Src::val(c)]
                };
                ints.push(b.alu(op, Type::I32, srcs));
            }
        }
    }
    while open.is_some() {
        close_arm(&mut b, &mut open, &mut floats, &mut ints);
    }
    for k in 0..outputs {
        let v = if k % 2 == 0 {
            floats[floats.len() - 1 - (k as usize / 2) % floats.len()]
        } else {
            ints[ints.len() - 1 - (k as usize / 2) % ints.len()]
        };
        let idx = if k == 0 {
            x
        } else {
            b.iadd(x, Src::imm(k * threads))
        };
        b.store_global(inputs, idx, v);
    }
    b.finish()
}

/// A random kernel exercising continue and early return on G16: a counted loop (per-lane trip
/// count from binding 0, break at the top) whose body continues under one or two ifs at random
/// points, integer and float accumulators through the header phis, then early returns under
/// ifs before the final stores. Bindings: 0 trip counts (0..=5), 1 ints, 2 floats, 3 output
/// (`out[x]`, `out[x + threads]`).
pub fn random_control_kernel(seed: u64, threads: u32) -> Function {
    let mut r = Rng::new(seed);
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let n = b.load_global(0, x, Type::I32, 1);
    let v = b.load_global(1, x, Type::I32, 1);
    let fv = b.load_global(2, x, Type::F32, 1);
    let pre = b.current_block();
    b.loop_();
    let i = b.phi(Shape::scalar(Type::I32), &[(pre, Src::imm(0))]);
    let acc = b.phi(Shape::scalar(Type::I32), &[(pre, Src::val(v))]);
    let facc = b.phi(Shape::scalar(Type::F32), &[(pre, Src::imm_f32(0.0))]);
    let done = b.icmp(Cmp::Ge, true, i, n);
    b.if_(done);
    b.break_();
    b.end_if();
    let i2 = b.iadd(i, Src::imm(1));
    let mut acc_cur = acc;
    let mut facc_cur = facc;
    // (block, acc, facc) at each continue.
    let mut edges: Vec<(BlockId, Value, Value)> = Vec::new();
    for _ in 0..1 + r.below(3) {
        // Some arithmetic, then a conditional continue.
        acc_cur = match r.below(3) {
            0 => b.iadd(acc_cur, Src::imm(1 + r.below(50) as u32)),
            1 => b.alu(Op::Xor, Type::I32, [Src::val(acc_cur), Src::val(i)]),
            _ => b.alu(Op::ISub, Type::I32, [Src::val(acc_cur), Src::val(i2)]),
        };
        facc_cur = b.fadd(facc_cur, Src::imm_f32(0.5));
        let bits = b.alu(Op::Xor, Type::I32, [Src::val(acc_cur), Src::val(i)]);
        let low = b.alu(Op::And, Type::I32, [Src::val(bits), Src::imm(3)]);
        let c = b.icmp(Cmp::Eq, false, low, Src::imm(r.below(4) as u32));
        b.if_(c);
        let nested = r.chance(40);
        if nested {
            let c2 = b.icmp(Cmp::Lt, true, i, Src::imm(1 + r.below(4) as u32));
            b.if_(c2);
        }
        let a2 = b.iadd(acc_cur, Src::imm(100));
        edges.push((b.current_block(), a2, facc_cur));
        b.continue_();
        if nested {
            b.end_if();
        }
        b.end_if();
    }
    let latch = b.current_block();
    edges.push((latch, acc_cur, facc_cur));
    for (blk, a, fa) in edges {
        b.add_phi_src(i, blk, Src::val(i2));
        b.add_phi_src(acc, blk, Src::val(a));
        b.add_phi_src(facc, blk, Src::val(fa));
    }
    b.end_loop();
    // Early returns under one or two ifs.
    let f = b.fadd(facc, Src::val(fv));
    for _ in 0..r.below(3) {
        let c = b.icmp(Cmp::Lt, false, acc, Src::imm(r.below(200) as u32));
        b.if_(c);
        if r.chance(50) {
            b.store_global(3, x, Src::val(acc));
            b.return_();
        } else {
            let c2 = b.fcmp(Cmp::Lt, f, Src::imm_f32(2.0));
            b.if_(c2);
            b.return_();
            b.end_if();
        }
        b.end_if();
    }
    b.store_global(3, x, Src::val(acc));
    let x2 = b.iadd(x, Src::imm(threads));
    b.store_global(3, x2, Src::val(f));
    b.finish()
}

/// A compute kernel keeping `n` vec4s live at once (the shape of `agx16-robusttest pressure N`):
/// a chain from a loaded vec4, `a_i = fract(a_{i-1} * k_i + c_i)` per component (multiply
/// then add: the model runs no `ffma` yet), then folded
/// last-made first, `s = fract(s * 1.7 + a_i)`, so every `a_i` lives until the fold reaches it.
/// Writes `s` to binding 1 (four words per thread); reads four words per thread of binding 0.
/// Above about 24 vec4s it cannot fit G16's 96 GPRs: a spilling workload for benchmarks.
pub fn pressure_program(n: u32) -> Function {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let base = b.alu(Op::IMul, Type::I32, [Src::val(x), Src::imm(4)]);
    let v = b.load_global(0, Src::val(base), Type::F32, 4);
    let fract = |b: &mut Builder, t: Value| {
        let fl = b.sfu(Sfu::Floor, t);
        let mut m = Src::val(fl);
        m.neg = true;
        b.fadd(t, m)
    };
    let mut prev: Vec<Value> = (0..4).map(|c| b.copy(Type::F32, Src::comp(v, c))).collect();
    let mut all = Vec::new();
    for i in 0..n {
        let k = 1.0 + i as f32 * 0.37;
        let a: Vec<Value> = (0..4)
            .map(|c| {
                let cst = [0.11, 0.07, 0.05, 0.03][c] * i as f32;
                let m = b.fmul(prev[c], Src::imm_f32(k));
                let t = b.fadd(m, Src::imm_f32(cst));
                fract(&mut b, t)
            })
            .collect();
        all.push(a.clone());
        prev = a;
    }
    let mut s = prev;
    for a in all.iter().rev().skip(1) {
        s = (0..4)
            .map(|c| {
                let m = b.fmul(s[c], Src::imm_f32(1.7));
                let t = b.fadd(m, a[c]);
                fract(&mut b, t)
            })
            .collect();
    }
    for (c, v) in s.into_iter().enumerate() {
        let idx = b.iadd(base, Src::imm(c as u32));
        b.store_global(1, idx, v);
    }
    b.finish()
}

//! Random well-typed GLSL ES 3.00 programs (scalars and vectors of float/int/uint/bool, the
//! operators, a set of built-ins, if/else, bounded loops with break/continue, local arrays with
//! dynamic indices) and their evaluation on the CPU.
//!
//! Floats are evaluated as f64 intervals that contain every result GLSL ES 3.00 §4.5.1 allows:
//! each rounding widens by one f32 ULP (correctly rounded +, -, * and conversions are within
//! half of one), division by 2.5 ULP, the built-ins by their stated or inherited bounds, and
//! every input or result within 2^-126 of zero may be flushed to zero. A decision the interval
//! leaves open (a compare of overlapping intervals, floor at an integer, a float → int
//! conversion across an integer) makes the thread's result undecided, and the test skips that
//! thread. Generated expressions avoid what GLSL leaves undefined or the model refuses: divisors
//! are made positive, shift amounts masked, % and / take non-negative integers, float → int
//! converts a clamped value, every float variable is clamped to ±1e4 when assigned (so no
//! product of the depth-limited expressions overflows and no NaN arises), transcendental
//! arguments are clamped to ranges with bounded error.

use agx16_compiler::testgen::Rng;
use std::collections::HashMap;
use std::fmt::Write;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Base {
    F,
    I,
    U,
    B,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Ty {
    pub base: Base,
    pub n: u8,
}

impl Ty {
    fn new(base: Base, n: u8) -> Ty {
        Ty { base, n }
    }
    pub fn name(self) -> String {
        let (s, v) = match self.base {
            Base::F => ("float", "vec"),
            Base::I => ("int", "ivec"),
            Base::U => ("uint", "uvec"),
            Base::B => ("bool", "bvec"),
        };
        if self.n == 1 {
            s.into()
        } else {
            format!("{v}{}", self.n)
        }
    }
}

/// One component of a value.
#[derive(Clone, Copy, Debug)]
pub enum S {
    /// A float: every result in [lo, hi] is acceptable.
    F(f64, f64),
    I(i32),
    U(u32),
    B(bool),
}

/// The thread's result depends on a decision the tolerances leave open.
#[derive(Debug)]
pub struct Undecided;

type R<T> = Result<T, Undecided>;

#[derive(Clone, Debug)]
pub enum E {
    Var(String),
    /// Element `index & (len - 1)` of a local array.
    Elem(String, u8, Box<E>),
    Float(f32),
    Int(i32),
    Uint(u32),
    Bool(bool),
    /// `op a` (GLSL prefix operator).
    Un(&'static str, Box<E>),
    /// `a op b` (GLSL infix operator).
    Bin(&'static str, Box<E>, Box<E>),
    /// A built-in or constructor call with its result type.
    Call(String, Vec<E>),
    /// `c ? a : b`
    Sel(Box<E>, Box<E>, Box<E>),
    /// Swizzle `.xyzw` letters.
    Swz(Box<E>, Vec<u8>),
    /// `v[i & mask]`
    Index(Box<E>, Box<E>, u8),
}

#[derive(Clone, Debug)]
pub enum St {
    Decl(Ty, String, E),
    Assign(String, E),
    ArrDecl(Ty, String, u8, Vec<E>),
    ArrStore(String, u8, E, E),
    If(E, Vec<St>, Vec<St>),
    /// `for (int k = 0; k < bound; k++) body`
    For(String, E, Vec<St>),
    /// `int k = 0; while (k < bound) { k++; body }`, or (true) `do { k++; body } while (k <
    /// bound);` (the increment first, so a continue cannot skip it).
    While(String, E, Vec<St>, bool),
    /// `name op= e` (integer variables).
    Compound(String, &'static str, E),
    /// `name++` (true) or `name--`.
    Incr(String, bool),
    Break,
    Continue,
}

pub struct Program {
    pub body: Vec<St>,
    /// Output variables, in order.
    pub outs: Vec<(String, Ty)>,
}

// ---------------------------------------------------------------- generation

struct Gen<'a> {
    r: &'a mut Rng,
    /// Visible variables per scope level (name, type, assignable).
    scopes: Vec<Vec<(String, Ty, bool)>>,
    arrays: Vec<Vec<(String, Ty, u8)>>,
    next: u32,
    loop_depth: u32,
    stmts: u32,
}

const INPUTS: [(&str, Base, u8); 6] = [
    ("fa", Base::F, 4),
    ("fb", Base::F, 1),
    ("ia", Base::I, 4),
    ("ib", Base::I, 1),
    ("ua", Base::U, 4),
    ("ub", Base::U, 1),
];

fn b(e: E) -> Box<E> {
    Box::new(e)
}

impl Gen<'_> {
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.r.below(xs.len() as u64) as usize]
    }

    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("v{}", self.next)
    }

    fn vars(&self, ty: Ty, assignable: bool) -> Vec<String> {
        self.scopes
            .iter()
            .flatten()
            .filter(|(_, t, a)| *t == ty && (*a || !assignable))
            .map(|(n, _, _)| n.clone())
            .collect()
    }

    fn vars_with_base(&self, base: Base, min_n: u8) -> Vec<(String, Ty)> {
        self.scopes
            .iter()
            .flatten()
            .filter(|(_, t, _)| t.base == base && t.n >= min_n)
            .map(|(n, t, _)| (n.clone(), *t))
            .collect()
    }

    fn constant(&mut self, base: Base) -> E {
        match base {
            Base::F => {
                let v = self.pick(&[
                    0.0f32, 1.0, -1.0, 0.5, 2.0, 3.0, -2.5, 0.25, 10.0, 0.1, -7.75,
                ]);
                E::Float(v)
            }
            Base::I => {
                E::Int(self.pick(&[0, 1, -1, 2, 3, 7, -5, 100, 0x7fff_ffff, i32::MIN, 12345]))
            }
            Base::U => E::Uint(self.pick(&[0u32, 1, 2, 3, 8, 255, 0xffff_ffff, 0x8000_0000, 77])),
            Base::B => E::Bool(self.r.chance(50)),
        }
    }

    /// An expression of type `ty`; `d` is the remaining depth.
    fn expr(&mut self, ty: Ty, d: u32) -> E {
        if d == 0 || self.r.chance(20) {
            return self.leaf(ty);
        }
        let d = d - 1;
        match ty.base {
            Base::F => self.float_expr(ty, d),
            Base::I | Base::U => self.int_expr(ty, d),
            Base::B => self.bool_expr(ty, d),
        }
    }

    fn leaf(&mut self, ty: Ty) -> E {
        let vs = self.vars(ty, false);
        if !vs.is_empty() && self.r.chance(70) {
            return E::Var(vs[self.r.below(vs.len() as u64) as usize].clone());
        }
        // An array element.
        if ty.n == 1 && self.r.chance(30) {
            let arrs: Vec<_> = self
                .arrays
                .iter()
                .flatten()
                .filter(|(_, t, _)| *t == ty)
                .cloned()
                .collect();
            if !arrs.is_empty() {
                let (name, _, len) = arrs[self.r.below(arrs.len() as u64) as usize].clone();
                let idx = self.index_expr();
                return E::Elem(name, len, b(idx));
            }
        }
        // A swizzle of a wider variable of the same base.
        let wider = self.vars_with_base(ty.base, ty.n.max(2));
        if !wider.is_empty() && self.r.chance(60) {
            let (name, t) = wider[self.r.below(wider.len() as u64) as usize].clone();
            if ty.n == 1 && self.r.chance(40) {
                let idx = self.index_expr();
                return E::Index(b(E::Var(name)), b(idx), if t.n == 4 { 3 } else { 1 });
            }
            let sw = (0..ty.n).map(|_| self.r.below(t.n as u64) as u8).collect();
            return E::Swz(b(E::Var(name)), sw);
        }
        if ty.n == 1 {
            self.constant(ty.base)
        } else {
            let args = (0..ty.n).map(|_| self.constant(ty.base)).collect();
            E::Call(ty.name(), args)
        }
    }

    /// An int expression used as an index (masked by the user).
    fn index_expr(&mut self) -> E {
        let ivars = self.vars(Ty::new(Base::I, 1), false);
        if !ivars.is_empty() && self.r.chance(70) {
            E::Var(ivars[self.r.below(ivars.len() as u64) as usize].clone())
        } else {
            E::Swz(b(E::Var("ia".into())), vec![self.r.below(4) as u8])
        }
    }

    fn float_expr(&mut self, ty: Ty, d: u32) -> E {
        let s1 = Ty::new(Base::F, 1);
        match self.r.below(16) {
            0..=2 => {
                let op = self.pick(&["+", "-", "*"]);
                let a = self.expr(ty, d);
                let bt = if ty.n > 1 && self.r.chance(30) {
                    s1
                } else {
                    ty
                };
                let bb = self.expr(bt, d);
                if self.r.chance(50) || bt != ty {
                    E::Bin(op, b(a), b(bb))
                } else {
                    E::Bin(op, b(bb), b(a))
                }
            }
            3 => {
                // a / (abs(b) + 1.0)
                let a = self.expr(ty, d);
                let den = self.expr(ty, d);
                E::Bin(
                    "/",
                    b(a),
                    b(E::Bin(
                        "+",
                        b(E::Call("abs".into(), vec![den])),
                        b(E::Float(1.0)),
                    )),
                )
            }
            4 => E::Un("-", b(self.expr(ty, d))),
            5 | 6 => {
                let f = self.pick(&[
                    "abs",
                    "floor",
                    "ceil",
                    "fract",
                    "trunc",
                    "round",
                    "roundEven",
                    "sign",
                    "sqrt",
                    "inversesqrt",
                    "exp2",
                    "log2",
                    "sin",
                    "cos",
                    "exp",
                    "log",
                    "pow",
                ]);
                let x = self.expr(ty, d);
                if f == "pow" {
                    // pow(|x| + 0.5, clamp(y, -3, 3)): defined (x > 0) and far from overflow.
                    let base = E::Bin("+", b(E::Call("abs".into(), vec![x])), b(E::Float(0.5)));
                    let y = self.expr(ty, d);
                    let y = E::Call("clamp".into(), vec![y, E::Float(-3.0), E::Float(3.0)]);
                    return E::Call("pow".into(), vec![base, y]);
                }
                let x = match f {
                    "sqrt" => E::Call("abs".into(), vec![x]),
                    "inversesqrt" | "log2" | "log" => {
                        E::Bin("+", b(E::Call("abs".into(), vec![x])), b(E::Float(1.0)))
                    }
                    "exp2" => E::Call("clamp".into(), vec![x, E::Float(-10.0), E::Float(10.0)]),
                    "exp" => E::Call("clamp".into(), vec![x, E::Float(-7.0), E::Float(7.0)]),
                    "sin" | "cos" => {
                        E::Call("clamp".into(), vec![x, E::Float(-16.0), E::Float(16.0)])
                    }
                    _ => x,
                };
                E::Call(f.into(), vec![x])
            }
            7 => {
                let f = self.pick(&["min", "max", "step", "mod"]);
                let a = self.expr(ty, d);
                let bt = if ty.n > 1 && f != "step" && self.r.chance(30) {
                    s1
                } else {
                    ty
                };
                let bb = self.expr(bt, d);
                if f == "mod" {
                    let den = E::Bin("+", b(E::Call("abs".into(), vec![bb])), b(E::Float(1.0)));
                    E::Call("mod".into(), vec![a, den])
                } else {
                    E::Call(f.into(), vec![a, bb])
                }
            }
            8 => {
                let f = self.pick(&["mix", "clamp", "smoothstep"]);
                match f {
                    "mix" => {
                        let t = Ty::new(Base::F, if self.r.chance(50) { 1 } else { ty.n });
                        E::Call(
                            "mix".into(),
                            vec![self.expr(ty, d), self.expr(ty, d), self.expr(t, d)],
                        )
                    }
                    "clamp" => {
                        let lo = self.pick(&[-1.0f32, 0.0, -5.5, 2.0]);
                        E::Call(
                            "clamp".into(),
                            vec![self.expr(ty, d), E::Float(lo), E::Float(lo + 3.25)],
                        )
                    }
                    _ => E::Call(
                        "smoothstep".into(),
                        vec![E::Float(-2.0), E::Float(3.0), self.expr(ty, d)],
                    ),
                }
            }
            9 if ty.n == 1 => {
                let n = self.pick(&[2u8, 3, 4]);
                let vt = Ty::new(Base::F, n);
                let f = self.pick(&["dot", "length", "distance"]);
                let a = self.expr(vt, d);
                if f == "length" {
                    E::Call(f.into(), vec![a])
                } else {
                    E::Call(f.into(), vec![a, self.expr(vt, d)])
                }
            }
            10 => {
                // Conversion from int/uint/bool.
                let base = self.pick(&[Base::I, Base::U, Base::B]);
                E::Call(ty.name(), vec![self.expr(Ty::new(base, ty.n), d)])
            }
            11 => {
                let c = self.expr(Ty::new(Base::B, 1), d);
                E::Sel(b(c), b(self.expr(ty, d)), b(self.expr(ty, d)))
            }
            12 if ty.n > 1 => {
                // A constructor from a scalar and a narrower vector.
                let first = self.expr(s1, d);
                let rest = self.expr(Ty::new(Base::F, ty.n - 1), d);
                E::Call(ty.name(), vec![first, rest])
            }
            _ => {
                let a = self.expr(ty, d);
                let bb = self.expr(ty, d);
                E::Bin(self.pick(&["+", "*"]), b(a), b(bb))
            }
        }
    }

    fn int_expr(&mut self, ty: Ty, d: u32) -> E {
        let signed = ty.base == Base::I;
        let one = |v: i32| if signed { E::Int(v) } else { E::Uint(v as u32) };
        let s1 = Ty::new(ty.base, 1);
        match self.r.below(14) {
            0..=2 => {
                let op = self.pick(&["+", "-", "*", "&", "|", "^"]);
                let bt = if ty.n > 1 && self.r.chance(30) {
                    s1
                } else {
                    ty
                };
                E::Bin(op, b(self.expr(ty, d)), b(self.expr(bt, d)))
            }
            3 => {
                // Non-negative dividend, divisor 1..8.
                let op = self.pick(&["/", "%"]);
                let a = self.expr(ty, d);
                let a = if signed {
                    E::Bin("&", b(a), b(E::Int(0x7fff_ffff)))
                } else {
                    a
                };
                let den = E::Bin(
                    "+",
                    b(E::Bin("&", b(self.expr(ty, d)), b(one(7)))),
                    b(one(1)),
                );
                E::Bin(op, b(a), b(den))
            }
            4 => {
                let op = self.pick(&["<<", ">>"]);
                let st = Ty::new(
                    self.pick(&[Base::I, Base::U]),
                    if self.r.chance(50) { 1 } else { ty.n },
                );
                let amt = self.expr(st, d);
                let mask = if st.base == Base::I {
                    E::Int(31)
                } else {
                    E::Uint(31)
                };
                E::Bin(op, b(self.expr(ty, d)), b(E::Bin("&", b(amt), b(mask))))
            }
            5 => {
                if signed {
                    E::Un(self.pick(&["-", "~"]), b(self.expr(ty, d)))
                } else {
                    E::Un("~", b(self.expr(ty, d)))
                }
            }
            6 => {
                let f = if signed {
                    self.pick(&["abs", "sign", "min", "max", "clamp"])
                } else {
                    self.pick(&["min", "max", "clamp"])
                };
                match f {
                    "abs" | "sign" => E::Call(f.into(), vec![self.expr(ty, d)]),
                    "clamp" => {
                        let lo = if signed {
                            self.pick(&[-50, 0, 3])
                        } else {
                            self.pick(&[0, 3, 1000])
                        };
                        E::Call(f.into(), vec![self.expr(ty, d), one(lo), one(lo + 77)])
                    }
                    _ => {
                        let bt = if ty.n > 1 && self.r.chance(30) {
                            s1
                        } else {
                            ty
                        };
                        E::Call(f.into(), vec![self.expr(ty, d), self.expr(bt, d)])
                    }
                }
            }
            7 => {
                // float → int/uint of a clamped (uint: non-negative) value.
                let x = self.expr(Ty::new(Base::F, ty.n), d);
                let x = E::Call("clamp".into(), vec![x, E::Float(-1e6), E::Float(1e6)]);
                let x = if signed {
                    x
                } else {
                    E::Call("abs".into(), vec![x])
                };
                E::Call(ty.name(), vec![x])
            }
            8 => {
                // From the other integer type (bit pattern) or bool.
                let base = if signed {
                    self.pick(&[Base::U, Base::B])
                } else {
                    self.pick(&[Base::I, Base::B])
                };
                E::Call(ty.name(), vec![self.expr(Ty::new(base, ty.n), d)])
            }
            9 => {
                let c = self.expr(Ty::new(Base::B, 1), d);
                E::Sel(b(c), b(self.expr(ty, d)), b(self.expr(ty, d)))
            }
            _ => {
                let op = self.pick(&["+", "-", "*"]);
                E::Bin(op, b(self.expr(ty, d)), b(self.expr(ty, d)))
            }
        }
    }

    fn bool_expr(&mut self, ty: Ty, d: u32) -> E {
        if ty.n > 1 {
            return match self.r.below(4) {
                0 => E::Call("not".into(), vec![self.expr(ty, d)]),
                1 => {
                    let base = self.pick(&[Base::I, Base::U, Base::F]);
                    E::Call(ty.name(), vec![self.expr(Ty::new(base, ty.n), d)])
                }
                _ => {
                    let f = self.pick(&[
                        "lessThan",
                        "lessThanEqual",
                        "greaterThan",
                        "greaterThanEqual",
                        "equal",
                        "notEqual",
                    ]);
                    let base = self.pick(&[Base::I, Base::U, Base::F]);
                    let t = Ty::new(base, ty.n);
                    E::Call(f.into(), vec![self.expr(t, d), self.expr(t, d)])
                }
            };
        }
        match self.r.below(8) {
            0..=2 => {
                let base = self.pick(&[Base::I, Base::U, Base::F]);
                let t = Ty::new(base, 1);
                let op = self.pick(&["<", "<=", ">", ">=", "==", "!="]);
                E::Bin(op, b(self.expr(t, d)), b(self.expr(t, d)))
            }
            3 => {
                let op = self.pick(&["&&", "||", "^^", "==", "!="]);
                E::Bin(op, b(self.expr(ty, d)), b(self.expr(ty, d)))
            }
            4 => E::Un("!", b(self.expr(ty, d))),
            5 => {
                let n = self.pick(&[2u8, 3, 4]);
                E::Call(
                    self.pick(&["any", "all"]).into(),
                    vec![self.expr(Ty::new(Base::B, n), d)],
                )
            }
            6 => {
                let base = self.pick(&[Base::I, Base::U, Base::F]);
                E::Call("bool".into(), vec![self.expr(Ty::new(base, 1), d)])
            }
            _ => {
                // Vector equality as a whole.
                let base = self.pick(&[Base::I, Base::U]);
                let t = Ty::new(base, self.pick(&[2u8, 3, 4]));
                E::Bin(
                    self.pick(&["==", "!="]),
                    b(self.expr(t, d)),
                    b(self.expr(t, d)),
                )
            }
        }
    }

    fn random_ty(&mut self) -> Ty {
        let base = self.pick(&[Base::F, Base::F, Base::I, Base::U, Base::B]);
        let n = self.pick(&[1u8, 1, 2, 3, 4]);
        Ty::new(base, n)
    }

    /// Float assignments are clamped to ±1e4 (see the module comment).
    fn bounded(ty: Ty, e: E) -> E {
        if ty.base == Base::F {
            E::Call("clamp".into(), vec![e, E::Float(-1e4), E::Float(1e4)])
        } else {
            e
        }
    }

    fn block(&mut self, n: u32, depth: u32, in_loop: Option<bool>) -> Vec<St> {
        self.scopes.push(vec![]);
        self.arrays.push(vec![]);
        let mut out = vec![];
        for _ in 0..n {
            if self.stmts > 40 {
                break;
            }
            self.stmts += 1;
            out.push(self.stmt(depth, in_loop));
        }
        self.scopes.pop();
        self.arrays.pop();
        out
    }

    /// `in_loop`: inside a loop, and whether that loop uses break (true) or continue (false):
    /// agx16 does not select a break after a continue in one loop (README), so a loop gets
    /// only one of the two.
    fn stmt(&mut self, depth: u32, in_loop: Option<bool>) -> St {
        let ed = 3;
        match self.r.below(15) {
            0..=2 => {
                let ty = self.random_ty();
                let name = self.fresh();
                let e = Self::bounded(ty, self.expr(ty, ed));
                self.scopes
                    .last_mut()
                    .unwrap()
                    .push((name.clone(), ty, true));
                St::Decl(ty, name, e)
            }
            3..=5 => {
                let all: Vec<(String, Ty)> = self
                    .scopes
                    .iter()
                    .flatten()
                    .filter(|(_, _, a)| *a)
                    .map(|(n, t, _)| (n.clone(), *t))
                    .collect();
                if all.is_empty() {
                    return self.stmt(depth, in_loop);
                }
                let (name, ty) = all[self.r.below(all.len() as u64) as usize].clone();
                let e = Self::bounded(ty, self.expr(ty, ed));
                St::Assign(name, e)
            }
            6 if depth > 0 => {
                let c = self.expr(Ty::new(Base::B, 1), ed);
                let k = 1 + self.r.below(3) as u32;
                let t = self.block(k, depth - 1, in_loop);
                let e = if self.r.chance(50) {
                    let k = 1 + self.r.below(2) as u32;
                    self.block(k, depth - 1, in_loop)
                } else {
                    vec![]
                };
                St::If(c, t, e)
            }
            7 if depth > 0 && self.loop_depth < 2 => {
                let k = self.fresh();
                let bound = if self.r.chance(50) {
                    E::Int(1 + self.r.below(4) as i32)
                } else {
                    let x = self.index_expr();
                    E::Bin("&", b(x), b(E::Int(3)))
                };
                self.loop_depth += 1;
                self.scopes
                    .push(vec![(k.clone(), Ty::new(Base::I, 1), false)]);
                let kind = Some(self.r.chance(50));
                let n = 1 + self.r.below(3) as u32;
                let body = self.block(n, depth - 1, kind);
                self.scopes.pop();
                self.loop_depth -= 1;
                St::For(k, bound, body)
            }
            8 => {
                let ty = Ty::new(self.pick(&[Base::F, Base::I]), 1);
                let len = self.pick(&[2u8, 4, 8]);
                let name = self.fresh();
                let init = (0..len)
                    .map(|_| Self::bounded(ty, self.expr(ty, 1)))
                    .collect();
                self.arrays
                    .last_mut()
                    .unwrap()
                    .push((name.clone(), ty, len));
                St::ArrDecl(ty, name, len, init)
            }
            9 => {
                let arrs: Vec<_> = self.arrays.iter().flatten().cloned().collect();
                if arrs.is_empty() {
                    return self.stmt(depth, in_loop);
                }
                let (name, ty, len) = arrs[self.r.below(arrs.len() as u64) as usize].clone();
                let idx = self.index_expr();
                let e = Self::bounded(ty, self.expr(ty, ed));
                St::ArrStore(name, len, idx, e)
            }
            12 | 13 => {
                let ints: Vec<(String, Ty)> = self
                    .scopes
                    .iter()
                    .flatten()
                    .filter(|(_, t, a)| *a && matches!(t.base, Base::I | Base::U))
                    .map(|(n, t, _)| (n.clone(), *t))
                    .collect();
                if ints.is_empty() {
                    return self.stmt(depth, in_loop);
                }
                let (name, ty) = ints[self.r.below(ints.len() as u64) as usize].clone();
                if ty.n == 1 && self.r.chance(40) {
                    return St::Incr(name, self.r.chance(50));
                }
                let op = self.pick(&["+", "-", "*", "&", "|", "^", "<<", ">>"]);
                let rt = if ty.n > 1 && self.r.chance(30) {
                    Ty::new(ty.base, 1)
                } else {
                    ty
                };
                let e = self.expr(rt, 2);
                let e = if op == "<<" || op == ">>" {
                    let mask = if ty.base == Base::I {
                        E::Int(31)
                    } else {
                        E::Uint(31)
                    };
                    E::Bin("&", b(e), b(mask))
                } else {
                    e
                };
                St::Compound(name, op, e)
            }
            14 if depth > 0 && self.loop_depth < 2 => {
                let k = self.fresh();
                let bound = if self.r.chance(50) {
                    E::Int(1 + self.r.below(4) as i32)
                } else {
                    let x = self.index_expr();
                    E::Bin("&", b(x), b(E::Int(3)))
                };
                // A do-while's condition is a break at the end of the body, which agx16
                // does not select after a continue (README): its bodies only break.
                let do_while = self.r.chance(50);
                self.loop_depth += 1;
                self.scopes
                    .push(vec![(k.clone(), Ty::new(Base::I, 1), false)]);
                let kind = Some(do_while || self.r.chance(50));
                let n = 1 + self.r.below(3) as u32;
                let body = self.block(n, depth - 1, kind);
                self.scopes.pop();
                self.loop_depth -= 1;
                St::While(k, bound, body, do_while)
            }
            10 if in_loop.is_some() => {
                let c = self.expr(Ty::new(Base::B, 1), 2);
                let jump = if in_loop == Some(true) {
                    St::Break
                } else {
                    St::Continue
                };
                St::If(c, vec![jump], vec![])
            }
            _ => {
                let ty = self.random_ty();
                let name = self.fresh();
                let e = Self::bounded(ty, self.expr(ty, ed));
                self.scopes
                    .last_mut()
                    .unwrap()
                    .push((name.clone(), ty, true));
                St::Decl(ty, name, e)
            }
        }
    }
}

pub fn generate(seed: u64) -> Program {
    let mut r = Rng::new(seed);
    let mut g = Gen {
        r: &mut r,
        scopes: vec![INPUTS
            .iter()
            .map(|(n, b, k)| (n.to_string(), Ty::new(*b, *k), false))
            .collect()],
        arrays: vec![vec![]],
        next: 0,
        loop_depth: 0,
        stmts: 0,
    };
    let mut body = vec![];
    let n = 3 + g.r.below(6) as u32;
    for _ in 0..n {
        g.stmts += 1;
        body.push(g.stmt(2, None));
    }
    let outs = g.scopes[0]
        .iter()
        .skip(INPUTS.len())
        .map(|(n, t, _)| (n.clone(), *t))
        .collect();
    Program { body, outs }
}

// ---------------------------------------------------------------- printing

fn fmt_f(v: f32) -> String {
    let s = format!("{v:?}");
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}

pub fn print_e(e: &E, o: &mut String) {
    match e {
        E::Var(n) => o.push_str(n),
        E::Elem(n, len, i) => {
            write!(o, "{n}[(").unwrap();
            print_e(i, o);
            write!(o, ") & {}]", len - 1).unwrap();
        }
        E::Float(v) => o.push_str(&fmt_f(*v)),
        E::Int(v) if *v == i32::MIN => o.push_str("(-2147483647 - 1)"),
        E::Int(v) => write!(o, "{v}").unwrap(),
        E::Uint(v) => write!(o, "{v}u").unwrap(),
        E::Bool(v) => write!(o, "{v}").unwrap(),
        E::Un(op, a) => {
            write!(o, "{op}(").unwrap();
            print_e(a, o);
            o.push(')');
        }
        E::Bin(op, a, c) => {
            o.push('(');
            print_e(a, o);
            write!(o, " {op} ").unwrap();
            print_e(c, o);
            o.push(')');
        }
        E::Call(f, args) => {
            write!(o, "{f}(").unwrap();
            for (k, a) in args.iter().enumerate() {
                if k > 0 {
                    o.push_str(", ");
                }
                print_e(a, o);
            }
            o.push(')');
        }
        E::Sel(c, a, d) => {
            o.push('(');
            print_e(c, o);
            o.push_str(" ? ");
            print_e(a, o);
            o.push_str(" : ");
            print_e(d, o);
            o.push(')');
        }
        E::Swz(a, sw) => {
            o.push('(');
            print_e(a, o);
            o.push_str(").");
            for &c in sw {
                o.push(b"xyzw"[c as usize] as char);
            }
        }
        E::Index(a, i, mask) => {
            o.push('(');
            print_e(a, o);
            o.push_str(")[(");
            print_e(i, o);
            write!(o, ") & {mask}]").unwrap();
        }
    }
}

fn print_block(body: &[St], ind: usize, o: &mut String) {
    let pad = "    ".repeat(ind);
    for s in body {
        o.push_str(&pad);
        match s {
            St::Decl(t, n, e) => {
                write!(o, "{} {n} = ", t.name()).unwrap();
                print_e(e, o);
                o.push_str(";\n");
            }
            St::Assign(n, e) => {
                write!(o, "{n} = ").unwrap();
                print_e(e, o);
                o.push_str(";\n");
            }
            St::ArrDecl(t, n, len, init) => {
                write!(o, "{} {n}[{len}] = {}[{len}](", t.name(), t.name()).unwrap();
                for (k, e) in init.iter().enumerate() {
                    if k > 0 {
                        o.push_str(", ");
                    }
                    print_e(e, o);
                }
                o.push_str(");\n");
            }
            St::ArrStore(n, len, i, e) => {
                write!(o, "{n}[(").unwrap();
                print_e(i, o);
                write!(o, ") & {}] = ", len - 1).unwrap();
                print_e(e, o);
                o.push_str(";\n");
            }
            St::If(c, t, e) => {
                o.push_str("if (");
                print_e(c, o);
                o.push_str(") {\n");
                print_block(t, ind + 1, o);
                if e.is_empty() {
                    writeln!(o, "{pad}}}").unwrap();
                } else {
                    writeln!(o, "{pad}}} else {{").unwrap();
                    print_block(e, ind + 1, o);
                    writeln!(o, "{pad}}}").unwrap();
                }
            }
            St::For(k, bound, body) => {
                write!(o, "for (int {k} = 0; {k} < ").unwrap();
                print_e(bound, o);
                writeln!(o, "; {k}++) {{").unwrap();
                print_block(body, ind + 1, o);
                writeln!(o, "{pad}}}").unwrap();
            }
            St::While(k, bound, body, do_while) => {
                writeln!(o, "int {k} = 0;").unwrap();
                let inner = "    ".repeat(ind + 1);
                if *do_while {
                    writeln!(o, "{pad}do {{").unwrap();
                } else {
                    write!(o, "{pad}while ({k} < ").unwrap();
                    print_e(bound, o);
                    writeln!(o, ") {{").unwrap();
                }
                writeln!(o, "{inner}{k}++;").unwrap();
                print_block(body, ind + 1, o);
                if *do_while {
                    write!(o, "{pad}}} while ({k} < ").unwrap();
                    print_e(bound, o);
                    o.push_str(");\n");
                } else {
                    writeln!(o, "{pad}}}").unwrap();
                }
            }
            St::Compound(n, op, e) => {
                write!(o, "{n} {op}= ").unwrap();
                print_e(e, o);
                o.push_str(";\n");
            }
            St::Incr(n, up) => {
                writeln!(o, "{n}{};", if *up { "++" } else { "--" }).unwrap();
            }
            St::Break => o.push_str("break;\n"),
            St::Continue => o.push_str("continue;\n"),
        }
    }
}

/// Output words per thread.
pub fn out_words(p: &Program) -> usize {
    p.outs
        .iter()
        .map(|(_, t)| t.n as usize)
        .sum::<usize>()
        .max(1)
}

pub fn source(p: &Program) -> String {
    let mut o = String::from(
        "#version 310 es\n\
         layout(local_size_x = 32) in;\n\
         layout(std430, binding = 0) readonly buffer F { float f[]; };\n\
         layout(std430, binding = 1) readonly buffer I { int n[]; };\n\
         layout(std430, binding = 2) readonly buffer U { uint u[]; };\n\
         layout(std430, binding = 3) writeonly buffer Out { uint r[]; };\n\
         void main() {\n    uint i = gl_GlobalInvocationID.x;\n\
         \x20   vec4 fa = vec4(f[5u * i], f[5u * i + 1u], f[5u * i + 2u], f[5u * i + 3u]);\n\
         \x20   float fb = f[5u * i + 4u];\n\
         \x20   ivec4 ia = ivec4(n[5u * i], n[5u * i + 1u], n[5u * i + 2u], n[5u * i + 3u]);\n\
         \x20   int ib = n[5u * i + 4u];\n\
         \x20   uvec4 ua = uvec4(u[5u * i], u[5u * i + 1u], u[5u * i + 2u], u[5u * i + 3u]);\n\
         \x20   uint ub = u[5u * i + 4u];\n",
    );
    print_block(&p.body, 1, &mut o);
    let m = out_words(p);
    let mut w = 0;
    for (n, t) in &p.outs {
        for c in 0..t.n {
            let comp = if t.n == 1 {
                n.clone()
            } else {
                format!("{n}.{}", b"xyzw"[c as usize] as char)
            };
            let v = match t.base {
                Base::F => format!("floatBitsToUint({comp})"),
                Base::I => format!("uint({comp})"),
                Base::U => comp,
                Base::B => format!("uint({comp})"),
            };
            writeln!(o, "    r[{m}u * i + {w}u] = {v};").unwrap();
            w += 1;
        }
    }
    if w == 0 {
        writeln!(o, "    r[i] = 0u;").unwrap();
    }
    o.push_str("}\n");
    o
}

// ---------------------------------------------------------------- evaluation

const TINY: f64 = 1.1754943508222875e-38; // 2^-126

/// One f32 ULP at magnitude |x| (normal range; 2^-149 below).
fn ulp(x: f64) -> f64 {
    let a = x.abs();
    if a < TINY {
        return f64::powi(2.0, -149);
    }
    f64::powi(2.0, a.log2().floor() as i32 - 23)
}

/// Widen by `ulps` f32 ULPs each side and by possible flushing to zero.
fn widen(lo: f64, hi: f64, ulps: f64) -> S {
    let (lo, hi) = (lo - ulps * ulp(lo), hi + ulps * ulp(hi));
    ftz(lo, hi)
}

/// An interval that reaches within 2^-126 of zero may also hold the flushed zero.
fn ftz(lo: f64, hi: f64) -> S {
    if lo < TINY && hi > -TINY {
        S::F(lo.min(0.0), hi.max(0.0))
    } else {
        S::F(lo, hi)
    }
}

fn fl(s: S) -> (f64, f64) {
    match s {
        S::F(lo, hi) => match ftz(lo, hi) {
            S::F(a, b) => (a, b),
            _ => unreachable!(),
        },
        _ => panic!("not a float: {s:?}"),
    }
}

fn exact(v: f64) -> S {
    S::F(v, v)
}

/// Each add may be off by two ULPs of its largest operand rather than half an ULP of its
/// result: without `precise` (not in ES 3.00) Mesa reassociates chains of inexact adds (e.g.
/// `(x + y) + k` into `(x + k) + y`), which rounds at the operands' magnitude.
fn add(a: S, c: S) -> S {
    let ((a0, a1), (b0, b1)) = (fl(a), fl(c));
    let big = a0.abs().max(a1.abs()).max(b0.abs()).max(b1.abs());
    let e = 2.0 * ulp(big);
    widen(a0 + b0 - e, a1 + b1 + e, 1.0)
}
fn neg(a: S) -> S {
    let (a0, a1) = fl(a);
    S::F(-a1, -a0)
}
fn sub(a: S, c: S) -> S {
    add(a, neg(c))
}
fn mul(a: S, c: S) -> S {
    let ((a0, a1), (b0, b1)) = (fl(a), fl(c));
    let p = [a0 * b0, a0 * b1, a1 * b0, a1 * b1];
    let lo = p.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = p.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    widen(lo, hi, 1.0)
}
/// `a / d` with d > 0 (the generator's divisors are abs(x) + 1).
fn div(a: S, d: S) -> S {
    let ((a0, a1), (d0, d1)) = (fl(a), fl(d));
    assert!(d0 > 0.0, "divisor interval {d0} {d1}");
    let q = [a0 / d0, a0 / d1, a1 / d0, a1 / d1];
    let lo = q.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = q.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    widen(lo, hi, 2.5)
}
/// A non-decreasing function with `ulps` error and `abs` absolute error.
fn mono(a: S, f: impl Fn(f64) -> f64, ulps: f64, abs: f64) -> S {
    let (a0, a1) = fl(a);
    let (lo, hi) = (f(a0), f(a1));
    let (lo, hi) = (lo - abs, hi + abs);
    widen(lo, hi, ulps)
}
/// A piecewise-constant function (floor and friends): decided only if both ends agree.
fn step_fn(a: S, f: impl Fn(f64) -> f64) -> R<S> {
    let (a0, a1) = fl(a);
    let (x, y) = (f(a0), f(a1));
    if x == y {
        Ok(exact(x))
    } else {
        Err(Undecided)
    }
}
fn fmin(a: S, c: S) -> S {
    let ((a0, a1), (b0, b1)) = (fl(a), fl(c));
    S::F(a0.min(b0), a1.min(b1))
}
fn fmax(a: S, c: S) -> S {
    let ((a0, a1), (b0, b1)) = (fl(a), fl(c));
    S::F(a0.max(b0), a1.max(b1))
}
/// a < c (decided or not).
fn flt(a: S, c: S) -> R<bool> {
    let ((a0, a1), (b0, b1)) = (fl(a), fl(c));
    if a1 < b0 {
        Ok(true)
    } else if a0 >= b1 {
        Ok(false)
    } else {
        Err(Undecided)
    }
}
fn feq(a: S, c: S) -> R<bool> {
    let ((a0, a1), (b0, b1)) = (fl(a), fl(c));
    if a0 == a1 && b0 == b1 && a0 == b0 {
        Ok(true)
    } else if a1 < b0 || b1 < a0 {
        Ok(false)
    } else {
        Err(Undecided)
    }
}

/// The f32 nearest to `v` (conversions from integers are correctly rounded).
fn to_f32(v: f64) -> S {
    exact(v as f32 as f64)
}

pub type Val = Vec<S>;

pub struct Env {
    vars: HashMap<String, Val>,
    arrays: HashMap<String, Vec<S>>,
}

enum Flow {
    Normal,
    Break,
    Continue,
}

fn splat(v: Val, n: usize) -> Val {
    if v.len() == 1 && n > 1 {
        vec![v[0]; n]
    } else {
        v
    }
}

fn int_of(s: S) -> i32 {
    match s {
        S::I(v) => v,
        S::U(v) => v as i32,
        _ => panic!("not an integer: {s:?}"),
    }
}

impl Env {
    pub fn new(fa: [f32; 5], ia: [i32; 5], ua: [u32; 5]) -> Env {
        let f = |v: f32| exact(v as f64);
        let mut vars = HashMap::new();
        vars.insert("fa".into(), fa[..4].iter().map(|&v| f(v)).collect());
        vars.insert("fb".into(), vec![f(fa[4])]);
        vars.insert("ia".into(), ia[..4].iter().map(|&v| S::I(v)).collect());
        vars.insert("ib".into(), vec![S::I(ia[4])]);
        vars.insert("ua".into(), ua[..4].iter().map(|&v| S::U(v)).collect());
        vars.insert("ub".into(), vec![S::U(ua[4])]);
        Env {
            vars,
            arrays: HashMap::new(),
        }
    }

    pub fn run(&mut self, p: &Program) -> R<Vec<S>> {
        self.block(&p.body)?;
        let mut out = vec![];
        for (n, _) in &p.outs {
            out.extend(self.vars[n].iter().cloned());
        }
        Ok(out)
    }

    fn block(&mut self, body: &[St]) -> R<Flow> {
        for s in body {
            match s {
                St::Decl(_, n, e) | St::Assign(n, e) => {
                    let v = self.eval(e)?;
                    self.vars.insert(n.clone(), v);
                }
                St::ArrDecl(_, n, _, init) => {
                    let mut v = vec![];
                    for e in init {
                        v.push(self.eval(e)?[0]);
                    }
                    self.arrays.insert(n.clone(), v);
                }
                St::ArrStore(n, len, i, e) => {
                    let i = int_of(self.eval(i)?[0]) & (*len as i32 - 1);
                    let v = self.eval(e)?[0];
                    self.arrays.get_mut(n).unwrap()[i as usize] = v;
                }
                St::If(c, t, e) => {
                    let c = matches!(self.eval(c)?[0], S::B(true));
                    let f = self.block(if c { t } else { e })?;
                    if !matches!(f, Flow::Normal) {
                        return Ok(f);
                    }
                }
                St::For(k, bound, body) => {
                    let mut i = 0i32;
                    loop {
                        self.vars.insert(k.clone(), vec![S::I(i)]);
                        let n = int_of(self.eval(bound)?[0]);
                        if i >= n {
                            break;
                        }
                        match self.block(body)? {
                            Flow::Break => break,
                            Flow::Normal | Flow::Continue => {}
                        }
                        i += 1;
                    }
                }
                St::While(k, bound, body, do_while) => {
                    let mut i = 0i32;
                    self.vars.insert(k.clone(), vec![S::I(i)]);
                    loop {
                        if !do_while && i >= int_of(self.eval(bound)?[0]) {
                            break;
                        }
                        i += 1;
                        self.vars.insert(k.clone(), vec![S::I(i)]);
                        if let Flow::Break = self.block(body)? {
                            break;
                        }
                        if *do_while && i >= int_of(self.eval(bound)?[0]) {
                            break;
                        }
                    }
                }
                St::Compound(n, op, e) => {
                    let v = self.eval(e)?;
                    let cur = self.vars[n].clone();
                    let r = self.bin(op, cur, v)?;
                    self.vars.insert(n.clone(), r);
                }
                St::Incr(n, up) => {
                    let one = match self.vars[n][0] {
                        S::I(_) => vec![S::I(1)],
                        _ => vec![S::U(1)],
                    };
                    let cur = self.vars[n].clone();
                    let r = self.bin(if *up { "+" } else { "-" }, cur, one)?;
                    self.vars.insert(n.clone(), r);
                }
                St::Break => return Ok(Flow::Break),
                St::Continue => return Ok(Flow::Continue),
            }
        }
        Ok(Flow::Normal)
    }

    fn eval(&mut self, e: &E) -> R<Val> {
        Ok(match e {
            E::Var(n) => self.vars[n].clone(),
            E::Elem(n, len, i) => {
                let i = int_of(self.eval(i)?[0]) & (*len as i32 - 1);
                vec![self.arrays[n][i as usize]]
            }
            E::Float(v) => vec![exact(*v as f64)],
            E::Int(v) => vec![S::I(*v)],
            E::Uint(v) => vec![S::U(*v)],
            E::Bool(v) => vec![S::B(*v)],
            E::Un(op, a) => {
                let a = self.eval(a)?;
                a.into_iter()
                    .map(|s| match (*op, s) {
                        ("-", S::F(..)) => neg(s),
                        ("-", S::I(v)) => S::I(v.wrapping_neg()),
                        ("~", S::I(v)) => S::I(!v),
                        ("~", S::U(v)) => S::U(!v),
                        ("!", S::B(v)) => S::B(!v),
                        _ => panic!("unary {op} {s:?}"),
                    })
                    .collect()
            }
            E::Bin(op, a, c) => {
                let (a, c) = (self.eval(a)?, self.eval(c)?);
                self.bin(op, a, c)?
            }
            E::Sel(c, a, d) => {
                if matches!(self.eval(c)?[0], S::B(true)) {
                    self.eval(a)?
                } else {
                    self.eval(d)?
                }
            }
            E::Swz(a, sw) => {
                let a = self.eval(a)?;
                sw.iter().map(|&k| a[k as usize]).collect()
            }
            E::Index(a, i, mask) => {
                let a = self.eval(a)?;
                let i = int_of(self.eval(i)?[0]) & *mask as i32;
                vec![a[i as usize]]
            }
            E::Call(f, args) => {
                let mut vs = vec![];
                for a in args {
                    vs.push(self.eval(a)?);
                }
                self.call(f, vs)?
            }
        })
    }

    fn bin(&self, op: &str, a: Val, c: Val) -> R<Val> {
        // Whole-vector equality.
        if (op == "==" || op == "!=") && a.len() > 1 {
            let mut all = true;
            for (x, y) in a.iter().zip(&c) {
                let e = match (x, y) {
                    (S::I(p), S::I(q)) => p == q,
                    (S::U(p), S::U(q)) => p == q,
                    _ => panic!("vector == on {x:?}"),
                };
                all &= e;
            }
            return Ok(vec![S::B(if op == "==" { all } else { !all })]);
        }
        let n = a.len().max(c.len());
        let (a, c) = (splat(a, n), splat(c, n));
        let mut out = vec![];
        for (x, y) in a.into_iter().zip(c) {
            out.push(match (x, y) {
                (S::F(..), S::F(..)) => match op {
                    "+" => add(x, y),
                    "-" => sub(x, y),
                    "*" => mul(x, y),
                    "/" => div(x, y),
                    "<" => S::B(flt(x, y)?),
                    ">" => S::B(flt(y, x)?),
                    "<=" => S::B(!flt(y, x)?),
                    ">=" => S::B(!flt(x, y)?),
                    "==" => S::B(feq(x, y)?),
                    "!=" => S::B(!feq(x, y)?),
                    _ => panic!("float {op}"),
                },
                (S::I(p), S::I(q)) => match op {
                    "<" => S::B(p < q),
                    ">" => S::B(p > q),
                    "<=" => S::B(p <= q),
                    ">=" => S::B(p >= q),
                    "==" => S::B(p == q),
                    "!=" => S::B(p != q),
                    _ => S::I(int_op(op, p as u32, q as u32, true) as i32),
                },
                (S::U(p), S::U(q)) => match op {
                    "<" => S::B(p < q),
                    ">" => S::B(p > q),
                    "<=" => S::B(p <= q),
                    ">=" => S::B(p >= q),
                    "==" => S::B(p == q),
                    "!=" => S::B(p != q),
                    _ => S::U(int_op(op, p, q, false)),
                },
                // Shifts may take the other integer type as the amount.
                (S::I(p), S::U(q)) => S::I(int_op(op, p as u32, q, true) as i32),
                (S::U(p), S::I(q)) => S::U(int_op(op, p, q as u32, false)),
                (S::B(p), S::B(q)) => S::B(match op {
                    "&&" => p && q,
                    "||" => p || q,
                    "^^" | "!=" => p != q,
                    "==" => p == q,
                    _ => panic!("bool {op}"),
                }),
                _ => panic!("{op} on {x:?} {y:?}"),
            });
        }
        Ok(out)
    }

    fn call(&self, f: &str, a: Vec<Val>) -> R<Val> {
        let n = a.iter().map(|v| v.len()).max().unwrap_or(1);
        // Constructors.
        let ctor = |base: Base| -> R<Val> {
            let flat: Vec<S> = a.iter().flatten().cloned().collect();
            let want = match f.chars().last().unwrap().to_digit(10) {
                Some(d) if f.contains("vec") => d as usize,
                _ => 1,
            };
            let flat = if flat.len() == 1 {
                vec![flat[0]; want]
            } else {
                flat
            };
            flat.into_iter().map(|s| convert(s, base)).collect()
        };
        match f {
            "float" | "vec2" | "vec3" | "vec4" => return ctor(Base::F),
            "int" | "ivec2" | "ivec3" | "ivec4" => return ctor(Base::I),
            "uint" | "uvec2" | "uvec3" | "uvec4" => return ctor(Base::U),
            "bool" | "bvec2" | "bvec3" | "bvec4" => return ctor(Base::B),
            "dot" | "length" | "distance" => {
                let v = if f == "distance" {
                    a[0].iter().zip(&a[1]).map(|(x, y)| sub(*x, *y)).collect()
                } else {
                    a[0].clone()
                };
                let w = if f == "dot" { a[1].clone() } else { v.clone() };
                let mut acc = mul(v[0], w[0]);
                for k in 1..v.len() {
                    acc = add(acc, mul(v[k], w[k]));
                }
                return Ok(vec![if f == "dot" { acc } else { sqrt(acc) }]);
            }
            "any" | "all" => {
                let bs: Vec<bool> = a[0].iter().map(|s| matches!(s, S::B(true))).collect();
                return Ok(vec![S::B(if f == "any" {
                    bs.iter().any(|&x| x)
                } else {
                    bs.iter().all(|&x| x)
                })]);
            }
            "lessThan" | "lessThanEqual" | "greaterThan" | "greaterThanEqual" | "equal"
            | "notEqual" => {
                let op = match f {
                    "lessThan" => "<",
                    "lessThanEqual" => "<=",
                    "greaterThan" => ">",
                    "greaterThanEqual" => ">=",
                    "equal" => "==",
                    _ => "!=",
                };
                let mut out = vec![];
                for (x, y) in a[0].iter().zip(&a[1]) {
                    out.extend(self.bin(op, vec![*x], vec![*y])?);
                }
                return Ok(out);
            }
            _ => {}
        }
        let a: Vec<Val> = a.into_iter().map(|v| splat(v, n)).collect();
        let mut out = vec![];
        for (k, &x) in a[0].iter().enumerate() {
            let arg = |j: usize| a[j][k];
            out.push(match (f, x) {
                ("abs", S::F(..)) => {
                    let (l, h) = fl(x);
                    if l >= 0.0 {
                        S::F(l, h)
                    } else if h <= 0.0 {
                        S::F(-h, -l)
                    } else {
                        S::F(0.0, h.max(-l))
                    }
                }
                ("abs", S::I(v)) => S::I(v.wrapping_abs()),
                ("sign", S::F(..)) => {
                    let (l, h) = fl(x);
                    if l > 0.0 {
                        exact(1.0)
                    } else if h < 0.0 {
                        exact(-1.0)
                    } else if l == 0.0 && h == 0.0 {
                        exact(0.0)
                    } else {
                        return Err(Undecided);
                    }
                }
                ("sign", S::I(v)) => S::I(v.signum()),
                ("floor", _) => step_fn(x, f64::floor)?,
                ("ceil", _) => step_fn(x, f64::ceil)?,
                ("trunc", _) => step_fn(x, f64::trunc)?,
                ("round" | "roundEven", _) => {
                    // Halfway cases either way for round: only decided away from them.
                    let (l, h) = fl(x);
                    let (p, q) = (l.round_ties_even(), h.round_ties_even());
                    let half = |v: f64| (v - v.trunc()).abs() == 0.5;
                    if p != q || (f == "round" && (half(l) || half(h))) {
                        return Err(Undecided);
                    }
                    exact(p)
                }
                ("fract", _) => {
                    let fl_ = step_fn(x, f64::floor)?;
                    sub(x, fl_)
                }
                ("sqrt", _) => sqrt(x),
                // inversesqrt: 2 ULP.
                ("inversesqrt", _) => {
                    let (l, h) = fl(x);
                    widen(1.0 / h.sqrt(), 1.0 / l.sqrt(), 2.0)
                }
                // exp2: (3 + 2|x|) ULP.
                ("exp2", _) => exp2_iv(x),
                // exp: (3 + 2|x|) ULP.
                ("exp", _) => {
                    let (l, h) = fl(x);
                    let u = 3.0 + 2.0 * l.abs().max(h.abs());
                    widen(l.exp(), h.exp(), u)
                }
                ("log2", _) => log2_iv(x),
                // log: as log2.
                ("log", _) => mono(x, f64::ln, 3.0, f64::powi(2.0, -21)),
                // pow(x, y) inherits exp2(y * log2(x)).
                ("pow", _) => exp2_iv(mul(arg(1), log2_iv(x))),
                // Trigonometry: precision undefined in GLSL ES 3.00; the corpus's 2^-11 absolute.
                ("sin" | "cos", _) => {
                    let (l, h) = fl(x);
                    let g = if f == "sin" { f64::sin } else { f64::cos };
                    let (m, r) = ((l + h) / 2.0, (h - l) / 2.0);
                    let c = g(m);
                    let e = r + f64::powi(2.0, -11);
                    S::F((c - e).max(-1.0), (c + e).min(1.0))
                }
                ("min", S::F(..)) => fmin(x, arg(1)),
                ("max", S::F(..)) => fmax(x, arg(1)),
                ("min", S::I(p)) => S::I(p.min(int_of(arg(1)))),
                ("max", S::I(p)) => S::I(p.max(int_of(arg(1)))),
                ("min", S::U(p)) => S::U(p.min(int_of(arg(1)) as u32)),
                ("max", S::U(p)) => S::U(p.max(int_of(arg(1)) as u32)),
                ("clamp", S::F(..)) => fmin(fmax(x, arg(1)), arg(2)),
                ("clamp", S::I(p)) => S::I(p.max(int_of(arg(1))).min(int_of(arg(2)))),
                ("clamp", S::U(p)) => S::U(p.max(int_of(arg(1)) as u32).min(int_of(arg(2)) as u32)),
                // step(edge, x) = x < edge ? 0 : 1
                ("step", _) => exact(if flt(arg(1), x)? { 0.0 } else { 1.0 }),
                // mod(x, y) = x - y * floor(x / y)
                ("mod", _) => {
                    let q = step_fn(div(x, arg(1)), f64::floor)?;
                    sub(x, mul(arg(1), q))
                }
                // mix(x, y, a) = x * (1 - a) + y * a
                // (Mesa's nir_lower_flrp may also compute x + a * (y - x), whose rounding
                // differs when x and y are far apart: either is accepted.)
                ("mix", _) => {
                    let t = arg(2);
                    let p = add(mul(x, sub(exact(1.0), t)), mul(arg(1), t));
                    let q = add(x, mul(t, sub(arg(1), x)));
                    let ((p0, p1), (q0, q1)) = (fl(p), fl(q));
                    S::F(p0.min(q0), p1.max(q1))
                }
                // smoothstep(e0, e1, x): t = clamp((x - e0) / (e1 - e0), 0, 1); t * t * (3 - 2t)
                ("smoothstep", _) => {
                    let t = div(sub(arg(2), x), sub(arg(1), x));
                    let t = fmin(fmax(t, exact(0.0)), exact(1.0));
                    mul(mul(t, t), sub(exact(3.0), mul(exact(2.0), t)))
                }
                ("not", S::B(v)) => S::B(!v),
                _ => panic!("call {f} on {x:?}"),
            });
        }
        Ok(out)
    }
}

/// exp2: (3 + 2|x|) ULP.
fn exp2_iv(x: S) -> S {
    let (l, h) = fl(x);
    let u = 3.0 + 2.0 * l.abs().max(h.abs());
    widen(l.exp2(), h.exp2(), u)
}

/// log2: 3 ULP outside [0.5, 2], absolute 2^-21 inside (both applied everywhere).
fn log2_iv(x: S) -> S {
    mono(x, f64::log2, 3.0, f64::powi(2.0, -21))
}

/// sqrt inherits 1/inversesqrt: 2 ULP and 2.5 ULP, rounded up to 5.
fn sqrt(x: S) -> S {
    let (l, h) = fl(x);
    widen(l.max(0.0).sqrt(), h.max(0.0).sqrt(), 5.0)
}

fn int_op(op: &str, p: u32, q: u32, signed: bool) -> u32 {
    match op {
        "+" => p.wrapping_add(q),
        "-" => p.wrapping_sub(q),
        "*" => p.wrapping_mul(q),
        "&" => p & q,
        "|" => p | q,
        "^" => p ^ q,
        // Operands are non-negative and divisors positive (generator).
        "/" => p / q,
        "%" => p % q,
        "<<" => p << (q & 31),
        ">>" if signed => ((p as i32) >> (q & 31)) as u32,
        ">>" => p >> (q & 31),
        _ => panic!("integer {op}"),
    }
}

fn convert(s: S, base: Base) -> R<S> {
    Ok(match (s, base) {
        (S::F(..), Base::F) | (S::I(_), Base::I) | (S::U(_), Base::U) | (S::B(_), Base::B) => s,
        (S::I(v), Base::F) => to_f32(v as f64),
        (S::U(v), Base::F) => to_f32(v as f64),
        (S::B(v), Base::F) => exact(v as u8 as f64),
        (S::F(..), Base::I) => S::I(step_fn(s, f64::trunc).map(|t| match t {
            S::F(v, _) => v as i32,
            _ => unreachable!(),
        })?),
        (S::F(..), Base::U) => S::U(step_fn(s, f64::trunc).map(|t| match t {
            S::F(v, _) => v as u32,
            _ => unreachable!(),
        })?),
        (S::U(v), Base::I) => S::I(v as i32),
        (S::I(v), Base::U) => S::U(v as u32),
        (S::B(v), Base::I) => S::I(v as i32),
        (S::B(v), Base::U) => S::U(v as u32),
        (S::F(..), Base::B) => S::B(!feq(s, exact(0.0))?),
        (S::I(v), Base::B) => S::B(v != 0),
        (S::U(v), Base::B) => S::B(v != 0),
    })
}

/// Whether the model's output word `g` is acceptable for `want`.
pub fn accepts(want: S, g: u32) -> bool {
    match want {
        S::F(..) => {
            let (lo, hi) = fl(want);
            let v = f32::from_bits(g);
            !v.is_nan() && (v as f64) >= lo && (v as f64) <= hi
        }
        S::I(v) => g == v as u32,
        S::U(v) => g == v,
        S::B(v) => g == v as u32,
    }
}

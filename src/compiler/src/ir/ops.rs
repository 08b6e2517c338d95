//! Operations of the SSA IR and what each one reads and writes.

use super::types::Type;
use std::fmt;

/// Comparison condition. Integer compares carry signedness in [`Op::ICmp`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Ge,
}

/// Values the hardware provides per thread (read with `get_sr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SysVal {
    /// Global invocation id, per axis (thread_position_in_grid).
    GlobalId(u8),
    /// Local invocation id, per axis.
    LocalId(u8),
    /// Workgroup id, per axis.
    GroupId(u8),
    /// Vertex stage: the vertex's index (base vertex included) and the instance.
    VertexId,
    InstanceId,
    /// Fragment stage: the framebuffer pixel's x (0) or y (1), integer, upper-left origin.
    PixelCoord(u8),
    /// Fragment stage: the facing word, 0 for a front-facing primitive and nonzero for a
    /// back-facing one (only zero / nonzero is established; `get_sr` 0xc5).
    BackFacing,
}

/// How a fragment input is interpolated. On G16 the mode lives in the coefficient-binding table
/// the driver builds (GravityLinux/mesa apple9_build_cf_bindings), not in the instruction: the
/// compiled shader reports it per coefficient register.
/// What a texture op does (`Op::Texture`; selection in `isel/texture.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexKind {
    /// Implicit LOD (GLSL `texture` in a fragment shader): sources u, v (normalized f32).
    Sample,
    /// Explicit LOD (`textureLod`): u, v and the LOD word (signed Q6 levels in bits 16..27).
    Lod,
    /// Implicit LOD plus a bias (`texture(s, uv, bias)`): u, v and the bias word (Q6 as
    /// for `Lod`).
    Bias,
    /// Integer fetch (`texelFetch`): x, y (i32) and the level word (level << 22).
    Fetch,
}

/// What a texture op addresses (`Op::Texture`): a 2D image, a layer of a 2D array, a face of
/// a cube map (face coordinates from nir/texture.rs) or a 3D image. The array, cube and 3D
/// forms take four sources for `Lod`, `Bias` and `Fetch`: u, v, then the layer or face (u32,
/// also ORed into the low 16 bits of the word) or z (f32; i32 for fetches), then the word.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TexDim {
    D2,
    D2Array,
    Cube,
    D3,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interp {
    /// The provoking vertex's value.
    Flat,
    /// Screen-space linear.
    Linear,
    /// Perspective-correct (value/W plane divided by the 1/W plane).
    Perspective,
}

/// Special-function-unit operations (all unary on floats).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sfu {
    Rcp,
    Rsqrt,
    Sqrt,
    /// `1/sqrt(x)`, except 1 for ±0 and +inf: `x * sqrt_factor(x)` is `sqrt(x)` everywhere
    /// (G16's SFU computes this factor, not sqrt itself).
    SqrtFactor,
    /// `sin(pi/2 * x) / x` on |x| <= 1 (pi/2 at ±0), NaN beyond: `x * sin_factor(x)` is
    /// `sin(pi/2 * x)` (G16's sine assist).
    SinFactor,
    Exp2,
    Log2,
    Floor,
    Ceil,
    Trunc,
    Rint,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    // Float arithmetic; the operation width follows the destination type (f32 or f16).
    FAdd,
    FMul,
    /// a * b + c
    FFma,
    FMin,
    FMax,
    Sfu(Sfu),
    FCmp(Cmp),
    // Integer arithmetic, wrapping.
    IAdd,
    ISub,
    IMul,
    /// `a * b + c`, low bits of the product.
    IMad,
    IMin {
        signed: bool,
    },
    IMax {
        signed: bool,
    },
    ICmp {
        cond: Cmp,
        signed: bool,
    },
    And,
    Or,
    Xor,
    Not,
    /// Shift amounts use the low 5 bits (GLSL leaves larger shifts undefined).
    Shl,
    Shr {
        signed: bool,
    },
    // Conversions.
    /// float → int, rounding toward zero, saturating at the type bounds, NaN → 0.
    F2I {
        signed: bool,
    },
    /// int → float, round to nearest even.
    I2F {
        signed: bool,
    },
    /// f32 → f16 or f16 → f32 (by destination type).
    FConv,
    /// GL `packUnorm4x8`: byte k of the 32-bit result = round(clamp(src k, 0, 1) · 255)
    /// (ties to even; NaN gives 0), four f32 sources.
    PackUnorm4x8,
    /// bool ? a : b
    Select,
    /// Plain copy; register allocation and parallel-copy lowering produce these.
    Copy,
    Undef,
    /// One source per CFG predecessor, in `Instr::phi_preds` order.
    Phi,
    /// Build a tuple from scalar sources.
    Collect,
    SysVal(SysVal),
    /// `dst = buffer[binding][index..index + comps]` in elements of the destination type
    /// (16-bit types index 16-bit elements, as G16's 16-bit device formats do); asynchronous.
    LoadGlobal {
        binding: u8,
    },
    /// `buffer[binding][index..] = value` (srcs: index, value). The value operand names a whole
    /// value (all components of a tuple), never one component of a tuple.
    StoreGlobal {
        binding: u8,
    },
    /// Vertex stage: output scalar `slot` (0..3 = clip-space position x, y, z, w, then the user
    /// scalars in order, as the PPP output list counts them) = the 32-bit source.
    StoreOutput {
        slot: u8,
    },
    /// Fragment stage: coefficient register `cf` (0 = 1/W, then the user scalars) evaluated at
    /// the pixel centre with `interp` (f32).
    LoadVarying {
        cf: u8,
        interp: Interp,
    },
    /// Fragment stage: raw 32-bit tilebuffer word `word` of the pixel := the source, for the
    /// samples the invocation covers (a discarded fragment's writes are dropped). `masked`: a
    /// second source holds the samples to write (multisampled tilebuffers, `tile_store_mask`);
    /// else sample 0 (single-sample tilebuffers).
    StoreTile {
        word: u8,
        masked: bool,
    },
    /// Fragment stage: RGBA (4 × f32) of 2D texture-table entry `texture` through
    /// sampler-table entry `sampler` (sources per `TexKind`); asynchronous.
    Texture {
        texture: u8,
        sampler: u8,
        kind: TexKind,
        dim: TexDim,
    },
    /// Fragment stage: raw 32-bit tilebuffer word `word` of the pixel (sample 0), as the
    /// earlier draws (or the background) left it; asynchronous (`tile_read` completes on a
    /// scoreboard slot, sim/GFX.md). The destination colour of blending. `masked`: the
    /// source names the one sample read (`tile_read_mask`, multisampled tilebuffers).
    LoadTile {
        word: u8,
        masked: bool,
    },
    /// Fragment stage: the invocation's coverage word (bits 0..3 covered samples, bits 4..7
    /// those whose depth/stencil test is still pending); asynchronous (completes on scoreboard
    /// slot 1, GravityLinux/mesa GET_COVERAGE).
    Coverage,
    /// Fragment stage: coverage write of the control word `target << 8 | (target << 4) & high |
    /// live` (Mesa's G13 `sample_mask`: each target sample is tested now when live, else
    /// killed); `test` marks a write with live samples (bracketed by the tile access 1 / fence
    /// 1 pair), a pure kill is not.
    SampleMask {
        test: bool,
    },
    /// Fragment stage: depth store: a coverage write of the control word (first source) whose
    /// tested samples take the depth (second source, f32) for their test and update
    /// (GravityLinux/mesa `store_zs_agx` emission: publication pair + `depth_store`).
    DepthStore,
    /// Fragment stage: the screen-space derivative of the f32 source along `axis` (0 x, 1 y):
    /// the difference across the invocation's row (x: right − left) or column (y: lower −
    /// upper, framebuffer rows counted downward) of its 2x2 quad (fine; G16's `derivative`,
    /// agx16-sim `gfx::quad`). Helper and demoted invocations take part.
    Derivative {
        axis: u8,
    },
    /// Store a register tuple to per-thread scratch slot `slot` (register allocation only).
    Spill {
        slot: u32,
    },
    /// Load a register tuple back from per-thread scratch slot `slot`.
    Fill {
        slot: u32,
    },
    // Terminators (last instruction of a block only).
    Break,
    Continue,
    Return,
    Discard,
}

impl Op {
    /// Terminators end a block and transfer control structurally.
    pub fn is_terminator(self) -> bool {
        matches!(self, Op::Break | Op::Continue | Op::Return | Op::Discard)
    }

    /// Has an effect beyond its destination (must not be removed or reordered freely).
    pub fn has_side_effect(self) -> bool {
        matches!(
            self,
            Op::StoreGlobal { .. }
                | Op::Spill { .. }
                | Op::StoreOutput { .. }
                | Op::StoreTile { .. }
                | Op::SampleMask { .. }
                | Op::DepthStore
        ) || self.is_terminator()
    }

    /// Completes asynchronously: consumers must name a scoreboard slot.
    pub fn is_async(self) -> bool {
        matches!(
            self,
            Op::LoadGlobal { .. }
                | Op::Fill { .. }
                | Op::Texture { .. }
                | Op::LoadTile { .. }
                | Op::Coverage
        )
    }

    /// The destination must not share a register with a source that dies here: asynchronous
    /// producers (the result lands later, while the sources may still be read), and the unorm
    /// colour pack, which the target writes as two half-register instructions that each read
    /// sources (a destination holding a source of both halves would clobber it).
    pub fn dst_avoids_dying_sources(self) -> bool {
        self.is_async() || self == Op::PackUnorm4x8
    }

    /// Reads memory that a store may write.
    pub fn reads_memory(self) -> bool {
        matches!(self, Op::LoadGlobal { .. } | Op::Fill { .. })
    }

    pub fn writes_memory(self) -> bool {
        matches!(self, Op::StoreGlobal { .. } | Op::Spill { .. })
    }

    /// Float ops take float source modifiers (neg/abs) and a saturate flag.
    pub fn takes_float_modifiers(self) -> bool {
        matches!(
            self,
            Op::FAdd | Op::FMul | Op::FFma | Op::FMin | Op::FMax | Op::Sfu(_) | Op::FCmp(_)
        )
    }

    /// Order of operands does not matter (for a * b, not the addend of FMA).
    pub fn is_commutative(self) -> bool {
        matches!(
            self,
            Op::FAdd
                | Op::FMul
                | Op::FMin
                | Op::FMax
                | Op::IAdd
                | Op::IMul
                | Op::IMin { .. }
                | Op::IMax { .. }
                | Op::And
                | Op::Or
                | Op::Xor
        )
    }

    /// The type the op reads its sources as, given the destination type and source index.
    /// `None` means "same as the source value's own type" (copies, phis, stores).
    pub fn src_type(self, dst: Type, idx: usize) -> Option<Type> {
        match self {
            Op::FCmp(_) => None,
            Op::ICmp { .. } => None,
            Op::F2I { .. } => None,
            Op::I2F { .. } => None,
            Op::FConv => Some(if dst == Type::F16 {
                Type::F32
            } else {
                Type::F16
            }),
            Op::Select if idx == 0 => Some(Type::Bool),
            Op::PackUnorm4x8 => Some(Type::F32),
            Op::LoadGlobal { .. } | Op::StoreGlobal { .. } if idx == 0 => Some(Type::I32),
            Op::Texture { kind, dim, .. } => Some(match (kind, dim, idx) {
                (TexKind::Fetch, _, _) => Type::I32,
                (_, TexDim::D3, 2) => Type::F32,
                (_, _, 2..) => Type::I32,
                _ => Type::F32,
            }),
            Op::Shl | Op::Shr { .. } if idx == 1 => Some(Type::I32),
            Op::Select | Op::Copy | Op::Phi | Op::Collect => None,
            Op::StoreGlobal { .. } | Op::Spill { .. } => None,
            Op::StoreOutput { .. } | Op::StoreTile { .. } => None,
            _ => Some(dst),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cmp = |c: &Cmp| match c {
            Cmp::Eq => "eq",
            Cmp::Ne => "ne",
            Cmp::Lt => "lt",
            Cmp::Ge => "ge",
        };
        let su = |s: &bool| if *s { "s" } else { "u" };
        match self {
            Op::FAdd => write!(f, "fadd"),
            Op::FMul => write!(f, "fmul"),
            Op::FFma => write!(f, "ffma"),
            Op::FMin => write!(f, "fmin"),
            Op::FMax => write!(f, "fmax"),
            Op::Sfu(s) => write!(f, "{}", format!("{s:?}").to_lowercase()),
            Op::FCmp(c) => write!(f, "fcmp.{}", cmp(c)),
            Op::IAdd => write!(f, "iadd"),
            Op::ISub => write!(f, "isub"),
            Op::IMul => write!(f, "imul"),
            Op::IMad => write!(f, "imad"),
            Op::IMin { signed } => write!(f, "imin.{}", su(signed)),
            Op::IMax { signed } => write!(f, "imax.{}", su(signed)),
            Op::ICmp { cond, signed } => write!(f, "icmp.{}.{}", cmp(cond), su(signed)),
            Op::And => write!(f, "and"),
            Op::Or => write!(f, "or"),
            Op::Xor => write!(f, "xor"),
            Op::Not => write!(f, "not"),
            Op::Shl => write!(f, "shl"),
            Op::Shr { signed } => write!(f, "shr.{}", su(signed)),
            Op::F2I { signed } => write!(f, "f2i.{}", su(signed)),
            Op::I2F { signed } => write!(f, "i2f.{}", su(signed)),
            Op::FConv => write!(f, "fconv"),
            Op::PackUnorm4x8 => write!(f, "pack_unorm4x8"),
            Op::Select => write!(f, "select"),
            Op::Copy => write!(f, "copy"),
            Op::Undef => write!(f, "undef"),
            Op::Phi => write!(f, "phi"),
            Op::Collect => write!(f, "collect"),
            Op::SysVal(s) => match s {
                SysVal::GlobalId(a) => write!(f, "global_id.{}", b"xyz"[*a as usize] as char),
                SysVal::LocalId(a) => write!(f, "local_id.{}", b"xyz"[*a as usize] as char),
                SysVal::GroupId(a) => write!(f, "group_id.{}", b"xyz"[*a as usize] as char),
                SysVal::VertexId => write!(f, "vertex_id"),
                SysVal::InstanceId => write!(f, "instance_id"),
                SysVal::PixelCoord(a) => write!(f, "pixel_coord.{}", b"xy"[*a as usize] as char),
                SysVal::BackFacing => write!(f, "back_facing"),
            },
            Op::StoreOutput { slot } => write!(f, "store_output.o{slot}"),
            Op::LoadVarying { cf, interp } => {
                write!(
                    f,
                    "load_varying.cf{cf}.{}",
                    format!("{interp:?}").to_lowercase()
                )
            }
            Op::StoreTile {
                word,
                masked: false,
            } => write!(f, "store_tile.w{word}"),
            Op::StoreTile { word, masked: true } => write!(f, "store_tile.w{word}.masked"),
            Op::LoadTile {
                word,
                masked: false,
            } => write!(f, "load_tile.w{word}"),
            Op::LoadTile { word, masked: true } => write!(f, "load_tile.w{word}.masked"),
            Op::LoadGlobal { binding } => write!(f, "load_global.b{binding}"),
            Op::StoreGlobal { binding } => write!(f, "store_global.b{binding}"),
            Op::Texture {
                texture,
                sampler,
                kind,
                dim,
            } => write!(
                f,
                "texture.t{texture}.s{sampler}.{}{}",
                format!("{kind:?}").to_lowercase(),
                match dim {
                    TexDim::D2 => "",
                    TexDim::D2Array => ".array",
                    TexDim::Cube => ".cube",
                    TexDim::D3 => ".3d",
                }
            ),
            Op::Coverage => write!(f, "coverage"),
            Op::DepthStore => write!(f, "depth_store"),
            Op::SampleMask { test } => write!(f, "sample_mask{}", if *test { ".test" } else { "" }),
            Op::Derivative { axis } => write!(f, "{}", ["ddx", "ddy"][*axis as usize & 1]),
            Op::Spill { slot } => write!(f, "spill.s{slot}"),
            Op::Fill { slot } => write!(f, "fill.s{slot}"),
            Op::Break => write!(f, "break"),
            Op::Continue => write!(f, "continue"),
            Op::Return => write!(f, "return"),
            Op::Discard => write!(f, "discard"),
        }
    }
}

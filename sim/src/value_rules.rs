//! Value rules: what the model computes where a VALUE (NaN, infinity, overflow, an index
//! outside a texture) leaves plain arithmetic. One table, each rule with its evidence.
//!
//! The model's fidelity rule (DEVELOPERS.md): an unknown encoding or field value is refused
//! by name, but a legal program never fails a job because of the values it computes. Where
//! the M4's answer was measured the model gives that answer; elsewhere it gives the
//! best-evidenced one, in this order of preference: measured on M4 > behaviour of the
//! CTS-passing M4 driver (GravityLinux/mesa) > A18 Pro / G17P measurement (ADevWithAnIdea/
//! agx-re; its docs/m4-deltas.md claims the ISA is identical) > M1 / G13 measurement
//! (dougallj/applegpu) > the GLES / IEEE rule (or the model's choice where GLES leaves the
//! value undefined). Every rule not measured on M4 is *inferred*.
//!
//! Each use of an inferred rule is counted per thread ([`take`], [`scoped`]); the kernel shim
//! reports a job's counts in its log, and `AGX16_SIM_TRACE` prints each use. With
//! `AGX16_SIM_STRICT=1` (fidelity runs) an inferred rule is a refusal naming the rule instead.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::sync::OnceLock;

/// How a rule's result is known (best first).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Evidence {
    /// Measured on a real M4 (T8132).
    MeasuredM4,
    /// Extrapolated from an M4 measurement of the neighbouring case (inferred).
    M4Extrapolated,
    /// What GravityLinux/mesa's M4 driver (dEQP-GLES3 43,691/43,792 on M4) relies on.
    M4Driver,
    /// Measured on an A18 Pro (G17P); the ISA is claimed identical to M4's.
    G17P,
    /// Measured on an M1 (G13).
    G13,
    /// The GLES / WebGL / IEEE rule, or the model's choice where GLES leaves it undefined.
    GlesRule,
}

impl Evidence {
    pub fn label(self) -> &'static str {
        match self {
            Evidence::MeasuredM4 => "measured on M4",
            Evidence::M4Extrapolated => "extrapolated from an M4 measurement",
            Evidence::M4Driver => "CTS-passing M4 driver",
            Evidence::G17P => "A18/G17P measurement",
            Evidence::G13 => "M1/G13 measurement",
            Evidence::GlesRule => "GLES/IEEE rule",
        }
    }
}

/// Every value rule the model applies. The discriminant indexes [`RULES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Rule {
    FMinMaxNan,
    FMinMaxSignedZero,
    F2iS32Above,
    F2iS32Below,
    F2iU32Negative,
    F2iU32Above,
    F2iInfinity,
    F2iNan,
    PackUnormNan,
    PackUnormRange,
    F16OutNan,
    F16OutOverflow,
    F32Denormal,
    F32OutNan,
    ShiftAmountRange,
    FetchOutsideLevel,
    FetchLevelRange,
    FetchLayerRange,
    SampleLayerRange,
    NonFiniteCoordinate,
    NanLod,
    IntegerLinearFilter,
    NonFinitePosition,
    DepthBiasUnit,
    DepthUnorm16,
    CubeLodAcrossFaces,
}

/// One row of the table.
#[derive(Clone, Copy, Debug)]
pub struct RuleInfo {
    pub rule: Rule,
    /// Short stable name (logs, strict-mode refusals).
    pub name: &'static str,
    /// The value case.
    pub case: &'static str,
    /// What the model returns.
    pub result: &'static str,
    pub evidence: Evidence,
    /// Where the fact comes from (`repo:path`).
    pub source: &'static str,
}

impl RuleInfo {
    pub fn inferred(&self) -> bool {
        self.evidence != Evidence::MeasuredM4
    }
}

macro_rules! rule {
    ($r:ident, $name:literal, $case:literal, $result:literal, $ev:ident, $src:literal) => {
        RuleInfo {
            rule: Rule::$r,
            name: $name,
            case: $case,
            result: $result,
            evidence: Evidence::$ev,
            source: $src,
        }
    };
}

/// The table, in [`Rule`] order.
pub const RULES: [RuleInfo; 26] = [
    rule!(
        FMinMaxNan,
        "fminmax_nan",
        "fmin/fmax with a NaN operand",
        "the other operand (minNum/maxNum); canonical NaN when both are NaN",
        G17P,
        "ADevWithAnIdea/agx-re:experiments/EXP-0013-scalar-alu/raw/val_unary_minmax.log"
    ),
    rule!(
        FMinMaxSignedZero,
        "fminmax_signed_zero",
        "fmin/fmax of +0 and -0",
        "the second operand (the zeros are not ordered)",
        G17P,
        "ADevWithAnIdea/agx-re:experiments/EXP-0013-scalar-alu/RESULTS.md"
    ),
    rule!(
        F2iS32Above,
        "f2i_s32_above",
        "float->S32 (RTZ) of a finite value >= 2^31",
        "0x7fffffff (saturated)",
        MeasuredM4,
        "niklassheth/agx-re:experiments/EXP-M4-43-conversion-framing/SIGNED_RESULTS.json"
    ),
    rule!(
        F2iS32Below,
        "f2i_s32_below",
        "float->S32 (RTZ) of a finite value < -2^31",
        "0x80000000 (saturated, the mirror of the measured positive side)",
        M4Extrapolated,
        "niklassheth/agx-re:experiments/EXP-M4-43-conversion-framing/RESULTS.md"
    ),
    rule!(
        F2iU32Negative,
        "f2u_negative",
        "float->U32 (RTZ) of a value <= -1",
        "0 (saturated)",
        MeasuredM4,
        "niklassheth/agx-re:experiments/EXP-M4-43-conversion-framing/SIGNED_RESULTS.json"
    ),
    rule!(
        F2iU32Above,
        "f2u_above",
        "float->U32 (RTZ) of a finite value >= 2^32",
        "0xffffffff (saturated like the measured S32 side)",
        M4Extrapolated,
        "niklassheth/agx-re:experiments/EXP-M4-43-conversion-framing/RESULTS.md"
    ),
    rule!(
        F2iInfinity,
        "f2i_infinity",
        "float->int of +-infinity",
        "saturated like a finite overflow",
        M4Extrapolated,
        "niklassheth/agx-re:experiments/EXP-M4-43-conversion-framing/SIGNED_RESULTS.json"
    ),
    rule!(
        F2iNan,
        "f2i_nan",
        "float->int of NaN",
        "0 (no source measured it: GLES leaves it undefined; 0 as in D3D10+)",
        GlesRule,
        "GLSL ES 3.00 (undefined); no M4, G17P or G13 source measured it"
    ),
    rule!(
        PackUnormNan,
        "pack_unorm_nan",
        "unorm pack of NaN",
        "0 (GLES leaves it undefined; the D3D/Vulkan float->unorm conversion gives 0)",
        GlesRule,
        "GLES 3.0 spec 2.1.6 (float -> normalized fixed point; NaN not covered)"
    ),
    rule!(
        PackUnormRange,
        "pack_unorm_clamp",
        "unorm pack of a value outside [0, 1]",
        "clamped to [0, 1] first",
        M4Driver,
        "GravityLinux/mesa:src/asahi/compiler/agx_apple9_ir.c (PACK_UNORM, T8132)"
    ),
    rule!(
        F16OutNan,
        "f16_nan",
        "a NaN written as fp16",
        "0x7e00 whatever the payload",
        MeasuredM4,
        "niklassheth/agx-re:experiments/EXP-M4-54 (half kernels)"
    ),
    rule!(
        F16OutOverflow,
        "f16_overflow",
        "a finite fp32 value beyond fp16's range written as fp16",
        "+-infinity (IEEE round to nearest even)",
        GlesRule,
        "GravityLinux/mesa:src/asahi/compiler/agx_apple9_ir.c (f32->f16 packer: RNE)"
    ),
    rule!(
        F32Denormal,
        "f32_denormal",
        "fp32 denormal operands and results",
        "signed zero",
        MeasuredM4,
        "niklassheth/agx-re:experiments/EXP-M4-55-sqrt-sine-assist; ADevWithAnIdea/agx-re EXP-0047/0201"
    ),
    rule!(
        F32OutNan,
        "f32_nan",
        "a NaN fp32 result",
        "0x7fc00000 whatever the payload",
        MeasuredM4,
        "niklassheth/agx-re:experiments/EXP-M4-55-sqrt-sine-assist"
    ),
    rule!(
        ShiftAmountRange,
        "shift_amount_32",
        "a register shift by 32 or more (low 16 bits of the amount)",
        "0 (or the sign for an arithmetic right shift)",
        M4Driver,
        "GravityLinux/mesa:src/asahi/compiler/agx_apple9_opt.c (native amount contract)"
    ),
    rule!(
        FetchOutsideLevel,
        "fetch_outside_level",
        "texelFetch of a texel outside the level",
        "0 in every component (robust access)",
        GlesRule,
        "KHR_robustness / WebGL 2.0 robust access; GLSL ES 3.00 8.8 texelFetch leaves it undefined"
    ),
    rule!(
        FetchLevelRange,
        "fetch_level_range",
        "texelFetch of a level the texture does not have",
        "0 in every component (robust access)",
        GlesRule,
        "KHR_robustness / WebGL 2.0 robust access"
    ),
    rule!(
        FetchLayerRange,
        "fetch_layer_range",
        "texelFetch of an array layer the texture does not have",
        "0 in every component (robust access)",
        GlesRule,
        "KHR_robustness / WebGL 2.0 robust access"
    ),
    rule!(
        SampleLayerRange,
        "sample_layer_range",
        "a sample of an array layer past the last",
        "the last layer (GL clamps the layer)",
        GlesRule,
        "GLES 3.0 spec, texture minification (layer = clamp(floor(r + 0.5), 0, d - 1))"
    ),
    rule!(
        NonFiniteCoordinate,
        "nonfinite_coordinate",
        "a NaN or infinite texture coordinate",
        "NaN -> 0, +-inf -> +-2^24 texels, then the wrap mode",
        GlesRule,
        "GLES 3.0 (undefined); model's choice"
    ),
    rule!(
        NanLod,
        "nan_lod",
        "a NaN level of detail",
        "LOD 0, then the sampler's LOD clamp",
        GlesRule,
        "GLES 3.0 (undefined); model's choice"
    ),
    rule!(
        IntegerLinearFilter,
        "integer_linear_filter",
        "linear (or linear-mipmap) filtering of an integer texture",
        "(0, 0, 0, 1): GL makes the texture incomplete",
        GlesRule,
        "GLES 3.0 spec, texture completeness (an incomplete texture reads (0, 0, 0, 1))"
    ),
    rule!(
        NonFinitePosition,
        "nonfinite_position",
        "a vertex whose clip-space position has a NaN or infinite component",
        "its primitive is culled",
        GlesRule,
        "GLES 3.0 (undefined); model's choice"
    ),
    rule!(
        DepthBiasUnit,
        "depth_bias_unit",
        "the unit r of a polygon offset's constant term",
        "2^-16 on unorm16 depth, 2^(e - 23) on f32 depth (e: exponent of the triangle's largest |z|)",
        GlesRule,
        "GLES 3.0 section 3.6.5 (r is implementation-defined; the D3D/Metal floating-point rule)"
    ),
    rule!(
        DepthUnorm16,
        "depth_unorm16",
        "a fragment's depth tested against and stored to a 16-bit unorm depth plane",
        "round(z * 65535) / 65535, the plane's fixed-point value, in the test and the store",
        M4Driver,
        "GravityLinux/mesa:src/asahi/README.apple9-es3.md (fbo.blit.depth_stencil.depth_component16_scale passes on M4; GLES 3.0 section 2.13.1)"
    ),
    rule!(
        CubeLodAcrossFaces,
        "cube_lod_across_faces",
        "implicit LOD of a cube-map quad whose pixels select different faces",
        "the smallest footprint among the quad's faces (its differences projected onto each)",
        GlesRule,
        "GLES 3.0 section 3.8.10 (the derivatives of the selected face's coordinates); dEQP tcuTexLookupVerifier takes each pixel's own face"
    ),
];

/// The table row of `r`.
pub fn info(r: Rule) -> &'static RuleInfo {
    &RULES[r as usize]
}

/// Uses of each rule (lane or texel count), indexed like [`RULES`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts(pub [u64; RULES.len()]);

impl Counts {
    pub fn get(&self, r: Rule) -> u64 {
        self.0[r as usize]
    }
    /// Uses of inferred rules.
    pub fn inferred(&self) -> u64 {
        RULES
            .iter()
            .filter(|i| i.inferred())
            .map(|i| self.0[i.rule as usize])
            .sum()
    }
    pub fn add(&mut self, other: &Counts) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }
    /// One line naming the inferred rules used, or `None` when none was.
    pub fn summary(&self) -> Option<String> {
        (self.inferred() > 0).then(|| self.to_string())
    }
}

impl fmt::Display for Counts {
    /// `inferred value rules: fminmax_nan x3 (A18/G17P measurement), ...`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "inferred value rules:")?;
        let mut first = true;
        for i in RULES.iter().filter(|i| i.inferred()) {
            let n = self.0[i.rule as usize];
            if n > 0 {
                write!(
                    f,
                    "{} {} x{n} ({})",
                    if first { "" } else { "," },
                    i.name,
                    i.evidence.label()
                )?;
                first = false;
            }
        }
        if first {
            write!(f, " none")?;
        }
        Ok(())
    }
}

thread_local! {
    static COUNTS: RefCell<Counts> = RefCell::new(Counts::default());
    static STRICT_OVERRIDE: Cell<Option<bool>> = const { Cell::new(None) };
}

/// `AGX16_SIM_STRICT=1`: inferred rules are refusals (read once per process; a thread can
/// override it with [`with_strict`]).
pub fn strict() -> bool {
    static STRICT: OnceLock<bool> = OnceLock::new();
    STRICT_OVERRIDE.with(|o| o.get()).unwrap_or_else(|| {
        *STRICT.get_or_init(|| std::env::var("AGX16_SIM_STRICT").is_ok_and(|v| v != "0"))
    })
}

/// Runs `f` with strict mode forced on or off on this thread.
pub fn with_strict<R>(on: bool, f: impl FnOnce() -> R) -> R {
    let old = STRICT_OVERRIDE.with(|o| o.replace(Some(on)));
    let r = f();
    STRICT_OVERRIDE.with(|o| o.set(old));
    r
}

fn tracing() -> bool {
    static TRACE: OnceLock<bool> = OnceLock::new();
    *TRACE.get_or_init(|| std::env::var_os("AGX16_SIM_TRACE").is_some())
}

/// Records that `rule` decided `uses` values (lanes or texels) at `pc` (when known).
/// Measured rules are free; an inferred one is counted, traced, and refused in strict mode
/// (the error text names the rule, its evidence and source).
#[inline]
pub fn apply(rule: Rule, uses: u32, pc: Option<u32>) -> Result<(), String> {
    let i = info(rule);
    if !i.inferred() || uses == 0 {
        return Ok(());
    }
    if strict() {
        return Err(format!(
            "strict mode: inferred value rule {} ({} -> {}; {}: {})",
            i.name,
            i.case,
            i.result,
            i.evidence.label(),
            i.source
        ));
    }
    COUNTS.with(|c| c.borrow_mut().0[rule as usize] += uses as u64);
    if tracing() {
        let at = pc.map_or(String::new(), |pc| format!(" at pc {pc:#x}"));
        eprintln!(
            "value rule {}{at}: {} value(s), {} -> {} (inferred: {})",
            i.name,
            uses,
            i.case,
            i.result,
            i.evidence.label()
        );
    }
    Ok(())
}

/// Uses of each rule within one instruction or texture operation, applied together.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally([u32; RULES.len()]);

impl Tally {
    #[inline]
    pub fn hit(&mut self, r: Rule, active: bool) {
        self.0[r as usize] += active as u32;
    }
    /// [`apply`] for every rule used.
    pub fn apply(&self, pc: Option<u32>) -> Result<(), String> {
        for (k, &n) in self.0.iter().enumerate() {
            if n > 0 {
                apply(RULES[k].rule, n, pc)?;
            }
        }
        Ok(())
    }
}

/// The counts on this thread since the last `take`, reset to zero.
pub fn take() -> Counts {
    COUNTS.with(|c| std::mem::take(&mut *c.borrow_mut()))
}

/// Counts `used` on this thread as if its uses had happened again (a reused vertex batch,
/// `gfx::vertex_memo`).
pub fn count(used: &Counts) {
    COUNTS.with(|c| c.borrow_mut().add(used));
}

/// Runs `f` and returns the rules it used; they stay counted for any enclosing scope too.
pub fn scoped<R>(f: impl FnOnce() -> R) -> (R, Counts) {
    let before = take();
    let r = f();
    let used = take();
    COUNTS.with(|c| {
        let mut c = c.borrow_mut();
        *c = before;
        c.add(&used);
    });
    (r, used)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_in_rule_order_with_unique_names() {
        for (k, i) in RULES.iter().enumerate() {
            assert_eq!(i.rule as usize, k, "{}", i.name);
            assert!(!i.source.is_empty() && !i.case.is_empty() && !i.result.is_empty());
        }
        let mut names: Vec<_> = RULES.iter().map(|i| i.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), RULES.len());
    }

    #[test]
    fn inferred_rules_are_counted_and_measured_ones_are_free() {
        with_strict(false, || {
            let ((), c) = scoped(|| {
                apply(Rule::FMinMaxNan, 3, Some(0x10)).unwrap();
                apply(Rule::FMinMaxNan, 2, None).unwrap();
                apply(Rule::F2iS32Above, 5, None).unwrap();
                apply(Rule::F2iNan, 1, None).unwrap();
            });
            assert_eq!(c.get(Rule::FMinMaxNan), 5);
            assert_eq!(c.get(Rule::F2iS32Above), 0);
            assert_eq!(c.inferred(), 6);
            let s = c.summary().unwrap();
            assert!(
                s.contains("fminmax_nan x5") && s.contains("f2i_nan x1"),
                "{s}"
            );
            let ((), none) = scoped(|| apply(Rule::F2iU32Negative, 4, None).unwrap());
            assert_eq!(none.summary(), None);
        });
    }

    #[test]
    fn strict_mode_refuses_inferred_rules_by_name() {
        with_strict(true, || {
            let e = apply(Rule::FetchOutsideLevel, 1, None).unwrap_err();
            assert!(
                e.contains("fetch_outside_level") && e.contains("strict"),
                "{e}"
            );
            assert!(apply(Rule::F2iU32Negative, 1, None).is_ok());
        });
    }

    #[test]
    fn nested_scopes_count_for_the_outer_one_too() {
        with_strict(false, || {
            let (inner, outer) = scoped(|| {
                let ((), inner) = scoped(|| apply(Rule::NanLod, 2, None).unwrap());
                apply(Rule::NanLod, 1, None).unwrap();
                inner
            });
            assert_eq!(inner.get(Rule::NanLod), 2);
            assert_eq!(outer.get(Rule::NanLod), 3);
        });
    }
}

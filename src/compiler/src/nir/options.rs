//! agx16's `nir_shader_compiler_options`: what Mesa's passes lower before the backend sees NIR.

use agx16_mesa_sys::nir_shader_compiler_options;
use std::sync::OnceLock;

struct Opts(nir_shader_compiler_options);
// SAFETY: the options are written once and then only read; the raw pointers inside are null.
unsafe impl Sync for Opts {}
unsafe impl Send for Opts {}

static OPTIONS: OnceLock<Opts> = OnceLock::new();

/// The options the Gallium driver hands to Mesa for every stage.
pub fn options() -> &'static nir_shader_compiler_options {
    &OPTIONS
        .get_or_init(|| {
            // No divide, power, modulo, flrp, sign or fract instructions are selected: Mesa
            // expands them into multiplies, reciprocals, exp2/log2 and floor. Negation is a
            // source modifier in the IR (ineg becomes 0 - x). Fused multiply-add is native
            // (ffma, EXP-M4-54 kernels).
            Opts(nir_shader_compiler_options {
                lower_fdiv: true,
                lower_fpow: true,
                lower_fmod: true,
                lower_flrp16: true,
                lower_flrp32: true,
                lower_flrp64: true,
                lower_fsign: true,
                lower_isign: true,
                lower_ffract: true,
                lower_fdph: true,
                lower_scmp: true,
                lower_vector_cmp: true,
                lower_ldexp: true,
                lower_fisnormal: true,
                lower_bitfield_extract: true,
                lower_bitfield_insert: true,
                lower_uadd_carry: true,
                lower_usub_borrow: true,
                lower_mul_high: true,
                lower_ineg: true,
                // No iabs formed from imax(x, -x) (Mesa's iabs lowering is in
                // nir_opt_algebraic_late, not run here: the import writes iabs as
                // imax(x, 0 - x), nir/alu.rs); byte/word extracts as shifts and masks.
                lower_iabs: true,
                lower_extract_byte: true,
                lower_extract_word: true,
                // find_lsb(x) as ufind_msb(x & -x) (nir_opt_algebraic); ufind_msb/ifind_msb are
                // imported through the float exponent (nir/alu.rs).
                lower_find_lsb: true,
                // trunc(x) = x < 0 ? -floor(|x|) : floor(|x|) and ceil(x) = -floor(-x): the
                // SFU's floor is the one rounding mode measured on M4 (EXP-M4-54; ceil/trunc
                // are corpus-only in agx16-isa `meaning::sfu_function`).
                lower_ftrunc: true,
                lower_fceil: true,
                // Bit reversal as shifts, masks and ors, bit count as shifts, masks, adds and
                // one multiply (no model for `bitrev_msb`/`popcount`); nir_lower_alu (prepare.rs).
                lower_bitfield_reverse: true,
                lower_bit_count: true,
                // 64-bit products as low (imul) and high halves; the high halves as 16-bit
                // partial products (`imad` is the only multiply: low 32 bits).
                lower_mul_2x32_64: true,
                // pack/unpack{Unorm,Snorm}2x16 as conversions, rounding, shifts and masks.
                lower_pack_unorm_2x16: true,
                lower_pack_snorm_2x16: true,
                lower_unpack_unorm_2x16: true,
                lower_unpack_snorm_2x16: true,
                // pack/unpackHalf2x16 as the split forms, which nir/alu.rs imports through
                // half.rs (no validated f16 conversion form; not `lower_pack_split`, whose
                // f2f16/u2u16 would need 16-bit registers).
                lower_pack_half_2x16: true,
                lower_unpack_half_2x16: true,
                // No fused multiply-add: the only ffma bytes known (EXP-M4-55 k_sin, M4) carry
                // raw bits whose behaviour no hardware run the model reproduces establishes
                // (agx16-sim refuses them), so ffma becomes fmul + fadd, both measured forms.
                // GLSL ES 3.00 has no fma() and lets a*b+c round either way.
                lower_ffma32: true,
                // The global invocation id is a special register (get_sr, isel/encode.rs);
                // without this nir_lower_system_values rebuilds it from the workgroup id.
                has_cs_global_id: true,
                // One `derivative` per scalar (the T8132 compiler's choice; ADevWithAnIdea/
                // agx-re EXP-0111 FS-07, measured on M4: one 0x37 instruction per component).
                scalarize_ddx: true,
                // GLSL discard as NIR demote: the M4 keeps discarded lanes running as helpers
                // that still feed their quad's derivatives (EXP-0091, measured), which is what
                // the coverage kill the import emits does for terminate and demote alike
                // (nir/gfx.rs `kill`); GravityLinux/mesa sets the same for its M4 backend.
                discard_is_demote: true,
                ..Default::default()
            })
        })
        .0
}

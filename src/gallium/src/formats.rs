//! The formats the screen accepts, and for which uses. One table for images; vertex-buffer formats
//! are those the vertex fetch reads (`variants::attrib_format`).
//!
//! This is the driver's acceptance list, not the hardware pixel-format encoding (that belongs to
//! agx16-cmdstream's descriptor tables). Evidence: "asahi-25.0" = Mesa 25.0.7
//! `src/gallium/drivers/asahi/agx_pipe.c` `agx_is_format_supported` and `src/asahi/layout/formats.c`
//! (G13–G15; inferred for the M4).

use agx16_cmdstream::descriptors::{Channels, NumericType};
use agx16_mesa_sys as sys;

const COLOR: u32 = sys::PIPE_BIND_RENDER_TARGET
    | sys::PIPE_BIND_SAMPLER_VIEW
    | sys::PIPE_BIND_DISPLAY_TARGET
    | sys::PIPE_BIND_SCANOUT
    | sys::PIPE_BIND_SHARED
    | sys::PIPE_BIND_BLENDABLE;
const DEPTH: u32 = sys::PIPE_BIND_DEPTH_STENCIL | sys::PIPE_BIND_SAMPLER_VIEW;
const VERTEX: u32 = sys::PIPE_BIND_VERTEX_BUFFER;

/// (format, the binds accepted for it, evidence)
const TABLE: &[(sys::pipe_format, u32, &str)] = &[
    (
        sys::PIPE_FORMAT_R8G8B8A8_UNORM,
        COLOR,
        "asahi-25.0: renderable",
    ),
    (
        sys::PIPE_FORMAT_R8G8B8X8_UNORM,
        COLOR,
        "asahi-25.0: renderable",
    ),
    (
        sys::PIPE_FORMAT_B8G8R8A8_UNORM,
        COLOR,
        "asahi-25.0: renderable",
    ),
    (
        sys::PIPE_FORMAT_B8G8R8X8_UNORM,
        COLOR,
        "asahi-25.0: renderable",
    ),
    (
        sys::PIPE_FORMAT_B5G6R5_UNORM,
        COLOR,
        "asahi-25.0: renderable",
    ),
    (
        sys::PIPE_FORMAT_Z16_UNORM,
        DEPTH,
        "asahi-25.0: native depth",
    ),
    (
        sys::PIPE_FORMAT_Z32_FLOAT,
        DEPTH,
        "asahi-25.0: native depth",
    ),
    (
        sys::PIPE_FORMAT_S8_UINT,
        DEPTH,
        "asahi-25.0: native stencil",
    ),
    // Packed depth/stencil: stored split by u_transfer_helper as a Z32_FLOAT depth plane and an
    // S8_UINT stencil plane (resource.rs `TRANSFER_HELPER_FLAGS`). GLES always offers
    // DEPTH24_STENCIL8 (OES_packed_depth_stencil) and DEPTH_COMPONENT24, which Mesa's state
    // tracker maps to these; without them glRenderbufferStorage/glTexImage abort in Mesa.
    (
        sys::PIPE_FORMAT_Z24_UNORM_S8_UINT,
        DEPTH,
        "asahi-25.0: z24_in_z32f + separate stencil",
    ),
    (
        sys::PIPE_FORMAT_Z24X8_UNORM,
        DEPTH,
        "asahi-25.0: z24_in_z32f",
    ),
    (
        sys::PIPE_FORMAT_Z32_FLOAT_S8X24_UINT,
        DEPTH,
        "asahi-25.0: separate_z32s8",
    ),
];

/// Formats sampler views may have, with the G16 descriptor format each is sampled as:
/// (format, channel arrangement, numeric type, sRGB flag). The channel order of the Gallium
/// format reaches the descriptor as a swizzle (texture.rs `swizzle`), so each row names the
/// arrangement whose fields, from the least significant bit, are the format's channels in
/// Mesa's description (checked by a test below).
///
/// Evidence: the codes are agx-re's M4 captures (ADevWithAnIdea/agx-re
/// docs/descriptors/format-table.md §2d, measured; agx16-cmdstream `Channels::captured_with`);
/// which Gallium formats pair with which arrangement follows Mesa 25.0.7
/// src/asahi/layout/formats.c (G13, run on M1; inferred for the M4). Depth formats are sampled
/// as their depth plane: R16 unorm for Z16, R32 float for the others (Z24 is stored as Z32F,
/// resource.rs), as in that table and agx-re's capture of depth32float (= r32float's code).
/// Every row decodes in agx16-sim (sim/src/gfx/texel.rs).
pub const SAMPLED: &[(sys::pipe_format, Channels, NumericType, bool)] = {
    use Channels::*;
    use NumericType::*;
    &[
        (sys::PIPE_FORMAT_R8G8B8A8_UNORM, R8G8B8A8, Unorm, false),
        (sys::PIPE_FORMAT_R8G8B8X8_UNORM, R8G8B8A8, Unorm, false),
        (sys::PIPE_FORMAT_B8G8R8A8_UNORM, R8G8B8A8, Unorm, false),
        (sys::PIPE_FORMAT_B8G8R8X8_UNORM, R8G8B8A8, Unorm, false),
        (sys::PIPE_FORMAT_R8G8B8A8_SRGB, R8G8B8A8, Unorm, true),
        (sys::PIPE_FORMAT_R8G8B8X8_SRGB, R8G8B8A8, Unorm, true),
        (sys::PIPE_FORMAT_B8G8R8A8_SRGB, R8G8B8A8, Unorm, true),
        (sys::PIPE_FORMAT_B8G8R8X8_SRGB, R8G8B8A8, Unorm, true),
        (sys::PIPE_FORMAT_R8G8B8A8_SNORM, R8G8B8A8, Snorm, false),
        (sys::PIPE_FORMAT_R8G8B8X8_SNORM, R8G8B8A8, Snorm, false),
        (sys::PIPE_FORMAT_R8G8B8A8_UINT, R8G8B8A8, Uint, false),
        (sys::PIPE_FORMAT_R8G8B8X8_UINT, R8G8B8A8, Uint, false),
        (sys::PIPE_FORMAT_R8G8B8A8_SINT, R8G8B8A8, Sint, false),
        (sys::PIPE_FORMAT_R8G8B8X8_SINT, R8G8B8A8, Sint, false),
        (sys::PIPE_FORMAT_R8_UNORM, R8, Unorm, false),
        (sys::PIPE_FORMAT_R8_SRGB, R8, Unorm, true),
        (sys::PIPE_FORMAT_R8_SNORM, R8, Snorm, false),
        (sys::PIPE_FORMAT_R8_UINT, R8, Uint, false),
        (sys::PIPE_FORMAT_R8_SINT, R8, Sint, false),
        (sys::PIPE_FORMAT_A8_UNORM, R8, Unorm, false),
        (sys::PIPE_FORMAT_L8_UNORM, R8, Unorm, false),
        (sys::PIPE_FORMAT_R8G8_UNORM, R8G8, Unorm, false),
        (sys::PIPE_FORMAT_R8G8_SRGB, R8G8, Unorm, true),
        (sys::PIPE_FORMAT_R8G8_SNORM, R8G8, Snorm, false),
        (sys::PIPE_FORMAT_R8G8_UINT, R8G8, Uint, false),
        (sys::PIPE_FORMAT_R8G8_SINT, R8G8, Sint, false),
        (sys::PIPE_FORMAT_L8A8_UNORM, R8G8, Unorm, false),
        (sys::PIPE_FORMAT_R16_UNORM, R16, Unorm, false),
        (sys::PIPE_FORMAT_R16_SNORM, R16, Snorm, false),
        (sys::PIPE_FORMAT_R16_UINT, R16, Uint, false),
        (sys::PIPE_FORMAT_R16_SINT, R16, Sint, false),
        (sys::PIPE_FORMAT_R16_FLOAT, R16, Float, false),
        (sys::PIPE_FORMAT_R16G16_UNORM, R16G16, Unorm, false),
        (sys::PIPE_FORMAT_R16G16_SNORM, R16G16, Snorm, false),
        (sys::PIPE_FORMAT_R16G16_UINT, R16G16, Uint, false),
        (sys::PIPE_FORMAT_R16G16_SINT, R16G16, Sint, false),
        (sys::PIPE_FORMAT_R16G16_FLOAT, R16G16, Float, false),
        (
            sys::PIPE_FORMAT_R16G16B16A16_UNORM,
            R16G16B16A16,
            Unorm,
            false,
        ),
        (
            sys::PIPE_FORMAT_R16G16B16A16_SNORM,
            R16G16B16A16,
            Snorm,
            false,
        ),
        (
            sys::PIPE_FORMAT_R16G16B16A16_UINT,
            R16G16B16A16,
            Uint,
            false,
        ),
        (
            sys::PIPE_FORMAT_R16G16B16A16_SINT,
            R16G16B16A16,
            Sint,
            false,
        ),
        (
            sys::PIPE_FORMAT_R16G16B16A16_FLOAT,
            R16G16B16A16,
            Float,
            false,
        ),
        (
            sys::PIPE_FORMAT_R16G16B16X16_UNORM,
            R16G16B16A16,
            Unorm,
            false,
        ),
        (
            sys::PIPE_FORMAT_R16G16B16X16_SNORM,
            R16G16B16A16,
            Snorm,
            false,
        ),
        (
            sys::PIPE_FORMAT_R16G16B16X16_UINT,
            R16G16B16A16,
            Uint,
            false,
        ),
        (
            sys::PIPE_FORMAT_R16G16B16X16_SINT,
            R16G16B16A16,
            Sint,
            false,
        ),
        (
            sys::PIPE_FORMAT_R16G16B16X16_FLOAT,
            R16G16B16A16,
            Float,
            false,
        ),
        (sys::PIPE_FORMAT_R32_UINT, R32, Uint, false),
        (sys::PIPE_FORMAT_R32_SINT, R32, Sint, false),
        (sys::PIPE_FORMAT_R32_FLOAT, R32, Float, false),
        (sys::PIPE_FORMAT_R32G32_UINT, R32G32, Uint, false),
        (sys::PIPE_FORMAT_R32G32_SINT, R32G32, Sint, false),
        (sys::PIPE_FORMAT_R32G32_FLOAT, R32G32, Float, false),
        (
            sys::PIPE_FORMAT_R32G32B32A32_UINT,
            R32G32B32A32,
            Uint,
            false,
        ),
        (
            sys::PIPE_FORMAT_R32G32B32A32_SINT,
            R32G32B32A32,
            Sint,
            false,
        ),
        (
            sys::PIPE_FORMAT_R32G32B32A32_FLOAT,
            R32G32B32A32,
            Float,
            false,
        ),
        (
            sys::PIPE_FORMAT_R32G32B32X32_UINT,
            R32G32B32A32,
            Uint,
            false,
        ),
        (
            sys::PIPE_FORMAT_R32G32B32X32_SINT,
            R32G32B32A32,
            Sint,
            false,
        ),
        (
            sys::PIPE_FORMAT_R32G32B32X32_FLOAT,
            R32G32B32A32,
            Float,
            false,
        ),
        (sys::PIPE_FORMAT_B5G6R5_UNORM, R5G6B5, Unorm, false),
        (sys::PIPE_FORMAT_R5G6B5_UNORM, R5G6B5, Unorm, false),
        (sys::PIPE_FORMAT_R4G4B4A4_UNORM, R4G4B4A4, Unorm, false),
        (sys::PIPE_FORMAT_B4G4R4A4_UNORM, R4G4B4A4, Unorm, false),
        (sys::PIPE_FORMAT_A4B4G4R4_UNORM, R4G4B4A4, Unorm, false),
        (sys::PIPE_FORMAT_A4R4G4B4_UNORM, R4G4B4A4, Unorm, false),
        (sys::PIPE_FORMAT_R5G5B5A1_UNORM, R5G5B5A1, Unorm, false),
        (sys::PIPE_FORMAT_B5G5R5A1_UNORM, R5G5B5A1, Unorm, false),
        (
            sys::PIPE_FORMAT_R10G10B10A2_UNORM,
            R10G10B10A2,
            Unorm,
            false,
        ),
        (
            sys::PIPE_FORMAT_B10G10R10A2_UNORM,
            R10G10B10A2,
            Unorm,
            false,
        ),
        (sys::PIPE_FORMAT_R10G10B10A2_UINT, R10G10B10A2, Uint, false),
        (sys::PIPE_FORMAT_B10G10R10A2_UINT, R10G10B10A2, Uint, false),
        (sys::PIPE_FORMAT_R11G11B10_FLOAT, R11G11B10, Float, false),
        (sys::PIPE_FORMAT_R9G9B9E5_FLOAT, R9G9B9E5, Float, false),
        (sys::PIPE_FORMAT_Z16_UNORM, R16, Unorm, false),
        (sys::PIPE_FORMAT_Z32_FLOAT, R32, Float, false),
        (sys::PIPE_FORMAT_Z24X8_UNORM, R32, Float, false),
        (sys::PIPE_FORMAT_Z24_UNORM_S8_UINT, R32, Float, false),
        (sys::PIPE_FORMAT_Z32_FLOAT_S8X24_UINT, R32, Float, false),
    ]
};

/// The descriptor format a sampler view of `format` is sampled as.
pub fn sampled(format: sys::pipe_format) -> Option<(Channels, NumericType, bool)> {
    SAMPLED
        .iter()
        .find(|r| r.0 == format)
        .map(|&(_, c, t, srgb)| (c, t, srgb))
}

/// Binds that only describe placement or lifetime and never restrict a format.
const NEUTRAL: u32 = sys::PIPE_BIND_LINEAR;

/// Whether `format` may be used with every bind in `usage`, for `target` with `samples`
/// samples. Multisampled (2x, 4x: agx-re EXP-0126, measured on M4; the T8132 driver supports
/// no more, GravityLinux/mesa README.apple9-es3.md): 2D render targets and depth/stencil only
/// (GL ES 3.0 has no multisampled textures, so no sampler views), blending where the format
/// blends single-sampled (the program blends each sample: agx16-compiler's per-sample
/// sections), and colour formats
/// whose sample group (bytes x samples) is at most 16 bytes, the widest texel the background
/// reload fetches (agx16-draw `reload_body`), or 32 or 64 bytes of samples of 8 or 16 bytes
/// (read as a view of quarter-group texels of twice the size, agx16-draw `sample_view`; the
/// tilebuffer holds 64 bytes per sample under MSAA, GravityLinux/mesa README.apple9-es3.md);
/// that covers every ES 3.0 colour-renderable format and the float formats of
/// EXT_color_buffer_float at 2x and 4x.
pub fn is_supported(
    format: sys::pipe_format,
    target: sys::pipe_texture_target,
    samples: u32,
    usage: u32,
) -> bool {
    if samples > 1 {
        let binds =
            sys::PIPE_BIND_RENDER_TARGET | sys::PIPE_BIND_DEPTH_STENCIL | sys::PIPE_BIND_BLENDABLE;
        let bytes = unsafe { sys::util_format_get_blocksize(format) };
        let colour = usage & sys::PIPE_BIND_RENDER_TARGET != 0;
        if !matches!(samples, 2 | 4)
            || target != sys::PIPE_TEXTURE_2D
            || usage & !(binds | NEUTRAL) != 0
            || (colour
                && bytes * samples > 16
                && !(bytes >= 8 && matches!(bytes * samples, 32 | 64)))
        {
            return false;
        }
    }
    if target == sys::PIPE_BUFFER && usage & !(VERTEX | NEUTRAL) != 0 {
        return false; // texture buffers, SSBO/image formats are not implemented.
    }
    if usage & VERTEX != 0 {
        // Vertex buffers: what the vertex fetch reads (variants.rs `attrib_format`); u_vbuf
        // translates the rest on the CPU.
        return target == sys::PIPE_BUFFER
            && usage & !(VERTEX | NEUTRAL) == 0
            && crate::variants::attrib_format(format).is_ok();
    }
    // A format's binds are the union of what each feature offers for it: its TABLE rows,
    // sampling (SAMPLED) and the render path's raw targets (`rt_format::RAW_FORMATS`: the
    // program packs the memory bytes with nir_format_pack_rgba and blends in the program,
    // except on pure-integer targets where GL forbids blending).
    let sampled = if sampled(format).is_some() {
        sys::PIPE_BIND_SAMPLER_VIEW
    } else {
        0
    };
    let raw = if !crate::rt_format::is_raw(format) {
        0
    } else if unsafe { sys::util_format_is_pure_integer(format) } {
        sys::PIPE_BIND_RENDER_TARGET
    } else {
        sys::PIPE_BIND_RENDER_TARGET | sys::PIPE_BIND_BLENDABLE
    };
    let binds = TABLE
        .iter()
        .filter(|&&(f, _, _)| f == format)
        .fold(sampled | raw, |a, &(_, b, _)| a | b);
    binds != 0 && usage & !(binds | NEUTRAL) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use agx16_cmdstream::descriptors::ComponentLayout;

    #[test]
    fn every_render_target_row_is_a_format_the_render_path_writes() {
        for &(f, binds, _) in TABLE {
            if binds & sys::PIPE_BIND_RENDER_TARGET != 0 {
                assert!(
                    crate::rt_format::target(f).is_some(),
                    "format {f} is advertised renderable but rt_format has no target for it"
                );
            }
        }
        for &f in crate::rt_format::RAW_FORMATS {
            assert!(is_supported(
                f,
                sys::PIPE_TEXTURE_2D,
                1,
                sys::PIPE_BIND_RENDER_TARGET
            ));
            // Blending is not offered on integer targets (GL ES 3.0 §4.1.7); every other
            // target blends in the program (32-bit floats too: EXT_float_blend).
            let int = unsafe { sys::util_format_is_pure_integer(f) };
            assert_eq!(
                is_supported(f, sys::PIPE_TEXTURE_2D, 1, sys::PIPE_BIND_BLENDABLE),
                !int,
                "{f}"
            );
        }
    }

    #[test]
    fn display_targets_needed_by_egl_are_accepted() {
        // Mesa's DRI frontend builds EGL configs only from formats accepting RENDER_TARGET|DISPLAY_TARGET.
        let usage = sys::PIPE_BIND_RENDER_TARGET | sys::PIPE_BIND_DISPLAY_TARGET;
        for f in [
            sys::PIPE_FORMAT_B8G8R8A8_UNORM,
            sys::PIPE_FORMAT_R8G8B8A8_UNORM,
        ] {
            assert!(is_supported(f, sys::PIPE_TEXTURE_2D, 1, usage));
        }
    }

    #[test]
    fn depth_formats_are_not_colour_targets_and_msaa_is_limited() {
        assert!(is_supported(
            sys::PIPE_FORMAT_Z32_FLOAT,
            sys::PIPE_TEXTURE_2D,
            0,
            sys::PIPE_BIND_DEPTH_STENCIL
        ));
        assert!(!is_supported(
            sys::PIPE_FORMAT_Z32_FLOAT,
            sys::PIPE_TEXTURE_2D,
            0,
            sys::PIPE_BIND_RENDER_TARGET
        ));
        // 2x/4x 2D render targets and depth/stencil; no multisampled sampler views, no 8x,
        // no colour sample group past 16 bytes (RGBA16F at 4x), no blending.
        for (f, n, bind, ok) in [
            (
                sys::PIPE_FORMAT_R8G8B8A8_UNORM,
                4,
                sys::PIPE_BIND_RENDER_TARGET,
                true,
            ),
            (
                sys::PIPE_FORMAT_R8G8B8A8_UNORM,
                2,
                sys::PIPE_BIND_RENDER_TARGET,
                true,
            ),
            (
                sys::PIPE_FORMAT_Z32_FLOAT,
                4,
                sys::PIPE_BIND_DEPTH_STENCIL,
                true,
            ),
            (
                sys::PIPE_FORMAT_R8G8B8A8_UNORM,
                8,
                sys::PIPE_BIND_RENDER_TARGET,
                false,
            ),
            (
                sys::PIPE_FORMAT_R8G8B8A8_UNORM,
                4,
                sys::PIPE_BIND_SAMPLER_VIEW,
                false,
            ),
            (
                sys::PIPE_FORMAT_R8G8B8A8_UNORM,
                4,
                sys::PIPE_BIND_RENDER_TARGET | sys::PIPE_BIND_BLENDABLE,
                true,
            ),
            (
                sys::PIPE_FORMAT_R8G8B8A8_UINT,
                4,
                sys::PIPE_BIND_BLENDABLE,
                false,
            ),
            (
                sys::PIPE_FORMAT_R16G16B16A16_FLOAT,
                4,
                sys::PIPE_BIND_RENDER_TARGET,
                true,
            ),
            (
                sys::PIPE_FORMAT_R16G16B16A16_FLOAT,
                2,
                sys::PIPE_BIND_RENDER_TARGET,
                true,
            ),
            // 4 samples of 16 bytes, 2 of 16 and 4 of 8: the reload's doubled quarter-group
            // view.
            (
                sys::PIPE_FORMAT_R32G32B32A32_FLOAT,
                4,
                sys::PIPE_BIND_RENDER_TARGET | sys::PIPE_BIND_BLENDABLE,
                true,
            ),
            (
                sys::PIPE_FORMAT_R32G32B32A32_FLOAT,
                2,
                sys::PIPE_BIND_RENDER_TARGET,
                true,
            ),
            (
                sys::PIPE_FORMAT_R32G32_FLOAT,
                4,
                sys::PIPE_BIND_RENDER_TARGET,
                true,
            ),
        ] {
            assert_eq!(
                is_supported(f, sys::PIPE_TEXTURE_2D, n, bind),
                ok,
                "format {f} x{n} bind {bind:#x}"
            );
        }
        assert!(!is_supported(
            sys::PIPE_FORMAT_R8G8B8A8_UNORM,
            sys::PIPE_TEXTURE_2D_ARRAY,
            4,
            sys::PIPE_BIND_RENDER_TARGET
        ));
        // Packed depth/stencil is split by u_transfer_helper; S8_UINT_Z24_UNORM (stencil in the
        // low byte) is not among the helper's split formats and stays refused.
        for f in [
            sys::PIPE_FORMAT_Z24_UNORM_S8_UINT,
            sys::PIPE_FORMAT_Z24X8_UNORM,
            sys::PIPE_FORMAT_Z32_FLOAT_S8X24_UINT,
        ] {
            assert!(is_supported(
                f,
                sys::PIPE_TEXTURE_2D,
                1,
                sys::PIPE_BIND_DEPTH_STENCIL
            ));
            assert!(!is_supported(
                f,
                sys::PIPE_TEXTURE_2D,
                1,
                sys::PIPE_BIND_RENDER_TARGET
            ));
        }
        assert!(!is_supported(
            sys::PIPE_FORMAT_S8_UINT_Z24_UNORM,
            sys::PIPE_TEXTURE_2D,
            1,
            sys::PIPE_BIND_DEPTH_STENCIL
        ));
    }

    #[test]
    fn vertex_formats_are_what_the_fetch_reads() {
        let vertex = |f| is_supported(f, sys::PIPE_BUFFER, 0, VERTEX);
        for f in [
            sys::PIPE_FORMAT_R32G32B32A32_FLOAT,
            sys::PIPE_FORMAT_R32_SINT,
            sys::PIPE_FORMAT_R8G8B8A8_UNORM,
            sys::PIPE_FORMAT_R8G8B8_SNORM,
            sys::PIPE_FORMAT_R16G16_USCALED,
            sys::PIPE_FORMAT_R16_SSCALED,
            sys::PIPE_FORMAT_R8G8_UINT,
            sys::PIPE_FORMAT_R16G16B16A16_SINT,
            sys::PIPE_FORMAT_R32G32_UNORM,
            sys::PIPE_FORMAT_R10G10B10A2_SNORM,
            sys::PIPE_FORMAT_R10G10B10A2_USCALED,
            sys::PIPE_FORMAT_B10G10R10A2_UNORM,
            sys::PIPE_FORMAT_B10G10R10A2_SSCALED,
            sys::PIPE_FORMAT_R10G10B10A2_UINT,
            sys::PIPE_FORMAT_R16G16B16A16_FLOAT,
            sys::PIPE_FORMAT_R16_FLOAT,
            sys::PIPE_FORMAT_R32G32_FIXED,
        ] {
            assert!(vertex(f), "format {f}");
        }
        // GL_BGRA order is read by the fetch too (ARB_vertex_type_2_10_10_10_rev needs the
        // B10G10R10A2 formats, or GL's size checks for the packed types are skipped).
        assert!(vertex(sys::PIPE_FORMAT_B8G8R8A8_UNORM));
        // u_vbuf translates these on the CPU: other channel orders, 64-bit floats.
        for f in [sys::PIPE_FORMAT_A8B8G8R8_UNORM, sys::PIPE_FORMAT_R64_FLOAT] {
            assert!(!vertex(f), "format {f}");
        }
        // Vertex formats are buffer formats only.
        assert!(!is_supported(
            sys::PIPE_FORMAT_R8G8B8A8_UNORM,
            sys::PIPE_BUFFER,
            0,
            VERTEX | sys::PIPE_BIND_SAMPLER_VIEW
        ));
    }

    /// Each sampled colour format's channels, as Mesa describes them (from the least
    /// significant bit), are the fields of its arrangement with its numeric type, and the
    /// arrangement/type pair is one agx-re captured on M4.
    #[test]
    fn sampled_formats_match_their_arrangement() {
        for &(f, channels, numeric, srgb) in SAMPLED {
            assert!(channels.captured_with(numeric), "{f}");
            // SAFETY: a table lookup on a format enum.
            let d = unsafe { &*sys::util_format_description(f) };
            if d.colorspace == sys::UTIL_FORMAT_COLORSPACE_ZS {
                continue; // sampled as the depth plane (resource.rs), not as described
            }
            assert_eq!(
                srgb,
                d.colorspace == sys::UTIL_FORMAT_COLORSPACE_SRGB,
                "{f}"
            );
            let bytes = unsafe { sys::util_format_get_blocksize(f) };
            assert_eq!(channels.element(), Some((bytes, 1, 1)), "{f}");
            let Some(ComponentLayout::Fields(fields)) = channels.components() else {
                // R11G11B10 / RGB9E5: Mesa's "other" layout, no per-channel fields.
                assert_ne!(d.layout, sys::UTIL_FORMAT_LAYOUT_PLAIN, "{f}");
                continue;
            };
            assert_eq!(d.nr_channels() as usize, fields.len(), "{f}");
            for (i, &(shift, size)) in fields.iter().enumerate() {
                let c = &d.channel[i];
                assert_eq!(
                    (c.shift(), c.size()),
                    (shift as u32, size as u32),
                    "{f} {i}"
                );
                let t = match (c.type_(), c.normalized() != 0, c.pure_integer() != 0) {
                    (sys::UTIL_FORMAT_TYPE_VOID, _, _) => continue, // an unused X channel
                    (sys::UTIL_FORMAT_TYPE_UNSIGNED, true, _) => NumericType::Unorm,
                    (sys::UTIL_FORMAT_TYPE_SIGNED, true, _) => NumericType::Snorm,
                    (sys::UTIL_FORMAT_TYPE_UNSIGNED, _, true) => NumericType::Uint,
                    (sys::UTIL_FORMAT_TYPE_SIGNED, _, true) => NumericType::Sint,
                    (sys::UTIL_FORMAT_TYPE_FLOAT, _, _) => NumericType::Float,
                    other => panic!("{f} channel {i}: {other:?}"),
                };
                assert_eq!(t, numeric, "{f} channel {i}");
            }
        }
    }

    #[test]
    fn sampled_formats_accept_sampler_views_only_where_listed() {
        let sv = sys::PIPE_BIND_SAMPLER_VIEW;
        for f in [
            sys::PIPE_FORMAT_R8_UNORM,
            sys::PIPE_FORMAT_R16G16B16A16_FLOAT,
            sys::PIPE_FORMAT_R32G32B32A32_UINT,
            sys::PIPE_FORMAT_R9G9B9E5_FLOAT,
        ] {
            assert!(is_supported(f, sys::PIPE_TEXTURE_2D, 1, sv), "{f}");
            assert!(!is_supported(f, sys::PIPE_BUFFER, 1, sv), "{f}");
        }
        // Renderable and sampled rows combine; sampled-only formats do not become renderable.
        let rt_sv = sys::PIPE_BIND_RENDER_TARGET | sv;
        assert!(is_supported(
            sys::PIPE_FORMAT_B5G6R5_UNORM,
            sys::PIPE_TEXTURE_2D,
            1,
            rt_sv
        ));
        // R32G32B32 (12-byte texels) and compressed formats have no descriptor format here.
        for f in [
            sys::PIPE_FORMAT_R32G32B32_FLOAT,
            sys::PIPE_FORMAT_ETC2_RGB8,
            sys::PIPE_FORMAT_X24S8_UINT,
        ] {
            assert!(!is_supported(f, sys::PIPE_TEXTURE_2D, 1, sv), "{f}");
        }
    }
}

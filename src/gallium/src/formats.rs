//! The formats the screen accepts, and for which uses. One table for images; vertex-buffer formats
//! are those the vertex fetch reads (`variants::attrib_format`).
//!
//! This is the driver's acceptance list, not the hardware pixel-format encoding (that belongs to
//! agx16-cmdstream's descriptor tables). Evidence: "asahi-25.0" = Mesa 25.0.7
//! `src/gallium/drivers/asahi/agx_pipe.c` `agx_is_format_supported` and `src/asahi/layout/formats.c`
//! (G13–G15; inferred for the M4).

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

/// Binds that only describe placement or lifetime and never restrict a format.
const NEUTRAL: u32 = sys::PIPE_BIND_LINEAR;

/// Whether `format` may be used with every bind in `usage`, for a single-sampled `target`.
pub fn is_supported(
    format: sys::pipe_format,
    target: sys::pipe_texture_target,
    samples: u32,
    usage: u32,
) -> bool {
    if samples > 1 {
        return false; // MSAA is not implemented.
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
    // A format may have rows in both tables (sampling and rendering are separate features);
    // its binds are their union.
    let binds = TABLE
        .iter()
        .chain(RENDER_TARGETS)
        .filter(|&&(f, _, _)| f == format)
        .fold(0, |a, &(_, b, _)| a | b);
    binds != 0 && usage & !(binds | NEUTRAL) == 0
}

const RT: u32 = sys::PIPE_BIND_RENDER_TARGET;
const RT_BLEND: u32 = sys::PIPE_BIND_RENDER_TARGET | sys::PIPE_BIND_BLENDABLE;
const RAW: &str =
    "agx16: raw render target (rt_format.rs: the program packs the memory bytes with \
                   nir_format_pack_rgba; the end-of-tile block store copies them through a \
                   same-width integer PBE view, sim/GFX.md block_image_store)";

/// Colour formats the render path writes besides the RGBA8/BGRA8 rows of [`TABLE`]
/// (`crate::rt_format::RAW_FORMATS`); blendable unless pure integer (GL forbids blending
/// there). Sampling them is a separate row's business.
const RENDER_TARGETS: &[(sys::pipe_format, u32, &str)] = &[
    (sys::PIPE_FORMAT_R8_UNORM, RT_BLEND, RAW),
    (sys::PIPE_FORMAT_R8G8_UNORM, RT_BLEND, RAW),
    (sys::PIPE_FORMAT_R8G8B8A8_SRGB, RT_BLEND, RAW),
    (sys::PIPE_FORMAT_R8G8B8X8_SRGB, RT_BLEND, RAW),
    (sys::PIPE_FORMAT_B8G8R8A8_SRGB, RT_BLEND, RAW),
    (sys::PIPE_FORMAT_B8G8R8X8_SRGB, RT_BLEND, RAW),
    (sys::PIPE_FORMAT_B4G4R4A4_UNORM, RT_BLEND, RAW),
    (sys::PIPE_FORMAT_B5G5R5A1_UNORM, RT_BLEND, RAW),
    (sys::PIPE_FORMAT_R10G10B10A2_UNORM, RT_BLEND, RAW),
    (sys::PIPE_FORMAT_B10G10R10A2_UNORM, RT_BLEND, RAW),
    (sys::PIPE_FORMAT_R10G10B10A2_UINT, RT, RAW),
    (sys::PIPE_FORMAT_B10G10R10A2_UINT, RT, RAW),
    (sys::PIPE_FORMAT_R8_UINT, RT, RAW),
    (sys::PIPE_FORMAT_R8_SINT, RT, RAW),
    (sys::PIPE_FORMAT_R8G8_UINT, RT, RAW),
    (sys::PIPE_FORMAT_R8G8_SINT, RT, RAW),
    (sys::PIPE_FORMAT_R8G8B8A8_UINT, RT, RAW),
    (sys::PIPE_FORMAT_R8G8B8A8_SINT, RT, RAW),
    (sys::PIPE_FORMAT_R16_UINT, RT, RAW),
    (sys::PIPE_FORMAT_R16_SINT, RT, RAW),
    (sys::PIPE_FORMAT_R16G16_UINT, RT, RAW),
    (sys::PIPE_FORMAT_R16G16_SINT, RT, RAW),
    (sys::PIPE_FORMAT_R16G16B16A16_UINT, RT, RAW),
    (sys::PIPE_FORMAT_R16G16B16A16_SINT, RT, RAW),
    (sys::PIPE_FORMAT_R32_UINT, RT, RAW),
    (sys::PIPE_FORMAT_R32_SINT, RT, RAW),
    (sys::PIPE_FORMAT_R32G32_UINT, RT, RAW),
    (sys::PIPE_FORMAT_R32G32_SINT, RT, RAW),
    (sys::PIPE_FORMAT_R32G32B32A32_UINT, RT, RAW),
    (sys::PIPE_FORMAT_R32G32B32A32_SINT, RT, RAW),
    (sys::PIPE_FORMAT_R16_FLOAT, RT_BLEND, RAW),
    (sys::PIPE_FORMAT_R16G16_FLOAT, RT_BLEND, RAW),
    (sys::PIPE_FORMAT_R16G16B16A16_FLOAT, RT_BLEND, RAW),
    (sys::PIPE_FORMAT_R11G11B10_FLOAT, RT_BLEND, RAW),
    // 32-bit float blending is EXT_float_blend, not offered.
    (sys::PIPE_FORMAT_R32_FLOAT, RT, RAW),
    (sys::PIPE_FORMAT_R32G32_FLOAT, RT, RAW),
    (sys::PIPE_FORMAT_R32G32B32A32_FLOAT, RT, RAW),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_render_target_row_is_a_format_the_render_path_writes() {
        for &(f, binds, _) in TABLE.iter().chain(RENDER_TARGETS) {
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
            // Blending is not offered on integer targets (GL ES 3.0 §4.1.7) nor on 32-bit
            // float ones (EXT_float_blend).
            let int = unsafe { sys::util_format_is_pure_integer(f) };
            let f32 = unsafe {
                let d = &*sys::util_format_description(f);
                d.channel[0].type_() == sys::UTIL_FORMAT_TYPE_FLOAT
                    && d.channel[0].size() == 32
            };
            assert_eq!(
                is_supported(f, sys::PIPE_TEXTURE_2D, 1, sys::PIPE_BIND_BLENDABLE),
                !int && !f32,
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
    fn depth_formats_are_not_colour_targets_and_msaa_is_refused() {
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
        assert!(!is_supported(
            sys::PIPE_FORMAT_R8G8B8A8_UNORM,
            sys::PIPE_TEXTURE_2D,
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
            sys::PIPE_FORMAT_R10G10B10A2_UINT,
            sys::PIPE_FORMAT_R16G16B16A16_FLOAT,
            sys::PIPE_FORMAT_R16_FLOAT,
            sys::PIPE_FORMAT_R32G32_FIXED,
        ] {
            assert!(vertex(f), "format {f}");
        }
        // u_vbuf translates these on the CPU: BGRA order, 64-bit floats.
        for f in [
            sys::PIPE_FORMAT_B8G8R8A8_UNORM,
            sys::PIPE_FORMAT_B10G10R10A2_UNORM,
            sys::PIPE_FORMAT_R64_FLOAT,
        ] {
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
}

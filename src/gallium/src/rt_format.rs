//! Colour render-target formats: which pipe formats the render path writes and how.
//!
//! RGBA8/BGRA8 unorm keep the compiler's own pack (`RenderTarget::Rgba8Unorm`/`Bgra8Unorm`).
//! Every other renderable format is a *raw* target: its tilebuffer words are the pixel's memory
//! bytes, which the fragment program packs itself with Mesa's `nir_format_pack_rgba` (unorm/snorm
//! rounding, integer clamping, half floats (round to nearest even; GL also allows toward zero),
//! R11G11B10 (half float with the mantissa truncated, which GL allows), linear → sRGB encoding) and reads back for
//! blending with `nir_format_unpack_rgba`; the end-of-tile store copies the bytes through a
//! same-width integer view (agx16-draw `TileFormat::export_view`). No hardware format conversion
//! is involved, so no tilebuffer format fact beyond the raw copy is needed. Clear values are packed
//! with `util_format_pack_rgba`, the same conversion the state tracker and softpipe use.

use agx16_compiler::abi::RenderTarget;
use agx16_draw::TileFormat;
use agx16_mesa_sys as sys;

unsafe extern "C" {
    // Mesa src/compiler/nir/nir_format_convert.c (in libnir; not in agx16-mesa-sys's header set).
    fn nir_format_pack_rgba(
        b: *mut sys::nir_builder,
        format: sys::pipe_format,
        rgba: *mut sys::nir_def,
    ) -> *mut sys::nir_def;
    fn nir_format_unpack_rgba(
        b: *mut sys::nir_builder,
        packed: *mut sys::nir_def,
        format: sys::pipe_format,
    ) -> *mut sys::nir_def;
}

/// The raw-target formats (each is a plain format `nir_format_pack_rgba` packs into 32-bit
/// words; widths 1, 2, 4, 8 and 16 bytes, the export views agx16-draw has).
pub const RAW_FORMATS: &[sys::pipe_format] = &[
    sys::PIPE_FORMAT_R8_UNORM,
    sys::PIPE_FORMAT_R8G8_UNORM,
    sys::PIPE_FORMAT_R8G8B8A8_SRGB,
    sys::PIPE_FORMAT_R8G8B8X8_SRGB,
    sys::PIPE_FORMAT_B8G8R8A8_SRGB,
    sys::PIPE_FORMAT_B8G8R8X8_SRGB,
    sys::PIPE_FORMAT_B5G6R5_UNORM,
    sys::PIPE_FORMAT_B4G4R4A4_UNORM,
    sys::PIPE_FORMAT_B5G5R5A1_UNORM,
    sys::PIPE_FORMAT_R10G10B10A2_UNORM,
    sys::PIPE_FORMAT_B10G10R10A2_UNORM,
    sys::PIPE_FORMAT_R10G10B10A2_UINT,
    sys::PIPE_FORMAT_B10G10R10A2_UINT,
    sys::PIPE_FORMAT_R8_UINT,
    sys::PIPE_FORMAT_R8_SINT,
    sys::PIPE_FORMAT_R8G8_UINT,
    sys::PIPE_FORMAT_R8G8_SINT,
    sys::PIPE_FORMAT_R8G8B8A8_UINT,
    sys::PIPE_FORMAT_R8G8B8A8_SINT,
    sys::PIPE_FORMAT_R16_UINT,
    sys::PIPE_FORMAT_R16_SINT,
    sys::PIPE_FORMAT_R16G16_UINT,
    sys::PIPE_FORMAT_R16G16_SINT,
    sys::PIPE_FORMAT_R16G16B16A16_UINT,
    sys::PIPE_FORMAT_R16G16B16A16_SINT,
    sys::PIPE_FORMAT_R32_UINT,
    sys::PIPE_FORMAT_R32_SINT,
    sys::PIPE_FORMAT_R32G32_UINT,
    sys::PIPE_FORMAT_R32G32_SINT,
    sys::PIPE_FORMAT_R32G32B32A32_UINT,
    sys::PIPE_FORMAT_R32G32B32A32_SINT,
    sys::PIPE_FORMAT_R16_FLOAT,
    sys::PIPE_FORMAT_R16G16_FLOAT,
    sys::PIPE_FORMAT_R16G16B16A16_FLOAT,
    sys::PIPE_FORMAT_R11G11B10_FLOAT,
    sys::PIPE_FORMAT_R32_FLOAT,
    sys::PIPE_FORMAT_R32G32_FLOAT,
    sys::PIPE_FORMAT_R32G32B32A32_FLOAT,
];

/// The render path's view of colour format `f`: agx16-draw's tile format and the compiler's
/// render target; `None` for a format the render path does not write.
pub fn target(f: sys::pipe_format) -> Option<(TileFormat, RenderTarget)> {
    Some(match f {
        sys::PIPE_FORMAT_R8G8B8A8_UNORM | sys::PIPE_FORMAT_R8G8B8X8_UNORM => {
            (TileFormat::Rgba8Unorm, RenderTarget::Rgba8Unorm)
        }
        sys::PIPE_FORMAT_B8G8R8A8_UNORM | sys::PIPE_FORMAT_B8G8R8X8_UNORM => {
            (TileFormat::Bgra8Unorm, RenderTarget::Bgra8Unorm)
        }
        f if RAW_FORMATS.contains(&f) => {
            // SAFETY: a pure query on a valid format enum.
            let bits = unsafe { (*sys::util_format_description(f)).block.bits };
            let bytes = (bits / 8) as u8;
            (
                TileFormat::Raw { bytes },
                RenderTarget::Words(bytes.div_ceil(4)),
            )
        }
        _ => return None,
    })
}

/// Whether `f` is a raw target (its colour is packed by [`pack_colour_outputs`]).
pub fn is_raw(f: sys::pipe_format) -> bool {
    RAW_FORMATS.contains(&f)
}

/// A clear value of format `f` as tile words (the pixel's memory bytes): float colours for
/// normalised/float formats, integers for pure integer ones, as `util_format_pack_rgba` reads
/// the union.
pub fn clear_words(f: sys::pipe_format, color: &sys::pipe_color_union) -> Vec<u32> {
    let mut bytes = [0u8; 16];
    // SAFETY: `bytes` holds one pixel of any format up to 16 bytes; the union is 16 bytes.
    let n = unsafe {
        sys::util_format_pack_rgba(
            f,
            bytes.as_mut_ptr() as *mut _,
            color as *const sys::pipe_color_union as *const _,
            1,
        );
        sys::util_format_get_blocksize(f) as usize
    };
    agx16_draw::tile_words(&bytes[..n.min(16)])
}

struct PackState {
    /// Per draw-buffer slot: the raw format packed there.
    formats: [sys::pipe_format; 8],
}

/// The draw buffer a fragment output location names.
fn slot_of(location: u32) -> Option<usize> {
    if location == sys::FRAG_RESULT_COLOR {
        Some(0)
    } else if (sys::FRAG_RESULT_DATA0..sys::FRAG_RESULT_DATA0 + 8).contains(&location) {
        Some((location - sys::FRAG_RESULT_DATA0) as usize)
    } else {
        None
    }
}

unsafe extern "C" fn pack_one(
    b: *mut sys::nir_builder,
    x: *mut sys::nir_intrinsic_instr,
    data: *mut std::ffi::c_void,
) -> bool {
    let st = &*(data as *const PackState);
    let store = (*x).intrinsic == sys::nir_intrinsic_store_output;
    if !store && (*x).intrinsic != sys::nir_intrinsic_load_output {
        return false;
    }
    let sem = sys::nir_intrinsic_io_semantics(x);
    let Some(slot) = slot_of(sem.location()) else {
        return false;
    };
    let f = st.formats[slot];
    if f == sys::PIPE_FORMAT_NONE {
        return false;
    }
    let int = sys::util_format_is_pure_integer(f);
    let words = (sys::util_format_get_blocksize(f)).div_ceil(4);
    if store {
        let v = (*x).src.as_slice(2)[0].ssa;
        if sys::nir_intrinsic_component(x) != 0 || (*v).bit_size != 32 {
            // Left for the compiler, which refuses a raw target's partial or 16-bit store.
            return false;
        }
        (*b).cursor = sys::nir_before_instr(&mut (*x).instr);
        // Unwritten components: GL leaves them undefined; 0, 0, 0, 1.
        let n = (*v).num_components as u32;
        let mask = sys::nir_intrinsic_write_mask(x);
        let mut c: Vec<*mut sys::nir_def> = (0..4)
            .map(|k| {
                if k < n && mask >> k & 1 == 1 {
                    sys::nir_channel(b, v, k)
                } else if int {
                    sys::nir_imm_int(b, (k == 3) as i32)
                } else {
                    sys::nir_imm_float(b, if k == 3 { 1.0 } else { 0.0 })
                }
            })
            .collect();
        let rgba = sys::nir_vec(b, c.as_mut_ptr(), 4);
        let packed = nir_format_pack_rgba(b, f, rgba);
        sys::nir_src_rewrite(&mut (*x).src.as_mut_slice(2)[0], packed);
        (*x).num_components = (*packed).num_components;
        sys::nir_intrinsic_set_write_mask(x, (1 << (*packed).num_components) - 1);
        sys::nir_intrinsic_set_src_type(x, sys::nir_type_uint32);
        true
    } else {
        // The destination colour `nir_lower_blend` reads: the raw words, unpacked.
        let want = (*x).def.num_components as u32;
        if sys::nir_intrinsic_component(x) != 0 || (*x).def.bit_size != 32 {
            return false;
        }
        (*b).cursor = sys::nir_before_instr(&mut (*x).instr);
        let load = sys::nir_intrinsic_instr_create((*b).shader, sys::nir_intrinsic_load_output);
        (*load).num_components = words as u8;
        sys::nir_def_init(&mut (*load).instr, &mut (*load).def, words, 32);
        (*load).src.as_mut_slice(1)[0] = sys::nir_src_for_ssa(sys::nir_imm_int(b, 0));
        sys::nir_intrinsic_set_base(load, sys::nir_intrinsic_base(x));
        sys::nir_intrinsic_set_component(load, 0);
        sys::nir_intrinsic_set_dest_type(load, sys::nir_type_uint32);
        sys::nir_intrinsic_set_io_semantics(load, sem);
        sys::nir_builder_instr_insert(b, &mut (*load).instr);
        let rgba = nir_format_unpack_rgba(b, &mut (*load).def, f);
        let v = sys::nir_trim_vector(b, rgba, want);
        sys::nir_def_replace(&mut (*x).def, v);
        true
    }
}

/// Packs the colour outputs of the raw targets among `formats` (per draw buffer) into their
/// memory words, and turns their `load_output`s (the blend destination) into the unpacked
/// colour. Runs after `nir_lower_blend`, so blending happens on the format's values.
///
/// # Safety
/// `nir` must be a live fragment shader with lowered IO.
pub unsafe fn pack_colour_outputs(nir: *mut sys::nir_shader, formats: &[sys::pipe_format]) {
    let mut st = PackState {
        formats: [sys::PIPE_FORMAT_NONE; 8],
    };
    let mut any = false;
    for (k, &f) in formats.iter().enumerate().take(8) {
        if is_raw(f) {
            st.formats[k] = f;
            any = true;
        }
    }
    if any {
        sys::nir_shader_intrinsics_pass(
            nir,
            Some(pack_one),
            sys::nir_metadata_control_flow,
            &mut st as *mut PackState as *mut std::ffi::c_void,
        );
    }
}

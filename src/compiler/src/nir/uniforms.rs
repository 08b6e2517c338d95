//! Where a graphics program's default uniform block lives, and the texture lowering that places
//! its size words after the uniforms: the lowering the Gallium driver runs on every vertex and
//! fragment shader, shared with `agx16-compile` so the tool compiles what the driver compiles.

use crate::abi::MAX_UBOS;
use agx16_mesa_sys as m;
use std::ffi::c_void;

/// GL uniform words (constant buffer 0) a program reads inline, as argument words; a program
/// that reads more (or an array of more than one vec4 through a variable index: uniform
/// registers cannot be indexed, so an indexed array costs a select per element) reads the
/// whole default block with device loads from memory, as a uniform block
/// ([`default_block_to_ubo`]). A launcher transfers at most 46 words, 12 of them the root
/// record and two per buffer (sim/GFX.md "Render-stage uniform ABI").
pub const INLINE_UNIFORM_WORDS: u32 = 16;

/// Calls `f` on every intrinsic of `nir`, changing nothing (a `nir_shader_intrinsics_pass`
/// that keeps all metadata).
///
/// # Safety
/// `nir` must be a valid shader; `f` is called with its intrinsics, valid for the call.
unsafe fn read_intrinsics<F: FnMut(*mut m::nir_intrinsic_instr)>(
    nir: *mut m::nir_shader,
    mut f: F,
) {
    unsafe extern "C" fn visit<F: FnMut(*mut m::nir_intrinsic_instr)>(
        _b: *mut m::nir_builder,
        x: *mut m::nir_intrinsic_instr,
        data: *mut c_void,
    ) -> bool {
        unsafe { (*(data as *mut F))(x) };
        false
    }
    unsafe {
        m::nir_shader_intrinsics_pass(
            nir,
            Some(visit::<F>),
            m::nir_metadata_all,
            &mut f as *mut F as *mut c_void,
        );
    }
}

/// The GL uniform word past every `load_uniform` of `nir` (base + range, in the 32-bit words
/// of `packed_uniforms`): where the driver's own words (render origin, texture sizes) go.
///
/// # Safety
/// `nir` must be a valid shader.
pub unsafe fn uniform_end(nir: *mut m::nir_shader) -> u32 {
    let mut end = 0u32;
    unsafe {
        read_intrinsics(nir, |x| {
            if (*x).intrinsic == m::nir_intrinsic_load_uniform {
                let w = m::nir_intrinsic_base(x).max(0) as u32
                    + m::nir_intrinsic_range(x).max((*x).def.num_components as u32);
                end = end.max(w);
            }
        });
    }
    end
}

/// Whether `nir` reads its default uniform block from memory (see [`INLINE_UNIFORM_WORDS`]).
///
/// # Safety
/// `nir` must be a valid shader whose uniforms are lowered to `load_uniform`.
pub unsafe fn default_block_in_memory(nir: *mut m::nir_shader) -> bool {
    let mut indexed = false;
    unsafe {
        read_intrinsics(nir, |x| {
            if (*x).intrinsic == m::nir_intrinsic_load_uniform
                && !m::nir_src_is_const(*(*x).src.as_ptr())
                && m::nir_intrinsic_range(x) > 4
            {
                indexed = true;
            }
        });
        indexed || uniform_end(nir) > INLINE_UNIFORM_WORDS
    }
}

/// Rewrites every `load_uniform` of `nir` (GL uniform word base + offset, `packed_uniforms`)
/// into a `load_ubo` of uniform block `block` at byte offset 4 · (base + offset): the default
/// block read from memory.
///
/// # Safety
/// `nir` must be a valid shader owned by the caller.
pub unsafe fn default_block_to_ubo(nir: *mut m::nir_shader, block: u8) {
    unsafe extern "C" fn visit(
        b: *mut m::nir_builder,
        x: *mut m::nir_intrinsic_instr,
        data: *mut c_void,
    ) -> bool {
        unsafe {
            if (*x).intrinsic != m::nir_intrinsic_load_uniform || (*x).def.bit_size != 32 {
                return false;
            }
            let block = *(data as *const u8);
            (*b).cursor = m::nir_before_instr(&mut (*x).instr);
            let words = m::nir_iadd_imm(
                b,
                (*(*x).src.as_ptr()).ssa,
                m::nir_intrinsic_base(x) as i64 as u64,
            );
            let offset = m::nir_ishl_imm(b, words, 2);
            let n = (*x).def.num_components as u32;
            let load = m::nir_intrinsic_instr_create((*b).shader, m::nir_intrinsic_load_ubo);
            (*load).num_components = n as u8;
            m::nir_def_init(&mut (*load).instr, &mut (*load).def, n, 32);
            let srcs = (*load).src.as_mut_slice(2);
            srcs[0] = m::nir_src_for_ssa(m::nir_imm_int(b, block as i32));
            srcs[1] = m::nir_src_for_ssa(offset);
            m::nir_intrinsic_set_align(load, 4, 0);
            m::nir_intrinsic_set_range_base(load, 0);
            m::nir_intrinsic_set_range(load, u32::MAX);
            m::nir_builder_instr_insert(b, &mut (*load).instr);
            m::nir_def_replace(&mut (*x).def, &mut (*load).def);
            true
        }
    }
    let mut block = block;
    unsafe {
        m::nir_shader_intrinsics_pass(
            nir,
            Some(visit),
            m::nir_metadata_control_flow,
            &mut block as *mut u8 as *mut c_void,
        );
    }
}

/// The driver's texture-information words a program reads ([`super::texture::INFO_WORDS`]
/// per unit, filled per draw), and where it reads them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureWords {
    /// Word i of the program's words is word `k` of unit `u`'s information: `(u, k)`. Only
    /// the words the program reads, in unit order (a program sampling 16 units usually
    /// reads a few words of some of them, not 8 of each).
    pub words: Vec<(u8, u8)>,
    pub at: WordsAt,
}

/// Where a program reads the driver's texture-information words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WordsAt {
    /// Inline argument words from GL uniform word `w` on (the fast path: uniform registers).
    Inline(u32),
    /// Uniform block `k` (device loads; a buffer qword of the root record), which the driver
    /// uploads per draw: when the inline words would pass what a launcher transfers
    /// ([`crate::abi::MAX_UNIFORM_WORDS`]). The key's `ubos` counts it.
    Block(u8),
}

/// Lowers `nir`'s texture instructions ([`super::texture::lower`]: projection, offsets,
/// gradients, cube maps, sizes), placing the texture-information words the program reads past
/// every uniform it reads, each word once ([`TextureWords`]). When those words would not fit
/// the launcher's argument words under `key` (its buffer qwords before the inline uniforms),
/// they become uniform block `key.ubos` instead, and `key.ubos` counts it. Returns `None`
/// when the program reads no such word.
///
/// # Safety
/// `nir` must be a valid shader.
pub unsafe fn lower_textures(
    nir: *mut m::nir_shader,
    key: &mut crate::abi::GraphicsKey,
) -> Option<TextureWords> {
    unsafe {
        if (*nir).info.num_textures == 0 {
            return None;
        }
        let word = uniform_end(nir);
        if super::texture::lower(nir, Some(word)) == 0 {
            return None;
        }
        // Drop the words no component reads (a 2D array's layer clamp reads only its layer
        // count of the size query).
        m::nir_copy_prop(nir);
        m::nir_opt_dce(nir);
        // Every load past `word` reads information words (nothing else is placed after them):
        // number the words read densely, in order, so a multi-word load stays contiguous.
        let mut read: Vec<u32> = Vec::new();
        read_intrinsics(nir, |x| {
            if let Some((base, n)) = info_load(x, word) {
                read.extend(base..base + n);
            }
        });
        read.sort_unstable();
        read.dedup();
        if read.is_empty() {
            return None;
        }
        let words = read
            .iter()
            .map(|&r| {
                let info = super::texture::INFO_WORDS;
                ((r / info) as u8, (r % info) as u8)
            })
            .collect();
        let inline_end =
            crate::abi::gl_uniform_base(super::gfx::buffers(key)) as u32 + word + read.len() as u32;
        let at = if inline_end <= crate::abi::MAX_UNIFORM_WORDS as u32 {
            WordsAt::Inline(word)
        } else {
            let block = match key {
                crate::abi::GraphicsKey::Vertex(v) => &mut v.ubos,
                crate::abi::GraphicsKey::Fragment(f) => &mut f.ubos,
            };
            let k = *block;
            *block += 1;
            WordsAt::Block(k)
        };
        let mut place = Place {
            word,
            read: &read,
            at,
        };
        m::nir_shader_intrinsics_pass(
            nir,
            Some(place_info_load),
            m::nir_metadata_control_flow,
            &mut place as *mut Place as *mut c_void,
        );
        Some(TextureWords { words, at })
    }
}

/// An information-word load ([`lower_textures`]): its first word relative to `word` and its
/// word count.
unsafe fn info_load(x: *mut m::nir_intrinsic_instr, word: u32) -> Option<(u32, u32)> {
    unsafe {
        if (*x).intrinsic != m::nir_intrinsic_load_uniform {
            return None;
        }
        let base = m::nir_intrinsic_base(x).max(0) as u32;
        let n = m::nir_intrinsic_range(x).max((*x).def.num_components as u32);
        base.checked_sub(word).map(|rel| (rel, n))
    }
}

struct Place<'a> {
    word: u32,
    read: &'a [u32],
    at: WordsAt,
}

/// Moves an information-word load to its dense index, inline or in the block.
unsafe extern "C" fn place_info_load(
    b: *mut m::nir_builder,
    x: *mut m::nir_intrinsic_instr,
    data: *mut c_void,
) -> bool {
    unsafe {
        let p = &*(data as *const Place);
        let Some((rel, _)) = info_load(x, p.word) else {
            return false;
        };
        let Ok(i) = p.read.binary_search(&rel) else {
            return false;
        };
        match p.at {
            WordsAt::Inline(w) => {
                m::nir_intrinsic_set_base(x, (w + i as u32) as i32);
                true
            }
            WordsAt::Block(k) => {
                (*b).cursor = m::nir_before_instr(&mut (*x).instr);
                let n = (*x).def.num_components as u32;
                let load = m::nir_intrinsic_instr_create((*b).shader, m::nir_intrinsic_load_ubo);
                (*load).num_components = n as u8;
                m::nir_def_init(&mut (*load).instr, &mut (*load).def, n, 32);
                let srcs = (*load).src.as_mut_slice(2);
                srcs[0] = m::nir_src_for_ssa(m::nir_imm_int(b, k as i32));
                srcs[1] = m::nir_src_for_ssa(m::nir_imm_int(b, 4 * i as i32));
                m::nir_intrinsic_set_align(load, 4, 0);
                m::nir_intrinsic_set_range_base(load, 0);
                m::nir_intrinsic_set_range(load, u32::MAX);
                m::nir_builder_instr_insert(b, &mut (*load).instr);
                m::nir_def_replace(&mut (*x).def, &mut (*load).def);
                true
            }
        }
    }
}

/// The uniform blocks a stage's program reads: one past the highest constant `load_ubo` block
/// index (`info.num_ubos` when an index is not constant). NIR `load_ubo` block k is the state
/// tracker's constant buffer k + 1 (st_atom_constbuf.c `st_bind_ubos`; tgsi_to_nir numbers
/// TGSI's buffers alike), each a buffer qword of its root record (`crate::abi`); more than
/// [`MAX_UBOS`] do not fit the launcher's argument words beside the vertex buffers and
/// uniforms. Blocks a program declares but never reads (util_blitter's shaders) get no qword.
///
/// # Safety
/// `nir` must be a valid shader.
pub unsafe fn ubos_read(nir: *mut m::nir_shader) -> Result<u8, String> {
    let mut read: Option<u32> = Some(0);
    let n = unsafe {
        read_intrinsics(nir, |x| {
            if (*x).intrinsic == m::nir_intrinsic_load_ubo {
                let src = *(*x).src.as_ptr();
                read = match (read, m::nir_src_is_const(src)) {
                    (Some(k), true) => Some(k.max(m::nir_src_as_uint(src) as u32 + 1)),
                    _ => None,
                };
            }
        });
        read.unwrap_or((*nir).info.num_ubos as u32)
    };
    if n > MAX_UBOS as u32 {
        return Err(format!(
            "{n} uniform blocks in one stage (at most {MAX_UBOS})"
        ));
    }
    Ok(n as u8)
}

/// The uniform blocks `nir` reads ([`ubos_read`]) with the default block's included when it is
/// read from memory ([`default_block_in_memory`]), and that block's index (the caller rewrites
/// the program's `load_uniform`s with [`default_block_to_ubo`]).
///
/// # Safety
/// `nir` must be a valid shader whose uniforms are lowered to `load_uniform`.
pub unsafe fn blocks(nir: *mut m::nir_shader) -> (Result<u8, String>, Option<u8>) {
    unsafe {
        let ubos = ubos_read(nir);
        match ubos {
            Ok(n) if default_block_in_memory(nir) => {
                if n >= MAX_UBOS {
                    (
                        Err(format!(
                            "{n} uniform blocks and the default block in memory (at most {MAX_UBOS})"
                        )),
                        None,
                    )
                } else {
                    (Ok(n + 1), Some(n))
                }
            }
            other => (other, None),
        }
    }
}

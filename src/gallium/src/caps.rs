//! What the screen tells Mesa it can do. Rule: a feature cap is on only when the driver implements it;
//! a limit is the hardware's, with its evidence.
//!
//! Evidence key: "asahi-25.0" = Mesa 25.0.7 `src/gallium/drivers/asahi/agx_pipe.c` (the G13–G15 driver;
//! the M4 is assumed to share the limit: inferred, not measured on M4).
//!
//! The context is OpenGL ES 3.0: Mesa (`src/mesa/main/version.c`, `compute_version_es2`) derives
//! it from the caps and formats below (transform feedback, UBOs, texture arrays, instancing,
//! primitive restart, float/sRGB/snorm/packed formats, 8 colour attachments, GLSL ES 3.00).

use agx16_mesa_sys as sys;

/// Fills `screen.caps` after Mesa's defaults.
///
/// # Safety
/// `screen` must point to a pipe_screen whose callbacks are set (u_init_pipe_screen_caps queries them).
pub unsafe fn init_screen_caps(screen: *mut sys::pipe_screen) {
    sys::u_init_pipe_screen_caps(screen, 1);
    let caps = &mut (*screen).caps;

    // GLES 2.0 is the floor below which EGL cannot create any GLES context; these two are part of it.
    // The driver accepts and stores such state; drawing itself is not implemented yet (draw_vbo says so).
    caps.npot_textures = true; // hardware: asahi-25.0
                               // glGenerateMipmap on the CPU for the images texture.rs can halve (others fall back to
                               // util_gen_mipmap's blits, refused by name).
    caps.generate_mipmap = true;
    caps.blend_equation_separate = true; // hardware: asahi-25.0
                                         // Sampled formats (formats.rs SAMPLED). Half-float textures filter linearly: asahi-25.0 sets
                                         // this for G13 (inferred for the M4); agx16-sim filters binary16 texels by GL's rules
                                         // (sim/src/gfx/texel.rs). 32-bit float filtering stays off (st then samples f32 textures
                                         // nearest), as no M4 source measures it.
    caps.texture_half_float_linear = true;
    // Per-view swizzles: the descriptor's four swizzle fields (ADevWithAnIdea/agx-re
    // docs/descriptors/format-table.md §3, measured on M4), composed with the format's in
    // texture.rs.
    caps.texture_swizzle = true;
    // Shadow samplers (ARB_shadow → GL_EXT_shadow_samplers on ES 2): the comparison runs in the
    // fragment shader (agx16-compiler nir::texture::lower with the sampler's function from the
    // driver's per-unit words), as no source transcribes the G16 compare codes; image scene
    // texture_shadow matches softpipe.
    caps.texture_shadow_map = true;

    // Fixed-function features the hardware lacks: Mesa lowers them into the shaders (asahi-25.0).
    caps.flatshade = false;
    caps.alpha_test = false;
    caps.two_sided_color = false;
    caps.clip_planes = 0;

    // gl_FragCoord: the compiler reads the pixel's x/y (get_sr 0xa0/0xa1, GravityLinux/mesa
    // load_pixel_coord, GLES suites run on M4) and adds 0.5, with y growing downwards in the
    // framebuffer. Mesa's st flips and offsets to GL's convention from exactly these two caps; with
    // none set its wpos lowering asserts (piglit glsl-fcoord-invariant-pass crashed so).
    caps.fs_coord_origin_upper_left = true;
    caps.fs_coord_pixel_center_half_integer = true;

    // Uniforms in 32-bit words (st lowers load_uniform with dword units and packs the constant
    // buffer), the unit of the compiler's inline uniform words (agx16_compiler::abi). Without it
    // st counts vec4 slots and every uniform past the first vec4 was read from the wrong word.
    caps.packed_uniforms = true;

    // Reset notification (EGL_EXT_create_context_robustness, glGetGraphicsResetStatus): a
    // render the kernel fails (GPU fault, job watchdog, refused encoding) is read from its
    // out-fence's error and reported as a guilty reset of its context (context.rs
    // `get_device_reset_status`, batch.rs `check_completed`).
    caps.device_reset_status_query = true;
    // Robust buffer access (GL_KHR_robustness / GL_EXT_robustness, EGL robust access): reads
    // out of range return zero or values from within the resource and never fail the job:
    // vertex fetch clamped per attribute in the shader (agx16-compiler nir/vertex_fetch.rs,
    // variants.rs `fetch_bounds`), indices past the index buffer read zero (draw.rs
    // `index_overrun`), uniform block reads at computed offsets clamped to the bound range
    // (variants.rs `clamp_ubo_offsets`), texelFetch out of a level returns zero (the model's
    // value rule). Left: constant uniform-block offsets past a bound range smaller than the
    // block, and a vertex binding too small for one element of its largest attribute reads
    // zeros for all of its attributes.
    caps.robust_buffer_access_behavior = true;

    // finalize_nir (shader.rs) runs at glLinkProgram and trial-compiles each stage, so a shader
    // the G16 compiler refuses fails the link with the reason in the info log.
    caps.call_finalize_nir_in_linker = true;

    // Vertex input (the vertex fetch is part of the vertex program: agx16_compiler
    // nir/vertex_fetch.rs; sim/GFX.md "Vertex stage"). Element offsets, strides and buffer
    // offsets must be multiples of 4 (the fetch loads whole 32-bit words; u_vbuf realigns others).
    caps.vertex_input_alignment = sys::PIPE_VERTEX_INPUT_ALIGNMENT_4BYTE;
    // Each vertex-buffer binding a vertex program reads is a qword of its launcher's argument
    // words, which agx16-draw caps at 46 (pending registers r18..r63): 12 root words + 8
    // bindings (16) + at most 16 inline uniform words + the default block's qword (2) fit. A draw
    // using more bindings goes through u_vbuf, which packs the attributes into fewer buffers.
    caps.max_vertex_buffers = 8;
    // gl_InstanceID: get_sr 0xd8 (GravityLinux/mesa agx_compile_apple9.c `apple9_system_source`,
    // inferred; run by its GLES 3.0 sweep on T8132); instanced draws carry the instance count in
    // the VDM index list (agx16-draw). Divisors: element `instance id / divisor` in the fetch.
    caps.vs_instanceid = true;
    caps.vertex_element_instance_divisor = true;
    // Primitive restart with any index (the VDM restart-index word, compared with the
    // zero-extended index: GravityLinux/mesa agx_apple9.c index-list emission, M4; sim/GFX.md
    // "Index lists"), which covers GLES 3.0's fixed all-ones index; every primitive type.
    caps.primitive_restart = true;
    caps.primitive_restart_fixed_index = true;

    // Uniform blocks (ARB_uniform_buffer_object): the program reads block k with device loads
    // from its address in the root record (agx16_compiler::abi `ubo_slot`; device loads with
    // base slots: sim/GFX.md "Render-stage uniform ABI"). Binding offsets: 16 bytes
    // (asahi-25.0; the loads need 4-byte aligned addresses, vec4 members sit at multiples of 16).
    // Block size: `max_constant_buffer_size` keeps Mesa's default, CONST_BUFFER0_SIZE (64 KiB,
    // asahi-25.0), a 32-bit element index away from the block's base.
    caps.constant_buffer_offset_alignment = 16;

    // Transform feedback (EXT_transform_feedback): the vertex program stores its captured outputs
    // with device stores (so.rs). Four buffers (GLES 3.0's minimum of separate attributes):
    // each takes two of the launcher's argument words beside the UBOs, vertex buffers and
    // uniforms (agx16_compiler::abi). Components: a captured component is one device store into
    // its buffer whatever the mode, so a separate buffer takes as many as an interleaved one,
    // 64 (all 16 varyings' components; softpipe offers 64 for both; GLES 3.0's minimum for
    // separate buffers is 4, which left mat2x4 and larger varyings uncapturable).
    caps.max_stream_output_buffers = 4;
    caps.max_stream_output_separate_components = 64;
    caps.max_stream_output_interleaved_components = 64;

    // Attachments of different sizes (ARB_framebuffer_object; the render area is the smallest):
    // the end-of-tile block store and the ZLS store clip to each attachment's own size, so the
    // pixels past the area are kept; a clear that would reach them inside an edge utile is
    // refused by name (agx16-draw `edge_clears`). End to end: image scene mixed_sizes.
    caps.mixed_framebuffer_sizes = true;

    // Per-target blend state and colour masks (EXT_draw_buffers2, ARB_draw_buffers_blend, so
    // OES_draw_buffers_indexed): blending is lowered into the fragment program per target
    // (`nir_lower_blend` with each target's state, variants.rs `blend_key`), so independent
    // state costs nothing. End to end: image scene mrt_indexed_blend.
    caps.indep_blend_enable = true;
    caps.indep_blend_func = true;
    // Dual-source blending (EXT_blend_func_extended): nir_lower_blend takes the index-1 colour
    // as its src1 factor and removes its store (variants.rs `compile`); program arithmetic, no
    // hardware fact. End to end: image scene dual_source_blend.
    caps.max_dual_source_render_targets = 1;

    // Occlusion queries (query.rs): counting-mode fragment state and the render's result
    // buffer (sim/src/gfx/tiles.rs `write_occlusion`: G13 visibility modes, T8132 slot index).
    caps.occlusion_query = true;

    // Limits (hardware).
    caps.max_texture_2d_size = 16384; // asahi-25.0
    caps.max_texture_cube_levels = 15; // asahi-25.0: 16384 x 16384
    caps.max_texture_3d_levels = 12; // asahi-25.0: 2048^3
    caps.max_texture_array_layers = 2048; // asahi-25.0

    // Eight colour targets: one end-of-tile block store each, targets 4..7 reusing the four
    // publication tuples after a join (agx16-draw MAX_BOUND_TARGETS; GravityLinux/mesa, eight
    // RGBA32F targets verified on T8132). End to end: image scenes mrt8_mixed, mrt8_rgba32f.
    caps.max_render_targets = agx16_draw::fb::MAX_BOUND_TARGETS as u32;
    caps.max_varyings = 16; // asahi-25.0
    caps.max_viewports = 1;
    caps.min_line_width = 1.0;
    caps.min_line_width_aa = 1.0;
    caps.max_line_width = 16.0; // asahi-25.0: 4.4 fixed-point encoding
    caps.max_line_width_aa = 16.0;
    caps.line_width_granularity = 0.1;
    caps.min_point_size = 1.0;
    caps.min_point_size_aa = 1.0;
    caps.max_point_size = 511.95; // asahi-25.0
    caps.max_point_size_aa = 511.95;
    caps.point_size_granularity = 0.1;
    caps.max_texture_lod_bias = 16.0;
    caps.uma = true; // Apple silicon: GPU and CPU share memory (asahi-25.0)
    caps.endianness = sys::PIPE_ENDIAN_LITTLE;

    // The NIR the driver gets is the only IR; no TGSI.
    // GLSL ES 3.00 (and GLSL 1.30, the desktop level Mesa ties native integers, ES 3.0
    // compatibility and depth cube maps to): every feature Mesa's compute_version_es2 asks
    // for OpenGL ES 3.0 is implemented end to end (the caps above), so the context is ES 3.0.
    caps.glsl_feature_level = 130;
    caps.glsl_feature_level_compatibility = 130;
    caps.essl_feature_level = 300;
    // textureLod in fragment programs (ARB_shader_texture_lod, core in ES 3.0): explicit-LOD
    // samples run in every stage (the texture unit's LOD word, sim/src/gfx/texture.rs).
    caps.fragment_shader_texture_lod = true;
    // dFdx/dFdy/fwidth in fragment programs: Mesa offers OES_standard_derivatives to ES 2.0
    // contexts on this cap (st_extensions.c); GLSL ES 3.00 has them in core. The compiler emits
    // the G16 `derivative` (GravityLinux/mesa agx_apple9_ir.c DERIVATIVE, whose M4 driver
    // passes dEQP-GLES3 derivate.*; agx16-sim gfx::quad). The derivative hint is Mesa's state
    // (GL lets an implementation ignore it): fine differences whatever it says.
    caps.fragment_shader_derivatives = true;
}

/// Per-stage limits. Only vertex and fragment exist; every other stage reports 0 (unsupported).
pub fn shader_param(stage: sys::pipe_shader_type, param: sys::pipe_shader_cap) -> i32 {
    if stage != sys::PIPE_SHADER_VERTEX && stage != sys::PIPE_SHADER_FRAGMENT {
        return 0;
    }
    let vertex = stage == sys::PIPE_SHADER_VERTEX;
    match param {
        sys::PIPE_SHADER_CAP_MAX_INSTRUCTIONS
        | sys::PIPE_SHADER_CAP_MAX_ALU_INSTRUCTIONS
        | sys::PIPE_SHADER_CAP_MAX_TEX_INSTRUCTIONS
        | sys::PIPE_SHADER_CAP_MAX_TEX_INDIRECTIONS => 16384, // asahi-25.0
        sys::PIPE_SHADER_CAP_MAX_CONTROL_FLOW_DEPTH => 1024, // asahi-25.0
        // Vertex: 16 attributes (Mesa 25.0.7 src/asahi/lib/agx_nir_lower_vbo.h AGX_MAX_ATTRIBS);
        // fragment: 16 varyings (caps.max_varyings).
        sys::PIPE_SHADER_CAP_MAX_INPUTS => 16,
        sys::PIPE_SHADER_CAP_MAX_OUTPUTS => {
            if vertex {
                16
            } else {
                agx16_draw::fb::MAX_BOUND_TARGETS as i32 // caps.max_render_targets
            }
        }
        sys::PIPE_SHADER_CAP_MAX_TEMPS => 256,
        sys::PIPE_SHADER_CAP_MAX_CONST_BUFFER0_SIZE => 16 * 1024 * 4, // asahi-25.0
        // The default uniform block and agx16_compiler::abi::MAX_UBOS uniform blocks (the
        // launcher's argument words bound them; 12 is GLES 3.0's minimum per stage).
        sys::PIPE_SHADER_CAP_MAX_CONST_BUFFERS => 1 + agx16_compiler::abi::MAX_UBOS as i32,
        sys::PIPE_SHADER_CAP_CONT_SUPPORTED => 1,
        sys::PIPE_SHADER_CAP_INTEGERS => 1,
        sys::PIPE_SHADER_CAP_INDIRECT_TEMP_ADDR | sys::PIPE_SHADER_CAP_INDIRECT_CONST_ADDR => 1,
        sys::PIPE_SHADER_CAP_MAX_TEXTURE_SAMPLERS | sys::PIPE_SHADER_CAP_MAX_SAMPLER_VIEWS => 16, // asahi-25.0
        sys::PIPE_SHADER_CAP_SUPPORTED_IRS => 1 << sys::PIPE_SHADER_IR_NIR,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_vertex_and_fragment_stages_exist() {
        let max = sys::PIPE_SHADER_CAP_MAX_INSTRUCTIONS;
        assert!(shader_param(sys::PIPE_SHADER_VERTEX, max) > 0);
        assert!(shader_param(sys::PIPE_SHADER_FRAGMENT, max) > 0);
        for stage in [
            sys::PIPE_SHADER_GEOMETRY,
            sys::PIPE_SHADER_TESS_CTRL,
            sys::PIPE_SHADER_TESS_EVAL,
            sys::PIPE_SHADER_COMPUTE,
        ] {
            assert_eq!(
                shader_param(stage, max),
                0,
                "stage {stage} must report unsupported"
            );
        }
    }

    #[test]
    fn nir_is_the_only_ir() {
        let irs = shader_param(
            sys::PIPE_SHADER_FRAGMENT,
            sys::PIPE_SHADER_CAP_SUPPORTED_IRS,
        );
        assert_eq!(irs, 1 << sys::PIPE_SHADER_IR_NIR);
    }
}

//! The NIR graphics front-end: vertex and fragment shaders built with Mesa's nir_builder in
//! the form GLSL takes after IO lowering (load_input / store_output / load_interpolated_input
//! with io semantics, load_uniform), compiled with `nir::compile_nir_graphics` under a
//! `GraphicsKey` and drawn on agx16-sim's render model as real stage bodies; images vs the
//! CPU reference rasteriser (sim/tests/gfx_common). Needs the Mesa build
//! (`--features nir-static`).
#![cfg(feature = "nir-static")]
#![allow(dead_code, clippy::cloned_ref_to_slice_refs)]

#[path = "../../../sim/tests/gfx_common/mod.rs"]
mod gfx_common;
mod gfx_harness;

use agx16_cmdstream::descriptors::{
    pack_cf_table, CfBinding, CfBindingHeader, CoefficientSource, ShadeModel,
};
use agx16_cmdstream::ppp::ObjectType;
use agx16_compiler::abi::{
    self, AttribFormat, AttribType, FragmentKey, GraphicsKey, RenderTarget, VaryingSlot,
    VertexAttrib, VertexKey,
};
use agx16_compiler::nir::{compile_nir_graphics, options::options};
use agx16_compiler::CompileError;
use agx16_mesa_sys as m;
use gfx_common::*;
use gfx_harness::*;

struct Shader(m::nir_builder);

impl Shader {
    fn new(stage: m::pipe_shader_type) -> Self {
        unsafe {
            m::glsl_type_singleton_init_or_ref();
            Shader(m::nir_builder_init_simple_shader(
                stage as _,
                options(),
                c"agx16-gfx-test".as_ptr(),
            ))
        }
    }
    fn b(&mut self) -> *mut m::nir_builder {
        &mut self.0
    }
    fn intrinsic(
        &mut self,
        op: m::nir_intrinsic_op,
        comps: u32,
        srcs: &[*mut m::nir_def],
        dest: bool,
    ) -> *mut m::nir_intrinsic_instr {
        unsafe {
            let i = m::nir_intrinsic_instr_create(self.0.shader, op);
            (*i).num_components = comps as u8;
            let s = (*i).src.as_mut_slice(srcs.len());
            for (k, d) in srcs.iter().enumerate() {
                s[k] = m::nir_src_for_ssa(*d);
            }
            if dest {
                m::nir_def_init(&mut (*i).instr, &mut (*i).def, comps, 32);
            }
            i
        }
    }
    fn insert(&mut self, i: *mut m::nir_intrinsic_instr) -> *mut m::nir_def {
        unsafe {
            m::nir_builder_instr_insert(&mut self.0, &mut (*i).instr);
            &mut (*i).def
        }
    }
    fn io(i: *mut m::nir_intrinsic_instr, location: u32, base: i32) {
        unsafe {
            let mut sem = m::nir_io_semantics::default();
            sem.set_location(location);
            sem.set_num_slots(1);
            m::nir_intrinsic_set_io_semantics(i, sem);
            m::nir_intrinsic_set_base(i, base);
            m::nir_intrinsic_set_component(i, 0);
        }
    }
    fn zero(&mut self) -> *mut m::nir_def {
        unsafe { m::nir_imm_int(self.b(), 0) }
    }
    /// Vertex input or flat fragment input at `location`.
    fn load_input(&mut self, location: u32, base: i32, comps: u32) -> *mut m::nir_def {
        let z = self.zero();
        let i = self.intrinsic(m::nir_intrinsic_load_input, comps, &[z], true);
        Self::io(i, location, base);
        unsafe { m::nir_intrinsic_set_dest_type(i, m::nir_type_float32) };
        self.insert(i)
    }
    /// `load_interpolated_input` at the pixel centre with `mode` (smooth / noperspective).
    fn load_interpolated(&mut self, location: u32, base: i32, mode: u32) -> *mut m::nir_def {
        self.load_interpolated_at(
            m::nir_intrinsic_load_barycentric_pixel,
            location,
            base,
            mode,
        )
    }
    /// `load_interpolated_input` through the barycentric intrinsic `at`.
    fn load_interpolated_at(
        &mut self,
        at: m::nir_intrinsic_op,
        location: u32,
        base: i32,
        mode: u32,
    ) -> *mut m::nir_def {
        let bary = self.intrinsic(at, 2, &[], true);
        unsafe { m::nir_intrinsic_set_interp_mode(bary, mode) };
        let bary = self.insert(bary);
        let z = self.zero();
        let i = self.intrinsic(
            m::nir_intrinsic_load_interpolated_input,
            4,
            &[bary, z],
            true,
        );
        Self::io(i, location, base);
        unsafe { m::nir_intrinsic_set_dest_type(i, m::nir_type_float32) };
        self.insert(i)
    }
    fn store_output(&mut self, v: *mut m::nir_def, location: u32, base: i32) {
        self.store_output_at(v, location, base, 0)
    }
    /// `store_output` with a constant slot offset (an element of an output array).
    fn store_output_at(&mut self, v: *mut m::nir_def, location: u32, base: i32, offset: i32) {
        let z = unsafe { m::nir_imm_int(self.b(), offset) };
        let n = unsafe { (*v).num_components } as u32;
        let i = self.intrinsic(m::nir_intrinsic_store_output, n, &[v, z], false);
        Self::io(i, location, base);
        unsafe {
            m::nir_intrinsic_set_write_mask(i, (1 << n) - 1);
            m::nir_intrinsic_set_src_type(i, m::nir_type_float32);
        }
        self.insert(i);
    }
    fn load_uniform(&mut self, word: i32, comps: u32) -> *mut m::nir_def {
        let z = self.zero();
        let i = self.intrinsic(m::nir_intrinsic_load_uniform, comps, &[z], true);
        unsafe {
            m::nir_intrinsic_set_base(i, word);
            m::nir_intrinsic_set_range(i, 4 * comps);
            m::nir_intrinsic_set_dest_type(i, m::nir_type_float32);
        }
        self.insert(i)
    }
    fn ch(&mut self, v: *mut m::nir_def, k: u32) -> *mut m::nir_def {
        unsafe { m::nir_channel(self.b(), v, k) }
    }
    fn imm(&mut self, x: f32) -> *mut m::nir_def {
        unsafe { m::nir_imm_float(self.b(), x) }
    }
    fn compile(&mut self, key: &GraphicsKey) -> Result<StageCode, CompileError> {
        let (c, info) = unsafe { compile_nir_graphics(self.0.shader, key)? };
        Ok(StageCode {
            code: c.code,
            info,
            roots: vec![],
        })
    }
}

impl Drop for Shader {
    fn drop(&mut self) {
        unsafe { m::ralloc_free(self.0.shader as *mut _) }
    }
}

const GENERIC0: u32 = m::VERT_ATTRIB_GENERIC0;
const VAR0: u32 = m::VARYING_SLOT_VAR0;

/// `in vec4 pos, colour; out vec4 v; gl_Position = pos; v = colour;`
fn vertex_shader(key: &VertexKey) -> Result<StageCode, CompileError> {
    let mut s = Shader::new(m::MESA_SHADER_VERTEX);
    let pos = s.load_input(GENERIC0, 0, 4);
    let col = s.load_input(GENERIC0 + 1, 1, 4);
    s.store_output(pos, m::VARYING_SLOT_POS, 0);
    s.store_output(col, VAR0, 1);
    let mut c = s.compile(&GraphicsKey::Vertex(key.clone()))?;
    c.roots = vec![0, 0, 0, 0, 0, 0, VB];
    Ok(c)
}

fn vertex_key() -> VertexKey {
    let a = |n: u32, offset| VertexAttrib {
        location: (GENERIC0 + n) as u8,
        buffer: 0,
        offset,
        stride: 32,
        format: AttribFormat::f32(4),
        divisor: 0,
    };
    VertexKey {
        attribs: vec![a(0, 0), a(1, 16)],
        ubos: 0,
        gl_clip_z: false,
        xfb_buffers: 0,
        fetch_limits: None,
    }
}

fn fragment_key(vs: &StageCode) -> FragmentKey {
    FragmentKey {
        varyings: vs.info.varyings.clone(),
        frag_coord_z: false,
        render_targets: vec![RenderTarget::Rgba8Unorm],
        ubos: 0,
        ..Default::default()
    }
}

/// `fragColor = v` (interpolated with `shade`'s mode, flat through load_input), or a
/// function of it.
fn fragment_shader(
    key: &FragmentKey,
    shade: ShadeModel,
    f: impl FnOnce(&mut Shader, *mut m::nir_def) -> *mut m::nir_def,
) -> Result<StageCode, CompileError> {
    let mut s = Shader::new(m::MESA_SHADER_FRAGMENT);
    let v = match shade {
        ShadeModel::Perspective => s.load_interpolated(VAR0, 0, m::INTERP_MODE_SMOOTH),
        ShadeModel::Linear => s.load_interpolated(VAR0, 0, m::INTERP_MODE_NOPERSPECTIVE),
        _ => s.load_input(VAR0, 0, 4),
    };
    let out = f(&mut s, v);
    s.store_output(out, m::FRAG_RESULT_DATA0, 0);
    s.compile(&GraphicsKey::Fragment(key.clone()))
}

fn w_triangle(shade: ShadeModel) -> DrawSpec {
    DrawSpec::tris(
        vec![
            rgba([-0.9, -0.9, 0.2, 1.0], [1.0, 0.0, 0.0, 1.0]),
            rgba([2.7, -2.4, 1.2, 3.0], [0.0, 1.0, 0.0, 1.0]),
            rgba([0.0, 1.6, 0.6, 2.0], [0.0, 0.0, 1.0, 0.5]),
        ],
        shade,
    )
}

#[test]
fn a_nir_coloured_triangle_with_fetched_attributes() {
    let vs = vertex_shader(&vertex_key()).unwrap();
    // The ABI report: 8 outputs (position + VAR0.xyzw), vertex buffer 0 at qword 6.
    assert_eq!(vs.info.outputs, 8);
    let var = |c| VaryingSlot {
        location: VAR0 as u8,
        component: c,
    };
    assert_eq!(vs.info.varyings, vec![var(0), var(1), var(2), var(3)]);
    assert_eq!((vs.info.buffers, vs.info.gl_uniform_base), (1, 14));
    assert_eq!(vs.info.publications, 8);
    for shade in [
        ShadeModel::Perspective,
        ShadeModel::Linear,
        ShadeModel::FlatVertex2,
    ] {
        let fs = fragment_shader(&fragment_key(&vs), shade, |_, v| v).unwrap();
        let want = match shade {
            ShadeModel::Perspective => abi_interp(agx16_compiler::ir::Interp::Perspective),
            ShadeModel::Linear => abi_interp(agx16_compiler::ir::Interp::Linear),
            _ => abi_interp(agx16_compiler::ir::Interp::Flat),
        };
        assert_eq!(fs.info.coefficients, want);
        assert_eq!(fs.info.tile_words, 1);
        let d = w_triangle(shade);
        let (img, stats) = draw(&d, &vs, &fs).unwrap();
        let r = reference(&[d]);
        compare(&img, &r);
        assert!(r.passed[0] > 300);
        assert_eq!(stats.fragments_shaded, r.passed[0]);
    }
}

fn abi_interp(i: agx16_compiler::ir::Interp) -> Vec<Option<agx16_compiler::ir::Interp>> {
    vec![None, Some(i), Some(i), Some(i), Some(i)]
}

#[test]
fn nir_arithmetic_on_varyings_and_a_uniform() {
    // uniform float k; fragColor = vec4(v.r * k - 0.25, 1.0 - v.g, (v.r + v.b) * 0.5, v.a);
    let vs = vertex_shader(&vertex_key()).unwrap();
    let key = fragment_key(&vs);
    let k = 1.5f32;
    let mut fs = fragment_shader(&key, ShadeModel::Perspective, |s, v| unsafe {
        let u = s.load_uniform(0, 1);
        let (r, g, bl, a) = (s.ch(v, 0), s.ch(v, 1), s.ch(v, 2), s.ch(v, 3));
        let x = m::nir_fmul(s.b(), r, u);
        let q = s.imm(0.25);
        let x = m::nir_fsub(s.b(), x, q);
        let one = s.imm(1.0);
        let y = m::nir_fsub(s.b(), one, g);
        let z = m::nir_fadd(s.b(), r, bl);
        let z = m::nir_fmul_imm(s.b(), z, 0.5);
        m::nir_vec4(s.b(), x, y, z, a)
    })
    .unwrap();
    // The uniform is inline word 0 after the root record: word 12.
    assert_eq!((fs.info.gl_uniform_base, fs.info.uniform_words), (12, 13));
    fs.roots = vec![0, 0, 0, 0, 0, 0, k.to_bits() as u64];
    let d = w_triangle(ShadeModel::Perspective);
    let (img, _) = draw(&d, &vs, &fs).unwrap();
    let mut want = d.clone();
    for v in &mut want.verts {
        let (r, g, bl) = (v[4], v[5], v[6]);
        v[4] = r * k - 0.25;
        v[5] = 1.0 - g;
        v[6] = (r + bl) * 0.5;
    }
    compare(&img, &reference(&[want]));
}

#[test]
fn nir_pack_unorm_4x8_into_a_raw_target() {
    // fragColor (R32UI) = packUnorm4x8(v): the same bytes as the RGBA8 target.
    let vs = vertex_shader(&vertex_key()).unwrap();
    let key = FragmentKey {
        render_targets: vec![RenderTarget::R32],
        ..fragment_key(&vs)
    };
    let fs = fragment_shader(&key, ShadeModel::Linear, |s, v| unsafe {
        m::nir_pack_unorm_4x8(s.b(), v)
    })
    .unwrap();
    let d = w_triangle(ShadeModel::Linear);
    let (img, _) = draw(&d, &vs, &fs).unwrap();
    compare(&img, &reference(&[d]));
}

#[test]
fn nir_graphics_errors_name_what_is_missing() {
    // A vertex input the key has no attribute for.
    let key = VertexKey {
        attribs: vec![],
        ..vertex_key()
    };
    let e = vertex_shader(&key).err().unwrap().to_string();
    assert!(e.contains("has no attribute in the key"), "{e}");
    // A fragment input that is not among the linked varyings.
    let vs = vertex_shader(&vertex_key()).unwrap();
    let key = FragmentKey {
        varyings: vec![],
        ..fragment_key(&vs)
    };
    let e = fragment_shader(&key, ShadeModel::Linear, |_, v| v)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("not among the key's varyings"), "{e}");
    // gl_InstanceID in a fragment shader.
    let mut s = Shader::new(m::MESA_SHADER_FRAGMENT);
    let i = s.intrinsic(m::nir_intrinsic_load_instance_id, 1, &[], true);
    let id = s.insert(i);
    let f = unsafe { m::nir_i2f32(s.b(), id) };
    let v = unsafe { m::nir_vec4(s.b(), f, f, f, f) };
    s.store_output(v, m::FRAG_RESULT_DATA0, 0);
    let e = s
        .compile(&GraphicsKey::Fragment(fragment_key(
            &vertex_shader(&vertex_key()).unwrap(),
        )))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("load_instance_id"), "{e}");
    // A stage/key mismatch.
    let mut s = Shader::new(m::MESA_SHADER_FRAGMENT);
    let e = s
        .compile(&GraphicsKey::Vertex(vertex_key()))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("compiled with a"), "{e}");
    let _ = abi::ROOT_WORDS;
}

#[test]
fn gl_clip_space_depth_is_mapped_to_the_m4_range() {
    // Vertex 0 has z = -0.5 w: inside GL's [-w, w] but outside the [0, w] the model clips
    // to. With `gl_clip_z` the program stores (z + w) / 2 and the triangle is whole; the
    // reference gets the host-mapped vertices. Without it the model clips the triangle at
    // z = 0 (the image differs), so the mapping is observable.
    let mut d = w_triangle(ShadeModel::Linear);
    d.verts[0][2] = -0.5;
    let key = VertexKey {
        gl_clip_z: true,
        ..vertex_key()
    };
    let vs = vertex_shader(&key).unwrap();
    let fs = fragment_shader(&fragment_key(&vs), ShadeModel::Linear, |_, v| v).unwrap();
    let (img, _) = draw(&d, &vs, &fs).unwrap();
    let mut want = d.clone();
    for v in &mut want.verts {
        v[2] = (v[2] + v[3]) / 2.0;
    }
    compare(&img, &reference(&[want]));
    let plain = vertex_shader(&vertex_key()).unwrap();
    let (clipped, _) = draw(&d, &plain, &fs).unwrap();
    assert_ne!(clipped, img);
}

/// Position and colour through, gl_PointSize = `size` (output 8, after position and VAR0).
fn point_vertex_shader(size: f32) -> StageCode {
    let mut s = Shader::new(m::MESA_SHADER_VERTEX);
    let pos = s.load_input(GENERIC0, 0, 4);
    let col = s.load_input(GENERIC0 + 1, 1, 4);
    s.store_output(pos, m::VARYING_SLOT_POS, 0);
    let size = s.imm(size);
    s.store_output(size, m::VARYING_SLOT_PSIZ, 2);
    s.store_output(col, VAR0, 1);
    let mut vs = s.compile(&GraphicsKey::Vertex(vertex_key())).unwrap();
    vs.roots = vec![0, 0, 0, 0, 0, 0, VB];
    vs
}

#[test]
fn point_size_is_the_last_output() {
    // gl_PointSize = 6.0 on points: output 8 (after position and VAR0), squares of 6 pixels.
    let vs = point_vertex_shader(6.0);
    assert_eq!((vs.info.outputs, vs.info.point_size), (9, true));
    let fs = fragment_shader(&fragment_key(&vs), ShadeModel::FlatVertex2, |_, v| v).unwrap();
    let mut d = w_triangle(ShadeModel::FlatVertex2);
    d.prim = agx16_cmdstream::vdm::Primitive::Points;
    d.point_size = Some(6.0);
    let (img, _) = draw(&d, &vs, &fs).unwrap();
    let r = reference(&[d]);
    compare(&img, &r);
    assert!(r.passed[0] >= 3 * 30, "three 6x6 points: {}", r.passed[0]);
}

#[test]
fn frag_coord_xy_is_the_pixel_centre() {
    // fragColor = vec4(gl_FragCoord.xy / 64.0, 0.0, 1.0): upper-left origin, half-integer
    // centres (get_sr 0xa0 / 0xa1 + 0.5), vs the pixel positions the reference covers.
    let vs = vertex_shader(&vertex_key()).unwrap();
    let mut s = Shader::new(m::MESA_SHADER_FRAGMENT);
    let i = s.intrinsic(m::nir_intrinsic_load_frag_coord, 4, &[], true);
    let fc = s.insert(i);
    let (x, y) = (s.ch(fc, 0), s.ch(fc, 1));
    let out = unsafe {
        let x = m::nir_fmul_imm(s.b(), x, 1.0 / 64.0);
        let y = m::nir_fmul_imm(s.b(), y, 1.0 / 64.0);
        let zero = s.imm(0.0);
        let one = s.imm(1.0);
        m::nir_vec4(s.b(), x, y, zero, one)
    };
    s.store_output(out, m::FRAG_RESULT_DATA0, 0);
    let fs = s
        .compile(&GraphicsKey::Fragment(fragment_key(&vs)))
        .unwrap();
    let d = w_triangle(ShadeModel::Linear);
    let (img, _) = draw(&d, &vs, &fs).unwrap();
    assert_pixel_centres(&img, d);
}

#[test]
fn varying_array_elements_are_located_by_their_constant_offset() {
    // out vec4 v[2]; v[1] = colour; (location VAR0, offset 1) and the fragment input
    // v[1] (VAR0 + 1 through load_interpolated_input's offset source).
    let mut s = Shader::new(m::MESA_SHADER_VERTEX);
    let pos = s.load_input(GENERIC0, 0, 4);
    let col = s.load_input(GENERIC0 + 1, 1, 4);
    s.store_output(pos, m::VARYING_SLOT_POS, 0);
    s.store_output_at(col, VAR0, 1, 1);
    let mut vs = s.compile(&GraphicsKey::Vertex(vertex_key())).unwrap();
    vs.roots = vec![0, 0, 0, 0, 0, 0, VB];
    assert!(vs
        .info
        .varyings
        .iter()
        .all(|v| v.location == (VAR0 + 1) as u8));
    let mut f = Shader::new(m::MESA_SHADER_FRAGMENT);
    let bary = f.intrinsic(m::nir_intrinsic_load_barycentric_pixel, 2, &[], true);
    unsafe { m::nir_intrinsic_set_interp_mode(bary, m::INTERP_MODE_SMOOTH) };
    let bary = f.insert(bary);
    let one = unsafe { m::nir_imm_int(f.b(), 1) };
    let i = f.intrinsic(
        m::nir_intrinsic_load_interpolated_input,
        4,
        &[bary, one],
        true,
    );
    Shader::io(i, VAR0, 0);
    unsafe { m::nir_intrinsic_set_dest_type(i, m::nir_type_float32) };
    let v = f.insert(i);
    f.store_output(v, m::FRAG_RESULT_DATA0, 0);
    let fs = f
        .compile(&GraphicsKey::Fragment(fragment_key(&vs)))
        .unwrap();
    let d = w_triangle(ShadeModel::Perspective);
    let (img, _) = draw(&d, &vs, &fs).unwrap();
    compare(&img, &reference(&[d]));
}

#[test]
fn a_bgra8_target_gets_blue_in_the_low_byte() {
    // The same colours packed for a B8G8R8A8 target: the tile word's bytes are B, G, R, A
    // (the harness copies them to the image unchanged), so the image is the reference with
    // red and blue swapped.
    let vs = vertex_shader(&vertex_key()).unwrap();
    let key = FragmentKey {
        render_targets: vec![RenderTarget::Bgra8Unorm],
        ..fragment_key(&vs)
    };
    let fs = fragment_shader(&key, ShadeModel::Linear, |_, v| v).unwrap();
    let d = w_triangle(ShadeModel::Linear);
    let (img, _) = draw(&d, &vs, &fs).unwrap();
    let mut want = d.clone();
    for v in &mut want.verts {
        v.swap(4, 6);
    }
    compare(&img, &reference(&[want]));
}

#[test]
fn an_rgba8_integer_target_gets_the_low_bytes() {
    // fragColor (uvec4) = uvec4(clamp(v, 0, 1) * 255.0 + 0.5): the bytes of the unorm image
    // (rounding half up instead of to even: within the comparison's one step). The clamp
    // keeps helper lanes, which extrapolate outside the triangle, away from the unmeasured
    // negative float → unsigned conversion.
    let vs = vertex_shader(&vertex_key()).unwrap();
    let key = FragmentKey {
        render_targets: vec![RenderTarget::Rgba8Int],
        ..fragment_key(&vs)
    };
    let fs = fragment_shader(&key, ShadeModel::Perspective, |s, v| unsafe {
        let v = m::nir_fsat(s.b(), v);
        let scaled = m::nir_fmul_imm(s.b(), v, 255.0);
        let half = s.imm(0.5);
        let r = m::nir_fadd(s.b(), scaled, half);
        m::nir_f2u32(s.b(), r)
    })
    .unwrap();
    let d = w_triangle(ShadeModel::Perspective);
    let (img, _) = draw(&d, &vs, &fs).unwrap();
    compare(&img, &reference(&[d]));
}

/// Two overlapping translucent constant-colour triangles in one draw.
fn overlapping_triangles() -> Vec<([[f32; 4]; 3], [f32; 4])> {
    vec![
        (
            [
                [-0.9, -0.9, 0.5, 1.0],
                [0.6, -0.9, 0.5, 1.0],
                [-0.9, 0.7, 0.5, 1.0],
            ],
            [0.9, 0.2, 0.1, 0.6],
        ),
        (
            [
                [-0.5, -0.6, 0.5, 1.0],
                [0.9, -0.2, 0.5, 1.0],
                [0.1, 0.9, 0.5, 1.0],
            ],
            [0.1, 0.8, 0.7, 0.35],
        ),
    ]
}

/// `fragColor = v` through Mesa's `nir_lower_blend` with `opts` (RGBA8 UNORM target 0), drawn
/// over the two overlapping triangles; vs a CPU reference that composes each covered pixel
/// in primitive order with `blend(src, dst bytes)` (coverage from the reference rasteriser).
fn check_lowered_blend(
    opts: &m::nir_lower_blend_options,
    blend: impl Fn([f32; 4], [u8; 4]) -> [u8; 4],
) {
    let vs = vertex_shader(&vertex_key()).unwrap();
    let key = GraphicsKey::Fragment(fragment_key(&vs));
    let mut s = Shader::new(m::MESA_SHADER_FRAGMENT);
    let v = s.load_interpolated(VAR0, 0, m::INTERP_MODE_NOPERSPECTIVE);
    s.store_output(v, m::FRAG_RESULT_DATA0, 0);
    unsafe {
        assert!(m::nir_lower_blend(s.0.shader, opts));
    }
    let fs = s.compile(&key).unwrap();
    let tris = overlapping_triangles();
    let verts: Vec<Vtx> = tris
        .iter()
        .flat_map(|(p, c)| p.iter().map(|p| rgba(*p, *c)))
        .collect();
    let (img, _) = draw(&DrawSpec::tris(verts, ShadeModel::Linear), &vs, &fs).unwrap();
    let cover: Vec<Vec<bool>> = tris
        .iter()
        .map(|(p, _)| {
            let one = p.iter().map(|p| rgba(*p, [1.0, 0.0, 1.0, 1.0])).collect();
            let r = reference(&[DrawSpec::tris(one, ShadeModel::Linear)]);
            r.color.iter().map(|c| *c != CLEAR).collect()
        })
        .collect();
    let mut overlap = 0;
    for (px, got) in img.iter().enumerate() {
        let mut want = CLEAR;
        for (t, (_, c)) in tris.iter().enumerate() {
            if cover[t][px] {
                want = blend(*c, want);
            }
        }
        overlap += (cover[0][px] && cover[1][px]) as u32;
        assert!(
            (0..4).all(|k| (got[k] as i32 - want[k] as i32).abs() <= 1),
            "pixel {px}: got {got:?}, want {want:?}"
        );
    }
    assert!(overlap > 150, "the triangles overlap in {overlap} pixels");
}

fn blend_options(
    src: m::pipe_blendfactor,
    dst: m::pipe_blendfactor,
    colormask: u32,
) -> m::nir_lower_blend_options {
    let mut o: m::nir_lower_blend_options = unsafe { std::mem::zeroed() };
    let ch = m::nir_lower_blend_channel {
        func: m::PIPE_BLEND_ADD,
        src_factor: src,
        dst_factor: dst,
    };
    o.rt[0].rgb = ch;
    o.rt[0].alpha = ch;
    o.rt[0].colormask = colormask;
    o.format[0] = m::PIPE_FORMAT_R8G8B8A8_UNORM;
    o
}

fn unorm(x: f64) -> u8 {
    (x.clamp(0.0, 1.0) * 255.0).round() as u8
}

#[test]
fn nir_lower_blend_src_alpha_over_the_tilebuffer() {
    let o = blend_options(
        m::PIPE_BLENDFACTOR_SRC_ALPHA,
        m::PIPE_BLENDFACTOR_INV_SRC_ALPHA,
        0xf,
    );
    check_lowered_blend(&o, |c, d| {
        let a = c[3] as f64;
        std::array::from_fn(|k| unorm(c[k] as f64 * a + d[k] as f64 / 255.0 * (1.0 - a)))
    });
}

#[test]
fn nir_lower_blend_partial_colour_mask_keeps_the_other_channels() {
    // Replace (ONE, ZERO) writing only G and A: R and B keep the clear colour's bytes.
    let o = blend_options(m::PIPE_BLENDFACTOR_ONE, m::PIPE_BLENDFACTOR_ZERO, 0b1010);
    check_lowered_blend(&o, |c, d| {
        std::array::from_fn(|k| if k % 2 == 1 { unorm(c[k] as f64) } else { d[k] })
    });
}

#[test]
fn instance_id_offsets_each_instance() {
    // gl_Position = pos + vec4(0.5 * float(gl_InstanceID) * pos.w, 0, 0, 0), drawn with two
    // instances: the reference rasteriser draws instance i shifted by 0.5 i w in x (its
    // model of an instanced draw), so the image matches only if get_sr 0xd8 reads 0, 1.
    let mut s = instance_shifted_shader();
    let mut vs = s.compile(&GraphicsKey::Vertex(vertex_key())).unwrap();
    vs.roots = vec![0, 0, 0, 0, 0, 0, VB];
    let fs = fragment_shader(&fragment_key(&vs), ShadeModel::Linear, |_, v| v).unwrap();
    let small = DrawSpec::tris(
        vec![
            rgba([-0.9, -0.9, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0]),
            rgba([-0.3, -0.9, 0.5, 1.0], [0.0, 1.0, 0.0, 1.0]),
            rgba([-0.6, 0.6, 0.5, 1.0], [0.0, 0.0, 1.0, 1.0]),
        ],
        ShadeModel::Linear,
    );
    let twice = DrawSpec {
        instances: 2,
        ..small.clone()
    };
    let (img, stats) = draw(&twice, &vs, &fs).unwrap();
    let r = reference(&[twice.clone()]);
    compare(&img, &r);
    assert_eq!(stats.fragments_shaded, r.passed[0]);
    // The second instance really moved: it differs from a single instance's image.
    assert_ne!(r.color, reference(&[small]).color);
}

fn facing_triangles(back_colour: [f32; 4]) -> (DrawSpec, DrawSpec, DrawSpec) {
    // Left: anticlockwise on screen (front: the harness sets front_face_ccw); right: clockwise.
    let left = [
        rgba([-0.9, -0.8, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0]),
        rgba([-0.1, -0.8, 0.5, 1.0], [0.0, 1.0, 0.0, 1.0]),
        rgba([-0.5, 0.8, 0.5, 1.0], [0.0, 0.0, 1.0, 1.0]),
    ];
    let right = [
        rgba([0.1, -0.8, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0]),
        rgba([0.5, 0.8, 0.5, 1.0], [0.0, 1.0, 0.0, 1.0]),
        rgba([0.9, -0.8, 0.5, 1.0], [0.0, 0.0, 1.0, 1.0]),
    ];
    let both = DrawSpec::tris([left, right].concat(), ShadeModel::Linear);
    let front = DrawSpec::tris(left.to_vec(), ShadeModel::Linear);
    let mut back = DrawSpec::tris(right.to_vec(), ShadeModel::Linear);
    for v in &mut back.verts {
        v[4..8].copy_from_slice(&back_colour);
    }
    (both, front, back)
}

/// fragColor = face ? v : back_colour, `face` from `load` (a Boolean).
fn facing_shader(
    vs: &StageCode,
    back_colour: [f32; 4],
    load: impl FnOnce(&mut Shader) -> *mut m::nir_def,
) -> StageCode {
    fragment_shader(&fragment_key(vs), ShadeModel::Linear, |s, v| unsafe {
        let face = load(s);
        let c = back_colour.map(|x| s.imm(x));
        let back = m::nir_vec4(s.b(), c[0], c[1], c[2], c[3]);
        m::nir_bcsel(s.b(), face, v, back)
    })
    .unwrap()
}

#[test]
fn front_facing_selects_per_winding() {
    // gl_FrontFacing as the system value (load_front_face) and as the 32-bit Boolean input
    // VARYING_SLOT_FACE a state tracker without fs_face_is_integer_sysval produces: the front
    // triangle keeps its colours, the back one is yellow; vs the reference drawing the two
    // triangles with those colours.
    let vs = vertex_shader(&vertex_key()).unwrap();
    let yellow = [1.0, 1.0, 0.0, 1.0];
    let (both, front, back) = facing_triangles(yellow);
    let want = reference(&[front, back]);
    let sysval = facing_shader(&vs, yellow, |s| {
        let i = s.intrinsic(m::nir_intrinsic_load_front_face, 1, &[], true);
        let f = s.insert(i);
        unsafe { m::nir_b2b1(s.b(), f) }
    });
    let input = facing_shader(&vs, yellow, |s| {
        let z = s.zero();
        let i = s.intrinsic(m::nir_intrinsic_load_input, 1, &[z], true);
        Shader::io(i, m::VARYING_SLOT_FACE, 0);
        unsafe { m::nir_intrinsic_set_dest_type(i, m::nir_type_bool32) };
        let f = s.insert(i);
        unsafe { m::nir_b2b1(s.b(), f) }
    });
    for fs in [&sysval, &input] {
        // The facing word is not a coefficient: only the varying's slots are bound.
        assert_eq!(
            fs.info.coefficients,
            abi_interp(agx16_compiler::ir::Interp::Linear)
        );
        let (img, _) = draw(&both, &vs, fs).unwrap();
        compare(&img, &want);
        let yellow8 = yellow.map(unorm8);
        assert!(img.iter().filter(|c| **c == yellow8).count() > 100);
    }
    // Back-face culling leaves the front triangle only: no yellow.
    let culled = DrawSpec {
        cull_back: true,
        ..both
    };
    let (front, _, _) = facing_triangles(yellow);
    let (img, _) = draw(&culled, &vs, &sysval).unwrap();
    compare(
        &img,
        &reference(&[DrawSpec {
            cull_back: true,
            ..front
        }]),
    );
}

#[test]
fn frag_coord_as_an_input_is_the_pixel_centre() {
    // A state tracker without fs_position_is_sysval reads gl_FragCoord as the input
    // VARYING_SLOT_POS (load_interpolated_input): the same x, y as load_frag_coord.
    let vs = vertex_shader(&vertex_key()).unwrap();
    let mut s = Shader::new(m::MESA_SHADER_FRAGMENT);
    let fc = s.load_interpolated(m::VARYING_SLOT_POS, 0, m::INTERP_MODE_NOPERSPECTIVE);
    let (x, y, w) = (s.ch(fc, 0), s.ch(fc, 1), s.ch(fc, 3));
    let out = unsafe {
        let x = m::nir_fmul_imm(s.b(), x, 1.0 / 64.0);
        let y = m::nir_fmul_imm(s.b(), y, 1.0 / 64.0);
        let zero = s.imm(0.0);
        m::nir_vec4(s.b(), x, y, zero, w)
    };
    s.store_output(out, m::FRAG_RESULT_DATA0, 0);
    let fs = s
        .compile(&GraphicsKey::Fragment(fragment_key(&vs)))
        .unwrap();
    // w = 1/W is CF slot 0 (the triangle has w = 1: alpha 255).
    assert_eq!(
        fs.info.coefficients,
        vec![Some(agx16_compiler::ir::Interp::Linear)]
    );
    let mut d = w_triangle(ShadeModel::Linear);
    for v in &mut d.verts {
        for k in 0..3 {
            v[k] /= v[3];
        }
        v[3] = 1.0;
    }
    let (img, _) = draw(&d, &vs, &fs).unwrap();
    assert_pixel_centres(&img, d);
    // z without frag_coord_z in the key is refused by name.
    let mut s = Shader::new(m::MESA_SHADER_FRAGMENT);
    let fc = s.load_interpolated(m::VARYING_SLOT_POS, 0, m::INTERP_MODE_NOPERSPECTIVE);
    let z = s.ch(fc, 2);
    let out = unsafe { m::nir_vec4(s.b(), z, z, z, z) };
    s.store_output(out, m::FRAG_RESULT_DATA0, 0);
    let e = s
        .compile(&GraphicsKey::Fragment(fragment_key(&vs)))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("frag_coord_z"), "{e}");
}

#[test]
fn nir_uniform_array_indexed_by_a_variable() {
    // uniform float x[4]; uniform int i; fragColor = vec4(x[i], v.g, v.b, v.a): st's load_uniform
    // of the array (words 0..3, range 4) with a non-constant word offset, here the uniform i
    // (word 4), so every pixel takes the same element and the reference is exact.
    let xs = [0.1f32, 0.3, 0.6, 0.9];
    let vs = vertex_shader(&vertex_key()).unwrap();
    let key = fragment_key(&vs);
    let mut fs = fragment_shader(&key, ShadeModel::Perspective, |s, v| unsafe {
        let idx = s.load_uniform(4, 1);
        let i = s.intrinsic(m::nir_intrinsic_load_uniform, 1, &[idx], true);
        m::nir_intrinsic_set_base(i, 0);
        m::nir_intrinsic_set_range(i, 4);
        m::nir_intrinsic_set_dest_type(i, m::nir_type_float32);
        let e = s.insert(i);
        let (g, bl, a) = (s.ch(v, 1), s.ch(v, 2), s.ch(v, 3));
        m::nir_vec4(s.b(), e, g, bl, a)
    })
    .unwrap();
    // Words 0..4 are inline words 12..16 (root qwords 6..8).
    assert_eq!((fs.info.gl_uniform_base, fs.info.uniform_words), (12, 17));
    let w = |k: usize| xs[k].to_bits() as u64;
    for idx in [0u64, 2, 3] {
        fs.roots = vec![0, 0, 0, 0, 0, 0, w(0) | w(1) << 32, w(2) | w(3) << 32, idx];
        let d = w_triangle(ShadeModel::Perspective);
        let (img, _) = draw(&d, &vs, &fs).unwrap();
        let mut want = d.clone();
        for v in &mut want.verts {
            v[4] = xs[idx as usize];
        }
        compare(&img, &reference(&[want]));
    }
}

/// `load_ubo` of `comps` words of uniform block `block` at byte offset `offset`.
fn load_ubo(s: &mut Shader, block: u32, offset: *mut m::nir_def, comps: u32) -> *mut m::nir_def {
    let blk = unsafe { m::nir_imm_int(s.b(), block as i32) };
    let i = s.intrinsic(m::nir_intrinsic_load_ubo, comps, &[blk, offset], true);
    unsafe {
        m::nir_intrinsic_set_align(i, 4, 0);
        m::nir_intrinsic_set_range_base(i, 0);
        m::nir_intrinsic_set_range(i, u32::MAX);
    }
    s.insert(i)
}

#[test]
fn nir_load_ubo_reads_each_block_through_its_root_qword() {
    // Two uniform blocks: fragColor.rgb = block 0's words 4i+1 .. 4i+3 (std140 rows of vec4,
    // i a uniform, so a dynamic byte offset 16i + 4), fragColor.a = block 1's word 2 (a
    // constant offset). Block u is root qword 6 + u; the inline uniforms follow at word 16.
    let rows: Vec<f32> = (0..16).map(|k| 0.03 + 0.06 * k as f32).collect();
    let alpha = [0.5f32, 0.25, 0.625, 0.125];
    let vs = vertex_shader(&vertex_key()).unwrap();
    let key = FragmentKey {
        ubos: 2,
        ..fragment_key(&vs)
    };
    let mut fs = fragment_shader(&key, ShadeModel::Perspective, |s, _| unsafe {
        let i = s.load_uniform(0, 1);
        let off = m::nir_iadd_imm(s.b(), m::nir_ishl_imm(s.b(), i, 4), 4);
        let rgb = load_ubo(s, 0, off, 3);
        let eight = m::nir_imm_int(s.b(), 8);
        let a = load_ubo(s, 1, eight, 1);
        let (r, g, b) = (s.ch(rgb, 0), s.ch(rgb, 1), s.ch(rgb, 2));
        m::nir_vec4(s.b(), r, g, b, a)
    })
    .unwrap();
    assert_eq!((fs.info.buffers, fs.info.gl_uniform_base), (2, 16));
    let (ubo0, ubo1) = (VB + 0x4000, VB + 0x5000);
    let bytes = |f: &[f32]| -> Vec<u8> { f.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let writes = [(ubo0, bytes(&rows)), (ubo1, bytes(&alpha))];
    for i in [0u64, 2, 3] {
        fs.roots = vec![0, 0, 0, 0, 0, 0, ubo0, ubo1, i];
        let d = w_triangle(ShadeModel::Perspective);
        let (img, _) = draw_with_memory(&d, &vs, &fs, &writes).unwrap();
        let mut want = d.clone();
        for v in &mut want.verts {
            v[4..7].copy_from_slice(&rows[4 * i as usize + 1..4 * i as usize + 4]);
            v[7] = alpha[2];
        }
        compare(&img, &reference(&[want]));
    }
    // A block past the key's is refused by name.
    let e = fragment_shader(&fragment_key(&vs), ShadeModel::Perspective, |s, _| {
        let z = s.zero();
        load_ubo(s, 0, z, 4)
    })
    .err()
    .unwrap()
    .to_string();
    assert!(e.contains("load_ubo of block 0 (the key has 0 UBOs"), "{e}");
}

#[test]
fn a_colour_whose_value_dies_at_the_pack_keeps_all_four_channels() {
    // fragColor = vec4(s) with s = u0 + u1 dying at the colour pack: all four pack sources
    // are one register. The pack is two half-register writes that both read it, so the
    // allocator must not give the destination that register (it once did, and the program
    // was refused: "the destination is a source of both halves").
    let (u0, u1) = (0.25f32, 0.375f32);
    let vs = vertex_shader(&vertex_key()).unwrap();
    let key = fragment_key(&vs);
    let mut fs = fragment_shader(&key, ShadeModel::Perspective, |s, _| unsafe {
        let a = s.load_uniform(0, 1);
        let b = s.load_uniform(1, 1);
        let sum = m::nir_fadd(s.b(), a, b);
        m::nir_vec4(s.b(), sum, sum, sum, sum)
    })
    .unwrap();
    let gl = fs.info.gl_uniform_base as usize;
    let mut words = vec![0u32; gl + 2];
    words[gl] = u0.to_bits();
    words[gl + 1] = u1.to_bits();
    fs.roots = words
        .chunks(2)
        .map(|c| c[0] as u64 | (*c.get(1).unwrap_or(&0) as u64) << 32)
        .collect();
    let d = w_triangle(ShadeModel::Perspective);
    let (img, _) = draw(&d, &vs, &fs).unwrap();
    let mut want = d.clone();
    for v in &mut want.verts {
        v[4..8].fill(u0 + u1);
    }
    compare(&img, &reference(&[want]));
}

#[test]
fn point_coord_runs_across_each_point_sprite() {
    // fragColor = vec4(gl_PointCoord, 0, 1) on 8-pixel points: the PNTC input is iterated
    // from the two coefficients after the key's varyings, which a CF binding with source
    // PointCoord fills on a point sprite with the upper-left origin (object type "UV=01").
    // CPU reference: s = (x - left) / size, t = (y - top) / size at pixel centres, the square
    // around the subpixel-snapped centre.
    let vs = point_vertex_shader(8.0);
    let key = fragment_key(&vs);
    let pc = abi::point_coord_coefficient(&key);
    assert_eq!(pc, 5, "after 1/W and VAR0's four scalars");

    let mut s = Shader::new(m::MESA_SHADER_FRAGMENT);
    let bary = s.intrinsic(m::nir_intrinsic_load_barycentric_pixel, 2, &[], true);
    unsafe { m::nir_intrinsic_set_interp_mode(bary, m::INTERP_MODE_SMOOTH) };
    let bary = s.insert(bary);
    let z = s.zero();
    let i = s.intrinsic(
        m::nir_intrinsic_load_interpolated_input,
        2,
        &[bary, z],
        true,
    );
    Shader::io(i, m::VARYING_SLOT_PNTC, 2);
    unsafe { m::nir_intrinsic_set_dest_type(i, m::nir_type_float32) };
    let st = s.insert(i);
    let out = unsafe {
        let (a, b) = (m::nir_channel(s.b(), st, 0), m::nir_channel(s.b(), st, 1));
        let zero = s.imm(0.0);
        let one = s.imm(1.0);
        m::nir_vec4(s.b(), a, b, zero, one)
    };
    s.store_output(out, m::FRAG_RESULT_DATA0, 0);
    let fs = s.compile(&GraphicsKey::Fragment(key)).unwrap();
    assert_eq!(
        fs.info.coefficients.get(5..),
        Some(&[Some(agx16_compiler::ir::Interp::Linear); 2][..]),
        "gl_PointCoord is iterated linearly from coefficients 5-6"
    );

    let verts = [[-0.5f32, -0.5], [0.3, 0.55], [0.62, -0.13]];
    let mut d = DrawSpec::tris(
        verts
            .iter()
            .map(|p| rgba([p[0], p[1], 0.5, 1.0], [1.0, 1.0, 1.0, 1.0]))
            .collect(),
        ShadeModel::Linear,
    );
    d.prim = agx16_cmdstream::vdm::Primitive::Points;
    d.point_size = Some(8.0);
    // The scene's CF table and page, with the PointCoord binding and the sprite object type.
    let header = CfBindingHeader {
        slots: 5,
        coefficient_registers: 7,
        ..Default::default()
    };
    let bind = |components, source, base_slot, base_coefficient| CfBinding {
        components,
        shade_model: ShadeModel::Linear,
        source,
        base_slot,
        base_coefficient,
        ..Default::default()
    };
    let table = pack_cf_table(
        &header,
        &[
            bind(1, CoefficientSource::Varying, 0, 0),
            bind(4, CoefficientSource::Varying, 1, 1),
            bind(2, CoefficientSource::PointCoord, 0, pc),
        ],
    )
    .unwrap();
    let mut page = page_for(&d, 0);
    page.fragment_shader.cf_binding_count = 3;
    page.fragment_control_2.front_object_type = ObjectType::PointSpriteUv01;
    page.fragment_control_2.back_object_type = ObjectType::PointSpriteUv01;
    let writes = [(USC + 0x1000, table), (RC + 0x58000, page.pack().unwrap())];
    let (img, _) = draw_with_memory(&d, &vs, &fs, &writes).unwrap();

    let r = reference(std::slice::from_ref(&d));
    let snap = |c: f64| (c * 256.0).round() / 256.0;
    let mut covered = 0;
    for (i, (got, want)) in img.iter().zip(&r.color).enumerate() {
        assert_eq!(*got == CLEAR, *want == CLEAR, "coverage at {i}");
        if *want == CLEAR {
            continue;
        }
        let (x, y) = ((i as u32 % W) as f64 + 0.5, (i as u32 / W) as f64 + 0.5);
        let v = verts
            .iter()
            .find(|v| {
                let c = (
                    snap(32.0 + 32.0 * v[0] as f64),
                    snap(32.0 - 32.0 * v[1] as f64),
                );
                (x - c.0).abs() < 4.0 && (y - c.1).abs() < 4.0
            })
            .expect("a covered pixel lies in a point's square");
        let (left, top) = (
            snap(32.0 + 32.0 * v[0] as f64) - 4.0,
            snap(32.0 - 32.0 * v[1] as f64) - 4.0,
        );
        let want = [((x - left) / 8.0) as f32, ((y - top) / 8.0) as f32];
        for k in 0..2 {
            assert!(
                (got[k] as i32 - unorm8(want[k]) as i32).abs() <= 1,
                "pixel ({x}, {y}) channel {k}: {got:?} vs {want:?}"
            );
        }
        assert_eq!(&got[2..], &[0, 255]);
        covered += 1;
    }
    assert_eq!(covered, 3 * 64, "three 8x8 sprites");
}

/// Each pixel the reference covers holds its own centre, (x + 0.5, y + 0.5) / 64 as unorm8 in
/// red and green; coverage matches the reference.
fn assert_pixel_centres(img: &[[u8; 4]], d: DrawSpec) {
    let r = reference(&[d]);
    let mut covered = 0;
    for (i, (got, want)) in img.iter().zip(&r.color).enumerate() {
        assert_eq!(*got == CLEAR, *want == CLEAR, "coverage at {i}");
        if *want == CLEAR {
            continue;
        }
        let (px, py) = (i as u32 % W, i as u32 / W);
        let expect = [
            unorm8((px as f32 + 0.5) / 64.0),
            unorm8((py as f32 + 0.5) / 64.0),
            0,
            255,
        ];
        assert_eq!(*got, expect, "pixel {px},{py}");
        covered += 1;
    }
    assert!(covered > 300);
}

/// Where the format tests put their attribute buffer (vertex-buffer binding 1).
const ATTRIB_BUFFER: u64 = VB + 0x4000;

/// A vertex program reading position (binding 0, f32 x4) and `format` at location 1 from
/// binding 1 (`offset`, `stride`, `divisor`), writing `value * k + 0.5` (integers converted
/// with i2f/u2f first) as the colour.
fn fetch_program(
    format: AttribFormat,
    offset: u32,
    stride: u32,
    divisor: u32,
    k: f32,
) -> Result<StageCode, CompileError> {
    let mut s = Shader::new(m::MESA_SHADER_VERTEX);
    let pos = s.load_input(GENERIC0, 0, 4);
    let col = s.load_input(GENERIC0 + 1, 1, 4);
    let col = unsafe {
        let c = match format.ty {
            AttribType::Sint => m::nir_i2f32(s.b(), col),
            AttribType::Uint => m::nir_u2f32(s.b(), col),
            _ => col,
        };
        let half = s.imm(0.5);
        m::nir_fadd(s.b(), m::nir_fmul_imm(s.b(), c, k as f64), half)
    };
    s.store_output(pos, m::VARYING_SLOT_POS, 0);
    s.store_output(col, VAR0, 1);
    let key = VertexKey {
        attribs: vec![
            vertex_key().attribs[0],
            VertexAttrib {
                location: (GENERIC0 + 1) as u8,
                buffer: 1,
                offset,
                stride,
                format,
                divisor,
            },
        ],
        ..vertex_key()
    };
    let mut c = s.compile(&GraphicsKey::Vertex(key))?;
    c.roots = vec![0, 0, 0, 0, 0, 0, VB, ATTRIB_BUFFER];
    Ok(c)
}

/// GL ES 3.0 §2.1.6: unsigned normalised c / (2^b − 1); signed max(c / (2^(b−1) − 1), −1).
fn unorm_value(c: u64, bits: u32) -> f32 {
    (c as f64 / ((1u64 << bits) - 1) as f64) as f32
}
fn snorm_value(c: i64, bits: u32) -> f32 {
    (c as f64 / ((1i64 << (bits - 1)) - 1) as f64).max(-1.0) as f32
}

fn le(words: &[i64], bytes: usize) -> Vec<u8> {
    words
        .iter()
        .flat_map(|w| w.to_le_bytes()[..bytes].to_vec())
        .collect()
}

fn pack_1010102(c: [i64; 4]) -> Vec<u8> {
    let w = (c[0] as u32 & 0x3ff)
        | (c[1] as u32 & 0x3ff) << 10
        | (c[2] as u32 & 0x3ff) << 20
        | (c[3] as u32 & 3) << 30;
    w.to_le_bytes().to_vec()
}

/// IEEE binary16 → f32 for finite values (sign, 5-bit exponent, 10-bit mantissa;
/// exponent 0 = denormal m · 2^-24).
fn half_value(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = (h >> 10 & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    assert!(e < 31, "finite halves only");
    let mag = if e == 0 {
        m * 2f64.powi(-24)
    } else {
        (1.0 + m / 1024.0) * 2f64.powi(e - 15)
    };
    (sign * mag) as f32
}

#[test]
fn nir_vertex_fetch_reads_every_attribute_format() {
    use AttribType::*;
    // (format, the three elements' raw components, bytes each element occupies in the
    // buffer (its stride), the scale k keeping value * k + 0.5 inside [0, 1]).
    let raw: [[i64; 4]; 3] = [[0, 128, 255, 64], [255, 0, 32, 200], [17, 99, 180, 255]];
    let sraw: [[i64; 4]; 3] = [[-128, -127, 127, 0], [0, 64, -64, 1], [100, -1, 5, -100]];
    let wide: [[i64; 4]; 3] = [
        [0, 65535, 1234, 40000],
        [65535, 0, 30000, 7],
        [300, 20000, 65000, 100],
    ];
    let swide: [[i64; 4]; 3] = [
        [-32768, 32767, -1, 0],
        [12345, -20000, 32767, 5],
        [-300, 7, -32767, 30000],
    ];
    let packed_s: [[i64; 4]; 3] = [[-512, 511, 0, -2], [-511, 1, 300, 1], [100, -200, 511, -1]];
    let packed_u: [[i64; 4]; 3] = [[0, 1023, 512, 3], [1023, 0, 100, 0], [7, 700, 1000, 2]];
    let big: [[i64; 4]; 3] = [
        [0, 4_000_000_000, 1 << 31, 77],
        [4_294_967_295, 1, 123_456_789, 0],
        [5, 3_000_000_000, 2_000_000_000, 9],
    ];
    // binary16 patterns: ±1, the smallest denormal, −0; 0.333, 3.5, the smallest normal, −2;
    // 0.5, the largest denormal, −3.75, 3.14.
    let halves: [[i64; 4]; 3] = [
        [0x3c00, 0xbc00, 0x0001, 0x8000],
        [0x3555, 0x4300, 0x0400, 0xc000],
        [0x3800, 0x03ff, 0xc380, 0x4248],
    ];
    let floats: [[i64; 4]; 3] = [
        [1.5f32, -2.25, 0.0, 0.0],
        [3.75, 0.125, -4.0, 0.0],
        [-0.5, 2.0, 1e-3, 0.0],
    ]
    .map(|e| e.map(|x| x.to_bits() as i64));
    // 16.16: 1.5, -2.25; 3 + 1/65536, -0.5; -4, the smallest step.
    let fixed: [[i64; 4]; 3] = [
        [0x18000, -0x24000, 0, 0],
        [0x30001, -0x8000, 0, 0],
        [-0x40000, 1, 0, 0],
    ];
    struct Case {
        format: AttribFormat,
        elems: [[i64; 4]; 3],
        k: f32,
    }
    let plain = |ty, size, comps, elems, k| Case {
        format: AttribFormat::plain(ty, size, comps),
        elems,
        k,
    };
    let cases = [
        plain(Unorm, 8, 4, raw, 0.5),
        plain(Snorm, 8, 3, sraw, 0.5),
        plain(Unorm, 16, 2, wide, 0.5),
        plain(Snorm, 16, 4, swide, 0.5),
        plain(Uscaled, 8, 4, raw, 1.0 / 512.0),
        plain(Sscaled, 16, 2, swide, 1.0 / 65536.0),
        plain(Uint, 8, 4, raw, 1.0 / 512.0),
        plain(Sint, 16, 3, swide, 1.0 / 65536.0),
        plain(Sint, 8, 1, sraw, 1.0 / 256.0),
        plain(Uint, 16, 4, wide, 1.0 / 131072.0),
        plain(Unorm, 32, 3, big, 0.5),
        plain(Uscaled, 32, 2, big, 1.0 / 8.6e9),
        plain(Float, 16, 4, halves, 1.0 / 8.0),
        plain(Float, 16, 3, halves, 1.0 / 8.0),
        plain(Float, 32, 3, floats, 1.0 / 8.0),
        plain(Fixed, 32, 2, fixed, 1.0 / 8.0),
        Case {
            format: AttribFormat::packed_2_10_10_10(Snorm),
            elems: packed_s,
            k: 0.5,
        },
        Case {
            format: AttribFormat::packed_2_10_10_10(Uscaled),
            elems: packed_u,
            k: 1.0 / 2048.0,
        },
        Case {
            format: AttribFormat::packed_2_10_10_10(Sint),
            elems: packed_s,
            k: 1.0 / 1024.0,
        },
        // GL_BGRA order: the shader's x is the stored third field.
        Case {
            format: AttribFormat::packed_2_10_10_10(Unorm).bgra(),
            elems: packed_u,
            k: 0.5,
        },
        Case {
            format: AttribFormat::packed_2_10_10_10(Sscaled).bgra(),
            elems: packed_s,
            k: 1.0 / 1024.0,
        },
    ];
    for (n, c) in cases.iter().enumerate() {
        let f = c.format;
        let comps = f.comps as usize;
        // Elements 4-byte aligned, with a word of padding between them and before the first.
        let size = f.bytes() as usize;
        let stride = (size.div_ceil(4) + 1) * 4;
        let mut buf = vec![0xa5u8; 4 + 3 * stride];
        let mut want = [[0f32; 4]; 3];
        for (v, e) in c.elems.iter().enumerate() {
            let bytes = if f.bits == [10, 10, 10, 2] {
                pack_1010102(*e)
            } else {
                le(&e[..comps], f.bits[0] as usize / 8)
            };
            buf[4 + v * stride..4 + v * stride + bytes.len()].copy_from_slice(&bytes);
            for (k, w) in want[v].iter_mut().enumerate() {
                let x = if k >= comps {
                    if k == 3 {
                        1.0
                    } else {
                        0.0
                    }
                } else {
                    let s = if f.bgra && k != 1 && k != 3 { 2 - k } else { k };
                    let bits = f.bits[s] as u32;
                    // The stored field, sign-extended for signed types.
                    let field = e[s] & ((1i64 << bits) - 1);
                    let signed = (field << (64 - bits)) >> (64 - bits);
                    match f.ty {
                        Unorm => unorm_value(field as u64, bits),
                        Snorm => snorm_value(signed, bits),
                        Uscaled | Uint => field as f32,
                        Sscaled | Sint => signed as f32,
                        Fixed => (signed as f64 / 65536.0) as f32,
                        Float if bits == 32 => f32::from_bits(field as u32),
                        Float => half_value(field as u16),
                    }
                };
                *w = x * c.k + 0.5;
            }
        }
        let vs = fetch_program(f, 4, stride as u32, 0, c.k)
            .unwrap_or_else(|e| panic!("case {n} {f:?}: {e}"));
        let fs = fragment_shader(&fragment_key(&vs), ShadeModel::Linear, |_, v| v).unwrap();
        let mut d = w_triangle(ShadeModel::Linear);
        for (v, w) in d.verts.iter_mut().zip(want) {
            assert!(w.iter().all(|x| (0.0..=1.0).contains(x)), "case {n}: {w:?}");
            v[4..8].copy_from_slice(&w);
        }
        let (img, _) = draw_with_memory(&d, &vs, &fs, &[(ATTRIB_BUFFER, buf)])
            .unwrap_or_else(|e| panic!("case {n} {f:?}: {e}"));
        compare(&img, &reference(&[d]));
    }
}

#[test]
fn nir_vertex_fetch_refuses_what_it_cannot_read() {
    let e = |f, offset, stride| {
        fetch_program(f, offset, stride, 0, 1.0)
            .err()
            .unwrap()
            .to_string()
    };
    let byte_float = AttribFormat::plain(AttribType::Float, 8, 4);
    assert!(
        e(byte_float, 0, 4).contains("8-bit floats"),
        "{}",
        e(byte_float, 0, 4)
    );
    let f = AttribFormat::unorm8(4);
    assert!(e(f, 2, 4).contains("multiples of 4"), "{}", e(f, 2, 4));
    assert!(e(f, 0, 6).contains("multiples of 4"), "{}", e(f, 0, 6));
    let mixed = AttribFormat {
        bits: [8, 16, 8, 0],
        ..AttribFormat::unorm8(3)
    };
    assert!(
        e(mixed, 0, 4).contains("8, 16 or 32 bits"),
        "{}",
        e(mixed, 0, 4)
    );
}

#[test]
fn instanced_attributes_advance_per_divisor_instances() {
    // Three instances, each shifted by 0.5 i w in x by the vertex program (as
    // instance_id_offsets_each_instance); the colour comes from an unorm8 attribute with
    // divisor `d`: instance i reads element i / d.
    for d in [1u32, 2, 3] {
        let (mut s, key) = instanced_colour_shader(d);
        let mut vs = s.compile(&GraphicsKey::Vertex(key)).unwrap();
        vs.roots = vec![0, 0, 0, 0, 0, 0, VB, ATTRIB_BUFFER];
        check_three_instances(&vs, |i| (i / d) as usize);
    }
}

/// The small triangle of the instanced-attribute tests and its colours (one unorm8 element
/// each).
const INSTANCED_TRIANGLE: [[f32; 4]; 3] = [
    [-0.9, -0.9, 0.5, 1.0],
    [-0.3, -0.9, 0.5, 1.0],
    [-0.6, 0.6, 0.5, 1.0],
];
const INSTANCE_COLOURS: [[u8; 4]; 3] = [[255, 0, 0, 255], [0, 200, 40, 255], [30, 60, 250, 128]];

/// gl_Position = pos + vec4(0.5 * float(gl_InstanceID) * pos.w, 0, 0, 0), the colour (input 1)
/// passed through to VAR0.
fn instance_shifted_shader() -> Shader {
    let mut s = Shader::new(m::MESA_SHADER_VERTEX);
    let pos = s.load_input(GENERIC0, 0, 4);
    let col = s.load_input(GENERIC0 + 1, 1, 4);
    let i = s.intrinsic(m::nir_intrinsic_load_instance_id, 1, &[], true);
    let id = s.insert(i);
    let out = unsafe {
        let f = m::nir_u2f32(s.b(), id);
        let w = s.ch(pos, 3);
        let dx = m::nir_fmul(s.b(), m::nir_fmul_imm(s.b(), f, 0.5), w);
        let x = m::nir_fadd(s.b(), s.ch(pos, 0), dx);
        let (y, z) = (s.ch(pos, 1), s.ch(pos, 2));
        m::nir_vec4(s.b(), x, y, z, w)
    };
    s.store_output(out, m::VARYING_SLOT_POS, 0);
    s.store_output(col, VAR0, 1);
    s
}

/// The instanced-attribute tests' vertex program and key: the position moved by 0.5·i·w in x
/// for instance i, the colour an unorm8 attribute of buffer 1 (offset 8, stride 4) advancing
/// every `divisor` instances.
fn instanced_colour_shader(divisor: u32) -> (Shader, VertexKey) {
    let mut s = instance_shifted_shader();
    let key = VertexKey {
        attribs: vec![
            vertex_key().attribs[0],
            VertexAttrib {
                location: (GENERIC0 + 1) as u8,
                buffer: 1,
                offset: 8,
                stride: 4,
                format: AttribFormat::unorm8(4),
                divisor,
            },
        ],
        ..vertex_key()
    };
    (s, key)
}

/// Draws three instances of [`INSTANCED_TRIANGLE`] with `vs` (roots set) over the colour
/// buffer and compares with one GL draw per instance, instance i moved by 0.5·i·w and
/// coloured `INSTANCE_COLOURS[colour_of(i)]`.
fn check_three_instances(vs: &StageCode, colour_of: impl Fn(u32) -> usize) {
    let fs = fragment_shader(&fragment_key(vs), ShadeModel::Linear, |_, v| v).unwrap();
    let mut buf = vec![0u8; 8];
    buf.extend(INSTANCE_COLOURS.iter().flatten());
    let three = DrawSpec {
        instances: 3,
        ..DrawSpec::tris(
            INSTANCED_TRIANGLE
                .iter()
                .map(|p| rgba(*p, [0.0; 4]))
                .collect(),
            ShadeModel::Linear,
        )
    };
    let (img, _) = draw_with_memory(&three, vs, &fs, &[(ATTRIB_BUFFER, buf)]).unwrap();
    let per_instance: Vec<DrawSpec> = (0..3u32)
        .map(|i| {
            let c = INSTANCE_COLOURS[colour_of(i)].map(|x| x as f32 / 255.0);
            DrawSpec::tris(
                INSTANCED_TRIANGLE
                    .iter()
                    .map(|p| rgba([p[0] + 0.5 * i as f32 * p[3], p[1], p[2], p[3]], c))
                    .collect(),
                ShadeModel::Linear,
            )
        })
        .collect();
    compare(&img, &reference(&per_instance));
}

#[test]
fn nir_render_targets_with_a_gap_and_raw_words_take_consecutive_tile_words() {
    // DATA0 → RGBA8 word 0; DATA1 has no attachment (its store is dropped, no words);
    // DATA2 is a two-word raw target (words 1 and 2: packUnorm4x8(v), packUnorm4x8(v.bgra));
    // DATA3 → RGBA8 word 3 holding v.bgra. Each word read back is its own reference image.
    let vs = vertex_shader(&vertex_key()).unwrap();
    let key = FragmentKey {
        render_targets: vec![
            RenderTarget::Rgba8Unorm,
            RenderTarget::Unbound,
            RenderTarget::Words(2),
            RenderTarget::Rgba8Unorm,
        ],
        ..fragment_key(&vs)
    };
    let mut s = Shader::new(m::MESA_SHADER_FRAGMENT);
    let v = s.load_interpolated(VAR0, 0, m::INTERP_MODE_NOPERSPECTIVE);
    let bgra = unsafe {
        let mut c = [s.ch(v, 2), s.ch(v, 1), s.ch(v, 0), s.ch(v, 3)];
        m::nir_vec(s.b(), c.as_mut_ptr(), 4)
    };
    s.store_output(v, m::FRAG_RESULT_DATA0, 0);
    let junk = s.imm(0.25);
    s.store_output(junk, m::FRAG_RESULT_DATA0 + 1, 1);
    let words = unsafe {
        let mut w = [
            m::nir_pack_unorm_4x8(s.b(), v),
            m::nir_pack_unorm_4x8(s.b(), bgra),
        ];
        m::nir_vec(s.b(), w.as_mut_ptr(), 2)
    };
    s.store_output(words, m::FRAG_RESULT_DATA0 + 2, 2);
    s.store_output(bgra, m::FRAG_RESULT_DATA0 + 3, 3);
    let fs = s.compile(&GraphicsKey::Fragment(key)).unwrap();
    assert_eq!(fs.info.tile_words, 4);
    let d = w_triangle(ShadeModel::Linear);
    let mut swapped = d.clone();
    for v in &mut swapped.verts {
        v.swap(4, 6);
    }
    for (word, want) in [(0, &d), (1, &d), (2, &swapped), (3, &swapped)] {
        let (img, _) = draw_words(&d, &vs, &fs, &[], 16, word).unwrap();
        compare(&img, &reference(&[want.clone()]));
    }
    // A store past a raw target's words is refused by name.
    let key = FragmentKey {
        render_targets: vec![RenderTarget::Words(1)],
        ..fragment_key(&vs)
    };
    let e = fragment_shader(&key, ShadeModel::Linear, |_, v| v)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("colour word 1 of a 1-word render target"), "{e}");
}

unsafe extern "C" {
    // Mesa src/compiler/nir/nir_format_convert.c: what agx16-gallium's rt_format.rs packs every
    // raw render target's colour with.
    fn nir_format_pack_rgba(
        b: *mut m::nir_builder,
        format: m::pipe_format,
        rgba: *mut m::nir_def,
    ) -> *mut m::nir_def;
}

/// Every raw render-target format the driver renders: a constant colour packed in the program
/// by Mesa's `nir_format_pack_rgba` and stored as raw tile words is, word for word, what
/// Mesa's CPU pack (`util_format_pack_rgba`, separate code) makes of the same colour; pixels
/// the triangle misses keep the harness background's words. Covers half floats (largest
/// finite, denormals), R11G11B10 (exact and negative values), sRGB encoding, 565/4444/5551/10-10-10-2 rounding and integer clamping.
#[test]
fn nir_format_packs_of_every_raw_target_match_mesas_cpu_pack() {
    let vs = vertex_shader(&vertex_key()).unwrap();
    let floats: [[f32; 4]; 3] = [
        [0.1, 0.5, 0.99, 0.33],
        [-1.0, 2.0, 0.5 / 31.0, 0.7],
        [0.0031, 0.25, 0.9, 0.5],
    ];
    // Values binary16 represents exactly (normals, the largest finite, denormals): Mesa's NIR
    // pack rounds to nearest even (overflow to infinity), its CPU pack toward zero; GL allows
    // either, so only exact values are compared.
    let big: [[f32; 4]; 3] = [
        [0.125, 1.5e3, 65504.0, -2.0],
        [17.0 * 5.960_464_5e-8, 0.5, -65504.0, 1.0],
        [3.051_757_8e-5, 6.103_515_6e-5, 123.5, 0.0],
    ];
    // Values R11G11B10 represents exactly (and negatives, which clamp to zero): Mesa's NIR pack
    // truncates the half-float mantissa where its CPU pack rounds to nearest; GL ES 3.0 §2.1.3
    // allows both, so only exact values are compared.
    let small: [[f32; 4]; 2] = [[0.25, 1504.0, 64512.0, -2.0], [0.0, -0.5, 3.0, 1.0]];
    let ints: [[u32; 4]; 2] = [
        [3, 0xffff_fff0, 70000, 0x8000_0000],
        [255, 1023, 1, 0x7fff_ffff],
    ];
    use m::*;
    let cases: Vec<(pipe_format, Vec<[u32; 4]>)> = {
        let f = |v: &[[f32; 4]]| v.iter().map(|c| c.map(f32::to_bits)).collect::<Vec<_>>();
        vec![
            (PIPE_FORMAT_R8G8B8A8_SRGB, f(&floats)),
            (PIPE_FORMAT_B5G6R5_UNORM, f(&floats)),
            (PIPE_FORMAT_B4G4R4A4_UNORM, f(&floats)),
            (PIPE_FORMAT_B5G5R5A1_UNORM, f(&floats)),
            (PIPE_FORMAT_R10G10B10A2_UNORM, f(&floats)),
            (PIPE_FORMAT_R8_UNORM, f(&floats)),
            (PIPE_FORMAT_R8G8_UNORM, f(&floats)),
            (PIPE_FORMAT_R11G11B10_FLOAT, f(&small)),
            (PIPE_FORMAT_R16G16B16A16_FLOAT, f(&big)),
            (PIPE_FORMAT_R16_FLOAT, f(&big)),
            (PIPE_FORMAT_R32G32_FLOAT, f(&big)),
            (PIPE_FORMAT_R10G10B10A2_UINT, ints.to_vec()),
            (PIPE_FORMAT_R16G16_SINT, ints.to_vec()),
            (PIPE_FORMAT_R8G8B8A8_UINT, ints.to_vec()),
            (PIPE_FORMAT_R8_SINT, ints.to_vec()),
            (PIPE_FORMAT_R32G32B32A32_SINT, ints.to_vec()),
        ]
    };
    let d = w_triangle(ShadeModel::Linear);
    let (any, _) = {
        let key = fragment_key(&vs);
        let fs = fragment_shader(&key, ShadeModel::Linear, |_, v| v).unwrap();
        draw(&d, &vs, &fs).unwrap()
    };
    let covered: Vec<bool> = any.iter().map(|p| *p != CLEAR).collect();
    assert!(covered.iter().any(|c| *c) && covered.iter().any(|c| !*c));
    for (format, colours) in cases {
        let bytes = unsafe { util_format_get_blocksize(format) } as usize;
        let words = bytes.div_ceil(4);
        for c in colours {
            let mut want = [0u8; 16];
            unsafe {
                util_format_pack_rgba(
                    format,
                    want.as_mut_ptr() as *mut _,
                    c.as_ptr() as *const _,
                    1,
                )
            };
            let key = FragmentKey {
                render_targets: vec![RenderTarget::Words(words as u8)],
                ..fragment_key(&vs)
            };
            let mut s = Shader::new(MESA_SHADER_FRAGMENT);
            let packed = unsafe {
                let mut k: Vec<*mut nir_def> =
                    c.iter().map(|&x| nir_imm_int(s.b(), x as i32)).collect();
                let v = nir_vec(s.b(), k.as_mut_ptr(), 4);
                nir_format_pack_rgba(s.b(), format, v)
            };
            s.store_output(packed, FRAG_RESULT_DATA0, 0);
            let fs = s
                .compile(&GraphicsKey::Fragment(key))
                .unwrap_or_else(|e| panic!("format {format}: {e}"));
            for w in 0..words {
                let (img, _) = draw_words(&d, &vs, &fs, &[], (4 * words) as u8, w).unwrap();
                let mut exp = [0u8; 4];
                let n = (bytes - 4 * w).min(4);
                exp[..n].copy_from_slice(&want[4 * w..4 * w + n]);
                for (i, px) in img.iter().enumerate() {
                    let e = if covered[i] { exp } else { CLEAR };
                    assert_eq!(
                        *px, e,
                        "format {format} colour {c:08x?} word {w} pixel {i}: program vs \
                         util_format_pack_rgba"
                    );
                }
            }
        }
    }
}

#[test]
fn discard_kills_through_coverage_writes_on_the_model() {
    // `if (gl_FragCoord.x < 20.0) discard;` as NIR demote_if and terminate_if: the pixels left
    // of column 20 keep the background, the others draw and count (reference: the host
    // rasteriser's discard column in a punch-through pass).
    let vs = vertex_shader(&vertex_key()).unwrap();
    for op in [m::nir_intrinsic_demote_if, m::nir_intrinsic_terminate_if] {
        let fs = fragment_shader(&fragment_key(&vs), ShadeModel::Linear, |s, v| {
            let i = s.intrinsic(m::nir_intrinsic_load_frag_coord, 4, &[], true);
            let fc = s.insert(i);
            let x = s.ch(fc, 0);
            let edge = s.imm(20.0);
            let c = unsafe { m::nir_flt(s.b(), x, edge) };
            let k = s.intrinsic(op, 0, &[c], false);
            s.insert(k);
            v
        })
        .unwrap();
        assert!(
            fs.info.discards,
            "a discarding program needs a late-test pass"
        );
        let mut d = w_triangle(ShadeModel::Linear);
        d.discard_left_of = Some(20);
        let (img, stats) = draw(&d, &vs, &fs).unwrap();
        let r = reference(&[d]);
        compare(&img, &r);
        assert!(r.passed[0] > 100);
        assert_eq!(stats.samples_passed, r.passed[0]);
    }
}

#[test]
fn frag_depth_is_the_depth_the_test_sees() {
    // Colour first, then gl_FragDepth = 1.0 (the colour store waits for the depth store), with
    // depth func EQUAL against the cleared 1.0: every covered pixel passes, as the reference
    // triangle at depth 1.0 does; at its interpolated depth none would.
    let vs = vertex_shader(&vertex_key()).unwrap();
    let mut s = Shader::new(m::MESA_SHADER_FRAGMENT);
    let v = s.load_interpolated(VAR0, 0, m::INTERP_MODE_NOPERSPECTIVE);
    s.store_output(v, m::FRAG_RESULT_DATA0, 0);
    let one = s.imm(1.0);
    s.store_output(one, m::FRAG_RESULT_DEPTH, 0);
    let fs = s
        .compile(&GraphicsKey::Fragment(fragment_key(&vs)))
        .unwrap();
    assert!(
        fs.info.discards,
        "a depth-writing program needs a late-test pass"
    );
    let mut d = w_triangle(ShadeModel::Linear);
    d.depth = agx16_cmdstream::ppp::ZsFunc::Equal;
    d.depth_write = true;
    d.discard_left_of = Some(0);
    let mut at_one = d.clone();
    for x in &mut at_one.verts {
        x[2] = x[3];
    }
    let (img, stats) = draw(&d, &vs, &fs).unwrap();
    let r = reference(&[at_one]);
    compare(&img, &r);
    assert!(r.passed[0] > 100);
    assert_eq!(stats.samples_passed, r.passed[0]);
    assert_eq!(reference(&[d]).passed[0], 0);
}

#[test]
fn centroid_inputs_iterate_at_the_pixel_centre_of_a_single_sampled_render() {
    // Perspective and noperspective centroid inputs give the pixel-centre reference images
    // (one sample per pixel); per-sample iteration stays refused by name.
    let vs = vertex_shader(&vertex_key()).unwrap();
    let key = fragment_key(&vs);
    for (mode, shade) in [
        (m::INTERP_MODE_SMOOTH, ShadeModel::Perspective),
        (m::INTERP_MODE_NOPERSPECTIVE, ShadeModel::Linear),
    ] {
        let mut s = Shader::new(m::MESA_SHADER_FRAGMENT);
        let v = s.load_interpolated_at(m::nir_intrinsic_load_barycentric_centroid, VAR0, 0, mode);
        s.store_output(v, m::FRAG_RESULT_DATA0, 0);
        let fs = s.compile(&GraphicsKey::Fragment(key.clone())).unwrap();
        let d = w_triangle(shade);
        let (img, _) = draw(&d, &vs, &fs).unwrap();
        compare(&img, &reference(&[d]));
    }
    let mut s = Shader::new(m::MESA_SHADER_FRAGMENT);
    let v = s.load_interpolated_at(
        m::nir_intrinsic_load_barycentric_sample,
        VAR0,
        0,
        m::INTERP_MODE_SMOOTH,
    );
    s.store_output(v, m::FRAG_RESULT_DATA0, 0);
    let e = s
        .compile(&GraphicsKey::Fragment(key))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("load_barycentric_sample"), "{e}");
}

#[test]
fn robust_fetch_clamps_each_attribute_to_its_limit_word() {
    // As instanced_attributes_advance_per_divisor_instances with divisor 1, but the colour
    // buffer is declared to end after two colours (limit words through
    // `VertexKey::fetch_limits`): instance 2's element starts at word 4, past the last
    // whole colour (word 3), and reads word 3 (instance 1's colour) instead of the third.
    let (mut s, key) = instanced_colour_shader(1);
    let key = VertexKey {
        fetch_limits: Some(0),
        ..key
    };
    let mut vs = s.compile(&GraphicsKey::Vertex(key)).unwrap();
    // Limit words at GL uniform words 0 and 1 (root word 16 after two buffer qwords):
    // positions unclamped, colours up to word 3 (8 bytes of offset + two colours).
    assert_eq!(vs.info.gl_uniform_base, 16);
    assert!(vs.info.uniform_words >= 18, "{:?}", vs.info);
    vs.roots = vec![
        0,
        0,
        0,
        0,
        0,
        0,
        VB,
        ATTRIB_BUFFER,
        u32::MAX as u64 | 3 << 32,
    ];
    check_three_instances(&vs, |i| (i as usize).min(1));
}

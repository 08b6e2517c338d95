//! Compiled graphics programs on agx16-sim's render model: IR vertex and fragment programs
//! (GLSL-shaped) compiled to G16 by the whole backend and run as real stage bodies through
//! `gfx::run_render_with` with `IsaStages` (the hardware path: launcher → entry jump → body on
//! the shader core). The images are compared with the CPU reference rasteriser of the
//! render-model tests (sim/tests/gfx_common, no code shared with the model or the compiler):
//! exact coverage, colour within one 8-bit step.
#![allow(dead_code, clippy::cloned_ref_to_slice_refs)]

#[path = "../../../sim/tests/gfx_common/mod.rs"]
mod gfx_common;

use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::vdm::ProvokingVertex;
use agx16_compiler::abi::{self, AttribFormat, StageInfo, VertexAttrib};
use agx16_compiler::ir::*;
use agx16_compiler::pipeline::Options;
use agx16_sim::gfx::RenderStats;
use agx16_sim::SimError;
use gfx_common::*;

mod gfx_harness;
use gfx_harness::*;

type Rendered = (Vec<[u8; 4]>, RenderStats, StageInfo, StageInfo);

/// Compile both IR programs and draw `d` with them (no root record: they read no uniforms).
fn render_with(d: &DrawSpec, vs: &Function, fs: &Function) -> Result<Rendered, SimError> {
    render_roots(d, vs, fs, vec![], vec![])
}

/// Compile both IR programs and draw `d` with them, their launchers transferring the given
/// root records.
fn render_roots(
    d: &DrawSpec,
    vs: &Function,
    fs: &Function,
    vroots: Vec<u64>,
    froots: Vec<u64>,
) -> Result<Rendered, SimError> {
    let (vc, vinfo) = abi::compile_ir_graphics(vs, 0, Options::default()).unwrap();
    let (fc, finfo) = abi::compile_ir_graphics(fs, 0, Options::default()).unwrap();
    let v = StageCode {
        code: vc.code,
        info: vinfo.clone(),
        roots: vroots,
    };
    let f = StageCode {
        code: fc.code,
        info: finfo.clone(),
        roots: froots,
    };
    let (img, stats) = draw(d, &v, &f)?;
    Ok((img, stats, vinfo, finfo))
}

// ---- programs ----

/// GLSL-shaped vertex program computing everything from gl_VertexID:
///   float k = float(gl_VertexID); float w = 1.0 + k;
///   gl_Position = vec4((k * 0.9 - 0.9) * w, (k * k * 0.45 - 0.9) * w, 0.5 * w, w);
///   colour = vec4(k * 0.45, 1.0 - k * 0.4, 0.8 - k * 0.3, 1.0);
fn id_vertex_program() -> Function {
    let mut b = Builder::new(Stage::Vertex);
    let id = b.sysval(SysVal::VertexId);
    let k = b.alu(Op::I2F { signed: true }, Type::F32, [Src::val(id)]);
    let w = b.fadd(k, Src::imm_f32(1.0));
    let x = b.fmul(k, Src::imm_f32(0.9));
    let x = b.fadd(x, Src::imm_f32(-0.9));
    let x = b.fmul(x, w);
    let kk = b.fmul(k, k);
    let y = b.fmul(kk, Src::imm_f32(0.45));
    let y = b.fadd(y, Src::imm_f32(-0.9));
    let y = b.fmul(y, w);
    let z = b.fmul(w, Src::imm_f32(0.5));
    let r = b.fmul(k, Src::imm_f32(0.45));
    let g = b.fmul(
        k,
        Src {
            neg: true,
            ..Src::imm_f32(0.4)
        },
    );
    let g = b.fadd(g, Src::imm_f32(1.0));
    let bl = b.fmul(k, Src::imm_f32(-0.3));
    let bl = b.fadd(bl, Src::imm_f32(0.8));
    for (slot, v) in [x, y, z, w, r, g, bl].into_iter().enumerate() {
        b.store_output(slot as u8, v);
    }
    b.store_output(7, Src::imm_f32(1.0));
    b.finish()
}

/// The same vertices on the host (the reference's input).
fn id_vertices() -> Vec<Vtx> {
    (0..3)
        .map(|i| {
            let k = i as f32;
            let w = 1.0 + k;
            rgba(
                [(k * 0.9 - 0.9) * w, (k * k * 0.45 - 0.9) * w, 0.5 * w, w],
                [k * 0.45, 1.0 - k * 0.4, 0.8 - k * 0.3, 1.0],
            )
        })
        .collect()
}

/// `fragColor = colour` (CF slots 1..4, `interp`), packed as RGBA8 into tile word 0.
fn passthrough_fragment(interp: Interp) -> Function {
    let mut b = Builder::new(Stage::Fragment);
    let c: Vec<Src> = (0..4)
        .map(|k| Src::val(b.load_varying(1 + k, interp)))
        .collect();
    let word = abi::pack_unorm_4x8(&mut b, [c[0], c[1], c[2], c[3]]);
    b.store_tile(0, word);
    b.finish()
}

/// Arithmetic on varyings:
///   fragColor = vec4(c.r * 1.5 - 0.25, 1.0 - c.g, (c.r + c.b) * 0.5, c.g * c.g);
fn arithmetic_fragment(interp: Interp) -> Function {
    let mut b = Builder::new(Stage::Fragment);
    let r = b.load_varying(1, interp);
    let g = b.load_varying(2, interp);
    let bl = b.load_varying(3, interp);
    let o0 = b.fmul(r, Src::imm_f32(1.5));
    let o0 = b.fadd(o0, Src::imm_f32(-0.25));
    let o1 = b.fadd(
        Src {
            neg: true,
            ..Src::val(g)
        },
        Src::imm_f32(1.0),
    );
    let o2 = b.fadd(r, bl);
    let o2 = b.fmul(o2, Src::imm_f32(0.5));
    let o3 = b.fmul(g, g);
    let word = abi::pack_unorm_4x8(
        &mut b,
        [Src::val(o0), Src::val(o1), Src::val(o2), Src::val(o3)],
    );
    b.store_tile(0, word);
    b.finish()
}

fn id_triangle(shade: ShadeModel) -> DrawSpec {
    DrawSpec::tris(id_vertices(), shade)
}

fn interp_of(shade: ShadeModel) -> Interp {
    match shade {
        ShadeModel::Perspective => Interp::Perspective,
        ShadeModel::Linear => Interp::Linear,
        _ => Interp::Flat,
    }
}

#[test]
fn compiled_vertex_and_fragment_bodies_draw_the_reference_triangle() {
    for shade in [ShadeModel::Perspective, ShadeModel::Linear] {
        let d = id_triangle(shade);
        let (img, stats, vinfo, finfo) = render_with(
            &d,
            &id_vertex_program(),
            &passthrough_fragment(interp_of(shade)),
        )
        .unwrap();
        let r = reference(&[d]);
        compare(&img, &r);
        assert!(r.passed[0] > 300, "the triangle covers a real area");
        assert_eq!(stats.fragments_shaded, r.passed[0]);
        assert_eq!(stats.vertices_shaded, 3);
        assert_eq!(vinfo.outputs, 8);
        assert_eq!(finfo.tile_words, 1);
        let i = Some(interp_of(shade));
        assert_eq!(finfo.coefficients, vec![None, i, i, i, i]);
    }
    // W differs per vertex: perspective and linear images differ (the test can fail).
    let p = render_with(
        &id_triangle(ShadeModel::Perspective),
        &id_vertex_program(),
        &passthrough_fragment(Interp::Perspective),
    )
    .unwrap()
    .0;
    let l = render_with(
        &id_triangle(ShadeModel::Linear),
        &id_vertex_program(),
        &passthrough_fragment(Interp::Linear),
    )
    .unwrap()
    .0;
    assert_ne!(p, l);
}

#[test]
fn compiled_flat_varyings_take_the_provoking_vertex() {
    for (shade, provoking) in [
        (ShadeModel::FlatVertex0, ProvokingVertex::First),
        (ShadeModel::FlatVertex2, ProvokingVertex::Last),
    ] {
        let d = DrawSpec {
            provoking,
            ..id_triangle(shade)
        };
        let img = render_with(
            &d,
            &id_vertex_program(),
            &passthrough_fragment(Interp::Flat),
        )
        .unwrap()
        .0;
        compare(&img, &reference(&[d]));
    }
}

#[test]
fn compiled_arithmetic_on_varyings_matches_the_reference() {
    for shade in [ShadeModel::Perspective, ShadeModel::Linear] {
        let d = id_triangle(shade);
        let (img, ..) = render_with(
            &d,
            &id_vertex_program(),
            &arithmetic_fragment(interp_of(shade)),
        )
        .unwrap();
        // The affine channels are the reference of the affinely transformed vertex colours
        // (interpolation weights sum to one); alpha = g² is checked against the reference's
        // interpolated g (within two steps: the reference is itself quantised).
        let mut t = d.clone();
        for v in &mut t.verts {
            let (r, g, bl) = (v[4], v[5], v[6]);
            v[4] = r * 1.5 - 0.25;
            v[5] = 1.0 - g;
            v[6] = (r + bl) * 0.5;
            v[7] = 1.0;
        }
        let want = reference(&[t]);
        let plain = reference(&[d]);
        let mut worst = 0;
        for ((got, w), p) in img.iter().zip(&want.color).zip(&plain.color) {
            assert_eq!(*got == CLEAR, *w == CLEAR, "coverage");
            if *w == CLEAR {
                continue;
            }
            for k in 0..3 {
                worst = worst.max((got[k] as i32 - w[k] as i32).abs());
            }
            let g = p[1] as f32 / 255.0;
            let a = unorm8(g * g) as i32;
            assert!((got[3] as i32 - a).abs() <= 2, "alpha {} vs {a}", got[3]);
        }
        assert!(worst <= 1, "colour error {worst} steps");
        // The red channel saturates somewhere (the clamp is exercised).
        assert!(img.iter().any(|c| *c != CLEAR && c[0] == 0));
    }
}

#[test]
fn graphics_programs_the_abi_cannot_express_are_clear_errors() {
    // The instance id outside the vertex stage, the facing word outside the fragment stage.
    let mut b = Builder::new(Stage::Fragment);
    let id = b.sysval(SysVal::InstanceId);
    b.store_tile(0, id);
    let e = abi::compile_ir_graphics(&b.finish(), 0, Options::default()).unwrap_err();
    assert!(e.to_string().contains("instance id"), "{e}");
    let mut b = Builder::new(Stage::Vertex);
    let f = b.sysval(SysVal::BackFacing);
    for k in 0..4 {
        b.store_output(k, f);
    }
    let e = abi::compile_ir_graphics(&b.finish(), 0, Options::default()).unwrap_err();
    assert!(e.to_string().contains("facing"), "{e}");
    // An output slot left unstored (the model, like the hardware, has no default for it).
    let mut b = Builder::new(Stage::Vertex);
    for k in [0, 1, 2, 3, 5] {
        b.store_output(k, Src::imm_f32(1.0));
    }
    let e = abi::compile_ir_graphics(&b.finish(), 0, Options::default()).unwrap_err();
    assert!(e.to_string().contains("every slot up to the last"), "{e}");
    // Stage IO in the wrong stage.
    let mut b = Builder::new(Stage::Fragment);
    b.store_output(0, Src::imm_f32(1.0));
    let e = abi::compile_ir_graphics(&b.finish(), 0, Options::default()).unwrap_err();
    assert!(e.to_string().contains("store_output in a Fragment"), "{e}");
}

#[test]
fn a_tile_word_past_the_sample_is_refused_by_the_model() {
    // The compiler emits tile_store rt = 1 (`rt` counts 32-bit words, sim/GFX.md); on the
    // harness's 4-byte samples that word is past the sample, which the model refuses by name
    // (a second render target needs the driver's larger sample size).
    let mut b = Builder::new(Stage::Fragment);
    let c = b.load_varying(1, Interp::Linear);
    b.store_tile(1, c);
    let d = id_triangle(ShadeModel::Linear);
    match render_with(&d, &id_vertex_program(), &b.finish()) {
        Err(SimError::Unestablished { form, what, .. }) => {
            assert!(form.starts_with("tile_store"), "{form}");
            assert!(
                what.contains("tile word 1 past the 4-byte sample"),
                "{what}"
            );
        }
        other => panic!("{:?}", other.map(|r| r.1)),
    }
}

/// The harness's vertex buffer layout: position (vec4) at byte 0, colour at 16, stride 32.
fn attrib(location: u8, offset: u32, format: AttribFormat) -> VertexAttrib {
    VertexAttrib {
        location,
        buffer: 0,
        offset,
        stride: 32,
        format,
        divisor: 0,
    }
}

/// `in vec4 pos; in vec4 colour; gl_Position = pos; v_colour = colour;` with the attributes
/// fetched from vertex-buffer binding 0 (after `ubos` UBOs).
fn fetch_vertex_program(colour: AttribFormat, ubos: u8) -> Function {
    let mut b = Builder::new(Stage::Vertex);
    let id = b.sysval(SysVal::VertexId);
    let p = abi::fetch_attribute(&mut b, &attrib(0, 0, AttribFormat::f32(4)), id, ubos).unwrap();
    let c = abi::fetch_attribute(&mut b, &attrib(1, 16, colour), id, ubos).unwrap();
    for k in 0..4 {
        b.store_output(k as u8, p[k]);
        b.store_output(4 + k as u8, c[k]);
    }
    b.finish()
}

/// A triangle whose W differs per vertex (perspective and screen-linear results differ).
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

/// Root record of a stage with buffer qwords `buffers` after the six root qwords, then the
/// inline words.
fn roots(buffers: &[u64], inline: &[u32]) -> Vec<u64> {
    let mut r = vec![0u64; 6];
    r.extend_from_slice(buffers);
    for pair in inline.chunks(2) {
        r.push(pair[0] as u64 | (*pair.get(1).unwrap_or(&0) as u64) << 32);
    }
    r
}

#[test]
fn vertex_attributes_are_fetched_from_the_vertex_buffer() {
    for shade in [ShadeModel::Perspective, ShadeModel::Linear] {
        let d = w_triangle(shade);
        let (img, stats, vinfo, _) = render_roots(
            &d,
            &fetch_vertex_program(AttribFormat::f32(4), 0),
            &passthrough_fragment(interp_of(shade)),
            roots(&[VB], &[]),
            vec![],
        )
        .unwrap();
        let r = reference(&[d]);
        compare(&img, &r);
        assert!(r.passed[0] > 300);
        assert_eq!(stats.vertices_shaded, 3);
        // Buffer qword 6 = binding 0: uniform words 12, 13.
        assert_eq!((vinfo.buffers, vinfo.uniform_words), (1, 14));
        assert_eq!(abi::slot_words(abi::vertex_buffer_slot(0, 0)), (12, 13));
    }
}

#[test]
fn missing_attribute_components_take_the_gl_defaults() {
    // A vec3 colour attribute: alpha is 1 (GL), not the buffer's 0.5 of vertex 2.
    let d = w_triangle(ShadeModel::Perspective);
    let (img, ..) = render_roots(
        &d,
        &fetch_vertex_program(AttribFormat::f32(3), 0),
        &passthrough_fragment(Interp::Perspective),
        roots(&[VB], &[]),
        vec![],
    )
    .unwrap();
    let mut want = d.clone();
    for v in &mut want.verts {
        v[7] = 1.0;
    }
    compare(&img, &reference(&[want]));
    assert!(reference(&[d]).color.iter().any(|c| c[3] < 250));
}

#[test]
fn vertex_buffers_follow_the_ubos_and_a_wrong_qword_faults() {
    // With one UBO the vertex buffer is qword 7; the root record below puts it there.
    let d = w_triangle(ShadeModel::Linear);
    let good = render_roots(
        &d,
        &fetch_vertex_program(AttribFormat::f32(4), 1),
        &passthrough_fragment(Interp::Linear),
        roots(&[0, VB], &[]),
        vec![],
    )
    .unwrap();
    compare(&good.0, &reference(&[d.clone()]));
    assert_eq!((good.2.buffers, good.2.uniform_words), (2, 16));
    // The same program with the buffer at qword 6 reads address 0 (unmapped): a fault.
    let bad = render_roots(
        &d,
        &fetch_vertex_program(AttribFormat::f32(4), 1),
        &passthrough_fragment(Interp::Linear),
        roots(&[VB, 0], &[]),
        vec![],
    );
    assert!(
        matches!(bad, Err(SimError::Fault { .. })),
        "{:?}",
        bad.map(|r| r.1)
    );
}

/// `uniform vec4 tint; fragColor = v_colour * tint;` with the tint as inline uniform words.
fn tint_fragment(interp: Interp, base: u16) -> Function {
    let mut b = Builder::new(Stage::Fragment);
    let c: Vec<Src> = (0..4u16)
        .map(|k| {
            let v = b.load_varying(1 + k as u8, interp);
            Src::val(b.fmul(v, Src::uniform(base + k)))
        })
        .collect();
    let word = abi::pack_unorm_4x8(&mut b, [c[0], c[1], c[2], c[3]]);
    b.store_tile(0, word);
    b.finish()
}

#[test]
fn fragment_uniforms_are_the_inline_words_after_the_buffers() {
    let tint = [0.5f32, 1.0, 0.25, 1.0];
    let d = w_triangle(ShadeModel::Perspective);
    let base = abi::gl_uniform_base(0);
    let words: Vec<u32> = tint.iter().map(|x| x.to_bits()).collect();
    let (img, _, _, finfo) = render_roots(
        &d,
        &fetch_vertex_program(AttribFormat::f32(4), 0),
        &tint_fragment(Interp::Perspective, base),
        roots(&[VB], &[]),
        roots(&[], &words),
    )
    .unwrap();
    assert_eq!((base, finfo.uniform_words), (12, 16));
    let mut want = d.clone();
    for v in &mut want.verts {
        for k in 0..4 {
            v[4 + k] *= tint[k];
        }
    }
    compare(&img, &reference(&[want]));
    // Without the inline words the launcher transfers 12 words and the body's read of word
    // 12 is refused (never zeros).
    let short = render_roots(
        &d,
        &fetch_vertex_program(AttribFormat::f32(4), 0),
        &tint_fragment(Interp::Perspective, base),
        roots(&[VB], &[]),
        roots(&[], &[]),
    );
    match short {
        Err(SimError::Unestablished { what, .. }) => {
            assert!(what.contains("reads uniform word"), "{what}")
        }
        other => panic!("{:?}", other.map(|r| r.1)),
    }
}

#[test]
fn rgba8_unorm_vertex_colours_are_unpacked() {
    // Binding 0 at VB + 0x4000: per vertex the f32 position, then the colour as four bytes
    // (stride 20). Bytes chosen so each channel spans the range.
    let d = w_triangle(ShadeModel::Linear);
    let bytes: [[u8; 4]; 3] = [[255, 0, 17, 255], [0, 255, 128, 64], [51, 102, 255, 200]];
    let mut buf = Vec::new();
    for (v, c) in d.verts.iter().zip(&bytes) {
        for p in &v[..4] {
            buf.extend(p.to_le_bytes());
        }
        buf.extend(c);
    }
    let mut b = Builder::new(Stage::Vertex);
    let id = b.sysval(SysVal::VertexId);
    let at = |offset, format| VertexAttrib {
        location: 0,
        buffer: 0,
        offset,
        stride: 20,
        format,
        divisor: 0,
    };
    let p = abi::fetch_attribute(&mut b, &at(0, AttribFormat::f32(4)), id, 0).unwrap();
    let c = abi::fetch_attribute(&mut b, &at(16, AttribFormat::unorm8(4)), id, 0).unwrap();
    for k in 0..4 {
        b.store_output(k as u8, p[k]);
        b.store_output(4 + k as u8, c[k]);
    }
    let (vc, vinfo) = abi::compile_ir_graphics(&b.finish(), 0, Options::default()).unwrap();
    let (fc, finfo) =
        abi::compile_ir_graphics(&passthrough_fragment(Interp::Linear), 0, Options::default())
            .unwrap();
    let vs = StageCode {
        code: vc.code,
        info: vinfo,
        roots: roots(&[VB + 0x4000], &[]),
    };
    let fs = StageCode {
        code: fc.code,
        info: finfo,
        roots: vec![],
    };
    let (img, _) = draw_with_memory(&d, &vs, &fs, &[(VB + 0x4000, buf)]).unwrap();
    let mut want = d.clone();
    for (v, c) in want.verts.iter_mut().zip(&bytes) {
        for k in 0..4 {
            v[4 + k] = c[k] as f32 / 255.0;
        }
    }
    compare(&img, &reference(&[want]));
}

#[test]
fn the_rgba8_pack_is_two_unorm_pack_instructions() {
    // packUnorm4x8 selects two pack_unorm8x2 (low half R, G; high half B, A), no branches.
    let (c, _) =
        abi::compile_ir_graphics(&passthrough_fragment(Interp::Linear), 0, Options::default())
            .unwrap();
    let forms: Vec<&str> = agx16_isa::decode_program(&c.code)
        .unwrap()
        .iter()
        .map(|(_, i)| i.form.name)
        .collect();
    assert_eq!(
        forms.iter().filter(|f| **f == "pack_unorm8x2").count(),
        2,
        "{forms:?}"
    );
    assert!(!forms.contains(&"pcmp"), "{forms:?}");
    // The reference semantics: ties to even, clamping, NaN to zero.
    let w = agx16_compiler::eval::eval(
        Op::PackUnorm4x8,
        Type::I32,
        &[Type::F32; 4],
        &[
            (0.5f32 / 255.0 * 3.0).to_bits(), // 1.5 -> 2
            (2.5f32 / 255.0).to_bits(),       // 2.5 -> 2
            (-1.0f32).to_bits(),
            f32::NAN.to_bits(),
        ],
        false,
    );
    assert_eq!(w, Some(0x0000_0202));
}

#[test]
fn two_render_targets_are_consecutive_tile_words() {
    // RT0 = colour (RGBA8, word 0), RT1 = colour with red and blue swapped (word 1) on an
    // 8-byte sample: each word read back is its own target's reference image.
    let mut b = Builder::new(Stage::Fragment);
    let c: Vec<Src> = (0..4)
        .map(|k| Src::val(b.load_varying(1 + k, Interp::Perspective)))
        .collect();
    let w0 = abi::pack_unorm_4x8(&mut b, [c[0], c[1], c[2], c[3]]);
    let w1 = abi::pack_unorm_4x8(&mut b, [c[2], c[1], c[0], c[3]]);
    b.store_tile(0, w0);
    b.store_tile(1, w1);
    let d = w_triangle(ShadeModel::Perspective);
    let (vc, vinfo) = abi::compile_ir_graphics(
        &fetch_vertex_program(AttribFormat::f32(4), 0),
        0,
        Options::default(),
    )
    .unwrap();
    let (fc, finfo) = abi::compile_ir_graphics(&b.finish(), 0, Options::default()).unwrap();
    assert_eq!(finfo.tile_words, 2);
    let vs = StageCode {
        code: vc.code,
        info: vinfo,
        roots: roots(&[VB], &[]),
    };
    let fs = StageCode {
        code: fc.code,
        info: finfo,
        roots: vec![],
    };
    let (img0, _) = draw_words(&d, &vs, &fs, &[], 8, 0).unwrap();
    compare(&img0, &reference(&[d.clone()]));
    let (img1, _) = draw_words(&d, &vs, &fs, &[], 8, 1).unwrap();
    let mut swapped = d.clone();
    for v in &mut swapped.verts {
        v.swap(4, 6);
    }
    compare(&img1, &reference(&[swapped]));
    assert_ne!(img0, img1);
}

/// `fragColor = c * c.a + dst * (1 - c.a)` (GL SRC_ALPHA, ONE_MINUS_SRC_ALPHA on all four
/// channels), the destination read from tile word 0 (`load_tile` → `tile_read`) and unpacked
/// from RGBA8; `c` is the linear varying colour.
fn blend_fragment() -> Function {
    let mut b = Builder::new(Stage::Fragment);
    let c: Vec<Value> = (0..4)
        .map(|k| b.load_varying(1 + k, Interp::Linear))
        .collect();
    let dst = b.load_tile(0);
    let d = abi::unpack_unorm_4x8(&mut b, Src::val(dst));
    let inv = b.fadd(
        Src {
            neg: true,
            ..Src::val(c[3])
        },
        Src::imm_f32(1.0),
    );
    let o: Vec<Src> = (0..4)
        .map(|k| {
            let s = b.fmul(c[k], c[3]);
            let t = b.fmul(d[k], inv);
            Src::val(b.fadd(s, t))
        })
        .collect();
    let word = abi::pack_unorm_4x8(&mut b, [o[0], o[1], o[2], o[3]]);
    b.store_tile(0, word);
    b.finish()
}

#[test]
fn blending_reads_the_tilebuffer_and_overlapping_triangles_compose_in_order() {
    // Two overlapping constant-colour triangles in one draw, both translucent: the second
    // blends over the first where they overlap, both over the clear colour elsewhere.
    let tris: [([[f32; 4]; 3], [f32; 4]); 2] = [
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
    ];
    let verts: Vec<Vtx> = tris
        .iter()
        .flat_map(|(p, c)| p.iter().map(|p| rgba(*p, *c)))
        .collect();
    let d = DrawSpec::tris(verts, ShadeModel::Linear);
    let (img, stats, _, finfo) = render_roots(
        &d,
        &fetch_vertex_program(AttribFormat::f32(4), 0),
        &blend_fragment(),
        roots(&[VB], &[]),
        vec![],
    )
    .unwrap();
    assert_eq!(finfo.tile_words, 1);
    assert_eq!(stats.vertices_shaded, 6);
    // CPU reference: coverage of each triangle from the reference rasteriser (drawn alone in
    // an opaque colour unlike the clear colour), blending done here in f64 from the bytes.
    let cover: Vec<Vec<bool>> = tris
        .iter()
        .map(|(p, _)| {
            let one = DrawSpec::tris(
                p.iter().map(|p| rgba(*p, [1.0, 0.0, 1.0, 1.0])).collect(),
                ShadeModel::Linear,
            );
            reference(&[one])
                .color
                .iter()
                .map(|c| *c != CLEAR)
                .collect()
        })
        .collect();
    let mut overlap = 0;
    let mut worst = 0i32;
    for (px, got) in img.iter().enumerate() {
        let mut want = CLEAR;
        for (t, (_, c)) in tris.iter().enumerate() {
            if !cover[t][px] {
                continue;
            }
            let a = c[3] as f64;
            for k in 0..4 {
                let v = c[k] as f64 * a + want[k] as f64 / 255.0 * (1.0 - a);
                want[k] = (v.clamp(0.0, 1.0) * 255.0).round() as u8;
            }
        }
        overlap += (cover[0][px] && cover[1][px]) as u32;
        for k in 0..4 {
            worst = worst.max((got[k] as i32 - want[k] as i32).abs());
        }
        assert!(
            (0..4).all(|k| (got[k] as i32 - want[k] as i32).abs() <= 1),
            "pixel {px}: got {got:?}, want {want:?}"
        );
    }
    assert!(overlap > 150, "the triangles overlap in {overlap} pixels");
    assert!(worst <= 1);
    // The destination read is one `tile_read` of word 0.
    let (c, _) = abi::compile_ir_graphics(&blend_fragment(), 0, Options::default()).unwrap();
    let forms: Vec<&str> = agx16_isa::decode_program(&c.code)
        .unwrap()
        .iter()
        .map(|(_, i)| i.form.name)
        .collect();
    assert_eq!(
        forms.iter().filter(|f| **f == "tile_read").count(),
        1,
        "{forms:?}"
    );
}

/// `fetch_vertex_program` with gl_Position.x += 0.5 * float(gl_InstanceID) * w.
fn instanced_vertex_program() -> Function {
    let mut b = Builder::new(Stage::Vertex);
    let id = b.sysval(SysVal::VertexId);
    let inst = b.sysval(SysVal::InstanceId);
    let p = abi::fetch_attribute(&mut b, &attrib(0, 0, AttribFormat::f32(4)), id, 0).unwrap();
    let c = abi::fetch_attribute(&mut b, &attrib(1, 16, AttribFormat::f32(4)), id, 0).unwrap();
    let k = b.alu(Op::I2F { signed: false }, Type::F32, [Src::val(inst)]);
    let dx = b.fmul(k, Src::imm_f32(0.5));
    let dx = b.fmul(dx, p[3]);
    let x = b.fadd(p[0], dx);
    b.store_output(0, x);
    for (k, v) in p.into_iter().enumerate().skip(1) {
        b.store_output(k as u8, v);
    }
    for (k, v) in c.into_iter().enumerate() {
        b.store_output(4 + k as u8, v);
    }
    b.finish()
}

#[test]
fn compiled_instance_id_offsets_each_instance() {
    // Three instances of a small triangle; the reference rasteriser draws instance i shifted
    // by 0.5 i w in x. The body reads get_sr 0xd8 (0, 1, 2 on the model).
    let small = DrawSpec::tris(
        vec![
            rgba([-0.95, -0.9, 0.5, 1.0], [1.0, 0.0, 0.0, 1.0]),
            rgba([-0.45, -0.9, 0.5, 1.0], [0.0, 1.0, 0.0, 1.0]),
            rgba([-0.7, 0.7, 0.5, 1.0], [0.0, 0.0, 1.0, 1.0]),
        ],
        ShadeModel::Linear,
    );
    let d = DrawSpec {
        instances: 3,
        ..small.clone()
    };
    let (img, stats, _, _) = render_roots(
        &d,
        &instanced_vertex_program(),
        &passthrough_fragment(Interp::Linear),
        roots(&[VB], &[]),
        vec![],
    )
    .unwrap();
    let r = reference(&[d]);
    compare(&img, &r);
    assert_eq!(stats.vertices_shaded, 9);
    assert_eq!(stats.fragments_shaded, r.passed[0]);
    // Each instance covers about as much as one triangle: three disjoint copies.
    let one = reference(&[small]).passed[0];
    assert!(r.passed[0] >= 3 * one - 6, "{} vs 3 x {one}", r.passed[0]);
}

/// `fragColor = gl_FrontFacing ? colour : vec4(1, 1, 0, 1)` (the facing word == 0).
fn facing_fragment() -> Function {
    let mut b = Builder::new(Stage::Fragment);
    let w = b.sysval(SysVal::BackFacing);
    let front = b.icmp(Cmp::Eq, false, Src::val(w), Src::imm(0));
    let yellow = [1.0, 1.0, 0.0, 1.0];
    let c: Vec<Src> = (0..4)
        .map(|k| {
            let v = b.load_varying(1 + k as u8, Interp::Linear);
            Src::val(b.select(Type::F32, front, v, Src::imm_f32(yellow[k])))
        })
        .collect();
    let word = abi::pack_unorm_4x8(&mut b, [c[0], c[1], c[2], c[3]]);
    b.store_tile(0, word);
    b.finish()
}

#[test]
fn compiled_front_facing_selects_per_winding() {
    // An anticlockwise (front: the harness sets front_face_ccw) and a clockwise (back)
    // triangle in one draw; the reference draws the back one yellow.
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
    let d = DrawSpec::tris([left, right].concat(), ShadeModel::Linear);
    let (img, _, _, finfo) = render_roots(
        &d,
        &fetch_vertex_program(AttribFormat::f32(4), 0),
        &facing_fragment(),
        roots(&[VB], &[]),
        vec![],
    )
    .unwrap();
    assert_eq!(
        finfo.coefficients.len(),
        5,
        "the facing word is no coefficient"
    );
    let mut back = DrawSpec::tris(right.to_vec(), ShadeModel::Linear);
    for v in &mut back.verts {
        v[4..8].copy_from_slice(&[1.0, 1.0, 0.0, 1.0]);
    }
    let want = reference(&[DrawSpec::tris(left.to_vec(), ShadeModel::Linear), back]);
    compare(&img, &want);
    assert!(img.iter().filter(|c| **c == [255, 255, 0, 255]).count() > 100);
}

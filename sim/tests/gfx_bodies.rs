//! Real G16 fragment bodies (encoded with agx16-isa's builders in the T8132 compiler
//! packers' shapes) run on the model's shader core inside the render pipeline: coefficient
//! iteration, float ALU, tilebuffer words and the tile access brackets. Images are compared
//! with the CPU reference rasteriser in `gfx_common` (no code shared with the model).
#![allow(clippy::cloned_ref_to_slice_refs)]

mod gfx_common;

use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::launch::{entry_offset, jump_any};
use agx16_cmdstream::render::ZlsControl;
use agx16_isa::meaning::{
    launch_frame_instr, stage_allocation_instr, stage_target_instr, StageAllocation,
};
use agx16_isa::{decode_at, encode_program, Instr};
use agx16_sim::gfx::VertexInvocation;
use agx16_sim::gfx::{self, Fragment, FragmentResult, IsaStages, Stages, TileBuffer};
use agx16_sim::oracle::{decode_hex, oracles_dir};
use agx16_sim::{GpuMemory, SimError};
use gfx_common::*;

/// The fragment launch VA the harness's PPP page names (`USC | 0x9000`).
const FRAG_LAUNCHER: u64 = USC + 0x9000;
const FRAG_BODY: u64 = USC + 0x50000;

fn b(name: &str, f: &[(&str, u64)]) -> Instr {
    Instr::build(name, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// ITER at the pixel centre: r`dst` = coefficient `cf` (packer shape `2f 05 54 ..`).
fn iter(dst: u64, cf: u64) -> Instr {
    b(
        "iter",
        &[
            ("b1_01", 1),
            ("b2_hi", 0x15),
            ("dst", dst),
            ("coeff_sel", 3),
            ("slot", cf),
            ("b7", 2),
            ("loc", 0x10),
        ],
    )
}

fn fadd(dst: u64, a: u64, bb: u64) -> Instr {
    fadd_wait(dst, a, bb, 0)
}

/// `fadd` waiting on scoreboard slot `wait` (0: none).
fn fadd_wait(dst: u64, a: u64, bb: u64, wait: u64) -> Instr {
    b(
        "fadd",
        &[
            ("wait", wait),
            ("dst", dst),
            ("a_size", 1),
            ("a", a),
            ("a_keep", 1),
            ("b_size", 1),
            ("b", bb),
            ("b_keep", 1),
        ],
    )
}

/// The fragment epilogue of the Apple-compiled EXP-0008 bodies and the packer: tile access
/// 0x600 and 0x80c, raw word 0 := r`src`, fence 0x20c.
fn store_word0(src: u64) -> Vec<Instr> {
    vec![
        b("tile_setup", &[("b1", 2), ("access", 0x600)]),
        b("tile_setup", &[("b1", 2), ("access", 0x80c)]),
        b(
            "tile_store",
            &[("mode", 0x54), ("src", src), ("mask", 1), ("fmt", 0x4e)],
        ),
        b("tile_fence", &[("access", 0x20c)]),
    ]
}

fn install_fragment(scene: &Scene, body: &[u8]) {
    let entry = entry_offset(1);
    let launcher = [
        stage_allocation_instr(StageAllocation::Tile {
            samples: 1,
            units: 1,
        })
        .unwrap(),
        stage_target_instr(entry).unwrap(),
        // every launcher that ran on T8132 carries the publication/scratch frame
        launch_frame_instr(0, 0, 0).unwrap(),
        b("stop", &[]),
    ];
    scene
        .pt
        .host_write(FRAG_LAUNCHER, &encode_program(&launcher))
        .unwrap();
    let jump = agx16_isa::decode(&jump_any((FRAG_BODY - (USC + entry)) as i64).unwrap()).unwrap();
    scene
        .pt
        .host_write(USC + entry, &encode_program(&[jump, b("stop", &[])]))
        .unwrap();
    scene.pt.host_write(FRAG_BODY, body).unwrap();
}

/// Host vertex stage and background (the vertex and block-store forms are not established);
/// the fragment stage is the hardware path. The end-of-tile step reads the tile word the
/// body stored as an f32 and writes it as the red channel of the image (background bytes
/// pass through unchanged).
struct BodyStages {
    host: HostStages,
    isa: IsaStages,
    /// Background stores f32 0.0 as word 0 (and the end of tile converts every pixel)
    /// instead of the harness's clear colour.
    zero_background: bool,
}

impl Stages for BodyStages {
    fn vertex(
        &mut self,
        mem: &dyn GpuMemory,
        inv: &VertexInvocation,
    ) -> Result<Vec<f32>, SimError> {
        self.host.vertex(mem, inv)
    }
    fn background(
        &mut self,
        mem: &dyn GpuMemory,
        usc: u64,
        tile: &mut TileBuffer,
    ) -> Result<(), SimError> {
        if self.zero_background {
            tile.bytes.fill(0);
            return Ok(());
        }
        self.host.background(mem, usc, tile)
    }
    fn fragment(
        &mut self,
        mem: &dyn GpuMemory,
        f: &Fragment,
        tile: &mut TileBuffer,
    ) -> Result<FragmentResult, SimError> {
        self.isa.fragment(mem, f, tile)
    }
    fn fragments(
        &mut self,
        mem: &dyn GpuMemory,
        quad: &[Fragment],
        tile: &mut TileBuffer,
    ) -> Result<Vec<FragmentResult>, SimError> {
        self.isa.fragments(mem, quad, tile)
    }
    fn end_of_tile(
        &mut self,
        mem: &dyn GpuMemory,
        _: u64,
        tile: &TileBuffer,
    ) -> Result<(), SimError> {
        for y in 0..tile.height {
            for x in 0..tile.width {
                let (px, py) = (tile.origin.0 + x, tile.origin.1 + y);
                if px < W && py < H {
                    let w: [u8; 4] = tile.sample(x, y, 0).unwrap().try_into().unwrap();
                    let c = if w == CLEAR && !self.zero_background {
                        CLEAR
                    } else {
                        [unorm8(f32::from_le_bytes(w)), 0, 0, 255]
                    };
                    mem.write(IMG + 4 * (py * W + px) as u64, &c)?;
                }
            }
        }
        Ok(())
    }
}

fn render(draw: &DrawSpec, body: &[u8]) -> Result<(Scene, gfx::RenderStats), SimError> {
    render_draws(&[draw.clone()], body, false)
}

fn render_draws(
    draws: &[DrawSpec],
    body: &[u8],
    zero_background: bool,
) -> Result<(Scene, gfx::RenderStats), SimError> {
    let scene = build(draws, ZlsControl::default());
    install_fragment(&scene, body);
    let mut st = BodyStages {
        host: HostStages {
            draws: draws.to_vec(),
        },
        isa: IsaStages::default(),
        zero_background,
    };
    let stats = gfx::run_render_with(&scene.pt, &scene.command(), &mut st)?;
    Ok((scene, stats))
}

/// Body: red = iter(cf 1) + iter(cf 3) (the red and blue vertex scalars), stored as word 0.
fn red_plus_blue() -> Vec<u8> {
    let mut p = vec![iter(0, 1), iter(1, 3), fadd(0, 0, 1)];
    p.extend(store_word0(0));
    p.push(b("stop", &[]));
    encode_program(&p)
}

/// Vertices carrying (r, 0, b, 1) for the render and (r + b, 0, 0, 1) for the reference:
/// interpolation is linear in the attribute (screen-linear or perspective alike), so the
/// reference of the body's sum is the reference of the summed attribute.
fn scene_pair(pos: [[f32; 4]; 3], rb: [(f32, f32); 3], shade: ShadeModel) -> (DrawSpec, DrawSpec) {
    let v = |k: usize| rgba(pos[k], [rb[k].0, 0.0, rb[k].1, 1.0]);
    let r = |k: usize| rgba(pos[k], [rb[k].0 + rb[k].1, 0.0, 0.0, 1.0]);
    (
        DrawSpec::tris(vec![v(0), v(1), v(2)], shade),
        DrawSpec::tris(vec![r(0), r(1), r(2)], shade),
    )
}

#[test]
fn the_body_encodings_are_the_packer_shapes() {
    // The builders produce the bytes the T8132 packers emit (agx16-isa tests/graphics.rs
    // vectors; the epilogue is byte-identical to EXP-0008 render_min's).
    let hex = |i: &Instr| {
        i.encode()
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<String>()
    };
    assert_eq!(hex(&iter(3, 5)), "2f055406030a00021000");
    let e: Vec<String> = store_word0(0).iter().map(hex).collect();
    assert_eq!(
        e,
        [
            "870254000600",
            "8702540c0800",
            "e70654000000014e00000000",
            "0702540c0200"
        ]
    );
    let f = fadd(0, 0, 1).encode();
    assert_eq!(
        decode_at(&f, 0).unwrap().to_string().split(' ').next(),
        Some("fadd")
    );
}

#[test]
fn screen_linear_varyings_through_a_real_fragment_body() {
    let (d, want) = scene_pair(
        [
            [-0.8, -0.7, 0.5, 1.0],
            [0.9, -0.6, 0.5, 1.0],
            [0.1, 0.85, 0.5, 1.0],
        ],
        [(0.1, 0.0), (0.5, 0.4), (0.2, 0.1)],
        ShadeModel::Linear,
    );
    let (scene, stats) = render(&d, &red_plus_blue()).unwrap();
    let r = reference(&[want]);
    compare(&image(&scene.pt), &r);
    assert!(r.passed[0] > 500, "the triangle covers a real area");
    assert_eq!(stats.fragments_shaded, r.passed[0]);
}

#[test]
fn perspective_varyings_divide_by_the_w_coefficient() {
    let pos = [
        [-0.9, -0.9, 0.2, 1.0],
        [2.7, -2.4, 1.2, 3.0],
        [0.0, 1.6, 0.6, 2.0],
    ];
    let rb = [(0.9, 0.1), (0.0, 0.0), (0.2, 0.3)];
    let (d, want) = scene_pair(pos, rb, ShadeModel::Perspective);
    let (scene, _) = render(&d, &red_plus_blue()).unwrap();
    let got = image(&scene.pt);
    compare(&got, &reference(&[want]));
    // Screen-linear iteration of the same triangle differs (the test can fail).
    let (_, lin) = scene_pair(pos, rb, ShadeModel::Linear);
    assert_ne!(reference(&[lin]).color, got);
}

#[test]
fn flat_varyings_take_the_provoking_vertex() {
    let (d, want) = scene_pair(
        [
            [-0.8, -0.7, 0.5, 1.0],
            [0.9, -0.6, 0.5, 1.0],
            [0.1, 0.85, 0.5, 1.0],
        ],
        [(0.1, 0.0), (0.5, 0.4), (0.2, 0.55)],
        ShadeModel::FlatVertex2,
    );
    let (scene, _) = render(&d, &red_plus_blue()).unwrap();
    let got = image(&scene.pt);
    compare(&got, &reference(&[want]));
    // Every covered pixel holds vertex 2's 0.75.
    assert!(got
        .iter()
        .filter(|c| **c != CLEAR)
        .all(|c| c[0] == unorm8(0.75)));
}

/// Coverage read into r`dst` (GravityLinux/mesa GET_COVERAGE `<d<<4 | c> c2 10 06`, slot 1).
fn coverage(dst: u64) -> Instr {
    b(
        "get_sr",
        &[("form", 1), ("dst", dst), ("sr_sel", 0xc2), ("dp_width", 0)],
    )
}

/// r`dst` = r`src` << `n`, waiting on slot `wait` (0: none); the compiler's packer template.
fn shl(dst: u64, src: u64, n: u64, wait: u64) -> Instr {
    b(
        "ishl_imm",
        &[
            ("wait", wait),
            ("mode", 0x15),
            ("src_class", 2),
            ("b8", 0xf0),
            ("b9_hi", 4),
            ("dst", dst),
            ("src", src),
            ("amount", n),
        ],
    )
}

/// r`dst` = r`a` | r`c` (extended logic, or).
fn or(dst: u64, a: u64, c: u64) -> Instr {
    b(
        "ilogic",
        &[
            ("dst", dst),
            ("a_size", 1),
            ("a", a),
            ("a_keep", 1),
            ("op_base", 1),
            ("b_size", 1),
            ("b", c),
            ("b_keep", 1),
            ("lut_a_sel", 2),
            ("lut_b", 8),
        ],
    )
}

/// Coverage write of r`src`: `logic_export` (or r, r) into publication `p` on slot 1, then
/// `57 14 54 <p<<1> 00 01`, bracketed by tile access/fence 1 when `bracket`.
fn sample_mask(src: u64, p: u64, bracket: bool) -> Vec<Instr> {
    let export = b(
        "logic_export",
        &[
            ("dst", p),
            ("a_size", 1),
            ("a", src),
            ("a_keep", 1),
            ("op_base", 1),
            ("b_size", 1),
            ("b", src),
            ("b_keep", 1),
            ("lut_a_sel", 2),
            ("lut_b3", 1),
            ("slot", 0),
        ],
    );
    let submit = b(
        "frag_sample_submit",
        &[
            ("b1_hi", 1),
            ("wait", 1),
            ("b2", 0x15),
            ("src", p),
            ("b4", 0),
            ("b5", 1),
        ],
    );
    if bracket {
        vec![
            export,
            b("tile_setup", &[("b1", 2), ("access", 1)]),
            submit,
            b("tile_fence", &[("access", 1)]),
        ]
    } else {
        vec![export, submit]
    }
}

/// r4 = coverage, r5 = r4 << 4, r6 = r5 | r4: for a covered single-sample pixel with its test
/// pending (0x11), r5 = 0x110 = `sample_mask(~0, 0)` (kill) and r6 = 0x111 =
/// `sample_mask(~0, ~0)` (test) in the T8132 compiler's word layout; helpers read 0 and
/// write 0 (no sample).
fn coverage_words() -> Vec<Instr> {
    vec![coverage(4), shl(5, 4, 4, 1), or(6, 5, 4)]
}

/// `prefix` (after the coverage words), then the red + blue body.
fn coverage_body(prefix: Vec<Instr>) -> Vec<u8> {
    let mut p = coverage_words();
    p.extend(prefix);
    p.extend([iter(0, 1), iter(1, 3), fadd(0, 0, 1)]);
    p.extend(store_word0(0));
    p.push(b("stop", &[]));
    encode_program(&p)
}

/// A triangle in a punch-through pass (the host discard column 0 discards nothing: it only
/// selects the pass type with late tests).
fn punch_through() -> (DrawSpec, DrawSpec) {
    let (mut d, mut r) = scene_pair(
        [
            [-0.8, -0.7, 0.5, 1.0],
            [0.9, -0.6, 0.5, 1.0],
            [0.1, 0.85, 0.5, 1.0],
        ],
        [(0.1, 0.2), (0.5, 0.4), (0.2, 0.55)],
        ShadeModel::Linear,
    );
    d.discard_left_of = Some(0);
    r.discard_left_of = Some(0);
    (d, r)
}

#[test]
fn a_coverage_test_keeps_every_sample() {
    // The test write (live = target) before the colour store: the image and the passed
    // samples are those of the same body without coverage writes.
    let (d, r) = punch_through();
    let (plain, plain_stats) = render(&d, &red_plus_blue()).unwrap();
    let (scene, stats) = render(&d, &coverage_body(sample_mask(6, 32, true))).unwrap();
    let got = image(&scene.pt);
    compare(&got, &reference(&[r]));
    assert_eq!(got, image(&plain.pt));
    assert!(stats.samples_passed > 0);
    assert_eq!(stats.samples_passed, plain_stats.samples_passed);
}

#[test]
fn a_coverage_kill_drops_the_fragment_and_later_tests_do_not_revive_it() {
    // Kill (live 0), then the test write: the killed sample stays killed (Mesa
    // agx_nir_lower_sample_mask.c rule 3), its colour store is dropped (EXP-0091) and it
    // counts nothing.
    let (d, _) = punch_through();
    let mut pre = sample_mask(5, 32, false);
    pre.extend(sample_mask(6, 33, true));
    let (scene, stats) = render(&d, &coverage_body(pre)).unwrap();
    compare(&image(&scene.pt), &reference(&[]));
    assert_eq!(stats.samples_passed, 0);
    assert!(stats.fragments_shaded > 0);
}

/// gl_FragDepth: r`z` goes with the test word r`w` as the publication pair p, p + 1 (two
/// pair-word exports on slot 1, GravityLinux/mesa PUBLICATION_PAIR) into
/// `d7 14 54 <p<<1> 00 03`, inside tile access / fence 1.
fn depth_store(w: u64, z: u64, p: u64) -> Vec<Instr> {
    let pair = |dst: u64, r: u64| {
        b(
            "logic_export",
            &[
                ("dst", dst),
                ("a_size", 1),
                ("a", r),
                ("a_keep", 1),
                ("op_base", 1),
                ("lut_a_sel", 2),
                ("z8", 0x10),
                ("slot", 0),
            ],
        )
    };
    vec![
        pair(p, w),
        pair(p + 1, z),
        b("tile_setup", &[("b1", 2), ("access", 1)]),
        b("depth_store", &[("src", p), ("b4", 0), ("b5", 3)]),
        b("tile_fence", &[("access", 1)]),
    ]
}

#[test]
fn a_depth_store_tests_with_the_program_depth() {
    // Two overlapping triangles at window depth 0.75 then 0.5 (LESS, depth writes): with their
    // interpolated depth the second would win the overlap; the body writes depth 0.25 for
    // both, so the second fails there, as the reference with both at 0.25 says.
    let tri = |z: f32, dx: f32| {
        let (mut d, mut r) = scene_pair(
            [
                [-0.8 + dx, -0.7, z, 1.0],
                [0.6 + dx, -0.6, z, 1.0],
                [0.1 + dx, 0.85, z, 1.0],
            ],
            [(0.1, 0.2), (0.5, 0.4), (0.2, 0.55)],
            ShadeModel::Linear,
        );
        for x in [&mut d, &mut r] {
            x.discard_left_of = Some(0);
            x.depth = agx16_cmdstream::ppp::ZsFunc::Less;
            x.depth_write = true;
        }
        (d, r)
    };
    let ((a, _), (bb, _)) = (tri(0.75, 0.0), tri(0.5, 0.3));
    let ((_, ra), (_, rb)) = (tri(0.25, 0.0), tri(0.25, 0.3));
    let mut z = b("mov_imm32", &[("imm", 0.25f32.to_bits() as u64)]);
    z.set_gpr(agx16_isa::Role::Dst, 7, agx16_isa::Part::Full)
        .unwrap();
    let mut pre = vec![z];
    pre.extend(depth_store(6, 7, 32));
    let (scene, stats) = render_draws(&[a, bb], &coverage_body(pre), false).unwrap();
    let want = reference(&[ra, rb]);
    compare(&image(&scene.pt), &want);
    assert_eq!(stats.samples_passed, want.passed.iter().sum::<u64>());
    // The interpolated depths would have let the second triangle through the overlap.
    let ((_, ia), (_, ib)) = (tri(0.75, 0.0), tri(0.5, 0.3));
    assert!(reference(&[ia, ib]).passed[1] > want.passed[1]);
}

#[test]
fn coverage_writes_outside_the_rules_are_refused() {
    let (d, _) = punch_through();
    let refused = |body: Vec<u8>, draw: &DrawSpec, want: &str| match render(draw, &body) {
        Err(SimError::Unestablished { what, .. }) => assert!(what.contains(want), "{want}: {what}"),
        other => panic!("expected a refusal ({want}), got {:?}", other.map(|_| ())),
    };
    // A write whose word names no sample (0): the covered sample is neither tested nor
    // killed when the program ends (rule 2).
    let mut p = coverage_words();
    p.push(b("mov_imm", &[("dst", 7), ("imm", 0)]));
    p.extend(sample_mask(7, 32, true));
    p.push(b("stop", &[]));
    refused(encode_program(&p), &d, "neither tested nor killed");
    // Colour store before the test (rule 1).
    let mut p = coverage_words();
    p.extend(store_word0(4));
    p.extend(sample_mask(6, 32, true));
    p.push(b("stop", &[]));
    refused(encode_program(&p), &d, "before the program's coverage");
    // Test, then kill (rule 4) and test twice (rule 2).
    let mut twice = sample_mask(6, 32, true);
    twice.extend(sample_mask(5, 33, false));
    refused(coverage_body(twice), &d, "already tested");
    // The coverage word itself (0x11): bits 4..7 set without target bits.
    refused(coverage_body(sample_mask(4, 32, true)), &d, "bits 4..7");
    // A pass with early tests (opaque): live bits have no established meaning there.
    let (mut opaque, _) = punch_through();
    opaque.discard_left_of = None;
    refused(
        coverage_body(sample_mask(6, 32, true)),
        &opaque,
        "ran before the program",
    );
}

#[test]
fn unestablished_tile_words_and_locations_are_refused() {
    let tri = scene_pair(
        [
            [-0.8, -0.7, 0.5, 1.0],
            [0.9, -0.6, 0.5, 1.0],
            [0.1, 0.85, 0.5, 1.0],
        ],
        [(0.1, 0.0); 3],
        ShadeModel::Linear,
    )
    .0;
    // Word 1 (`rt` counts 32-bit words) is past the harness's 4-byte sample.
    let p = encode_program(&[
        iter(0, 1),
        b(
            "tile_store",
            &[
                ("mode", 0x54),
                ("src", 0),
                ("rt", 1),
                ("mask", 1),
                ("fmt", 0x4e),
            ],
        ),
        b("stop", &[]),
    ]);
    let e = render(&tri, &p).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("past the 4-byte sample"), "{e}");
    // An Apple per-format store byte (0x22, r32f in the corpus) is not the packer's raw word.
    let p = encode_program(&[
        iter(0, 1),
        b(
            "tile_store",
            &[("mode", 0x54), ("src", 0), ("mask", 1), ("fmt", 0x22)],
        ),
        b("stop", &[]),
    ]);
    let e = render(&tri, &p).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("fmt"), "{e}");
    // A coefficient past the CF table's five registers.
    let mut p = vec![iter(0, 7)];
    p.extend(store_word0(0));
    p.push(b("stop", &[]));
    let e = render(&tri, &encode_program(&p)).map(|_| ()).unwrap_err();
    assert!(e.to_string().contains("coefficient 7"), "{e}");
}

#[test]
fn an_apple_fragment_body_is_refused_at_its_colour_pack() {
    // EXP-0008 render_min: pack_convert x2 then the same epilogue; the pack form is opaque.
    let path =
        oracles_dir().join("isa/corpus/EXP-0008-fragment-extraction/render_min.fragment.main.hex");
    let Ok(text) = std::fs::read_to_string(&path) else {
        panic!("shared oracle missing: {}", path.display());
    };
    let body = decode_hex(text.trim()).unwrap();
    let tri = scene_pair(
        [
            [-0.8, -0.7, 0.5, 1.0],
            [0.9, -0.6, 0.5, 1.0],
            [0.1, 0.85, 0.5, 1.0],
        ],
        [(0.1, 0.0); 3],
        ShadeModel::Linear,
    )
    .0;
    let e = render(&tri, &body).map(|_| ()).unwrap_err();
    match e {
        SimError::Unestablished { pc, form, .. } => {
            assert_eq!(pc, 0);
            assert!(form.contains("pack_convert"), "{form}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn tile_reads_see_earlier_draws_through_the_scoreboard() {
    // Additive blending in the body: word 0 := word 0 (tile read, slot 1) + iter(cf 1).
    let p = encode_program(&[
        b("tile_setup", &[("b1", 2), ("access", 0x600)]),
        b("tile_setup", &[("b1", 2), ("access", 0x80c)]),
        b(
            "tile_read",
            &[
                ("b2", 0x54),
                ("dst", 1),
                ("mask", 1),
                ("fmt", 0x4e),
                ("slot", 0),
            ],
        ),
        iter(0, 1),
        fadd_wait(0, 0, 1, 1),
        b(
            "tile_store",
            &[("mode", 0x54), ("src", 0), ("mask", 1), ("fmt", 0x4e)],
        ),
        b("tile_fence", &[("access", 0x20c)]),
        b("stop", &[]),
    ]);
    assert_eq!(
        decode_at(&p, 12).unwrap().produce().map(|s| s.0),
        Some(1),
        "the tile read publishes on slot 1"
    );
    let tri = |pos: [[f32; 4]; 3], r: [f32; 3]| {
        DrawSpec::tris(
            (0..3)
                .map(|k| rgba(pos[k], [r[k], 0.0, 0.0, 1.0]))
                .collect(),
            ShadeModel::Linear,
        )
    };
    let a = tri(
        [
            [-0.9, -0.9, 0.5, 1.0],
            [0.6, -0.8, 0.5, 1.0],
            [-0.2, 0.7, 0.5, 1.0],
        ],
        [0.1, 0.4, 0.2],
    );
    let bb = tri(
        [
            [-0.3, -0.5, 0.5, 1.0],
            [0.9, 0.2, 0.5, 1.0],
            [0.0, 0.9, 0.5, 1.0],
        ],
        [0.5, 0.1, 0.3],
    );
    let (scene, _) = render_draws(&[a.clone(), bb.clone()], &p, true).unwrap();
    let got = image(&scene.pt);
    // Expected: the sum of each draw's own reference value where it covers the pixel.
    let (ra, rb) = (reference(&[a]), reference(&[bb]));
    let value = |c: &[u8; 4]| if *c == CLEAR { 0 } else { c[0] as i32 };
    let mut both = 0;
    for (i, g) in got.iter().enumerate() {
        let want = value(&ra.color[i]) + value(&rb.color[i]);
        both += (ra.color[i] != CLEAR && rb.color[i] != CLEAR) as u32;
        assert!(
            (g[0] as i32 - want).abs() <= 1 && g[1..] == [0, 0, 255],
            "pixel {},{}: model {g:?}, want red {want}",
            i as u32 % W,
            i as u32 / W
        );
    }
    assert!(both > 100, "the triangles overlap ({both} pixels)");
}

/// `i2f` (the Apple-compiled EXP-0008 vertex body's conversion, as gfx_vertex_body uses it).
fn i2f(dst: u32, src: u32) -> Instr {
    use agx16_isa::{Part, Role};
    let mut i = decode_at(&decode_hex("a70754220324ac20").unwrap(), 0).unwrap();
    i.set_gpr(Role::Dst, dst, Part::Full).unwrap();
    i.set_gpr(Role::SrcA, src, Part::Full).unwrap();
    i
}

/// Body: red = float(get_sr 0xc5), the facing word (0 front, nonzero back).
fn facing_body() -> Vec<u8> {
    let mut p = vec![
        b("get_sr", &[("form", 1), ("dst", 0), ("sr_sel", 0xc5)]),
        i2f(1, 0),
    ];
    p.extend(store_word0(1));
    p.push(b("stop", &[]));
    encode_program(&p)
}

#[test]
fn the_facing_register_is_zero_for_front_and_nonzero_for_back_faces() {
    // Two triangles in one draw: the left one anticlockwise on screen (front: the harness's
    // cull record sets front_face_ccw), the right one clockwise (back). The body stores
    // float(get_sr 0xc5); the model writes 1 for back faces (only zero/nonzero is
    // established), so the reference is red 0 on the front triangle and 1 on the back one.
    let left = [
        [-0.9, -0.8, 0.5, 1.0],
        [-0.1, -0.8, 0.5, 1.0],
        [-0.5, 0.8, 0.5, 1.0],
    ];
    let right = [
        [0.1, -0.8, 0.5, 1.0],
        [0.5, 0.8, 0.5, 1.0],
        [0.9, -0.8, 0.5, 1.0],
    ];
    let red = |p: [[f32; 4]; 3], r: f32| p.map(|v| rgba(v, [r, 0.0, 0.0, 1.0])).to_vec();
    let mut verts = red(left, 0.0);
    verts.extend(red(right, 0.0));
    let d = DrawSpec::tris(verts, ShadeModel::Linear);
    let (scene, stats) = render_draws(&[d.clone()], &facing_body(), true).unwrap();
    let want = reference(&[
        DrawSpec::tris(red(left, 0.0), ShadeModel::Linear),
        DrawSpec::tris(red(right, 1.0), ShadeModel::Linear),
    ]);
    let img = image(&scene.pt);
    // zero background: uncovered pixels read f32 0.0 (red 0) like the front triangle.
    let mut back = 0;
    let mut front = 0;
    for (i, (got, want)) in img.iter().zip(&want.color).enumerate() {
        let expect = if *want == CLEAR {
            [0, 0, 0, 255]
        } else {
            *want
        };
        assert_eq!(*got, expect, "pixel {}, {}", i as u32 % W, i as u32 / W);
        back += (*want == [255, 0, 0, 255]) as usize;
        front += (*want == [0, 0, 0, 255]) as usize;
    }
    assert!(
        back > 100 && front > 100,
        "{back} back, {front} front pixels"
    );
    assert_eq!(stats.fragments_shaded as usize, back + front);
    // Culling back faces leaves only the front triangle, whose word is 0 everywhere.
    let culled = DrawSpec {
        cull_back: true,
        ..d
    };
    let (scene, _) = render_draws(&[culled], &facing_body(), true).unwrap();
    assert!(image(&scene.pt).iter().all(|c| *c == [0, 0, 0, 255]));
}

#[test]
fn the_selector_after_the_facing_register_stays_refused() {
    // 0xc6 has no established meaning in a fragment body (the facing word is 0xc5 only; its
    // refusal in background bodies: gfx_tile_programs).
    let mut p = vec![b("get_sr", &[("form", 1), ("dst", 0), ("sr_sel", 0xc6)])];
    p.extend(store_word0(0));
    p.push(b("stop", &[]));
    let d = DrawSpec::tris(
        vec![
            rgba([-0.9, -0.8, 0.5, 1.0], [0.0; 4]),
            rgba([0.9, -0.8, 0.5, 1.0], [0.0; 4]),
            rgba([0.0, 0.8, 0.5, 1.0], [0.0; 4]),
        ],
        ShadeModel::Linear,
    );
    match render(&d, &encode_program(&p)) {
        Err(SimError::Unestablished { what, .. }) => {
            assert!(what.contains("0xc6"), "{what}")
        }
        other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
    }
}

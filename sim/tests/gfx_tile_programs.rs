//! Background and end-of-tile programs on the hardware path: a real G16 background program
//! clears each fresh utile by storing a constant tile word, a real fragment body draws a
//! triangle, and a real end-of-tile program exports the utile with `block_image_store`
//! through PBE descriptors into a linear and a GPU-tiled (twiddled) RGBA8 image. Every
//! program is encoded with agx16-isa's builders in the T8132 packers' shapes and entered
//! through launchers built by agx16-cmdstream (roots, pointer loads, argument transfers).
//! The bytes in memory are compared with the CPU reference rasteriser in `gfx_common` and
//! an independent Morton addressing written here.
#![allow(clippy::cloned_ref_to_slice_refs)]

mod gfx_common;

use agx16_cmdstream::descriptors::{Channels, NumericType, Pbe, ShadeModel};
use agx16_cmdstream::launch::{
    build_launcher, entry_offset, jump_any, GraphicsRoots, LaunchCommon, LaunchStage,
};
use agx16_cmdstream::render::ZlsControl;
use agx16_cmdstream::{Hex, Record};
use agx16_isa::meaning::{
    arg_store_instr, block_store_sequence, launch_frame_instr, pointer_load_instr,
    stage_allocation_instr, stage_target_instr, StageAllocation, TileFormat,
};
use agx16_isa::{encode_program, Instr, Part, Role};
use agx16_sim::gfx::VertexInvocation;
use agx16_sim::gfx::{self, Fragment, FragmentResult, IsaStages, Stages, TileBuffer};
use agx16_sim::{GpuMemory, SimError};
use gfx_common::*;

const FRAG_LAUNCHER: u64 = USC + 0x9000; // the harness's PPP fragment launch
const BG_LAUNCHER: u64 = USC + 0xa000; // the harness's bg_usc
const EOT_LAUNCHER: u64 = USC + 0xb000; // the harness's eot_usc
const FRAG_BODY: u64 = USC + 0x50000;
const BG_BODY: u64 = USC + 0x60000;
const EOT_BODY: u64 = USC + 0x70000;
const ROOTS: u64 = USC + 0x80000;
const IMAGE_TABLE: u64 = USC + 0x81000;
/// The render: one 32x32 tile (the top-left quarter of the harness's 64x64 viewport).
const SIZE: u32 = 32;
const LINEAR: u64 = IMG;
const LINEAR_STRIDE: u32 = 4 * SIZE;
const TWIDDLED: u64 = IMG + 0x2000;
const COLOR: [u8; 4] = [200, 40, 90, 255];

fn b(name: &str, f: &[(&str, u64)]) -> Instr {
    Instr::build(name, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// r`dst` = `v` (MOV_IMM32, the packer's literal form).
fn mov32(dst: u32, v: u32) -> Instr {
    let mut i = b("mov_imm32", &[("imm", v as u64)]);
    i.set_gpr(Role::Dst, dst, Part::Full).unwrap();
    i
}

/// The fragment tile epilogue (packer shapes): access 0x600 and 0x80c, raw word 0 := r`src`,
/// fence 0x20c.
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

/// Publication `p` := r`a` | r`a` completing on slot 1 (the packer's block-store parameter
/// publisher: LOGIC_EXPORT of IOR with both sources the value, slot field 0).
fn publish(p: u64, a: u64) -> Instr {
    b(
        "logic_export",
        &[
            ("dst", p),
            ("a_size", 1),
            ("a", a),
            ("a_keep", 1),
            ("op_base", 1),
            ("b_size", 1),
            ("b", a),
            ("b_keep", 1),
            ("lut_a_sel", 2),
            ("lut_b3", 1),
            ("slot", 0),
        ],
    )
}

/// BLOCK_IMAGE_STORE of the tuple at publication `coord` to image `image`, tile format
/// `format`, waiting on slot `wait` (0: none), then the compound's joining fence.
fn block_store(coord: u64, image: u64, format: u64, wait: u64, mode: u64) -> Vec<Instr> {
    vec![
        b(
            "block_image_store",
            &[
                ("wait", if wait == 0 { 0 } else { 1 << (wait - 1) }),
                ("coord", coord),
                ("image", image),
                ("ctrl7", 0x80),
                ("mode", mode),
                ("format", format),
                ("ctrl10", 1),
            ],
        ),
        b("tile_fence", &[("wait", 1), ("access", 0x300)]),
    ]
}

/// Background: every pixel's tile word 0 := `word`.
fn clear_body(word: u32) -> Vec<u8> {
    let mut p = vec![mov32(0, word)];
    p.extend(store_word0(0));
    p.push(b("stop", &[]));
    encode_program(&p)
}

/// Fragment: tile word 0 := `word` for every covered pixel.
fn constant_fragment(word: u32) -> Vec<u8> {
    clear_body(word)
}

/// End of tile: the utile to image pixel (0, 0) of image 0 and of image 1 (tile byte offset 0,
/// level 0), each through its own publication tuple.
fn eot_body(images: &[u64], format: u64, wait: u64) -> Vec<u8> {
    let mut p = vec![mov32(0, 0), mov32(1, 0), mov32(2, 0)];
    for (k, &img) in images.iter().enumerate() {
        let base = 4 * k as u64;
        match (wait, TileFormat::from_field(format)) {
            // The driver's path: agx16-isa's sequence builder.
            (1, Some(f)) => {
                p.extend(block_store_sequence(base as u32, 0, 1, 2, img as u32, f).unwrap())
            }
            _ => {
                p.extend([publish(base, 0), publish(base + 1, 1), publish(base + 2, 2)]);
                p.extend(block_store(base, img, format, wait, 0x5a8));
            }
        }
    }
    p.push(b("stop", &[]));
    encode_program(&p)
}

fn install_with(
    scene: &Scene,
    launcher: u64,
    entry_index: u64,
    body_va: u64,
    body: &[u8],
    samples: u32,
    tile_bytes: u32,
) {
    let entry = entry_offset(entry_index);
    let l = build_launcher(
        LaunchStage::Fragment {
            samples,
            tile_bytes,
        },
        &LaunchCommon {
            resource_table: ROOTS,
            entry_offset: entry,
            publications: 8,
            extent_a: 0,
            extent_b: 0,
        },
    )
    .unwrap();
    scene.pt.host_write(launcher, &l.bytes).unwrap();
    // The entry: JMP_EXEC_ANY to the body, then STOP (agx16-cmdstream's arena encoders).
    let mut e = jump_any((body_va - (USC + entry)) as i64).unwrap();
    e.extend(encode_program(&[b("stop", &[])]));
    scene.pt.host_write(USC + entry, &e).unwrap();
    scene.pt.host_write(body_va, body).unwrap();
}

fn rgba8_pbe(address: u64, linear: bool) -> Pbe {
    Pbe::render_target_2d(
        address,
        SIZE,
        SIZE,
        Channels::R8G8B8A8,
        NumericType::Unorm,
        linear.then_some(LINEAR_STRIDE),
    )
}

/// Host vertex stage (vertex fetch is not what is tested); background, fragment and end of
/// tile on the hardware path.
struct TileStages {
    host: HostStages,
    isa: IsaStages,
}

impl Stages for TileStages {
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
        self.isa.background(mem, usc, tile)
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
        usc: u64,
        tile: &TileBuffer,
    ) -> Result<(), SimError> {
        self.isa.end_of_tile(mem, usc, tile)
    }
}

fn triangle() -> DrawSpec {
    // Inside the top-left quarter of the 64x64 viewport but crossing x = 32, so the image's
    // right edge cuts it.
    DrawSpec::tris(
        vec![
            rgba([-0.9, 0.1, 0.5, 1.0], [1.0; 4]),
            rgba([0.15, 0.3, 0.5, 1.0], [1.0; 4]),
            rgba([-0.5, 0.95, 0.5, 1.0], [1.0; 4]),
        ],
        ShadeModel::Linear,
    )
}

struct Setup {
    bg: Vec<u8>,
    frag: Vec<u8>,
    eot: Vec<u8>,
    pbes: Vec<Pbe>,
    /// Replaces the background launcher (bytes) and writes a root record for it.
    bg_launcher: Option<(Vec<u8>, u64, Vec<u8>)>,
    /// Samples of the end-of-tile launcher's tile layout.
    eot_samples: u32,
    /// Tilebuffer bytes per sample (the command's and every launcher's tile layout).
    sample_bytes: u32,
    /// Further memory the render reads (texture descriptors, source texels), written after the
    /// images are poisoned.
    extra: Vec<(u64, Vec<u8>)>,
    /// Render width = height, and its utile.
    size: u32,
    utile: (u8, u8),
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            bg: clear_body(u32::from_le_bytes(CLEAR)),
            frag: constant_fragment(u32::from_le_bytes(COLOR)),
            eot: eot_body(&[0, 1], 7, 1),
            pbes: vec![rgba8_pbe(LINEAR, true), rgba8_pbe(TWIDDLED, false)],
            bg_launcher: None,
            eot_samples: 1,
            sample_bytes: 4,
            extra: Vec::new(),
            size: SIZE,
            utile: (32, 32),
        }
    }
}

fn render(draw: &DrawSpec, s: &Setup) -> Result<(Scene, gfx::RenderStats), SimError> {
    let mut scene = build(&[draw.clone()], ZlsControl::default());
    scene.cmd.width_px = s.size as u16;
    scene.cmd.height_px = s.size as u16;
    (scene.cmd.utile_width_px, scene.cmd.utile_height_px) = s.utile;
    if scene.pt.host_read(WHOLE_TWIDDLED, &mut [0]).is_err() {
        scene.pt.map(WHOLE_TWIDDLED, 0x4000, true, true).unwrap();
    }
    scene.cmd.sample_size_b = s.sample_bytes as u8;
    let t = s.sample_bytes;
    install_with(&scene, FRAG_LAUNCHER, 1, FRAG_BODY, &s.frag, 1, t);
    install_with(&scene, BG_LAUNCHER, 2, BG_BODY, &s.bg, 1, t);
    install_with(&scene, EOT_LAUNCHER, 3, EOT_BODY, &s.eot, s.eot_samples, t);
    if let Some((l, roots_va, roots)) = &s.bg_launcher {
        scene.pt.host_write(BG_LAUNCHER, l).unwrap();
        scene.pt.host_write(*roots_va, roots).unwrap();
    }
    let roots = GraphicsRoots {
        texture_table: Hex(IMAGE_TABLE),
        ..Default::default()
    };
    scene.pt.host_write(ROOTS, &roots.pack().unwrap()).unwrap();
    for (k, p) in s.pbes.iter().enumerate() {
        scene
            .pt
            .host_write(IMAGE_TABLE + 32 * k as u64, &p.pack().unwrap())
            .unwrap();
    }
    // Poison both images: every byte the model leaves alone stays 0xee.
    scene.pt.host_write(IMG, &vec![0xee; 0x4000]).unwrap();
    for (va, bytes) in &s.extra {
        scene.pt.host_write(*va, bytes).unwrap();
    }
    let mut st = TileStages {
        host: HostStages {
            draws: vec![draw.clone()],
        },
        isa: IsaStages::default(),
    };
    let stats = gfx::run_render_with(&scene.pt, &scene.command(), &mut st)?;
    Ok((scene, stats))
}

/// Independent Morton addressing of a 32x32 RGBA8 image: below the 64-texel tile edge the
/// whole image is one Morton block, x on the even bits (agx-re docs/tiling 1.1-1.3).
fn morton(x: u32, y: u32) -> u64 {
    (0..6).fold(0u64, |m, i| {
        m | (((x >> i) & 1) as u64) << (2 * i) | (((y >> i) & 1) as u64) << (2 * i + 1)
    })
}

fn read_linear(scene: &Scene) -> Vec<[u8; 4]> {
    let mut b = vec![0u8; (LINEAR_STRIDE * SIZE) as usize];
    scene.pt.host_read(LINEAR, &mut b).unwrap();
    (0..SIZE * SIZE)
        .map(|i| {
            let (x, y) = (i % SIZE, i / SIZE);
            let o = (y * LINEAR_STRIDE + 4 * x) as usize;
            b[o..o + 4].try_into().unwrap()
        })
        .collect()
}

fn read_twiddled(scene: &Scene) -> Vec<[u8; 4]> {
    let mut b = vec![0u8; (4 * SIZE * SIZE) as usize];
    scene.pt.host_read(TWIDDLED, &mut b).unwrap();
    (0..SIZE * SIZE)
        .map(|i| {
            let o = 4 * morton(i % SIZE, i / SIZE) as usize;
            b[o..o + 4].try_into().unwrap()
        })
        .collect()
}

/// The CPU reference of the 32x32 image: the triangle's coverage (top-left rule, pixel
/// centres) in `COLOR`, the background clear elsewhere.
fn expected(draw: &DrawSpec) -> Vec<[u8; 4]> {
    let r = reference(&[draw.clone()]);
    (0..SIZE * SIZE)
        .map(|i| {
            let (x, y) = (i % SIZE, i / SIZE);
            if r.color[(y * W + x) as usize] == CLEAR {
                CLEAR
            } else {
                COLOR
            }
        })
        .collect()
}

/// Exact equality, reporting the first differing pixel.
fn same(got: &[[u8; 4]], want: &[[u8; 4]], what: &str) {
    if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{what}: pixel {},{} is {:?}, the reference says {:?}",
            i as u32 % SIZE,
            i as u32 / SIZE,
            got[i],
            want[i]
        );
    }
}

fn render_err(s: &Setup) -> SimError {
    match render(&triangle(), s) {
        Ok(_) => panic!("the render succeeded"),
        Err(e) => e,
    }
}

fn refusal(e: SimError) -> (String, String) {
    match e {
        SimError::Unestablished { form, what, .. } => (form, what),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn the_programs_are_the_packer_shapes() {
    let hex = |v: &[Instr]| {
        encode_program(v)
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<String>()
    };
    // BLOCK_IMAGE_STORE (publication base 4, image 1, tile format 7, 2D) + the joining fence.
    assert_eq!(
        hex(&block_store(4, 1, 7, 1, 0x5a8)),
        "5710540800100080a8750100071254000300"
    );
    // agx16-isa's sequence builder emits exactly these instructions.
    let mut manual = vec![publish(4, 0), publish(5, 1), publish(6, 2)];
    manual.extend(block_store(4, 1, 7, 1, 0x5a8));
    assert_eq!(
        hex(&block_store_sequence(4, 0, 1, 2, 1, TileFormat::Packed8).unwrap()),
        hex(&manual)
    );
    // agx16-isa's tile origin: the full-word get_sr of the workgroup id, then the packer's
    // immediate left shift (pack_shift shape, as sim/tests/int_shift_pack.rs runs it).
    let shl = |r: u64, k: u64| {
        b(
            "ishl_imm",
            &[
                ("mode", 0x15),
                ("dst", r),
                ("src_class", 2),
                ("src", r),
                ("amount", k),
                ("b8", 0xf0),
                ("b9_hi", 4),
            ],
        )
    };
    let manual = [
        b("get_sr", &[("form", 1), ("dst", 0), ("sr_sel", 0x9c)]),
        shl(0, 5),
        b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0x9d)]),
        shl(1, 4),
    ];
    assert_eq!(
        hex(&agx16_isa::meaning::tile_origin_instrs(0, 1, (32, 16)).unwrap()),
        hex(&manual)
    );
    // The publisher decodes back to the export form it was built as.
    let p = publish(5, 2).encode();
    assert_eq!(agx16_isa::decode(&p).unwrap().form.name, "logic_export");
    assert_eq!(agx16_isa::decode(&p).unwrap().encode(), p);
}

#[test]
fn clear_triangle_and_export_to_linear_and_twiddled_images() {
    let d = triangle();
    let (scene, stats) = render(&d, &Setup::default()).unwrap();
    let want = expected(&d);
    let covered = want.iter().filter(|c| **c == COLOR).count();
    assert!(covered > 100, "the triangle covers a real area ({covered})");
    assert!(
        want.iter().filter(|c| **c == CLEAR).count() > 100,
        "and leaves background"
    );
    same(&read_linear(&scene), &want, "linear image");
    same(&read_twiddled(&scene), &want, "twiddled image");
    assert_eq!(stats.utiles, 1);
    assert_eq!(stats.fragments_shaded as usize, covered);
    // Nothing outside the two images' extents was written.
    let mut tail = vec![0u8; 0x1000];
    scene.pt.host_read(IMG + 0x1000, &mut tail).unwrap();
    assert!(tail.iter().all(|b| *b == 0xee));
}

#[test]
fn the_background_program_alone_clears_both_images() {
    // No primitive touches the tile (PROCESS_EMPTY_TILES is set by the harness): background
    // and end of tile still run.
    let mut d = triangle();
    d.verts.iter_mut().for_each(|v| v[0] += 10.0);
    let s = Setup {
        bg: clear_body(0x0403_0201),
        ..Default::default()
    };
    let (scene, stats) = render(&d, &s).unwrap();
    assert_eq!(stats.fragments_shaded, 0);
    assert!(read_linear(&scene).iter().all(|c| *c == [1, 2, 3, 4]));
    assert!(read_twiddled(&scene).iter().all(|c| *c == [1, 2, 3, 4]));
}

#[test]
fn a_wrong_descriptor_address_faults() {
    let mut s = Setup::default();
    s.pbes[1] = rgba8_pbe(0x7_0000_0000, false);
    match render(&triangle(), &s) {
        Err(SimError::Fault(f)) => assert_eq!(f.addr & !0xfff, 0x7_0000_0000, "{f:?}"),
        other => panic!("expected a fault, got {:?}", other.map(|r| r.1)),
    }
}

#[test]
fn an_unknown_format_is_refused() {
    // An R32 float destination for the packed 8-bit tile representation.
    let mut s = Setup::default();
    s.pbes[0] = Pbe::render_target_2d(
        LINEAR,
        SIZE,
        SIZE,
        Channels::R32,
        NumericType::Float,
        Some(LINEAR_STRIDE),
    );
    let (form, what) = refusal(render_err(&s));
    assert!(form.contains("block_image_store"), "{form}");
    assert!(what.contains("tile format 7 into a R32 Float"), "{what}");
    // The 32-bit tile representation (format 3) is not modelled either.
    let s = Setup {
        eot: eot_body(&[0], 3, 1),
        ..Default::default()
    };
    let (_, what) = refusal(render_err(&s));
    assert!(what.contains("tile format 3"), "{what}");
}

#[test]
fn descriptor_bits_no_source_documents_are_refused() {
    let mut s = Setup::default();
    let mut raw = s.pbes[0].pack().unwrap();
    raw[7] |= 0x04; // bit 58: G13's "unk mipmapped", not established on G16
    s.pbes[0] = Pbe::unpack(&raw).unwrap();
    let (_, what) = refusal(render_err(&s));
    assert!(what.contains("bits no source documents"), "{what}");
    // Bit 56 is the sample-count field: a 2D store into a descriptor naming samples is
    // refused by name.
    let mut s = Setup::default();
    let mut raw = s.pbes[0].pack().unwrap();
    raw[7] |= 0x01;
    s.pbes[0] = Pbe::unpack(&raw).unwrap();
    let (_, what) = refusal(render_err(&s));
    assert!(
        what.contains("samples field 1 for a 2D block store"),
        "{what}"
    );
}

#[test]
fn a_store_that_does_not_wait_for_its_publications_is_refused() {
    let s = Setup {
        eot: eot_body(&[0], 7, 0),
        ..Default::default()
    };
    let (_, what) = refusal(render_err(&s));
    assert!(what.contains("before its export completes"), "{what}");
}

/// A tuple written again after the join that completed its store (the driver's fifth to
/// eighth targets) exports both images; without the join the rewrite is refused by name.
#[test]
fn a_tuple_is_reused_after_its_join_and_not_before() {
    let d = triangle();
    let want = expected(&d);
    let mut p = vec![mov32(0, 0), mov32(1, 0), mov32(2, 0)];
    for img in [0, 1] {
        p.extend(block_store_sequence(0, 0, 1, 2, img, TileFormat::Packed8).unwrap());
    }
    p.push(b("stop", &[]));
    let s = Setup {
        eot: encode_program(&p),
        ..Default::default()
    };
    let (scene, _) = render(&d, &s).unwrap();
    same(&read_linear(&scene), &want, "linear image");
    same(&read_twiddled(&scene), &want, "twiddled image");

    let mut p = vec![mov32(0, 0), mov32(1, 0), mov32(2, 0)];
    for img in [0, 1] {
        p.extend([publish(0, 0), publish(1, 1), publish(2, 2)]);
        // The store without its joining fence.
        p.push(block_store(0, img, 7, 1, 0x5a8).remove(0));
    }
    p.push(b("stop", &[]));
    let s = Setup {
        eot: encode_program(&p),
        ..Default::default()
    };
    let (_, what) = refusal(render_err(&s));
    assert!(
        what.contains("publication 0 rewritten after a store read it"),
        "{what}"
    );
}

#[test]
fn the_multisample_mode_and_background_iteration_are_refused() {
    let mut p = vec![mov32(0, 0), mov32(1, 0), mov32(2, 0)];
    p.extend([publish(0, 0), publish(1, 1), publish(2, 2), publish(3, 2)]);
    p.extend(block_store(0, 0, 7, 1, 0x228));
    p.push(b("stop", &[]));
    let s = Setup {
        eot: encode_program(&p),
        ..Default::default()
    };
    let (_, what) = refusal(render_err(&s));
    assert!(what.contains("multisample block store"), "{what}");

    let iter = b(
        "iter",
        &[
            ("b1_01", 1),
            ("b2_hi", 0x15),
            ("dst", 0),
            ("coeff_sel", 3),
            ("slot", 1),
            ("b7", 2),
            ("loc", 0x10),
        ],
    );
    let mut p = vec![iter];
    p.extend(store_word0(0));
    p.push(b("stop", &[]));
    let s = Setup {
        bg: encode_program(&p),
        ..Default::default()
    };
    let (_, what) = refusal(render_err(&s));
    assert!(what.contains("background program"), "{what}");
}

/// A background launcher that loads `roots` qwords from `roots_va` (the generated sequence:
/// root literals, pointer loads highest pair first, tile allocation, target, frame, one
/// transfer per word, STOP), entering the body through entry 2.
fn launcher_with_roots(roots_va: u64, roots: u32) -> Vec<u8> {
    let mut p = vec![mov32(2, roots_va as u32), mov32(3, (roots_va >> 32) as u32)];
    for q in (0..roots).step_by(2).rev() {
        let count = if q + 2 <= roots { 2 } else { 1 };
        p.push(pointer_load_instr(18 + 2 * q, 2, q as u8, count).unwrap());
    }
    p.push(
        stage_allocation_instr(StageAllocation::Tile {
            samples: 1,
            units: 1,
        })
        .unwrap(),
    );
    p.push(stage_target_instr(entry_offset(2)).unwrap());
    p.push(launch_frame_instr(0, 0, 0).unwrap());
    for w in 0..2 * roots {
        p.push(arg_store_instr(w, 18 + w, w == 0).unwrap());
    }
    p.push(b("stop", &[]));
    encode_program(&p)
}

#[test]
fn the_background_clears_to_a_uniform_word() {
    // Render-stage uniform ABI (sim/GFX.md): six roots, then inline words; the clear colour
    // is argument word 16 (qword 8, low half), read with `uniform_mov`.
    let roots_va = USC + 0x82000;
    let colour = u32::from_le_bytes([7, 77, 177, 255]);
    let mut roots = vec![0u8; 9 * 8];
    roots[64..68].copy_from_slice(&colour.to_le_bytes());
    let mut body = vec![b(
        "uniform_mov",
        &[("dst", 0), ("u_size", 1), ("u", 16), ("b3", 0x08)],
    )];
    body.extend(store_word0(0));
    body.push(b("stop", &[]));
    let d = triangle();
    let s = Setup {
        bg: encode_program(&body),
        bg_launcher: Some((launcher_with_roots(roots_va, 9), roots_va, roots)),
        ..Default::default()
    };
    let (scene, _) = render(&d, &s).unwrap();
    let want: Vec<[u8; 4]> = expected(&d)
        .into_iter()
        .map(|c| if c == CLEAR { colour.to_le_bytes() } else { c })
        .collect();
    same(&read_linear(&scene), &want, "linear image");
    // Reading word 17 (zero here) instead gives another image.
    let mut body2 = body.clone();
    body2[0] = b(
        "uniform_mov",
        &[("dst", 0), ("u_size", 1), ("u", 17), ("b3", 0x08)],
    );
    let s = Setup {
        bg: encode_program(&body2),
        bg_launcher: Some((launcher_with_roots(roots_va, 9), roots_va, vec![0u8; 72])),
        ..Default::default()
    };
    let (scene, _) = render(&d, &s).unwrap();
    assert_ne!(read_linear(&scene), want);
}

#[test]
fn a_tile_layout_for_another_sample_count_is_refused() {
    let s = Setup {
        eot_samples: 2,
        ..Default::default()
    };
    let (form, what) = refusal(render_err(&s));
    assert_eq!(form, "end-of-tile launcher");
    assert!(
        what.contains("2-sample") || what.contains("samples: 2"),
        "{what}"
    );
}

/// A body storing `get_sr sel` (as a raw tile word) for every pixel it runs on.
fn sr_body(sel: u64) -> Vec<u8> {
    let mut p = vec![b("get_sr", &[("form", 1), ("dst", 0), ("sr_sel", sel)])];
    p.extend(store_word0(0));
    p.push(b("stop", &[]));
    encode_program(&p)
}

#[test]
fn pixel_coordinates_reach_background_and_fragment_bodies() {
    // get_sr 0xa0 / 0xa1 = the pixel's x / y (the T8132 compiler's load_pixel_coord).
    let d = triangle();
    let s = Setup {
        bg: sr_body(0xa0),
        frag: sr_body(0xa1),
        ..Default::default()
    };
    let (scene, _) = render(&d, &s).unwrap();
    let want: Vec<[u8; 4]> = expected(&d)
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (x, y) = (i as u32 % SIZE, i as u32 / SIZE);
            if *c == CLEAR {
                [x as u8, 0, 0, 0]
            } else {
                [y as u8, 0, 0, 0]
            }
        })
        .collect();
    same(&read_linear(&scene), &want, "linear image");
    same(&read_twiddled(&scene), &want, "twiddled image");
}

#[test]
fn special_registers_without_a_render_meaning_are_refused() {
    // threads_per_threadgroup.x: a compute meaning, none in a render stage.
    let s = Setup {
        bg: sr_body(0x98),
        ..Default::default()
    };
    let (form, what) = refusal(render_err(&s));
    assert!(form.starts_with("get_sr"), "{form}");
    assert!(
        what.contains("no established value in a render-stage body"),
        "{what}"
    );
    // The workgroup id has a value only in an end-of-tile program (the tile it exports).
    for (bg, frag) in [
        (sr_body(0x9c), Setup::default().frag),
        (Setup::default().bg, sr_body(0x9d)),
    ] {
        let s = Setup {
            bg,
            frag,
            ..Default::default()
        };
        let (_, what) = refusal(render_err(&s));
        assert!(what.contains("WorkgroupId"), "{what}");
    }
    // Pixel coordinates in the end-of-tile program: which position it reports is unknown.
    let mut p = vec![b("get_sr", &[("form", 1), ("dst", 0), ("sr_sel", 0xa0)])];
    p.extend([mov32(1, 0), mov32(2, 0)]);
    p.extend(block_store_sequence(0, 0, 1, 2, 0, TileFormat::Packed8).unwrap());
    p.push(b("stop", &[]));
    let s = Setup {
        eot: encode_program(&p),
        ..Default::default()
    };
    let (_, what) = refusal(render_err(&s));
    assert!(what.contains("end-of-tile program"), "{what}");
    // The facing word (get_sr 0xc5) in a background body: no primitive, no face.
    let s = Setup {
        bg: sr_body(0xc5),
        ..Default::default()
    };
    let (_, what) = refusal(render_err(&s));
    assert!(
        what.contains("BackFacing") && what.contains("background"),
        "{what}"
    );
}

/// A twiddled 64x64 RGBA8 image for the whole-framebuffer render (its own mapping).
const WHOLE_TWIDDLED: u64 = 0x3_1000_0000;

/// End of tile locating its tile by its workgroup id (agx16-isa `tile_origin_instrs`: get_sr
/// 0x9c / 0x9d shifted by the tile size into r0 / r1), exporting to images 0 and 1.
fn located_eot(tile: (u32, u32)) -> Vec<u8> {
    let mut p = agx16_isa::meaning::tile_origin_instrs(0, 1, tile).unwrap();
    p.extend([mov32(2, 0)]);
    p.extend(block_store_sequence(0, 0, 1, 2, 0, TileFormat::Packed8).unwrap());
    p.extend(block_store_sequence(4, 0, 1, 2, 1, TileFormat::Packed8).unwrap());
    p.push(b("stop", &[]));
    encode_program(&p)
}

fn whole_setup(eot: Vec<u8>) -> Setup {
    let pbe = |va, linear: bool| {
        Pbe::render_target_2d(
            va,
            W,
            H,
            Channels::R8G8B8A8,
            NumericType::Unorm,
            linear.then_some(4 * W),
        )
    };
    Setup {
        eot,
        pbes: vec![pbe(LINEAR, true), pbe(WHOLE_TWIDDLED, false)],
        size: W,
        ..Default::default()
    }
}

/// The whole 64x64 image of the reference: `COLOR` where the triangle covers, else `CLEAR`.
fn whole_expected(d: &DrawSpec) -> Vec<[u8; 4]> {
    reference(&[d.clone()])
        .color
        .iter()
        .map(|c| if *c == CLEAR { CLEAR } else { COLOR })
        .collect()
}

fn whole_images(scene: &Scene) -> [Vec<[u8; 4]>; 2] {
    let mut lin = vec![0u8; (4 * W * H) as usize];
    scene.pt.host_read(LINEAR, &mut lin).unwrap();
    let mut tw = vec![0u8; (4 * W * H) as usize];
    scene.pt.host_read(WHOLE_TWIDDLED, &mut tw).unwrap();
    let px = |b: &[u8], o: usize| -> [u8; 4] { b[o..o + 4].try_into().unwrap() };
    [
        (0..W * H).map(|i| px(&lin, 4 * i as usize)).collect(),
        (0..W * H)
            .map(|i| px(&tw, 4 * morton(i % W, i / W) as usize))
            .collect(),
    ]
}

/// A triangle over all four 32x32 tiles of the 64x64 framebuffer.
fn big_triangle() -> DrawSpec {
    DrawSpec::tris(
        vec![
            rgba([-0.9, -0.8, 0.5, 1.0], [1.0; 4]),
            rgba([0.85, -0.3, 0.5, 1.0], [1.0; 4]),
            rgba([-0.2, 0.9, 0.5, 1.0], [1.0; 4]),
        ],
        ShadeModel::Linear,
    )
}

#[test]
fn the_workgroup_id_locates_each_tile_of_a_whole_framebuffer_render() {
    // One render of the 64x64 framebuffer (four 32x32 tiles): one end-of-tile program whose
    // block-store coordinates are its workgroup id times 32 exports every tile where it
    // belongs, in the linear and the twiddled image.
    let d = big_triangle();
    let want = whole_expected(&d);
    // The triangle covers pixels of at least three of the four tiles and leaves others clear.
    let mut tiles = std::collections::BTreeSet::new();
    for (i, c) in want.iter().enumerate() {
        if *c == COLOR {
            tiles.insert((i as u32 % W / 32, i as u32 / W / 32));
        }
    }
    assert!(tiles.len() >= 3 && want.contains(&CLEAR), "{tiles:?}");
    let (scene, stats) = render(&d, &whole_setup(located_eot((32, 32)))).unwrap();
    assert_eq!(stats.utiles, 4);
    let [lin, tw] = whole_images(&scene);
    let same64 = |got: &[[u8; 4]], what: &str| {
        if let Some(i) = (0..want.len()).find(|&i| got[i] != want[i]) {
            panic!(
                "{what}: pixel {},{} is {:?}, the reference says {:?}",
                i as u32 % W,
                i as u32 / W,
                got[i],
                want[i]
            );
        }
    };
    same64(&lin, "linear image");
    same64(&tw, "twiddled image");
    // Control: the coordinates baked to (0, 0), as a one-utile render's program has them: every
    // tile lands on the top-left one, the rest of the image stays unwritten.
    let (scene, _) = render(&d, &whole_setup(eot_body(&[0, 1], 7, 1))).unwrap();
    let [lin, _] = whole_images(&scene);
    assert_eq!(lin[(40 * W + 40) as usize], [0xee; 4]);
    assert_ne!(lin, want);
}

#[test]
fn the_workgroup_id_is_refused_where_no_tile_size_is_established() {
    // 16x16 utiles: which grid the workgroup id counts then is not stated.
    let s = Setup {
        utile: (16, 16),
        ..whole_setup(located_eot((16, 16)))
    };
    let (form, what) = refusal(render_err(&s));
    assert!(form.starts_with("get_sr"), "{form}");
    assert!(what.contains("16x16 utiles"), "{what}");
    // z: layers are not modelled.
    let mut p = vec![b("get_sr", &[("form", 1), ("dst", 0), ("sr_sel", 0x9e)])];
    p.extend([mov32(1, 0), mov32(2, 0)]);
    p.extend(block_store_sequence(0, 0, 1, 2, 0, TileFormat::Packed8).unwrap());
    p.push(b("stop", &[]));
    let (_, what) = refusal(render_err(&whole_setup(encode_program(&p))));
    assert!(what.contains("no established value"), "{what}");
}

#[test]
fn the_store_lands_at_its_publication_and_stops_at_the_descriptor_bounds() {
    // The utile's pixel (u, v) goes to image pixel (8 + u, 4 + v) of a 40x30 linear image with
    // 256-byte rows: columns 8..40 and rows 4..30 are written (the image ends there), nothing
    // else, in particular not the 96 padding bytes of each row.
    let (w, h, stride) = (40u32, 30u32, 256u32);
    let mut p = vec![mov32(0, 8), mov32(1, 4), mov32(2, 0)];
    p.extend(block_store_sequence(0, 0, 1, 2, 0, TileFormat::Packed8).unwrap());
    p.push(b("stop", &[]));
    let s = Setup {
        eot: encode_program(&p),
        pbes: vec![Pbe::render_target_2d(
            LINEAR,
            w,
            h,
            Channels::R8G8B8A8,
            NumericType::Unorm,
            Some(stride),
        )],
        ..Default::default()
    };
    let d = triangle();
    let (scene, _) = render(&d, &s).unwrap();
    let tile = expected(&d);
    let mut got = vec![0u8; (stride * h) as usize];
    scene.pt.host_read(LINEAR, &mut got).unwrap();
    for y in 0..h {
        for x in 0..stride / 4 {
            let o = (y * stride + 4 * x) as usize;
            let px: [u8; 4] = got[o..o + 4].try_into().unwrap();
            let want = if (8..w).contains(&x) && y >= 4 {
                tile[((y - 4) * SIZE + (x - 8)) as usize]
            } else {
                [0xee; 4]
            };
            assert_eq!(px, want, "image pixel {x},{y}");
        }
    }
    // Past the last row: untouched.
    let mut after = [0u8; 64];
    scene
        .pt
        .host_read(LINEAR + (stride * h) as u64, &mut after)
        .unwrap();
    assert!(after.iter().all(|b| *b == 0xee));
}

#[test]
fn equal_width_representations_are_copied_unchanged() {
    // 32-bit channels into R32 float (linear) and 16-bit channels into RG16 float (tiled): the
    // raw tile words land unchanged, as for RGBA8.
    let mut p = vec![mov32(0, 0), mov32(1, 0), mov32(2, 0)];
    p.extend(block_store_sequence(0, 0, 1, 2, 0, TileFormat::Bits32).unwrap());
    p.extend(block_store_sequence(4, 0, 1, 2, 1, TileFormat::Bits16).unwrap());
    p.push(b("stop", &[]));
    let pbe = |a: u64, c: Channels, linear: bool| {
        Pbe::render_target_2d(
            a,
            SIZE,
            SIZE,
            c,
            NumericType::Float,
            linear.then_some(LINEAR_STRIDE),
        )
    };
    let s = Setup {
        eot: encode_program(&p),
        pbes: vec![
            pbe(LINEAR, Channels::R32, true),
            pbe(TWIDDLED, Channels::R16G16, false),
        ],
        ..Default::default()
    };
    let d = triangle();
    let (scene, _) = render(&d, &s).unwrap();
    let want = expected(&d);
    same(&read_linear(&scene), &want, "R32 float image");
    same(&read_twiddled(&scene), &want, "RG16 float image");
    // A packed format whose tile representation differs (RGB565 uses half-float tile
    // components) is refused, not copied.
    let s = Setup {
        eot: eot_body(&[0], 7, 1),
        pbes: vec![Pbe::render_target_2d(
            LINEAR,
            SIZE,
            SIZE,
            Channels::R5G6B5,
            NumericType::Unorm,
            Some(64),
        )],
        ..Default::default()
    };
    let (_, what) = refusal(render_err(&s));
    assert!(what.contains("R5G6B5"), "{what}");
}

#[test]
fn tile_words_count_32_bit_words_and_the_store_takes_its_byte_offset() {
    // 8-byte samples: the background clears word 0 to CLEAR and word 1 to 0x01020304, the
    // fragment body writes COLOR to word 1 (`rt` 1 = bytes 4..8: the T8132 compiler's
    // B/4 + k immediate); the end of tile exports byte offset 4 to image 0 and offset 0 to
    // image 1.
    let word1 = |src: u64| {
        b(
            "tile_store",
            &[
                ("mode", 0x54),
                ("src", src),
                ("rt", 1),
                ("mask", 1),
                ("fmt", 0x4e),
            ],
        )
    };
    let bracket = |store: Vec<Instr>| {
        let mut p = vec![
            b("tile_setup", &[("b1", 2), ("access", 0x600)]),
            b("tile_setup", &[("b1", 2), ("access", 0x80c)]),
        ];
        p.extend(store);
        p.push(b("tile_fence", &[("access", 0x20c)]));
        p
    };
    let mut bg = vec![mov32(0, u32::from_le_bytes(CLEAR)), mov32(1, 0x0102_0304)];
    bg.extend(bracket(vec![
        b(
            "tile_store",
            &[("mode", 0x54), ("src", 0), ("mask", 1), ("fmt", 0x4e)],
        ),
        word1(1),
    ]));
    bg.push(b("stop", &[]));
    let mut frag = vec![mov32(0, u32::from_le_bytes(COLOR))];
    frag.extend(bracket(vec![word1(0)]));
    frag.push(b("stop", &[]));
    let mut eot = vec![mov32(0, 0), mov32(1, 0), mov32(2, 4 << 16), mov32(3, 0)];
    eot.extend(block_store_sequence(0, 0, 1, 2, 0, TileFormat::Packed8).unwrap());
    eot.extend(block_store_sequence(4, 0, 1, 3, 1, TileFormat::Packed8).unwrap());
    eot.push(b("stop", &[]));
    let s = Setup {
        bg: encode_program(&bg),
        frag: encode_program(&frag),
        eot: encode_program(&eot),
        sample_bytes: 8,
        ..Default::default()
    };
    let d = triangle();
    let (scene, _) = render(&d, &s).unwrap();
    let want: Vec<[u8; 4]> = expected(&d)
        .into_iter()
        .map(|c| if c == CLEAR { [4, 3, 2, 1] } else { c })
        .collect();
    same(&read_linear(&scene), &want, "word 1 (byte offset 4)");
    assert!(read_twiddled(&scene).iter().all(|c| *c == CLEAR), "word 0");
}

// ---- background reload: a texel fetch of the attachment's memory at the pixel ----

/// Where the reload's source image lives (32x32 RGBA8, twiddled) and its texture-table entry
/// (after the two PBEs in the shared image table).
const SOURCE: u64 = IMG + 0x3000;
const SOURCE_ENTRY: u64 = 2;
/// The fetch's completion slot.
const FETCH_SLOT: u64 = 2;

fn source_texel(x: u32, y: u32) -> [u8; 4] {
    [
        (x * 7) as u8,
        (y * 8) as u8,
        (x ^ y) as u8 | 0x40,
        255 - x as u8,
    ]
}

/// Publication `p` := r`a` (bit copy: LOGIC_EXPORT a | a on slot 1, the packer's LOD_PARAMS).
fn copy_export(p: u64, a: u64) -> Instr {
    b(
        "logic_export",
        &[
            ("dst", p),
            ("a_size", 1),
            ("a", a),
            ("a_keep", 1),
            ("op_base", 1),
            ("b_size", 1),
            ("b", a),
            ("b_keep", 1),
            ("lut_a_sel", 2),
            ("lut_b3", 1),
            ("slot", 0),
        ],
    )
}

/// Background reload body (what a driver compiles for AGX_BG_LOAD, Mesa agx_bg_eot.c): x, y
/// of the pixel (`get_sr` 0xa0/0xa1) and level 0 published as a fetch tuple, `tex_sample`
/// (pair 80/24 = fetch; `implicit`: pair 00/00, an implicit-LOD sample) of texture entry
/// `SOURCE_ENTRY` into r4..r7, taken over by `fadd`s waiting on the fetch's slot, packed to
/// RGBA8 and stored as tile word 0.
fn reload_body(implicit: bool) -> Vec<u8> {
    let (v6, v7, mode) = if implicit {
        (0, 0, 0x10)
    } else {
        (0x80, 0x24, 0)
    };
    let mut p = vec![
        b("get_sr", &[("form", 1), ("dst", 0), ("sr_sel", 0xa0)]),
        b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa1)]),
        mov32(2, 0),
        copy_export(0, 0),
        copy_export(1, 1),
        copy_export(3, 2),
        b(
            "tex_sample",
            &[
                ("dst", 4),
                ("coord", 0),
                ("texture", SOURCE_ENTRY),
                ("sampler", 0),
                ("b1_7", 1),
                ("mask_sel", 7),
                ("b3_hi", 5),
                ("b4_35", 2),
                ("b4_38", 2),
                ("slot", FETCH_SLOT - 1),
                ("slot_hi", FETCH_SLOT - 1),
                ("variant", v6),
                ("extra_coord", v7),
                ("mode", mode),
                ("tex_type", 1),
            ],
        ),
        mov32(3, 0),
    ];
    for k in 0..4u64 {
        p.push(b(
            "fadd",
            &[
                ("wait", 1 << (FETCH_SLOT - 1)),
                ("dst", 9 + k),
                ("a_size", 1),
                ("a", 4 + k),
                ("a_keep", 1),
                ("b_size", 1),
                ("b", 3),
                ("b_keep", 1),
            ],
        ));
    }
    for (half, a) in [(0, 9), (1, 11)] {
        p.push(b(
            "pack_unorm8x2",
            &[
                ("dst_half", half),
                ("dst", 8),
                ("b4", 2),
                ("a", a),
                ("b", a + 1),
                ("b7_hi", 0x14),
                ("b8", 0x44),
            ],
        ));
    }
    p.extend(store_word0(8));
    p.push(b("stop", &[]));
    encode_program(&p)
}

/// The source image (texels placed by this file's own Morton addressing) and its RGBA8 unorm
/// texture descriptor in image-table entry `SOURCE_ENTRY`.
fn reload_memory() -> Vec<(u64, Vec<u8>)> {
    use agx16_cmdstream::descriptors::Swizzle;
    use agx16_cmdstream::layout::{ImageDesc, ImageLayout, Tiling};
    use agx16_cmdstream::texture_layout::{texture_for, TextureFormat};
    let mut texels = vec![0u8; (SIZE * SIZE * 4) as usize];
    for y in 0..SIZE {
        for x in 0..SIZE {
            let at = 4 * morton(x, y) as usize;
            texels[at..at + 4].copy_from_slice(&source_texel(x, y));
        }
    }
    let layout = ImageLayout::new(ImageDesc::simple_2d(SIZE, SIZE, 4, Tiling::Twiddled)).unwrap();
    let format = TextureFormat {
        channels: Channels::R8G8B8A8,
        numeric_type: NumericType::Unorm,
        swizzle: [Swizzle::R, Swizzle::G, Swizzle::B, Swizzle::A],
        srgb: false,
    };
    let desc = texture_for(&layout, SOURCE, format)
        .unwrap()
        .pack()
        .unwrap();
    vec![(SOURCE, texels), (IMAGE_TABLE + 32 * SOURCE_ENTRY, desc)]
}

#[test]
fn a_background_reloads_an_image_with_a_texel_fetch_at_the_pixel() {
    // Every pixel the triangle leaves is the source texel at that pixel, exactly (unorm8 ->
    // f32 -> unorm8 round trip), in both exported images; covered pixels are the fragment's.
    let d = triangle();
    let s = Setup {
        bg: reload_body(false),
        extra: reload_memory(),
        ..Default::default()
    };
    let (scene, _) = render(&d, &s).unwrap();
    let want: Vec<[u8; 4]> = expected(&d)
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if *c == COLOR {
                COLOR
            } else {
                source_texel(i as u32 % SIZE, i as u32 / SIZE)
            }
        })
        .collect();
    assert!(want.iter().filter(|c| **c == COLOR).count() > 50);
    same(&read_linear(&scene), &want, "linear image");
    same(&read_twiddled(&scene), &want, "twiddled image");

    // A background group is not a 2x2 quad: an implicit-LOD sample there is refused by name
    // (given a sampler table, so nothing else stops it first).
    let mut sampler = agx16_cmdstream::descriptors::Sampler {
        compare_sense: true,
        compare_test: Hex(7),
        ..Default::default()
    };
    sampler.set_lod_range(0.0, 14.0);
    let samplers = IMAGE_TABLE + 0x100;
    let roots = GraphicsRoots {
        texture_table: Hex(IMAGE_TABLE),
        sampler_table: Hex(samplers),
        ..Default::default()
    };
    let mut extra = reload_memory();
    extra.push((samplers, sampler.pack().unwrap()));
    extra.push((ROOTS, roots.pack().unwrap()));
    let s = Setup {
        bg: reload_body(true),
        extra,
        ..Default::default()
    };
    let e = render_err(&s).to_string();
    assert!(e.contains("tex_sample") && e.contains("2x2 quad"), "{e}");
}

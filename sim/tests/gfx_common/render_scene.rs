//! The render bench's scene (sim/benches/render.rs), also rendered by the `gfx_parallel`
//! tests: pseudo-random triangles on the 64x64 frame whose vertex and fragment stages are the
//! `uniform_bodies` hardware bodies, entered through launchers. Only the triangle count
//! differs between its users.

use super::uniform_bodies::*;
use super::*;
use agx16_cmdstream::descriptors::ShadeModel;
use agx16_cmdstream::launch::entry_offset;
use agx16_cmdstream::render::ZlsControl;
use agx16_isa::meaning::StageAllocation;

pub const VERT_LAUNCHER: u64 = USC + 0x8000;
pub const VERT_BODY: u64 = USC + 0x40000;
pub const FRAG_LAUNCHER: u64 = USC + 0x9000;
pub const FRAG_BODY: u64 = USC + 0x50000;
pub const DATA: u64 = 0x8_0000_0000;
pub const VERT_ROOTS: u64 = DATA;
pub const FRAG_ROOTS: u64 = DATA + 0x100;
pub const PAGE: u64 = 0x4000;
pub const VBUF: u64 = DATA + PAGE;
pub const UBO: u64 = DATA + 8 * PAGE;
pub const VB_SLOT: u64 = 6;
pub const UBO_SLOT: u64 = 7;
pub const INLINE_WORD: u64 = 16;
pub const SCALE: f32 = 0.75;
pub const BIAS: f32 = 0.125;

/// `triangles` deterministic pseudo-random triangles over the frame (a small LCG: no
/// dependency, same scene every run), each about 60-250 pixels.
pub fn scene_vertices(triangles: usize) -> Vec<[f32; 8]> {
    let mut s = 0x1234_5678u32;
    let mut rnd = || {
        s = s.wrapping_mul(1664525).wrapping_add(1013904223);
        (s >> 8) as f32 / (1u32 << 24) as f32
    };
    let mut v = Vec::new();
    for _ in 0..triangles {
        let (cx, cy) = (rnd() * 1.8 - 0.9, rnd() * 1.8 - 0.9);
        for k in 0..3 {
            let a = k as f32 * 2.094 + rnd();
            let r = 0.15 + 0.2 * rnd();
            v.push([
                cx + r * a.cos(),
                cy + r * a.sin(),
                rnd(),
                1.0,
                rnd(),
                0.0,
                rnd(),
                1.0,
            ]);
        }
    }
    v
}

/// The scene with `triangles` triangles: stream, frame, vertex and uniform buffers, root
/// records, and the launchers and bodies installed.
pub fn build_scene(triangles: usize) -> Scene {
    let verts = scene_vertices(triangles);
    let draw = DrawSpec::tris(
        vec![rgba([0.0; 4], [0.0; 4]); verts.len()],
        ShadeModel::Linear,
    );
    let scene = build(&[draw], ZlsControl::default());
    scene.pt.map(DATA, 16 * PAGE, true, false).unwrap();
    let vb: Vec<u8> = verts
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    assert!(vb.len() as u64 <= UBO - VBUF);
    scene.pt.host_write(VBUF, &vb).unwrap();
    let ubo: Vec<u8> = [2.0f32, SCALE]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    scene.pt.host_write(UBO, &ubo).unwrap();
    scene
        .pt
        .host_write(VERT_ROOTS, &root_record(&[0, 0, 0, 0, 0, 0, VBUF]))
        .unwrap();
    let inline = (BIAS.to_bits() as u64) | (0.5f32.to_bits() as u64) << 32;
    scene
        .pt
        .host_write(
            FRAG_ROOTS,
            &root_record(&[0, 0, 0, 0, 0, 0, 0, UBO, inline]),
        )
        .unwrap();
    let (ve, fe) = (entry_offset(0), entry_offset(1));
    let vl = launcher_program(VERT_ROOTS, 7, StageAllocation::Empty, ve, 8);
    let fl = launcher_program(
        FRAG_ROOTS,
        9,
        StageAllocation::Tile {
            samples: 1,
            units: 1,
        },
        fe,
        0,
    );
    install_stage(
        &scene,
        VERT_LAUNCHER,
        &vl,
        ve,
        VERT_BODY,
        &vertex_body(VB_SLOT),
    );
    install_stage(
        &scene,
        FRAG_LAUNCHER,
        &fl,
        fe,
        FRAG_BODY,
        &fragment_body(UBO_SLOT, INLINE_WORD),
    );
    scene
}

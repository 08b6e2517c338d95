//! The `derivative` instruction on fragment quads against a CPU reference: a body computes a
//! non-linear function of the pixel position (`x*x*y + y` in f32), takes its dfdx and dfdy
//! and stores both as tile words. Eight quads fill one SIMD-group (lanes 4k..4k+3, quads at
//! scattered positions, helper lanes among them), so the quad rule is checked for every quad
//! index; the reference differences each row (x) or column (y) of the lane's own quad
//! (`agx16_sim::gfx::quad` has the rules and their evidence).

use agx16_isa::{decode_at, encode_program, Instr, Part, Role};
use agx16_sim::gfx::body::{run_fragment_quad, Body};
use agx16_sim::gfx::{Fragment, TileBuffer};
use agx16_sim::oracle::decode_hex;
use agx16_sim::{PageTable, SimError};

const BODY: u64 = 0x1_0000_0000;

fn b(name: &str, f: &[(&str, u64)]) -> Instr {
    Instr::build(name, f).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// `i2f` (the Apple-compiled EXP-0008 vertex body's unsigned conversion, last use).
fn i2f(dst: u32, src: u32) -> Instr {
    let mut i = decode_at(&decode_hex("a70754220324ac20").unwrap(), 0).unwrap();
    i.set_gpr(Role::Dst, dst, Part::Full).unwrap();
    i.set_gpr(Role::SrcA, src, Part::Full).unwrap();
    i
}

fn falu(name: &str, dst: u64, a: u64, c: u64) -> Instr {
    b(
        name,
        &[
            ("dst", dst),
            ("a_size", 1),
            ("a", a),
            ("a_keep", 1),
            ("b_size", 1),
            ("b", c),
            ("b_keep", 1),
        ],
    )
}

/// The packer's DERIVATIVE shape (GravityLinux/mesa agx_apple9_ir.c).
fn derivative(axis: u64, dst: u32, src: u32, keep: bool) -> Instr {
    let mut i = b(
        "derivative",
        &[
            ("b1_0", 1),
            ("b1_hi", 1),
            ("b2", 0x54),
            ("b4", 3),
            ("b6_hi", 0x24),
            ("b7_hi", 8),
            ("axis", axis),
            ("src_keep", keep as u64),
        ],
    );
    i.set_gpr(Role::Dst, dst, Part::Full).unwrap();
    i.set_gpr(Role::SrcA, src, Part::Full).unwrap();
    i
}

fn tile_store(src: u64, word: u64) -> Instr {
    b(
        "tile_store",
        &[
            ("mode", 0x54),
            ("src", src),
            ("rt", word),
            ("mask", 1),
            ("fmt", 0x4e),
        ],
    )
}

/// v = x*x*y + y at the integer pixel (x, y); word 0 = dfdx(v), word 1 = dfdy(v).
fn body() -> Vec<u8> {
    let p = vec![
        b("get_sr", &[("form", 1), ("dst", 0), ("sr_sel", 0xa0)]),
        b("get_sr", &[("form", 1), ("dst", 1), ("sr_sel", 0xa1)]),
        i2f(2, 0),
        i2f(3, 1),
        falu("fmul", 4, 2, 2),
        falu("fmul", 5, 4, 3),
        falu("fadd", 5, 5, 3),
        derivative(0, 6, 5, true),
        derivative(1, 7, 5, false),
        b("tile_setup", &[("b1", 2), ("access", 0x600)]),
        b("tile_setup", &[("b1", 2), ("access", 0x80c)]),
        tile_store(6, 0),
        tile_store(7, 1),
        b("tile_fence", &[("access", 0x20c)]),
        b("stop", &[]),
    ];
    encode_program(&p)
}

fn v(x: u32, y: u32) -> f32 {
    let (x, y) = (x as f32, y as f32);
    x * x * y + y
}

fn load(code: &[u8]) -> Body {
    let pt = PageTable::new();
    pt.map(BODY, 0x4000, true, true).unwrap();
    pt.host_write(BODY, code).unwrap();
    Body::load(&pt, BODY).unwrap()
}

/// Runs the body on `quads` (top-left pixels) with `helpers` (lane indices) and returns each
/// lane's two words, read back from the tile (helpers: computed but not stored).
fn run(quads: &[(u32, u32)], helpers: &[usize]) -> Result<Vec<Option<(f32, f32)>>, SimError> {
    let pt = PageTable::new();
    let body = load(&body());
    let mut tile = TileBuffer::new((0, 0), 64, 64, 1, 8);
    let frags: Vec<Fragment> = quads
        .iter()
        .flat_map(|&(qx, qy)| (0..4u32).map(move |i| (qx + (i & 1), qy + (i >> 1))))
        .enumerate()
        .map(|(l, (x, y))| Fragment {
            draw: 0,
            launch: 0,
            x,
            y,
            front_facing: true,
            sample_mask: if helpers.contains(&l) { 0 } else { 1 },
            pending_tests: 0,
            helper: helpers.contains(&l),
            coefficients: &[],
        })
        .collect();
    run_fragment_quad(&pt, &body, &[], 0, &frags, &mut tile)?;
    Ok(frags
        .iter()
        .map(|f| {
            let s = tile.sample(f.x, f.y, 0).unwrap();
            let w = |k: usize| f32::from_le_bytes(s[4 * k..4 * k + 4].try_into().unwrap());
            (!f.helper).then(|| (w(0), w(1)))
        })
        .collect())
}

/// Runs `body` on the first `lanes` lanes (all covered) of the quad at the tile origin and
/// returns the error the model refuses them with.
fn refusal(body: &Body, lanes: u32) -> SimError {
    let pt = PageTable::new();
    let mut tile = TileBuffer::new((0, 0), 8, 8, 1, 8);
    let frags: Vec<Fragment> = (0..lanes)
        .map(|i| Fragment {
            draw: 0,
            launch: 0,
            x: i & 1,
            y: i >> 1,
            front_facing: true,
            sample_mask: 1,
            pending_tests: 0,
            helper: false,
            coefficients: &[],
        })
        .collect();
    run_fragment_quad(&pt, body, &[], 0, &frags, &mut tile).unwrap_err()
}

#[test]
fn derivatives_are_fine_quad_differences_in_every_quad_of_the_group() {
    // Eight quads at scattered aligned positions: lanes 4k..4k+3 are quad k.
    let quads = [
        (0, 0),
        (6, 2),
        (10, 14),
        (32, 8),
        (2, 40),
        (48, 48),
        (20, 30),
        (62, 62),
    ];
    // Helper lanes (never covered: computed, not stored) feed their neighbours.
    let helpers = [1, 6, 11, 12, 13, 14, 30];
    let got = run(&quads, &helpers).unwrap();
    let mut checked = 0;
    for (k, &(qx, qy)) in quads.iter().enumerate() {
        for i in 0..4u32 {
            let l = 4 * k + i as usize;
            let (x, y) = (qx + (i & 1), qy + (i >> 1));
            // Fine: the lane's own row (x) and column (y) of its quad; right - left,
            // lower - upper.
            let dx = v(qx + 1, y) - v(qx, y);
            let dy = v(x, qy + 1) - v(x, qy);
            match got[l] {
                None => assert!(helpers.contains(&l)),
                Some(w) => {
                    assert_eq!(w, (dx, dy), "lane {l} at ({x}, {y})");
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 32 - helpers.len());
    // The function is non-linear in both axes, so fine differs from one difference per
    // quad (coarse) somewhere: the test separates the two readings.
    let coarse_differs = quads.iter().any(|&(qx, qy)| {
        v(qx + 1, qy + 1) - v(qx, qy + 1) != v(qx + 1, qy) - v(qx, qy)
            || v(qx + 1, qy + 1) - v(qx + 1, qy) != v(qx, qy + 1) - v(qx, qy)
    });
    assert!(coarse_differs);
}

#[test]
fn derivatives_need_whole_quads() {
    // Three lanes are not a quad: the layout a derivative reads is not there.
    let e = refusal(&load(&body()), 3);
    assert!(e.to_string().contains("2x2 quads"), "{e}");
}

#[test]
fn a_saturating_derivative_is_refused_by_name() {
    // The packer's saturate bit (byte 7 bit 2): the model's adder has no saturate.
    let mut d = derivative(0, 6, 5, true);
    d.set("saturate", 1).unwrap();
    let mut p = agx16_isa::decode_program(&body())
        .unwrap()
        .into_iter()
        .map(|(_, i)| i)
        .collect::<Vec<_>>();
    p[7] = d;
    let body = load(&encode_program(&p));
    let e = refusal(&body, 4);
    assert!(e.to_string().contains("saturate"), "{e}");
}

//! Stage bodies longer than the model's first read window (16 KiB): the body is read again
//! through a larger window until its reachable code ends, as a long GLSL program on hardware
//! simply runs (dEQP's ubo.single_struct_array.*.std140_instance_array_both compiled to more
//! than 16 KiB and the model refused it as "program ends inside an instruction").

use agx16_isa::{encode_program, Instr};
use agx16_sim::core::ops::Kind;
use agx16_sim::gfx::body::Body;
use agx16_sim::PageTable;

const BODY: u64 = 0x1_0000_0000;

fn fadd(dst: u64, a: u64, c: u64) -> Instr {
    let f = [
        ("dst", dst),
        ("a_size", 1),
        ("a", a),
        ("a_keep", 1),
        ("b_size", 1),
        ("b", c),
        ("b_keep", 1),
    ];
    Instr::build("fadd", &f).unwrap()
}

/// `n` additions then a stop, loaded from a 1 MiB mapping.
fn load(n: usize) -> (usize, Body) {
    let mut p: Vec<Instr> = (0..n).map(|i| fadd(4 + (i % 8) as u64, 2, 3)).collect();
    p.push(Instr::build("stop", &[]).unwrap());
    let code = encode_program(&p);
    let pt = PageTable::new();
    pt.map(BODY, 1 << 20, true, true).unwrap();
    pt.host_write(BODY, &code).unwrap();
    (code.len(), Body::load(&pt, BODY).unwrap())
}

#[test]
fn a_body_past_the_first_window_is_read_to_its_stop() {
    let (len, body) = load(8000);
    assert!(len > 2 * 16 * 1024, "the program is {len} bytes");
    let ops = &body.prog.ops;
    assert_eq!(ops.len(), 8001);
    assert!(matches!(ops.last().unwrap().kind, Kind::Stop));
    assert!(ops.iter().all(|o| !matches!(o.kind, Kind::Refuse(_))));
}

#[test]
fn a_short_body_decodes_to_its_stop() {
    let (len, body) = load(10);
    assert!(len < 16 * 1024);
    assert_eq!(body.prog.ops.len(), 11);
    assert!(matches!(body.prog.ops.last().unwrap().kind, Kind::Stop));
}

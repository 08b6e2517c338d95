//! The T8132 packer layouts of the graphics forms, checked against Apple-compiled fragment and
//! vertex programs in ../shared/oracles/isa/corpus (EXP-0050, EXP-M4-01 r_*, EXP-M4-13, ...):
//! - an `iter` at an explicit position (loc 0x20/0x08) reads the GPR that the closest preceding
//!   `iter_setup` (centroid position) wrote: byte 6 is that register, as the packer says;
//! - tilebuffer loads/stores and coverage writes only occur after a `tile_setup` (tile access)
//!   and are closed by a `tile_fence` before STOP;
//! - vertex output slots stored by one program are distinct.

mod common;

use agx16_isa::{decode_program, Instr, Op, Operand, Role};
use std::collections::HashSet;
use std::path::Path;

fn programs(dir: &Path, out: &mut Vec<(String, Vec<(usize, Instr)>)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            programs(&p, out);
        } else if p.extension().is_some_and(|x| x == "hex") {
            let bytes = common::hex(&std::fs::read_to_string(&p).unwrap());
            if let Ok(v) = decode_program(&bytes) {
                out.push((p.display().to_string(), v));
            }
        }
    }
}

fn gpr(i: &Instr, role: Role) -> Option<u8> {
    match i.operand(role)?.value {
        Operand::Gpr { reg, .. } => Some(reg),
        _ => None,
    }
}

#[test]
fn graphics_forms_agree_with_apple_compiled_programs() {
    let mut all = Vec::new();
    programs(&common::oracles().join("isa/corpus"), &mut all);
    let (mut positioned, mut tile_ops, mut stores) = (0, 0, 0);
    for (name, prog) in &all {
        let mut centroid: Option<u8> = None;
        let mut tile_open = false;
        let mut slots = HashSet::new();
        for (off, i) in prog {
            match i.form.name {
                "iter_setup" => centroid = gpr(i, Role::Dst),
                "iter" if matches!(i.field("loc"), Some(0x20 | 0x08)) => {
                    positioned += 1;
                    assert_eq!(
                        i.field("mode").map(|m| m as u8),
                        centroid,
                        "{name} @{off:#x}: position register vs preceding iter_setup"
                    );
                }
                "tile_setup" => tile_open = true,
                "tile_read" | "tile_read_mask" | "tile_read_at" | "tile_store"
                | "frag_sample_submit" => {
                    tile_ops += 1;
                    assert!(
                        tile_open,
                        "{name} @{off:#x}: {} before any tile access",
                        i.form.name
                    );
                }
                "vary_store" => {
                    stores += 1;
                    assert!(
                        slots.insert(i.field("slot")),
                        "{name} @{off:#x}: slot stored twice"
                    );
                }
                _ => {}
            }
            if i.form.op == Op::Stop && tile_open {
                let fenced = prog.iter().any(|(_, j)| j.form.name == "tile_fence");
                assert!(fenced, "{name}: tile access without a tile_fence");
            }
        }
    }
    // The corpus holds these shapes; a table change that loses them fails here.
    eprintln!("positioned iters {positioned}, tile ops {tile_ops}, vertex stores {stores}");
    assert!(
        positioned >= 3 && tile_ops >= 40 && stores >= 8,
        "{positioned} {tile_ops} {stores}"
    );
}

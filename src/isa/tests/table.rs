//! The table itself is well formed: every bit of every form is either a match bit or belongs
//! to exactly one field, lengths are legal, names are unique, reach refers to real operands.

use agx16_isa::{forms, Kind, MAX_FIELDS};
use std::collections::HashSet;

fn mask(lo: u8, w: u8) -> u128 {
    (if w >= 128 {
        u128::MAX
    } else {
        (1u128 << w) - 1
    }) << lo
}

macro_rules! check {
    ($errs:ident, $cond:expr, $($fmt:tt)*) => {
        if !$cond {
            $errs.push(format!($($fmt)*));
        }
    };
}

#[test]
fn forms_are_well_formed() {
    let mut names = HashSet::new();
    let mut e: Vec<String> = Vec::new();
    for f in forms() {
        check!(e, names.insert(f.name), "duplicate form name {}", f.name);
        check!(
            e,
            f.len % 2 == 0 && (2..=16).contains(&f.len),
            "{}: bad length {}",
            f.name,
            f.len
        );
        check!(
            e,
            f.fields.len() <= MAX_FIELDS,
            "{}: too many fields",
            f.name
        );
        let len_mask = mask(0, f.len * 8);
        let mut seen = 0u128;
        for m in f.matches {
            let mm = mask(m.bits.lo, m.bits.width);
            check!(e, mm & !len_mask == 0, "{}: match outside length", f.name);
            check!(e, seen & mm == 0, "{}: overlapping match bits", f.name);
            check!(
                e,
                m.bits.width >= 64 || m.value < (1u64 << m.bits.width),
                "{}: match value too wide",
                f.name
            );
            seen |= mm;
        }
        let mut fnames = HashSet::new();
        for fl in f.fields {
            check!(
                e,
                fnames.insert(fl.name),
                "{}: duplicate field {}",
                f.name,
                fl.name
            );
            check!(
                e,
                fl.width() <= 64,
                "{}.{}: wider than 64 bits",
                f.name,
                fl.name
            );
            for p in fl.pieces {
                let pm = mask(p.lo, p.width);
                check!(
                    e,
                    pm & !len_mask == 0,
                    "{}.{}: outside length",
                    f.name,
                    fl.name
                );
                assert_eq!(
                    seen & pm,
                    0,
                    "{}.{}: overlaps another field or a match",
                    f.name,
                    fl.name
                );
                seen |= pm;
            }
        }
        // Full coverage keeps encoding exact without the `unmapped` escape hatch.
        assert_eq!(
            seen,
            len_mask,
            "{}: bits {:#x} belong to no field",
            f.name,
            len_mask & !seen
        );
        for r in f.reach {
            check!(
                e,
                f.fields.iter().any(|fl| fl.kind == Kind::Gpr(r.role)),
                "{}: reach for {:?} without a GPR field",
                f.name,
                r.role
            );
            check!(
                e,
                r.max_gpr <= 95,
                "{}: reach beyond the 96-entry file",
                f.name
            );
        }
    }
    assert!(e.is_empty(), "{} table defects:\n{}", e.len(), e.join("\n"));
}

#[test]
fn every_form_decodes_its_own_zero_instance() {
    // A hardware-validated (emittable) form built with all fields zero decodes back to itself:
    // no earlier table entry shadows what a compiler emits.
    for f in forms().iter().filter(|f| f.emittable()) {
        let i = agx16_isa::Instr::new(f);
        let bytes = i.encode();
        let d = agx16_isa::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", f.name));
        assert_eq!(
            d.form.name, f.name,
            "zero instance of {} is shadowed",
            f.name
        );
        assert_eq!(d.encode(), bytes, "{}", f.name);
    }
}

#[test]
fn emittable_forms_have_established_operands() {
    // A compiler emits only hardware-validated forms; their operand, slot and lifetime fields
    // must be hardware-validated too (modifiers and raw fields keep their native values).
    let mut bad = Vec::new();
    for f in forms().iter().filter(|f| f.emittable()) {
        for fl in f.fields {
            let operand = matches!(
                fl.kind,
                Kind::Gpr(_)
                    | Kind::Size(_)
                    | Kind::Half(_)
                    | Kind::Uniform(_)
                    | Kind::ImmU(_)
                    | Kind::ImmS(_)
                    | Kind::ImmF8(_)
                    | Kind::Wait(_)
                    | Kind::Produce(_)
            );
            if operand && fl.evidence != agx16_isa::Evidence::Hardware {
                bad.push(format!(
                    "{}.{} is {}",
                    f.name,
                    fl.name,
                    fl.evidence.as_str()
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

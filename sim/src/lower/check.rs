//! Field-value checks: which values of not-yet-understood fields the model
//! accepts, each because a hardware run established that value's behaviour.

use agx16_isa::{Evidence, Instr, Kind as FieldKind};

/// Values of one field the model accepts (observed in hardware-run programs
/// whose outputs the model reproduces; the caller cites the experiment).
pub type Allowed<'a> = (&'a str, &'a [u64]);

/// Source keep bits (byte1/byte3 bit 7): set when a source stays live, i.e.
/// no release; the model keeps sources unless a release bit says otherwise
/// (agx16-isa table: NS/GravityLinux packer golden vectors and the EXP-M4-35
/// load_xor_load_retain oracle, hash-matched on M4).
pub const KEEP: [Allowed<'static>; 2] = [("a_keep", &[0, 1]), ("b_keep", &[0, 1])];

/// Checks every field the lowering does not interpret itself: raw fields
/// and modifiers must hold an allowed value (zero is allowed only when
/// listed). `used` names the fields the caller interprets.
pub fn fields(i: &Instr, used: &[&str], allowed: &[Allowed]) -> Result<(), String> {
    for (f, &v) in i.form.fields.iter().zip(i.values()) {
        if used.contains(&f.name) {
            continue;
        }
        let interpreted_elsewhere = matches!(
            f.kind,
            FieldKind::Gpr(_)
                | FieldKind::Size(_)
                | FieldKind::Half(_)
                | FieldKind::Uniform(_)
                | FieldKind::ImmU(_)
                | FieldKind::ImmS(_)
                | FieldKind::ImmF8(_)
                | FieldKind::Wait(_)
                | FieldKind::Produce(_)
                | FieldKind::Release(_)
        );
        if interpreted_elsewhere && f.evidence != Evidence::Hypothesis {
            continue;
        }
        // A wait field is always honoured: under the scoreboard model a wrong
        // slot reads zero, so trusting a hypothetical field cannot make a
        // wrong program pass.
        if matches!(f.kind, FieldKind::Wait(_)) {
            continue;
        }
        match allowed
            .iter()
            .chain(KEEP.iter())
            .find(|(n, _)| *n == f.name)
        {
            Some((_, vals)) if vals.contains(&v) => {}
            Some((_, vals)) => {
                return Err(format!(
                    "field {} = {v:#x} (only {vals:#x?} measured)",
                    f.name
                ));
            }
            // Zero is what the hardware-run programs hold in the fields the
            // model does not interpret; any other value is unknown.
            None if v == 0 => {}
            None => {
                return Err(format!(
                    "field {} = {v:#x} has no established meaning here",
                    f.name
                ))
            }
        }
    }
    Ok(())
}

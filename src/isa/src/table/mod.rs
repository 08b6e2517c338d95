//! The G16 instruction-form table: the single source of truth.
//!
//! Each family file lists its forms in decode priority order (specific before general);
//! families are tried in the order of `GROUPS`. Adding a form is adding one entry.
//! Evidence strings name the public reverse-engineering source as `repo:path` and the
//! experiment; "measured" facts come from hardware runs, "inferred" ones from byte diffs.

use std::sync::OnceLock;

use crate::form::Form;

#[macro_use]
mod macros;
mod ctrl;
mod export;
mod falu;
mod frag;
mod gfx;
mod half;
mod int;
mod launch;
mod logic;
mod mem;
mod misc;
mod scratch;
mod sfu;
mod sr;
pub(crate) mod src;
mod texture;

/// Families in decode priority order.
pub static GROUPS: &[&[Form]] = &[
    ctrl::FORMS,
    launch::FORMS,
    scratch::FORMS,
    sr::FORMS,
    mem::FORMS,
    sfu::FORMS,
    export::FORMS,
    gfx::FORMS,
    falu::FORMS,
    half::FORMS,
    int::FORMS,
    logic::FORMS,
    misc::FORMS,
];

/// Every form, flattened in decode priority order.
pub fn forms() -> &'static [&'static Form] {
    static ALL: OnceLock<Vec<&'static Form>> = OnceLock::new();
    ALL.get_or_init(|| GROUPS.iter().flat_map(|g| g.iter()).collect())
}

/// The form with mnemonic `name`.
pub fn form_by_name(name: &str) -> Option<&'static Form> {
    forms().iter().copied().find(|f| f.name == name)
}

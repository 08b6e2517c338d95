//! Uniform words that Apple's runtime preloads for some real-M4 oracles.
//!
//! Metal compiles a kernel's literals (`& 1023u`, `0x01010101u`, polynomial coefficients ...)
//! into uniform registers that `_agc.main.constant_program` fills before `main` runs
//! (ADevWithAnIdea/agx-re MEM-19 notes, measured on G17P). The experiments that produced these
//! oracles kept only `_agc.main`, so no public source holds those words. The values here are
//! **fitted**: each is the Metal-source literal the oracle's notes state, placed in the uniform
//! word the program reads it from (its instruction's uniform descriptor, right after the buffer
//! address pairs), and the oracle's hash-matched M4 output is reproduced with exactly these
//! words. They are test inputs of the oracle harness, never part of the model: a launch that
//! does not provide a uniform the program reads is refused (`dispatch::run_compute`).

/// The preloaded words of one oracle: `(uniform index, value)`.
pub struct Preload {
    pub oracle: &'static str,
    pub words: &'static [(u16, u32)],
    /// Which literal each word is and how the program reads it.
    pub why: &'static str,
}

/// Every oracle that needs preloaded uniforms (fitted, see the module comment).
pub static PRELOADS: &[Preload] = &[
    Preload {
        oracle: "EXP-M4-35__load_xor_load_distinct",
        words: &[(6, 1023)],
        why: "`& 1023u` (both index masks): ilogic_ub and with B = u6.lo (descriptor 0x0c)",
    },
    Preload {
        oracle: "EXP-M4-35__load_xor_load_retain",
        words: &[(6, 1023)],
        why: "`& 1023u` (both index masks): ilogic_ub and with B = u6.lo (descriptor 0x0c)",
    },
    Preload {
        oracle: "EXP-M4-35__load_xor_load_same",
        words: &[(4, 1023)],
        why: "`& 1023u` (both index masks): ilogic_ub and with B = u4.lo (descriptor 0x08)",
    },
    Preload {
        oracle: "EXP-M4-35__alu_xor_alu",
        words: &[
            (2, 0x0101_0101),
            (3, 0x1020_3040),
            (4, 0x1111_1111),
            (5, 0x7654_3210),
        ],
        why: "i*0x01010101 + 0x10203040 and i*0x11111111 + 0x76543210: imad_u B/C = u2/u3 \
              and u4/u5",
    },
];

/// The preload of the oracle called `name`, if it needs one.
pub fn preload(name: &str) -> Option<&'static Preload> {
    PRELOADS.iter().find(|p| p.oracle == name)
}

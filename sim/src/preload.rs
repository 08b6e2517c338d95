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
    Preload {
        oracle: "EXP-M4-35__load_xor_chain5",
        words: &[
            (4, 1023),
            (5, 256),
            (6, 0x1020_3040),
            (7, 0x2131_4151),
            (8, 0x3242_5262),
            (9, 0x4353_6373),
            (10, 0x5464_7484),
        ],
        why: "`& 1023u` (ilogic_ub B = u4.lo), the store offset 256 (iadd_ru r1 = i + u5; 64 v \
              for v = 4 does not fit the 8-bit add immediate) and C[0..4] (iadd_ru B = u6..u10)",
    },
    Preload {
        oracle: "EXP-M4-35__load_xor_chain6",
        words: &[
            (4, 1023),
            (5, 256),
            (6, 320),
            (7, 0x1020_3040),
            (8, 0x2131_4151),
            (9, 0x3242_5262),
            (10, 0x4353_6373),
            (11, 0x5464_7484),
            (12, 0x6575_8595),
        ],
        why: "as chain5 with a sixth value: `& 1023u` (u4.lo), store offsets 256 and 320 \
              (iadd_ru B = u5, u6) and C[0..5] (iadd_ru B = u7..u12)",
    },
];

/// The preload of the oracle called `name`, if it needs one.
pub fn preload(name: &str) -> Option<&'static Preload> {
    PRELOADS.iter().find(|p| p.oracle == name)
}

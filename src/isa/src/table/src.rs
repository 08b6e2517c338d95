//! Source citations used by the table (`repo:path`).

pub const ET: &str = "niklassheth/agx-re:docs/isa/encoding-tables.md";
pub const LEN: &str = "ADevWithAnIdea/agx-re:tools/agx-isa/isadb.py instr_length";
pub const SB: &str = "niklassheth/agx-re:APPLE9_SCOREBOARD_SLOTS.md";
pub const MC: &str = "GravityLinux/mesa:src/asahi/compiler/agx_apple9_machine.c";
pub const M435: &str = "niklassheth/agx-re:experiments/EXP-M4-35-native-load-xor/RESULTS.json";
pub const CAN: &str = "ADevWithAnIdea/agx-re:tools/agx-isa/length_canaries.json";
pub const MASK: &str = "niklassheth/agx-re:experiments/EXP-M4-52-deep-mask-stack";
/// Length/field regularities found by tiling the Apple-compiled corpus in ../shared/oracles/isa/corpus.
pub const CORPUS: &str = "corpus tiling (Apple-compiled programs, ../shared/oracles/isa/corpus)";
/// Packer golden vectors: keeping a source live clears its release bit and sets its keep bit.
pub const PK: &str = "GravityLinux/mesa:src/asahi/compiler/test/test-apple9.cpp";
/// T8132 launcher (setup-program) write-up: stage parameters, hardware controls and readouts.
pub const GL_LAUNCH: &str =
    "GravityLinux/mesa:src/gallium/drivers/asahi/README.apple9-launchers.md";
/// T8132 launcher builder (allocation, target and frame byte layouts, measured by the driver's runs).
pub const GL_LAUNCH_C: &str = "GravityLinux/mesa:src/gallium/drivers/asahi/agx_apple9_launch.c";
/// Shared setup encoders (pointer loads, argument words, relative branch, literal moves).
pub const GL_ENC: &str = "GravityLinux/mesa:src/asahi/compiler/agx_apple9_encoding.h";
/// Entry arena: helper directory, block headers, compute constant helper, body entries.
pub const GL_ARENA: &str = "GravityLinux/mesa:src/gallium/drivers/asahi/agx_apple9.c";
/// Compiler packers for graphics forms (iter, iter_flat, vary_store, coverage, tile access/fence,
/// tile load/store, texture sample, derivative, centroid position); agx_apple9_machine.c marks
/// iter/vary_store hardware-validated and the driver's GLES suites ran them on T8132.
pub const GL_IR: &str = "GravityLinux/mesa:src/asahi/compiler/agx_apple9_ir.c";
/// Fitted to the hash-matched EXP-M4-35 oracles (../shared/oracles/sim, M4 outputs): no source
/// states the reading, it is the one that reproduces those hardware runs (`Evidence::Fitted`).
pub const FIT_M435: &str =
    "fitted to ../shared/oracles/sim EXP-M4-35 (niklassheth/agx-re:experiments/EXP-M4-35-native-load-xor, hash-matched M4 outputs)";
/// Uniform-file source descriptors of the compact binary ALU (GravityLinux/mesa agx_apple9_ir.c
/// pack_binary_uniforms at commit 30a08443, read by the sim-oracles round, sim/ISA-REQUESTS.md
/// item 13): B: byte3 = (index<<1)|is32, bit 41 = B is a uniform, bit 20 = index bit 6, bit 42 =
/// index bit 7; A: byte1, bits 39 / 19 / 40. Register bit 6 sits at 40 (A) / 42 (B) / 44 (dst)
/// (pack_compact_binary_gprs, EXP-M4-38).
pub const GL_UNI: &str =
    "GravityLinux/mesa:src/asahi/compiler/agx_apple9_ir.c pack_binary_uniforms / pack_compact_binary_gprs";

//! Launcher (setup-program) operations: the short program every G16 stage is entered
//! through (root literal moves, pointer loads, stage allocation, stage target,
//! publication/scratch frame, argument transfers, STOP).
//!
//! Facts: GravityLinux/mesa README.apple9-launchers.md, agx_apple9_launch.c and
//! agx_apple9_encoding.h. Their launchers are generated from these layouts and run on T8132
//! (M4): resource readouts matched every pointer half, entries were placed up to +0x7f8000,
//! frame extent A was bisected to the byte, threadgroup sizes 128..1024 and 1x/2x/4x tile
//! layouts executed. Those parameter fields are hardware-validated. Constant bits the
//! driver found required by bit-clearing runs (target byte 7 bit 1, byte 8 bit 7) are
//! match bits; their meaning is not established. Bits the sources only ever leave zero
//! are raw fields, so a decoder shows them and a strict model refuses non-zero values.
//! None of these forms occur in the Apple-compiled corpus (it holds stage bodies only).

use super::src::{GL_ARENA, GL_ENC, GL_LAUNCH, GL_LAUNCH_C};
use crate::form::{Field, Form, Kind::*, ProduceLayout::*, Role::*, SlotLayout::*};

// `67 00 54 <dst<<1> <base> 00 00 00 <fmt | token> 00 <offset> 40 26 00`: load one (format
// 0x19, 32-bit x2) or two (0x17, 32-bit x4) 64-bit pointers from [r<base>:r<base+1>] +
// 8*offset into dst.. and publish them on slot 2 (token 2). Readouts of every pointer half
// matched on M4 with bases r2/r4/r60 and pending bases 8/18/24 (README "Resource ABI").
const PTR_LOAD: &[Field] = &[
    raw!("dst_b0", 24, 1),
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, GL_ENC),
    f!("base", [(32, 8)], Gpr(SrcA), Hardware, GL_ENC),
    f!("ld_format", [(64, 6)], OpSelect, Hardware, GL_ENC),
    f!(
        "token",
        [(72, 1), (70, 2)],
        Produce(LoadToken),
        Hardware,
        GL_ENC
    ),
    f!("offset", [(80, 8)], ImmU(SrcB), Hardware, GL_ENC),
];

// `77 00 (2a | 4x<<7) <byte3> <mode:16> 00 00`. Compute: byte3 0x41, mode (tg<<2)|0x80 or 0;
// fragment 1x/2x: byte3 0x41/0x40 + 2*ceil(tile bytes/8), mode 0x4b; 4x: byte2 0xaa, byte3
// 2*units, mode 0x43; vertex: byte3 0x41, mode 0. Individual bit names are unresolved
// (README "Unresolved hardware semantics"), so `meaning::stage_allocation` accepts only
// these combinations.
const STAGE_ALLOC: &[Field] = &[
    raw!("b2_7", 23, 1),
    raw!("b3_0", 24, 1),
    f!("tile_units", [(25, 5)], ImmU(SrcA), Hardware, GL_LAUNCH_C),
    raw!("b3_6", 30, 1),
    raw!("b3_7", 31, 1),
    f!("mode", [(32, 16)], OpSelect, Hardware, GL_LAUNCH_C),
    raw!("reserved", 48, 16),
];

// `77 01 <target:24> 00 00 02 80 00`, target = 2*entry + 0x2a (entries even, 24 bits; placed
// and executed up to +0x7f8000). Header bits 9..15 passed zero/one controls (inert).
const STAGE_TARGET: &[Field] = &[
    raw!("hdr_free", 9, 7),
    f!("target", [(16, 24)], ImmU(SrcA), Hardware, GL_LAUNCH),
    raw!("b5_6", 40, 16),
    raw!("b7_0", 56, 1),
    raw!("b7_hi", 58, 6),
    raw!("b8_lo", 64, 7),
    raw!("b9", 72, 8),
];

// `f7 00 2a <pairs<<7 :16> <A:16> <B:16> 00`: publication pairs ceil(P/2) at bit 7 of the
// word at byte 3, frame extents A (byte capacity of word-indexed spill slots and returned
// atomics, bisected on M4) and B (driver's spill size; B = 0 passed, role not established).
const LAUNCH_FRAME: &[Field] = &[
    raw!("pub_lo", 24, 7),
    f!(
        "publication_pairs",
        [(31, 9)],
        ImmU(SrcA),
        Hardware,
        GL_LAUNCH
    ),
    f!("extent_a", [(40, 16)], ImmU(SrcB), Hardware, GL_LAUNCH),
    f!("extent_b", [(56, 16)], Modifier, Hypothesis, GL_LAUNCH),
    raw!("b9", 72, 8),
];

// `<dst lo4>b <src<<1> (09 | dst hi2<<6) (04 | wait<<6)`: argument word dst (the main reads
// word w through uniform selector 2w) = r<src>; the first transfer waits for the loads.
const ARG_STORE: &[Field] = &[
    f!("dst", [(4, 4), (22, 2)], Uniform(Dst), Hardware, GL_ENC),
    raw!("src_b0", 8, 1),
    f!("src", [(9, 6)], Gpr(SrcA), Hardware, GL_ENC),
    raw!("src_b7", 15, 1),
    f!("wait", [(30, 1)], Wait(Flag30Slot2), Hardware, GL_ENC),
    raw!("b3_7", 31, 1),
];

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    form!("ptr_load", PointerLoad, 14, Hardware, GL_ENC,
        [(0, 8, 0x67), (8, 8, 0x00), (16, 8, 0x54), (40, 24, 0), (73, 7, 0), (88, 24, 0x002640)],
        PTR_LOAD, [rch!(Dst, 63, Hardware), rch!(SrcA, 62, Hardware)]),
    form!("stage_alloc", StageAllocation, 8, Hardware, GL_LAUNCH_C,
        [(0, 8, 0x77), (8, 8, 0x00), (16, 7, 0x2a)], STAGE_ALLOC, []),
    form!("stage_target", StageTarget, 10, Hardware, GL_LAUNCH,
        [(0, 8, 0x77), (8, 1, 1), (57, 1, 1), (71, 1, 1)], STAGE_TARGET, []),
    form!("launch_frame", LaunchFrame, 10, Hardware, GL_LAUNCH,
        [(0, 8, 0xf7), (8, 8, 0x00), (16, 8, 0x2a)], LAUNCH_FRAME, []),
    // Entry-arena words (GravityLinux/mesa agx_apple9.c helper directory and the compute
    // constant helper, part of the hardware-run arena image). `06 00` is the driver's padding
    // form: it fills the directory and follows the constant helper's STOP; no run executes it.
    form!("pad", Opaque, 2, Hypothesis, GL_ARENA, [(0, 16, 0x0006)], &[], []),
    // `f7 03 aa 00` opens each 16-byte terminal tag of the helper directory (then `8f 02 54 01`
    // and four pads); the sources call its interpretation unknown. Length from that layout.
    form!("helper_tag", Opaque, 4, Hypothesis, GL_ARENA, [(0, 32, 0x00aa_03f7)], &[], []),
    form!("arg_store", ArgumentStore, 4, Hardware, GL_ENC,
        [(0, 4, 0xb), (16, 6, 0x09), (24, 6, 0x04)], ARG_STORE, [rch!(SrcA, 63, Hardware)]),
];

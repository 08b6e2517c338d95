//! Control flow: stop, jumps, calls, the exec-mask stack, predicate compares, barriers.

use super::src::{CAN, ET, LEN, MASK};
use crate::form::{Form, Kind::*, Role::*};

const STOP: &[crate::form::Field] = &[raw!("reserved", 8, 24)];

// `0f 00 54 <signed 48-bit byte offset> 00` (niklassheth/agx-re EXP-M4-52/53, measured on M4).
// The offset is relative to the branch's own address: EXP-0010 prodloop (run on hardware) jumps
// from 0x6a by -44 to the loop head 0x3e and from 0x24 by +86 to the final pop 0x7a, and all
// 14 branches of the decoded corpus land on instruction boundaries that way (tests/branches.rs).
const JUMP: &[crate::form::Field] = &[
    raw!("mode", 16, 8),
    f!("offset", [(24, 48)], ImmS(SrcA), Hardware, MASK),
    raw!("tail", 72, 8),
];

// byte3 = 1 | bank<<2 | invert<<5; banks 6/7 are constant true/false (EXP-M4-52/53, measured).
const PUSH: &[crate::form::Field] = &[
    raw!("mode", 16, 8),
    f!("bank", [(26, 3)], Pred, Hardware, MASK),
    f!("invert", [(29, 1)], Modifier, Hardware, MASK),
    raw!("b3_hi", 30, 2),
];

// Byte3 is part of the match: the canary `0f 05 54 1a 8f 10 54 ..` (ADevWithAnIdea/agx-re
// length_canaries.json direct_call14, EXP-0035) and the one corpus call (EXP-M4-13
// controlflow__call_chain) both hold 0x1a; without it an ordinary `if_push 0f 05 54 01` followed
// by the EXP-M4-46 break-unwind `8f 05 54 03 00 01` (measured on M4) would read as one call.
const CALL: &[crate::form::Field] = &[
    raw!("mode", 16, 8),
    raw!("b5", 40, 8),
    raw!("b6", 48, 8),
    // target = call address + 4 + offset (ADevWithAnIdea/agx-re EXP-0035, A18, inferred width)
    f!("offset", [(56, 48)], ImmS(SrcA), Hypothesis, ET),
    raw!("tail", 104, 8),
];

const POP: &[crate::form::Field] = &[
    raw!("mode", 16, 8),
    // byte3: 1 = outermost/guard scope, 2 = loop body (encoding-tables.md pop_reconverge)
    f!("scope_kind", [(24, 8)], Modifier, CorpusOnly, ET),
    raw!("tail", 32, 16),
];

const B2B3: &[crate::form::Field] = &[raw!("b2", 16, 8), raw!("b3", 24, 8)];
const B2B3B4B5: &[crate::form::Field] = &[raw!("b2", 16, 8), raw!("b3", 24, 8), raw!("b4", 32, 16)];

// `8f 04 54 (2 | bank<<2 | invert<<5)` loop-mask update (EXP-M4-46/53, measured).
const LOOP_UPDATE: &[crate::form::Field] = &[
    raw!("b2_1", 17, 1),
    raw!("b3_lo", 24, 2),
    f!("bank", [(26, 3)], Pred, Hardware, MASK),
    f!("invert", [(29, 1)], Modifier, Hardware, MASK),
    raw!("b3_hi", 30, 2),
];

// Predicate compare: byte0 = 0x0a | invert<<4 | bank<<5 (EXP-M4-45/53, measured); sources are
// (gpr<<1)|is32 descriptors reaching r0..r63 (GravityLinux/mesa agx_apple9_machine.c, measured);
// byte2 bits 3/4 release sources A/B, byte4 is the condition of the 6-byte form and byte6 the
// relation of the 10-byte form (niklassheth/agx-re encoding-tables.md icmp_pred_ordered6 /
// icmp_pred_extended10; see `meaning::compare_condition`).
macro_rules! pcmp_head {
    ($($tail:expr),*) => {
        &[
            f!("invert", [(4, 1)], Modifier, Hardware, MASK),
            f!("bank", [(5, 3)], Pred, Hardware, MASK),
            f!("a_size", [(8, 1)], Size(SrcA), Hardware, super::src::MC),
            f!("a", [(9, 6)], Gpr(SrcA), Hardware, super::src::MC),
            f!("a_keep", [(15, 1)], Modifier, CorpusOnly, ET),
            raw!("ctrl_lo", 17, 2),
            f!("rel_a", [(19, 1)], Release(SrcA), CorpusOnly, ET),
            f!("rel_b", [(20, 1)], Release(SrcB), CorpusOnly, ET),
            raw!("ctrl_hi", 21, 3),
            f!("b_size", [(24, 1)], Size(SrcB), Hardware, super::src::MC),
            f!("b", [(25, 6)], Gpr(SrcB), Hardware, super::src::MC),
            f!("b_keep", [(31, 1)], Modifier, CorpusOnly, ET),
            $($tail),*
        ]
    };
}
const PCMP6: &[crate::form::Field] = pcmp_head!(
    raw!("ext", 16, 1),
    f!("cond", [(32, 8)], OpSelect, CorpusOnly, ET),
    f!("operand_tail", [(40, 8)], Modifier, CorpusOnly, ET)
);
const PCMP10: &[crate::form::Field] = pcmp_head!(
    f!("relation", [(48, 8)], OpSelect, CorpusOnly, ET),
    f!("operand_tail", [(56, 8)], Modifier, CorpusOnly, ET),
    raw!("extension", 64, 16)
);

// Compare with an immediate (byte5 bit 1 = bit 41 set; the notes' "B is not a GPR" selector).
// ADevWithAnIdea/agx-re experiments/EXP-0010-control-flow/RESULTS.md (A18 Pro, measured): in
// eret4 (`if (gid >= 4) return`, `0a 01 22 82 14 22`) sweeping byte3 0x80/0x82/0x84/0x8e leaves
// lanes gid < 2/4/6/all active: the bound's bits 1..6 are byte3 bits 1..6. Fitted to both
// EXP-0010 oracles: its bit 0 is the condition byte's 0x10 (bit 36; eret4 0x14 = gid > 3,
// prodloop `0a 85 22 80 06 c2` 0x06 = a[gid] > 0; the same bit gives `isel_imm`'s 5), and bits
// 45..47 are a slot-index wait (Index45, as falu2): prodloop's 6 waits for its slot-6 load of
// a[gid], eret4's 1 for the get_sr result (slot 1, agx16-isa REQUESTS-DONE.md item 10). Bits
// 24 and 31 (a GPR descriptor's size/keep bits) are 0 and 1 in both.
const PCMP_IMM: &[crate::form::Field] = &[
    f!("invert", [(4, 1)], Modifier, Hardware, MASK),
    f!("bank", [(5, 3)], Pred, Hardware, MASK),
    f!("a_size", [(8, 1)], Size(SrcA), Hardware, super::src::MC),
    f!("a", [(9, 6)], Gpr(SrcA), Hardware, super::src::MC),
    f!("a_keep", [(15, 1)], Modifier, CorpusOnly, ET),
    raw!("ext", 16, 1),
    raw!("ctrl_lo", 17, 2),
    f!("rel_a", [(19, 1)], Release(SrcA), CorpusOnly, ET),
    raw!("b2_4", 20, 1),
    raw!("ctrl_hi", 21, 3),
    raw!("imm_b24", 24, 1),
    f!("imm", [(36, 1), (25, 6)], ImmU(SrcB), Fitted, EXP10),
    raw!("imm_b31", 31, 1),
    f!("cond", [(32, 4), (37, 3)], OpSelect, CorpusOnly, ET),
    raw!("tail_40", 40, 1),
    raw!("tail_42", 42, 3),
    f!(
        "wait",
        [(45, 3)],
        Wait(crate::form::SlotLayout::Index45),
        Fitted,
        EXP10
    ),
];
const EXP10: &str = "ADevWithAnIdea/agx-re:experiments/EXP-0010-control-flow/RESULTS.md (A18 Pro, measured bound sweep); fitted to ../shared/oracles/sim EXP-0010__eret4/prodloop";

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    form!("stop", Stop, 4, Hardware, ET, [(0, 8, 0x0e)], STOP, []),
    form!("jump", Jump, 10, Hardware, CAN, [(0, 8, 0x0f), (8, 8, 0x00)], JUMP, []),
    form!("jump_exec_none", JumpExecNone, 10, Hardware, MASK, [(0, 8, 0x0f), (8, 8, 0x01)], JUMP, []),
    form!("call", Call, 14, CorpusOnly, CAN, [(0, 8, 0x0f), (8, 8, 0x05), (24, 8, 0x1a), (32, 8, 0x8f)], CALL, []),
    form!("if_push", IfPush, 4, Hardware, MASK, [(0, 8, 0x0f), (8, 8, 0x05), (24, 2, 1)], PUSH, []),
    // `0f 05 54 1a`: byte3 low bits 2 = loop-mask push (GravityLinux/mesa LOOP_MASK_PUSH, measured;
    // EXP-0010 prodloop), same bank/invert layout
    form!("loop_push", IfPush, 4, Hardware, MASK, [(0, 8, 0x0f), (8, 8, 0x05), (24, 2, 2)], PUSH, []),
    // `0f 0d 54 01` / `0f 0d 64 01` in fragment programs before discards (EXP-0050), 4 bytes
    form!("cf_0d", Opaque, 4, CorpusOnly, super::src::CORPUS, [(0, 8, 0x0f), (8, 8, 0x0d)], B2B3, []),
    // `0f 0f 22 10` before the final store in EXP-M4-55 k_cospi, 4 bytes (corpus tiling)
    form!("cf_0f", Opaque, 4, CorpusOnly, super::src::CORPUS, [(0, 8, 0x0f), (8, 8, 0x0f)], B2B3, []),
    form!("else", Else, 4, Hardware, MASK, [(0, 8, 0x0f), (8, 8, 0x04), (16, 16, 0x1904)], &[], []),
    form!("mask_op", Opaque, 4, CorpusOnly, LEN, [(0, 8, 0x0f), (8, 8, 0x04)], B2B3, []),
    form!("pop", Pop, 6, Hardware, MASK, [(0, 8, 0x0f), (8, 8, 0x06)], POP, []),
    // `0f 0e 24 02 00 00` / `0f 0e 04 02 00 00` in fragment discard programs (EXP-0050): the pop
    // layout with byte1 bit 3 set, 6 bytes (corpus tiling)
    form!("pop_0e", Pop, 6, CorpusOnly, super::src::CORPUS, [(0, 8, 0x0f), (8, 8, 0x0e)], POP, []),
    form!("call_indirect", CallIndirect, 6, CorpusOnly, LEN, [(0, 8, 0x0f), (8, 8, 0x80)], B2B3B4B5, []),
    form!("break_unwind", BreakUnwind, 6, Hardware, MASK, [(0, 8, 0x8f), (8, 8, 0x05)], B2B3B4B5, []),
    form!("loop_update", LoopMaskUpdate, 4, Hardware, MASK, [(0, 8, 0x8f), (8, 8, 0x04), (16, 1, 0), (18, 6, 0x15)], LOOP_UPDATE, []),
    form!("return", Return, 4, CorpusOnly, LEN, [(0, 8, 0x8f), (8, 4, 0x2)], &[raw!("b1_hi", 12, 4), raw!("b2", 16, 8), raw!("b3", 24, 8)], []),
    form!("pcmp_ext", PredCompare, 10, Hardware, super::src::MC, [(0, 4, 0xa), (16, 1, 1), (32, 16, 0x0006)], PCMP10, [rch!(SrcA, 63, Hardware), rch!(SrcB, 63, Hardware)]),
    form!("pcmp_imm", PredCompare, 6, Fitted, EXP10, [(0, 4, 0xa), (41, 1, 1)], PCMP_IMM, [rch!(SrcA, 63, Hardware)]),
    form!("pcmp", PredCompare, 6, Hardware, super::src::MC, [(0, 4, 0xa)], PCMP6, [rch!(SrcA, 63, Hardware), rch!(SrcB, 63, Hardware)]),
    form!("link_save", Opaque, 8, CorpusOnly, LEN, [(0, 8, 0x07), (8, 8, 0x00), (16, 8, 0x54)], &[raw!("b3", 24, 8), raw!("tail", 32, 32)], []),
    // `07 02 54 <imm:16> 00`: tile fence closing fragment tile access (GravityLinux/mesa
    // agx_apple9_ir.c TILE_FENCE; `07 02 54 0c 02 00` ends the EXP-0050/M4-01 fragment programs;
    // `07 12 54 00 03 00` with the slot-1 wait follows the block image store)
    form!("tile_fence", Fence, 6, CorpusOnly, super::src::GL_IR, [(0, 8, 0x07), (8, 4, 0x2), (18, 6, 0x15)], super::frag::TILE_SYNC_FENCE, []),
    // `07 04 54 <scope 0x61 tg | 0x85 dev> <flags> 00` (ADevWithAnIdea/agx-re EXP-0025, measured)
    form!("barrier", Barrier, 6, Hardware, ET, [(0, 8, 0x07), (16, 8, 0x54)], &[raw!("b1", 8, 8), f!("scope", [(24, 8)], Modifier, Hardware, ET), f!("flags", [(32, 8)], Modifier, CorpusOnly, ET), raw!("b5", 40, 8)], []),
    form!("fence", Fence, 4, CorpusOnly, LEN, [(0, 8, 0x07)], &[raw!("b1", 8, 8), raw!("b2", 16, 8), raw!("b3", 24, 8)], []),
];

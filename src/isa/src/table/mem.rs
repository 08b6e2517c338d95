//! Memory: device load/store (0x67/0xe7, 14 bytes), fragment tile access (12 bytes).
//!
//! Byte roles: niklassheth/agx-re:docs/isa/encoding-tables.md "Length rule" rows for 0x67/0xe7
//! (EXP-0012; +5 index GPR and the immediate index offset at +9 bit7/+10/+11 low, RT-1a-FIX,
//! measured); producer token in bytes 8..9 (APPLE9_SCOREBOARD_SLOTS.md, measured on M4).
//! Byte 3 as the load destination / store data register (reg<<1) and byte 5 as a plain
//! index register number are read off the data flow of the EXP-M4-35 programs
//! (get_sr/iadd results feed byte 5, ilogic results feed store byte 3): corpus-only.

use super::src::{ET, LEN, M435, SB};

/// 16-bit formats: byte 3 is a half-register index (`reg<<1 | high`), measured by the EXP-M4-54
/// half kernels on M4 (`6710540300..` loads r1.hi, `e700540302..` stores r1.hi).
const M54: &str = "niklassheth/agx-re:experiments/EXP-M4-54-sfu-source-controls";
use crate::form::{Field, Form, Kind::*, ProduceLayout::*, Role::*};

const LOAD: &[Field] = &[
    f!("space", [(8, 8)], Modifier, CorpusOnly, ET),
    f!("addr_mode", [(16, 8)], Modifier, CorpusOnly, M435),
    f!("dst_hi", [(24, 1)], Modifier, Hardware, M54),
    f!("dst", [(25, 7)], Gpr(Dst), CorpusOnly, M435),
    f!("base_slot", [(32, 8)], ImmU(SrcA), Hardware, ET),
    f!("index", [(40, 7)], Gpr(SrcB), Hardware, ET),
    raw!("index_flag", 47, 1),
    f!("access_desc", [(48, 8)], Modifier, CorpusOnly, M435),
    raw!("reserved7", 56, 8),
    f!("ld_format", [(64, 6)], Modifier, CorpusOnly, M435),
    f!(
        "token",
        [(72, 1), (70, 2)],
        Produce(LoadToken),
        Hardware,
        SB
    ),
    raw!("b9", 73, 6),
    f!(
        "idx_off",
        [(79, 1), (80, 8), (88, 2)],
        ImmU(SrcC),
        Hardware,
        ET
    ),
    f!("ldform_hi11", [(90, 6)], Modifier, CorpusOnly, M435),
    f!("elem_size", [(96, 8)], Modifier, CorpusOnly, ET),
    raw!("reserved13", 104, 8),
];

const STORE: &[Field] = &[
    f!("space", [(8, 8)], Modifier, CorpusOnly, ET),
    f!("addr_mode", [(16, 8)], Modifier, CorpusOnly, M435),
    f!("data_hi", [(24, 1)], Modifier, Hardware, M54),
    f!("data", [(25, 7)], Gpr(SrcD), CorpusOnly, M435),
    f!("base_slot", [(32, 8)], ImmU(SrcA), Hardware, ET),
    f!("index", [(40, 7)], Gpr(SrcB), Hardware, ET),
    raw!("index_flag", 47, 1),
    f!("access_desc", [(48, 8)], Modifier, CorpusOnly, M435),
    raw!("reserved7", 56, 8),
    f!("st_format", [(64, 8)], Modifier, CorpusOnly, M435),
    raw!("st_format_ext", 72, 7),
    f!(
        "idx_off",
        [(79, 1), (80, 8), (88, 2)],
        ImmU(SrcC),
        Hardware,
        ET
    ),
    f!("st_desc_hi", [(90, 6)], Modifier, CorpusOnly, M435),
    f!("elem_size", [(96, 8)], Modifier, CorpusOnly, ET),
    raw!("reserved13", 104, 8),
];

#[rustfmt::skip]
pub static FORMS: &[Form] = &[
    // fragment tilebuffer read / imageblock load and colour store (ADevWithAnIdea/agx-re EXP-0029)
    form!("tile_read", TileRead, 12, CorpusOnly, LEN, [(0, 8, 0x67), (8, 8, 0x0e)], &[raw!("b2", 16, 8), raw!("b3", 24, 8), raw!("tail", 32, 64)], []),
    form!("imageblock_load", TileRead, 12, CorpusOnly, LEN, [(0, 8, 0x67), (8, 3, 0x6), (12, 3, 0)], &[raw!("b1_3", 11, 1), raw!("b1_7", 15, 1), raw!("b2", 16, 8), raw!("b3", 24, 8), raw!("tail", 32, 64)], []),
    form!("tile_store", TileStore, 12, CorpusOnly, LEN, [(0, 8, 0xe7), (8, 4, 0x6), (13, 3, 0)], &[raw!("b1_4", 12, 1), raw!("b2", 16, 8), raw!("b3", 24, 8), raw!("tail", 32, 64)], []),
    form!("tg_atomic", Atomic, 12, CorpusOnly, LEN, [(0, 8, 0x67), (8, 8, 0x03)], &[raw!("b2", 16, 8), raw!("b3", 24, 8), raw!("tail", 32, 64)], []),
    form!("device_load", DeviceLoad, 14, Hardware, ET, [(0, 8, 0x67)], LOAD, [rch!(Dst, 63, Hardware)]),
    form!("device_store", DeviceStore, 14, Hardware, ET, [(0, 8, 0xe7)], STORE, []),
];

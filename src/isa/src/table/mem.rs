//! Memory: device load/store (0x67/0xe7, 14 bytes), fragment tile access (12 bytes).
//!
//! Byte roles: niklassheth/agx-re:docs/isa/encoding-tables.md "Length rule" rows for 0x67/0xe7
//! (EXP-0012; +5 index GPR and the immediate index offset at +9 bit7/+10/+11 low, RT-1a-FIX,
//! measured); producer token in bytes 8..9 (APPLE9_SCOREBOARD_SLOTS.md, measured on M4).
//! Byte 3 as the load destination / store data register (reg<<1) and byte 5 as a plain
//! index register number are read off the data flow of the EXP-M4-35 programs
//! (get_sr/iadd results feed byte 5, ilogic results feed store byte 3): corpus-only.

use super::frag::{TILE_LOAD, TILE_LOAD_MASK, TILE_LOAD_NOKIND};
use super::src::{ET, GL_IR, LEN, M435, SB};

/// 16-bit formats: byte 3 is a half-register index (`reg<<1 | high`), measured by the EXP-M4-54
/// half kernels on M4 (`6710540300..` loads r1.hi, `e700540302..` stores r1.hi).
const M54: &str = "niklassheth/agx-re:experiments/EXP-M4-54-sfu-source-controls";
use crate::form::{Field, Form, Kind::*, ProduceLayout::*, Role::*, SlotLayout::*};

// `space` (byte1): bit 1 selects threadgroup memory (ADevWithAnIdea/agx-re EXP-0012, A18);
// bit 4 appears on the first load of a group (GravityLinux/mesa packer "FIRST" flag).
const LOAD: &[Field] = &[
    f!("space", [(8, 8)], Modifier, CorpusOnly, ET),
    f!("addr_mode", [(16, 8)], Modifier, CorpusOnly, M435),
    f!("dst_hi", [(24, 1)], Modifier, Hardware, M54),
    // extmode = 2*R (bit 0 don't care for 32-bit formats), R = 0..63 (EXP-0101/0141, measured)
    f!("dst", [(25, 7)], Gpr(Dst), Hardware, ET),
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

// General device atomic (niklassheth/agx-re encoding-tables.md `atomic_device`; op enum at
// byte12 bits 1..5 measured, EXP-0018/M4-47/M4-50; data register in byte5 bit 7 + byte6 bits 0..5
// measured EXP-0141; bits 12..17 the input wait mask).
const ATOMIC: &[Field] = &[
    // the doc calls these an input dependency mask; `67 11 54 ..` after a slot-6 load names slot 1,
    // so which producer it waits for is not settled: corpus-only
    f!("wait", [(12, 6)], Wait(Mask12), CorpusOnly, ET),
    raw!("rsv3", 24, 8),
    f!("base_slot", [(32, 8)], ImmU(SrcA), Hardware, ET),
    f!("index", [(40, 7)], Gpr(SrcB), CorpusOnly, ET),
    f!("data", [(47, 7)], Gpr(SrcD), Hardware, ET),
    raw!("addr_desc_hi", 54, 2),
    f!("input_desc0", [(56, 8)], Modifier, CorpusOnly, ET),
    f!("input_desc1", [(64, 8)], Modifier, CorpusOnly, ET),
    f!("result_mode", [(72, 8)], Modifier, CorpusOnly, ET),
    f!("rsv10", [(80, 8)], Modifier, CorpusOnly, ET),
    f!("rsv11", [(88, 8)], Modifier, CorpusOnly, ET),
    raw!("op_lsb", 96, 1),
    f!("op", [(97, 5)], OpSelect, Hardware, ET),
    f!("per_lane", [(102, 1)], Modifier, CorpusOnly, ET),
    raw!("op_msb", 103, 1),
    f!("amode_hi", [(104, 8)], Modifier, CorpusOnly, ET),
];

macro_rules! rb {
    ($($name:literal $lo:literal $w:literal),*) => { &[$(raw!($name, $lo, $w)),*] };
}

// Tilebuffer store `e7 (06|16) 54 <src<<1> 00 <w<<1> <mask> 4e <rel<<3> 00 00 <dyn<<3>`: raw
// word w (0..15) of the pixel's tilebuffer storage = r<src> for the samples in the mask
// (byte 6 = 1 static; with byte 1 bit 4 the mask comes from GPR byte6>>1, byte 8 bit 3
// releasing it and byte 11 = 8) (GravityLinux/mesa agx_apple9_ir.c TILE_STORE / _MASK;
// encoding-tables.md read byte 1 bit 4 as "first store"). Apple-compiled MRT stores use byte 11
// = 8 and byte 8 = 8 with bit 12 clear (masks 8..0xb), so which of bit 12 / `kind` selects the
// GPR mask is not separated: both stay below hardware evidence for that role.
const TILE_STORE: &[Field] = &[
    f!("mask_from_reg", [(12, 1)], Modifier, CorpusOnly, GL_IR),
    f!("mode", [(16, 8)], Modifier, CorpusOnly, ET),
    raw!("src_b0", 24, 1),
    f!("src", [(25, 7)], Gpr(SrcD), Hardware, GL_IR),
    f!("flags", [(32, 8)], Modifier, CorpusOnly, ET),
    raw!("rt_b0", 40, 1),
    f!("rt", [(41, 7)], ImmU(SrcA), Hardware, GL_IR),
    f!("mask", [(48, 8)], Modifier, Hardware, GL_IR),
    f!("fmt", [(56, 8)], Modifier, CorpusOnly, ET),
    raw!("b8_lo", 64, 3),
    f!("mask_release", [(67, 1)], Modifier, Hardware, GL_IR),
    raw!("b8_hi", 68, 20),
    f!("kind", [(88, 8)], Modifier, CorpusOnly, GL_IR),
];

// Tilebuffer store with a GPR sample mask `e7 16 54 <src<<1> 00 <w<<1> <m<<1> 4e <rel<<3> 00
// 00 08`: raw word w of the pixel's tilebuffer storage = r<src> for the samples in the low half
// of r<m> (byte 6 = m << 1, its low bit picks the high half, which the packer never does; byte 8
// bit 3 releases r<m>; byte 11 = 8). GravityLinux/mesa agx_apple9_ir.c TILE_STORE (the
// `dynamic` branch, encoding TILE_STORE_MASK): the T8132 driver's multisample colour stores
// ("explicit per-sample color stores must preserve uncovered samples", README.apple9-es3.md;
// its multisample/blit dEQP groups pass on M4). Its machine table tags the form BYTE_DIFF,
// hence corpus-only here.
const TILE_STORE_MASK: &[Field] = &[
    f!("mode", [(16, 8)], Modifier, CorpusOnly, GL_IR),
    raw!("src_b0", 24, 1),
    f!("src", [(25, 7)], Gpr(SrcD), Hardware, GL_IR),
    f!("flags", [(32, 8)], Modifier, CorpusOnly, GL_IR),
    raw!("rt_b0", 40, 1),
    f!("rt", [(41, 7)], ImmU(SrcA), Hardware, GL_IR),
    raw!("mask_half", 48, 1),
    f!("mask", [(49, 7)], Gpr(SrcB), CorpusOnly, GL_IR),
    f!("fmt", [(56, 8)], Modifier, CorpusOnly, GL_IR),
    raw!("b8_lo", 64, 3),
    f!("mask_release", [(67, 1)], Release(SrcB), CorpusOnly, GL_IR),
    raw!("b8_hi", 68, 20),
];

const STORE: &[Field] = &[
    f!("space", [(8, 8)], Modifier, CorpusOnly, ET),
    f!("addr_mode", [(16, 8)], Modifier, CorpusOnly, M435),
    f!("data_hi", [(24, 1)], Modifier, Hardware, M54),
    // extmode = 2*R for ALU-forwarded data (EXP-0090/0101/0141, measured)
    f!("data", [(25, 7)], Gpr(SrcD), Hardware, ET),
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
    // tilebuffer read for programmable blending: byte3 dst, byte5 render target (rt<<1), byte6
    // bit 0 read enable (even = silent zero; EXP-0147, measured) (encoding-tables.md tile_read)
    form!("tile_read", TileRead, 12, CorpusOnly, ET, [(0, 8, 0x67), (8, 8, 0x0e)], TILE_LOAD, []),
    // mask from a GPR (`67 06 54 .. 20`) / explicit sample mask at a position (`67 16 54 .. 10`)
    // (GravityLinux/mesa agx_apple9_ir.c TILE_LOAD_MASK / TILE_LOAD_COORDS)
    form!("tile_read_mask", TileRead, 12, CorpusOnly, GL_IR, [(0, 8, 0x67), (8, 8, 0x06), (88, 8, 0x20)], TILE_LOAD_MASK, []),
    form!("tile_read_at", TileRead, 12, CorpusOnly, GL_IR, [(0, 8, 0x67), (8, 8, 0x16), (88, 8, 0x10)], TILE_LOAD_NOKIND, []),
    form!("imageblock_load", TileRead, 12, CorpusOnly, ET, [(0, 8, 0x67), (8, 3, 0x6), (12, 3, 0)], rb!("b1_3" 11 1, "b1_7" 15 1, "b2" 16 8, "dst" 24 8, "b4" 32 8, "slice_off" 40 8, "b6" 48 8, "fmt" 56 8, "tail" 64 32), []),
    // fragment colour store: byte3 source GPR (reg<<1), byte5 render target (rt<<1), byte7
    // attachment format (0x4e rgba8, 0x0e rgba16f, 0x2e rgba32f, 0x22 r32f, 0x42 r8), byte1 0x16 =
    // first store after a tile setup / imageblock write (encoding-tables.md frag_color_store and
    // imageblock_store; ADevWithAnIdea/agx-re EXP-0029, M4 EXP-0050 captures)
    form!("tile_store_mask", TileStore, 12, CorpusOnly, GL_IR, [(0, 8, 0xe7), (8, 8, 0x16), (88, 8, 8)], TILE_STORE_MASK, []),
    form!("tile_store", TileStore, 12, CorpusOnly, ET, [(0, 8, 0xe7), (8, 4, 6), (13, 3, 0)], TILE_STORE, []),
    form!("tg_atomic", Atomic, 12, CorpusOnly, LEN, [(0, 8, 0x67), (8, 8, 0x03)], &[raw!("b2", 16, 8), raw!("b3", 24, 8), raw!("tail", 32, 64)], []),
    // byte1 low nibble 1 with byte2 high six bits 0x15: the atomic packet (`67 11 54 ..`, `67 21 ..`)
    form!("atomic", Atomic, 14, CorpusOnly, ET, [(0, 8, 0x67), (8, 4, 1), (18, 6, 0x15)], ATOMIC, []),
    form!("device_load", DeviceLoad, 14, Hardware, ET, [(0, 8, 0x67)], LOAD, [rch!(Dst, 63, Hardware)]),
    form!("device_store", DeviceStore, 14, Hardware, ET, [(0, 8, 0xe7)], STORE, []),
];

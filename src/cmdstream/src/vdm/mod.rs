//! The vertex data master (VDM) control stream: state updates, PPP updates, index lists
//! (draws), links, barriers and terminate. Block type is in bits 31:29 of a block's first
//! word (G13 numbering, unchanged on G16). Pointers into the render context are 32-bit
//! offsets from its base (`RENDER_CONTEXT_BASE`).
//!
//! State and index-list blocks are variable length: presence bits in the header select which
//! payload words follow. The order of those words is declared once, in `STATE_SLOTS` and
//! `INDEX_SLOTS`, and drives both decode and encode.

use crate::evidence::{AGXRE_CMDSTREAM, GENXML_G13, GENXML_G16, MESA_APPLE9};
use crate::record::Unexplained;

mod block;
mod walk;
pub use block::VdmBlock;
pub use walk::{draws, walk, Draw, DrawGrouper, VdmItem, Walker};

/// Base of the render-context aperture; VDM links and PPP pointers are 32-bit offsets from it.
/// (GravityLinux/mesa cmdbuf.xml "G16 uses a 32-bit render-context offset"; g16_render.rs.)
pub const RENDER_CONTEXT_BASE: u64 = 0x10_0000_0000;
/// Base of the USC heap; index buffers and launch programs are offsets into it.
pub const USC_BASE: u64 = 1 << 40;

const fn w(word: u32, bit: u32) -> u32 {
    word * 32 + bit
}

hw_enum! {
    /// VDM block types (bits 31:29).
    pub enum VdmBlockType {
        PppUpdate = 0 => "PPP state update",
        Barrier = 1 => "barrier",
        State = 2 => "VDM state update",
        IndexList = 3 => "index list",
        Link = 4 => "stream link",
        Tessellate = 5 => "tessellate",
        Terminate = 6 => "stream terminate",
    }
}

hw_enum! {
    /// Primitive topology of an index list.
    pub enum Primitive {
        Points = 0 => "points",
        Lines = 1 => "lines",
        LineStrip = 3 => "line strip",
        LineLoop = 5 => "line loop",
        Triangles = 6 => "triangles",
        TriangleStrip = 9 => "triangle strip",
        TriangleFan = 11 => "triangle fan",
        Quads = 14 => "quads",
        QuadStrip = 15 => "quad strip",
    }
}

hw_enum! {
    /// Index size of an indexed draw.
    pub enum IndexSize {
        U8 = 0 => "u8",
        U16 = 1 => "u16",
        U32 = 2 => "u32",
    }
}

impl IndexSize {
    /// Bytes per index, or `None` for a value no source names.
    pub fn bytes(self) -> Option<u32> {
        match self {
            IndexSize::U8 => Some(1),
            IndexSize::U16 => Some(2),
            IndexSize::U32 => Some(4),
            IndexSize::Unknown(_) => None,
        }
    }
}

record! {
    /// Points the PPP at `size_words` words of state at a render-context offset (8 bytes).
    pub struct VdmPppUpdate : 8 {
        size_words: u8 = [8, 8] plain, MESA_APPLE9;
        /// Render-context offset of the state words.
        pointer: u32 = [32, 32] plain, MESA_APPLE9;
    }
    fixed {
        // G13's pointer bits 39:32; G16 points with 32-bit context offsets.
        pointer_hi = [0, 8] == 0, MESA_APPLE9;
        block_type = [29, 3] == 0, GENXML_G13;
    }
}

record! {
    /// VDM barrier (4 bytes). T8132 render batches need bits 0, 1 and 4 together.
    pub struct VdmBarrier : 4 {
        unk_0: Unexplained = [0, 1] plain, GENXML_G16;
        unk_1: Unexplained = [1, 1] plain, GENXML_G16;
        usc_cache_inval: bool = [3, 1] plain, GENXML_G13;
        unk_4: Unexplained = [4, 1] plain, GENXML_G16;
        returns: bool = [27, 1] plain, GENXML_G13;
    }
    fixed { block_type = [29, 3] == 1, GENXML_G13; }
}

/// The barrier word T8132 Mesa emits between render batches (bits 0, 1, 4).
pub const BARRIER_G16: u32 = 0x2000_0013;

record! {
    /// Header of a VDM state update; the set bits say which payload words follow.
    pub struct VdmStateHeader : 4 {
        restart_index_present: bool = [0, 1] plain, GENXML_G13;
        vertex_word0_present: bool = [1, 1] plain, GENXML_G13;
        vertex_word1_present: bool = [2, 1] plain, GENXML_G13;
        vertex_outputs_present: bool = [3, 1] plain, GENXML_G13;
        tessellation_present: bool = [4, 1] plain, GENXML_G13;
        vertex_unknown_present: bool = [5, 1] plain, GENXML_G13;
        tessellation_scale_present: bool = [7, 1] plain, GENXML_G13;
    }
    fixed { block_type = [29, 3] == 2, GENXML_G13; }
}

record! {
    /// Primitive-restart comparand.
    pub struct VdmRestartIndex : 4 {
        value: u32 = [0, 32] plain, MESA_APPLE9;
    }
}

record! {
    /// Vertex shader word 0; T8132 Mesa writes zero (G13 register counts not used on G16).
    pub struct VdmVertexWord0 : 4 {}
}

record! {
    /// Vertex shader word 1 on G16: two words, a pipeline/state word and the vertex launch
    /// (setup) program address in 64-byte units. Mesa writes the first from its entry
    /// table state; G17P captures show 0x01000000.
    pub struct VdmVertexWord1 : 8 {
        pipeline_word: Unexplained = [0, 32] plain, MESA_APPLE9;
        /// Vertex launch program address bits 37:6 (USC heap address).
        launch: u64 = [w(1, 0), 32] shr(6), MESA_APPLE9;
    }
}

record! {
    /// Number of scalar vertex outputs (position 4 + user scalars + point size), twice.
    pub struct VdmVertexOutputs : 4 {
        count_1: u8 = [0, 8] plain, GENXML_G13;
        count_2: u8 = [8, 8] plain, GENXML_G13;
    }
}

hw_enum! {
    /// Which vertex is provoking for flat shading.
    pub enum ProvokingVertex {
        First = 0 => "vertex 0",
        Second = 1 => "vertex 1",
        Last = 2 => "vertex 2",
    }
}

record! {
    /// "Vertex unknown" on G16: flat-shading control, followed by a word T8132 Mesa
    /// always writes as zero (grouped here; inferred from the 7-word state block).
    pub struct VdmVertexUnknown : 8 {
        flat_shading_control: ProvokingVertex = [0, 2] plain, MESA_APPLE9;
        unk_4: bool = [4, 1] plain, GENXML_G13;
        unk_5: bool = [5, 1] plain, GENXML_G13;
        generate_primitive_id: bool = [6, 1] plain, GENXML_G13;
    }
}

/// A VDM state update: header plus the payload words its presence bits select.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VdmState {
    pub restart_index: Option<VdmRestartIndex>,
    pub vertex_word0: Option<VdmVertexWord0>,
    pub vertex_word1: Option<VdmVertexWord1>,
    pub vertex_outputs: Option<VdmVertexOutputs>,
    pub vertex_unknown: Option<VdmVertexUnknown>,
}

record! {
    /// Header of an index list (draw); presence bits select the payload words.
    pub struct VdmIndexListHeader : 4 {
        primitive: Primitive = [8, 8] plain, AGXRE_CMDSTREAM;
        restart_enable: bool = [16, 1] plain, MESA_APPLE9;
        index_size: IndexSize = [17, 3] plain, MESA_APPLE9;
        index_buffer_size_present: bool = [20, 1] plain, GENXML_G13;
        index_buffer_present: bool = [21, 1] plain, GENXML_G13;
        index_count_present: bool = [22, 1] plain, GENXML_G13;
        instance_count_present: bool = [23, 1] plain, GENXML_G13;
        start_present: bool = [24, 1] plain, GENXML_G13;
        indirect_buffer_present: bool = [26, 1] plain, AGXRE_CMDSTREAM;
    }
    fixed {
        // G13's index buffer bits 39:32; G16 carries the high bits in a trailing word.
        index_buffer_hi = [0, 8] == 0, MESA_APPLE9;
        block_type = [29, 3] == 3, GENXML_G13;
    }
}

record! {
    /// Indirect draw arguments pointer, stored high word then low word.
    pub struct VdmIndirectBuffer : 8 {
        address_hi: u32 = [0, 32] plain, AGXRE_CMDSTREAM;
        address_lo: u32 = [32, 32] plain, AGXRE_CMDSTREAM;
    }
}

/// An index list: a draw, direct or indexed or indirect.
#[derive(Debug, Clone, PartialEq)]
pub struct VdmIndexList {
    pub header: VdmIndexListHeader,
    /// Index buffer VA bits 31:0 (USC heap).
    pub buffer_lo: Option<u32>,
    pub indirect: Option<VdmIndirectBuffer>,
    /// Vertex count (non-indexed) or index count.
    pub count: Option<u32>,
    pub instances: Option<u32>,
    /// First vertex, or signed base vertex for indexed draws.
    pub start: Option<u32>,
    /// Index range in 32-bit words minus one, counted from the word holding the first index
    /// (T8132 Mesa, measured).
    pub buffer_size_words_minus1: Option<u32>,
    /// Index buffer VA bits 47:40 (1 for the USC heap); G16 trailing word (T8132 Mesa).
    pub buffer_hi: Option<u32>,
}

record! {
    /// Jump or call to more VDM stream at a render-context offset (8 bytes).
    pub struct VdmLink : 8 {
        with_return: bool = [28, 1] plain, GENXML_G13;
        /// Render-context offset of the target.
        target: u32 = [32, 32] plain, GENXML_G16;
    }
    fixed {
        // "G16 uses a 32-bit render-context offset: Target hi must be zero."
        target_hi = [0, 8] == 0, GENXML_G16;
        block_type = [29, 3] == 4, GENXML_G13;
    }
}

record! {
    /// Ends the VDM stream (0xc0000000, 4 bytes on G16).
    pub struct VdmTerminate : 4 {}
    fixed { block_type = [29, 3] == 6, MESA_APPLE9; }
}

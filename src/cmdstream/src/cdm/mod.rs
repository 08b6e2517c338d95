//! The compute data master (CDM) control stream: launch records (direct and indirect),
//! links (with and without return), barriers, terminate and return.
//!
//! A block's type is in bits 31:29 of its first word; launches carry a mode in bits 28:27.
//! Block sizes on G16 are those the G16 kernel's CPU walker accepts.

use crate::evidence::{AGXRE_CMDSTREAM, GENXML_G13, KERNEL_CDM, MESA_APPLE9_LAUNCH};
use crate::record::{PackError, Record, Unexplained};

mod stream;
pub use stream::{block_size, walk, CdmBlock, CdmItem, CdmReader};

hw_enum! {
    /// CDM block types (bits 31:29 of a block's first word).
    pub enum CdmBlockType {
        Launch = 0 => "launch",
        Link = 1 => "stream link",
        Terminate = 2 => "stream terminate",
        Barrier = 3 => "barrier",
        Return = 4 => "stream return",
    }
}

hw_enum! {
    /// How a launch gets its grid (bits 28:27 of a launch's first word).
    pub enum CdmMode {
        /// Global size (threads) and local size inline.
        Direct = 0 => "direct",
        /// Pointer to three 32-bit global sizes in threads; local size inline.
        IndirectGlobal = 1 => "indirect global",
        /// Pointer to six 32-bit words: global sizes in threads, then local sizes.
        IndirectLocal = 2 => "indirect local",
    }
}

/// Block type of a CDM header word.
pub fn block_type(header: u32) -> u32 {
    header >> 29
}

/// Launch mode of a CDM launch header word.
pub fn launch_mode(header: u32) -> u32 {
    (header >> 27) & 3
}

// The first 16 bytes are common to all launch modes: header word, a constant word, and the
// launch (setup) program address split into a low word (VA bits 37:6) and a high word
// (VA bits 47:40 in bits 7:0, plus bit 30 which the G16 kernel requires to be set).
macro_rules! cdm_launch {
    ($(#[$m:meta])* $name:ident : $size:literal, mode = $mode:literal { $($tail:tt)* }) => {
        record! {
            $(#[$m])*
            pub struct $name : $size {
                /// Set in every capture; meaning not established (agx-re: "bit19 always set").
                unk_19: Unexplained = [19, 1] plain, AGXRE_CMDSTREAM;
                /// Set by Metal for register-heavy shaders ("register/occupancy tier").
                register_tier: bool = [23, 1] plain, AGXRE_CMDSTREAM;
                /// Constant 0x01000040 in the T8132 direct-buffers ABI (0x01000000 in older
                /// captures); meaning not established.
                unk_word1: Unexplained = [32, 32] plain, MESA_APPLE9_LAUNCH;
                /// Launch program address bits 37:6.
                pipeline_lo: u64 = [64, 32] shr(6), KERNEL_CDM;
                /// Launch program address bits 47:40.
                pipeline_hi: u8 = [96, 8] plain, KERNEL_CDM;
                $($tail)*
            }
            fixed {
                pipeline_valid = [126, 1] == 1, KERNEL_CDM;
                mode = [27, 2] == $mode, KERNEL_CDM;
                block_type = [29, 3] == 0, KERNEL_CDM;
            }
        }
        impl $name {
            /// The launch program's GPU VA.
            pub fn pipeline(&self) -> u64 {
                ((self.pipeline_hi as u64) << 40) | self.pipeline_lo
            }
            /// Sets the launch program VA (64-byte aligned; bits 39:38 cannot be encoded).
            pub fn set_pipeline(&mut self, va: u64) -> Result<(), PackError> {
                if va & 0x3f != 0 || va & (3 << 38) != 0 || va >> 48 != 0 {
                    return Err(PackError::Misaligned {
                        record: stringify!($name), field: "pipeline", value: va, align: 64,
                    });
                }
                self.pipeline_lo = va & 0x3f_ffff_ffc0;
                self.pipeline_hi = (va >> 40) as u8;
                Ok(())
            }
        }
    };
}

cdm_launch! {
    /// Direct launch: global size in threads and local size inline (0x28 bytes).
    CdmLaunchDirect : 0x28, mode = 0 {
        /// Global size X in threads (not threadgroups).
        global_x: u32 = [128, 32] plain, AGXRE_CMDSTREAM;
        global_y: u32 = [160, 32] plain, AGXRE_CMDSTREAM;
        global_z: u32 = [192, 32] plain, AGXRE_CMDSTREAM;
        local_x: u32 = [224, 32] plain, AGXRE_CMDSTREAM;
        local_y: u32 = [256, 32] plain, AGXRE_CMDSTREAM;
        local_z: u32 = [288, 32] plain, AGXRE_CMDSTREAM;
    }
}

cdm_launch! {
    /// Indirect launch, global size read from memory, local size inline (0x24 bytes).
    CdmLaunchIndirectGlobal : 0x24, mode = 1 {
        /// Indirect buffer address bits 63:32 (stored before the low half).
        indirect_hi: u32 = [128, 32] plain, KERNEL_CDM;
        indirect_lo: u32 = [160, 32] plain, KERNEL_CDM;
        local_x: u32 = [192, 32] plain, MESA_APPLE9_LAUNCH;
        local_y: u32 = [224, 32] plain, MESA_APPLE9_LAUNCH;
        local_z: u32 = [256, 32] plain, MESA_APPLE9_LAUNCH;
    }
}

cdm_launch! {
    /// Indirect launch, global and local sizes read from memory (0x18 bytes).
    CdmLaunchIndirectLocal : 0x18, mode = 2 {
        indirect_hi: u32 = [128, 32] plain, KERNEL_CDM;
        indirect_lo: u32 = [160, 32] plain, KERNEL_CDM;
    }
}

macro_rules! indirect_address {
    ($($t:ty),*) => {$(
        impl $t {
            /// Address of the indirect grid words.
            pub fn indirect(&self) -> u64 {
                ((self.indirect_hi as u64) << 32) | self.indirect_lo as u64
            }
            /// Sets the indirect grid address (4-byte aligned).
            pub fn set_indirect(&mut self, va: u64) {
                self.indirect_hi = (va >> 32) as u32;
                self.indirect_lo = va as u32;
            }
        }
    )*};
}
indirect_address!(CdmLaunchIndirectGlobal, CdmLaunchIndirectLocal);

record! {
    /// Jump (or call, with return) to another CDM stream (8 bytes).
    pub struct CdmLink : 8 {
        /// Target VA bits 39:32.
        target_hi: u8 = [0, 8] plain, KERNEL_CDM;
        /// Push the following block's address; a `CdmReturn` resumes there.
        with_return: bool = [28, 1] plain, KERNEL_CDM;
        /// Target VA bits 31:0.
        target_lo: u32 = [32, 32] plain, KERNEL_CDM;
    }
    fixed { block_type = [29, 3] == 1, KERNEL_CDM; }
}

impl CdmLink {
    /// A link to `target` (4-byte aligned, below 1 << 40).
    pub fn to(target: u64, with_return: bool) -> Result<Self, PackError> {
        if target & 3 != 0 || target >> 40 != 0 {
            return Err(PackError::Misaligned {
                record: "CdmLink",
                field: "target",
                value: target,
                align: 4,
            });
        }
        Ok(CdmLink {
            target_hi: (target >> 32) as u8,
            with_return,
            target_lo: target as u32,
            unknown: [0; 2],
        })
    }
    pub fn target(&self) -> u64 {
        ((self.target_hi as u64) << 32) | self.target_lo as u64
    }
}

record! {
    /// Ends the compute stream (4 bytes).
    pub struct CdmTerminate : 4 {}
    fixed { block_type = [29, 3] == 2, KERNEL_CDM; }
}

record! {
    /// Cache/ordering barrier (4 bytes). T8132 Mesa emits 0x60000160 between launches and
    /// 0x600fffff as a full barrier; the G16 kernel prepends 0x600fffff to every job.
    pub struct CdmBarrier : 4 {
        /// Barrier domain bits; individual meanings not established on G16.
        unk_0_2: Unexplained = [0, 3] plain, GENXML_G13;
        /// Invalidate the USC cache (G13 name).
        usc_cache_inval: bool = [3, 1] plain, GENXML_G13;
        /// Barrier domain bits; individual meanings not established on G16.
        unk_4_20: Unexplained = [4, 17] plain, GENXML_G13;
        unk_24: Unexplained = [24, 1] plain, GENXML_G13;
        unk_26: Unexplained = [26, 1] plain, GENXML_G13;
        returns: bool = [27, 1] plain, GENXML_G13;
    }
    fixed { block_type = [29, 3] == 3, KERNEL_CDM; }
}

impl CdmBarrier {
    /// Decodes a raw barrier word (for the constants drivers use).
    pub fn from_word(word: u32) -> Result<Self, crate::DecodeError> {
        Self::unpack(&word.to_le_bytes())
    }
}

/// 0x60000160: barrier Mesa emits after each launch on T8132.
pub const BARRIER_AFTER_LAUNCH: u32 = 0x6000_0160;
/// 0x600fffff: full barrier (Mesa's Apple8-style tail; the G16 kernel's job prologue).
pub const BARRIER_FULL: u32 = 0x600f_ffff;

record! {
    /// Returns to the block after the last link-with-return (4 bytes).
    pub struct CdmReturn : 4 {}
    fixed { block_type = [29, 3] == 4, KERNEL_CDM; }
}

/// Constant words T8132 Mesa's direct-buffers compute ABI writes (agx_apple9_launch.c):
/// header config 0x00880000 (bits 19 and 23) and word 1 = 0x01000040.
pub const T8132_WORD1: u64 = 0x0100_0040;

impl CdmLaunchDirect {
    /// A direct launch with the T8132 constants: `pipeline` is the launch program VA (64-byte
    /// aligned), sizes are in threads.
    pub fn t8132(pipeline: u64, global: [u32; 3], local: [u32; 3]) -> Result<Self, PackError> {
        let mut l = CdmLaunchDirect {
            unk_19: Unexplained(1),
            register_tier: true,
            unk_word1: Unexplained(T8132_WORD1),
            global_x: global[0],
            global_y: global[1],
            global_z: global[2],
            local_x: local[0],
            local_y: local[1],
            local_z: local[2],
            ..Default::default()
        };
        l.set_pipeline(pipeline)?;
        Ok(l)
    }
}

impl CdmLaunchIndirectGlobal {
    /// An indirect launch reading three global sizes (threads) at `indirect`.
    pub fn t8132(pipeline: u64, indirect: u64, local: [u32; 3]) -> Result<Self, PackError> {
        let mut l = CdmLaunchIndirectGlobal {
            unk_19: Unexplained(1),
            register_tier: true,
            unk_word1: Unexplained(T8132_WORD1),
            local_x: local[0],
            local_y: local[1],
            local_z: local[2],
            ..Default::default()
        };
        l.set_pipeline(pipeline)?;
        l.set_indirect(indirect);
        Ok(l)
    }
}

impl CdmLaunchIndirectLocal {
    /// An indirect launch reading global then local sizes (six words) at `indirect`.
    pub fn t8132(pipeline: u64, indirect: u64) -> Result<Self, PackError> {
        let mut l = CdmLaunchIndirectLocal {
            unk_19: Unexplained(1),
            register_tier: true,
            unk_word1: Unexplained(T8132_WORD1),
            ..Default::default()
        };
        l.set_pipeline(pipeline)?;
        l.set_indirect(indirect);
        Ok(l)
    }
}

/// Where a launch's grid comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grid {
    /// Sizes in threads.
    Direct { global: [u32; 3], local: [u32; 3] },
    /// Three global sizes (threads) at `pointer`; local size inline.
    IndirectGlobal { pointer: u64, local: [u32; 3] },
    /// Three global sizes then three local sizes at `pointer`.
    IndirectLocal { pointer: u64 },
}

/// The common view of any launch record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launch {
    /// Launch (setup) program VA.
    pub pipeline: u64,
    pub register_tier: bool,
    pub grid: Grid,
}

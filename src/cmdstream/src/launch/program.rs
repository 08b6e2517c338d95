//! Builds complete launcher (setup) programs. Every instruction is produced by `agx16-isa`'s
//! encoder; this module only decides the sequence and its parameters.
//!
//! Sequence (GravityLinux/mesa README.apple9-launchers.md "Generated launch control", run on
//! T8132): two literal moves put the resource-table address in the root pair, pointer loads
//! fill pending registers from it (highest pair first), then stage allocation, stage target,
//! publication/scratch frame, one argument transfer per pending word (the first waits for
//! the loads) and STOP, whose completion starts the selected entry.

use super::LaunchError;
use agx16_isa::meaning::{self, StageAllocation};
use agx16_isa::{form_by_name, Instr, Part, Role};

/// Root pair holding the resource-table address (r2:r3; r4:r5 and r60:r61 also ran).
pub const ROOT_PAIR: u32 = 2;
/// First pending register of the pointer loads (18; bases 8 and 24 also ran).
pub const PENDING_BASE: u32 = 18;
/// Graphics stages load six roots: texture, sampler, buffer table and three reserved slots.
pub const GRAPHICS_ROOT_WORDS: u32 = 12;
/// Launch allocation sizes in the batch pool (graphics 256 bytes, compute 1024).
pub const GRAPHICS_LAUNCH_BYTES: usize = 256;
pub const COMPUTE_LAUNCH_BYTES: usize = 1024;

/// Parameters every stage's launcher carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchCommon {
    /// GPU address of the resource record (graphics roots or `ComputeResources`).
    pub resource_table: u64,
    /// USC byte offset of the stage's entry (see `entry_offset`).
    pub entry_offset: u64,
    /// The compiler's publication high-water mark in 32-bit words.
    pub publications: u32,
    /// Frame extent A: bytes of word-indexed spill slots / returned atomics.
    pub extent_a: u16,
    /// Frame extent B: the driver passes the spill size; its role is not established.
    pub extent_b: u16,
}

/// Which stage a launcher enters and that stage's allocation parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaunchStage {
    Vertex,
    Fragment {
        samples: u32,
        tile_bytes: u32,
    },
    /// `resources`: visible buffers (1..=18); `threadgroup_bytes`: 0, 128, 256, 512, 1024.
    Compute {
        resources: usize,
        threadgroup_bytes: u32,
    },
}

/// A built launcher program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchProgram {
    /// The instructions in order.
    pub instrs: Vec<Instr>,
    /// Their encoding (exactly the program; pad to the allocation size when uploading).
    pub bytes: Vec<u8>,
    /// Byte position of the 24-bit stage-target field (C in the write-up).
    pub target_field: usize,
}

impl LaunchStage {
    /// 32-bit root words the launcher loads and transfers.
    pub fn root_words(&self) -> Result<u32, LaunchError> {
        match *self {
            LaunchStage::Vertex | LaunchStage::Fragment { .. } => Ok(GRAPHICS_ROOT_WORDS),
            LaunchStage::Compute { resources: 0, .. } => Err(LaunchError::NoResources),
            LaunchStage::Compute { resources, .. } if resources > 18 => {
                Err(LaunchError::TooManyResources(resources))
            }
            LaunchStage::Compute { resources, .. } => Ok(2 * (resources as u32 + 1)),
        }
    }

    fn allocation(&self) -> Result<StageAllocation, LaunchError> {
        Ok(match *self {
            LaunchStage::Vertex => StageAllocation::Empty,
            LaunchStage::Compute {
                threadgroup_bytes: 0,
                ..
            } => StageAllocation::Empty,
            LaunchStage::Compute {
                threadgroup_bytes, ..
            } => {
                if !meaning::THREADGROUP_SIZES.contains(&threadgroup_bytes) {
                    return Err(LaunchError::ThreadgroupMemory(threadgroup_bytes));
                }
                StageAllocation::Threadgroup {
                    bytes: threadgroup_bytes,
                }
            }
            LaunchStage::Fragment {
                samples,
                tile_bytes,
            } => {
                super::fragment_allocation_mode(samples)?;
                let max = if samples == 1 { 128 } else { 64 };
                if tile_bytes > max {
                    return Err(LaunchError::TileBytes {
                        bytes: tile_bytes,
                        samples,
                    });
                }
                StageAllocation::Tile {
                    samples: samples as u8,
                    units: tile_bytes.div_ceil(8) as u8,
                }
            }
        })
    }

    /// Allocation size of the launcher in the batch pool.
    pub fn launch_bytes(&self) -> usize {
        match self {
            LaunchStage::Compute { .. } => COMPUTE_LAUNCH_BYTES,
            _ => GRAPHICS_LAUNCH_BYTES,
        }
    }
}

fn literal(dst: u32, value: u32) -> Result<Instr, LaunchError> {
    let form = form_by_name("mov_imm32")
        .ok_or_else(|| LaunchError::Encode("agx16-isa has no mov_imm32".into()))?;
    let mut i = Instr::new(form);
    i.set_gpr(Role::Dst, dst, Part::Full)?
        .set("imm", value as u64)?;
    Ok(i)
}

/// Builds the launcher for `stage`. Parameters outside what ran on T8132 are errors.
pub fn build_launcher(stage: LaunchStage, p: &LaunchCommon) -> Result<LaunchProgram, LaunchError> {
    build(stage, p, None)
}

/// Builds the launcher placed at `launch_va` that tail-jumps (`JMP_EXEC_ANY`) to a compiled
/// setup body at `setup_va` after the argument transfers; the setup's own STOP starts the main.
/// Both addresses even and within 4 GiB of each other (README.apple9-launchers.md "Compiler-
/// generated uniform setup", T8132 runs with changing UBO contents).
pub fn build_launcher_with_setup(
    stage: LaunchStage,
    p: &LaunchCommon,
    launch_va: u64,
    setup_va: u64,
) -> Result<LaunchProgram, LaunchError> {
    build(stage, p, Some((launch_va, setup_va)))
}

fn build(
    stage: LaunchStage,
    p: &LaunchCommon,
    setup: Option<(u64, u64)>,
) -> Result<LaunchProgram, LaunchError> {
    if p.publications > 1022 {
        return Err(LaunchError::Publications(p.publications));
    }
    super::stage_target(p.entry_offset)?;
    let words = stage.root_words()?;
    let roots = words / 2;
    let mut instrs = vec![
        literal(ROOT_PAIR, p.resource_table as u32)?,
        literal(ROOT_PAIR + 1, (p.resource_table >> 32) as u32)?,
    ];
    // Highest pair first; a trailing odd pointer uses the one-pointer load.
    for i in (0..roots).step_by(2).rev() {
        let count = if i + 2 <= roots { 2 } else { 1 };
        instrs.push(meaning::pointer_load_instr(
            PENDING_BASE + 2 * i,
            ROOT_PAIR,
            i as u8,
            count,
        )?);
    }
    instrs.push(meaning::stage_allocation_instr(stage.allocation()?)?);
    instrs.push(meaning::stage_target_instr(p.entry_offset)?);
    instrs.push(meaning::launch_frame_instr(
        p.publications,
        p.extent_a,
        p.extent_b,
    )?);
    for w in 0..words {
        instrs.push(meaning::arg_store_instr(w, PENDING_BASE + w, w == 0)?);
    }
    if let Some((launch_va, setup_va)) = setup {
        let at: usize = instrs.iter().map(|i| i.form.len as usize).sum();
        let from = launch_va + at as u64;
        let displacement = setup_va as i64 - from as i64;
        if (launch_va | setup_va) & 1 != 0 || displacement.abs() > u32::MAX as i64 {
            return Err(LaunchError::BodyOutOfReach {
                entry: from,
                body: setup_va,
            });
        }
        let jump = super::jump_any(displacement)?;
        instrs.push(agx16_isa::decode(&jump).map_err(|e| LaunchError::Encode(e.to_string()))?);
    }
    instrs.push(Instr::build("stop", &[])?);

    let mut bytes = Vec::new();
    let mut target_field = 0;
    for i in &instrs {
        if i.form.name == "stage_target" {
            target_field = bytes.len() + 2;
        }
        bytes.extend(i.encode_checked()?);
    }
    if bytes.len() > stage.launch_bytes() {
        return Err(LaunchError::Program {
            at: bytes.len(),
            what: "launcher exceeds its allocation".into(),
        });
    }
    Ok(LaunchProgram {
        instrs,
        bytes,
        target_field,
    })
}

//! Following a stage's launcher (setup) program to its body, strictly through agx16-isa.
//!
//! A G16 stage is entered through a short program in the USC heap: root-literal moves,
//! pointer loads, a stage allocation, a stage target (`2*entry + 0x2a`), a publication /
//! scratch frame, argument transfers and STOP. The target selects an entry in the entry
//! arena, which jumps (`JMP_EXEC_ANY`, the 10-byte `jump` form) to the independently placed
//! body and stops (GravityLinux/mesa README.apple9-launchers.md and agx_apple9.c
//! `apple9_build_body_entry`, run on T8132; forms and meanings in agx16-isa
//! `table/launch.rs`, `meaning/launch.rs`). Anything else in a launcher is refused.

use super::unestablished;
use crate::error::{hex, SimError};
use crate::mem::GpuMemory;
use agx16_cmdstream::vdm::USC_BASE;
use agx16_isa::meaning::{stage_allocation, stage_entry, LaunchFrame, StageAllocation};
use agx16_isa::{Evidence, Op, Operand, Role};

/// What a launcher sets up.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub launcher: u64,
    pub allocation: Option<StageAllocation>,
    /// VA of the entry the stage target selects.
    pub entry: u64,
    /// VA of the stage body the entry jumps to.
    pub body: u64,
    pub pointer_loads: usize,
    pub argument_words: usize,
}

/// Longest launcher the model reads (GravityLinux launchers are well under this).
const MAX_LAUNCHER: usize = 512;

/// Reads up to `len` mapped bytes at `va` (stops at the first unmapped 16-byte granule).
fn read_mapped(mem: &dyn GpuMemory, va: u64, len: usize) -> Result<Vec<u8>, SimError> {
    let mut out = Vec::new();
    let mut chunk = [0u8; 16];
    while out.len() < len {
        if mem.read(va + out.len() as u64, &mut chunk).is_err() {
            break;
        }
        out.extend_from_slice(&chunk);
    }
    if out.is_empty() {
        let mut b = [0u8; 2];
        mem.read(va, &mut b)?;
    }
    Ok(out)
}

fn refuse(stage: &str, va: u64, bytes: &[u8], what: String) -> SimError {
    let mut e = unestablished(va, stage, what);
    if let SimError::Unestablished { bytes: b, .. } = &mut e {
        *b = hex(bytes);
    }
    e
}

/// Decodes the launcher at `va` and follows its stage target to the body.
pub fn follow(mem: &dyn GpuMemory, va: u64, stage: &str) -> Result<Launch, SimError> {
    let bytes = read_mapped(mem, va, MAX_LAUNCHER)?;
    let mut l = Launch {
        launcher: va,
        allocation: None,
        entry: 0,
        body: 0,
        pointer_loads: 0,
        argument_words: 0,
    };
    let mut stopped = false;
    for item in agx16_isa::split(&bytes) {
        let (off, i) =
            item.map_err(|e| refuse(stage, va, &[], format!("launcher does not decode: {e}")))?;
        let at = va + off as u64;
        let raw = &bytes[off..off + i.form.len as usize];
        if i.form.evidence != Evidence::Hardware {
            return Err(refuse(
                stage,
                at,
                raw,
                format!("launcher uses {} ({:?})", i.form.name, i.form.evidence),
            ));
        }
        match i.form.op {
            Op::PointerLoad => l.pointer_loads += 1,
            Op::ArgumentStore => l.argument_words += 1,
            Op::MovImm | Op::LaunchFrame => {}
            Op::StageAllocation => {
                let (a, _) = stage_allocation(&i).map_err(|e| refuse(stage, at, raw, e))?;
                l.allocation = Some(a);
            }
            Op::StageTarget => {
                let entry = stage_entry(&i).map_err(|e| refuse(stage, at, raw, e))?;
                l.entry = USC_BASE + entry;
            }
            Op::Stop => {
                stopped = true;
                break;
            }
            _ => {
                return Err(refuse(
                    stage,
                    at,
                    raw,
                    format!("{} is not a launcher operation", i.form.name),
                ));
            }
        }
    }
    if !stopped {
        return Err(refuse(
            stage,
            va,
            &[],
            "launcher has no STOP within 512 bytes".into(),
        ));
    }
    if l.entry == 0 {
        return Err(refuse(
            stage,
            va,
            &[],
            "launcher has no stage target".into(),
        ));
    }
    // The entry: one jump to the body (offset relative to the jump), then STOP.
    let entry = read_mapped(mem, l.entry, 16)?;
    let j = agx16_isa::decode_at(&entry, 0).map_err(|e| {
        refuse(
            "stage entry",
            l.entry,
            &[],
            format!("entry does not decode: {e}"),
        )
    })?;
    let raw = &entry[..(j.form.len as usize).min(entry.len())];
    let offset = match (j.form.op, j.operand(Role::SrcA).map(|o| o.value)) {
        (Op::Jump, Some(Operand::ImmInt(o))) => o,
        _ => {
            return Err(refuse(
                "stage entry",
                l.entry,
                raw,
                format!("entry starts with {}, not a jump", j.form.name),
            ))
        }
    };
    l.body = l.entry.wrapping_add_signed(offset);
    Ok(l)
}

/// What a render stage's launcher hands its body when it runs as a setup invocation.
#[derive(Debug, Clone, PartialEq)]
pub struct StageSetup {
    pub launcher: u64,
    pub allocation: StageAllocation,
    pub entry: u64,
    pub body: u64,
    /// The argument words the transfers (and a compiled setup body) wrote: the body's
    /// uniform registers, word w = uniform w (selector 2w in 16-bit units).
    pub arguments: Vec<u32>,
    /// The publication/scratch frame (publication capacity in 32-bit words, extents).
    pub frame: LaunchFrame,
}

/// Budget of one setup invocation (launchers are a few dozen instructions; a compiled setup
/// body loops at most over its uniform block).
const SETUP_BUDGET: u64 = 1 << 20;

/// Which stage a launcher enters, for the allocation check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RenderStage {
    Vertex,
    Fragment,
}

/// Runs the launcher at `va` as the M4 runs every stage's launcher: one setup invocation
/// on the shader core (`crate::dispatch::run_setup`, the same execution compute launches
/// get), whose pointer loads read the root record through the job's VM and whose argument
/// transfers fill the body's uniform registers; its STOP starts the entry, whose jump gives
/// the body.
///
/// Evidence: GravityLinux/mesa src/gallium/drivers/asahi/README.apple9-launchers.md
/// ("Resource ABI": VS, FS and coverage-FS readouts on T8132 matched both halves of all six
/// root pointers, including distinct values in the reserved slots, as argument words;
/// "Generated launch control": graphics uses the same record as compute; "Compiler-generated
/// uniform setup": setup results are read by the main "through modeled uniform operands",
/// VS/FS use validated natively) and agx_apple9.c `agx_apple9_prepare_draw` (one launcher
/// per stage per draw, root record of texture, sampler and buffer tables). The allocation
/// must be the stage's: zero-size for vertex, a tile layout for fragment (same README,
/// "Generated launch control"); anything else is refused.
pub fn run_stage_setup(
    mem: &dyn GpuMemory,
    va: u64,
    stage: RenderStage,
) -> Result<StageSetup, SimError> {
    let name = match stage {
        RenderStage::Vertex => "vertex launcher",
        RenderStage::Fragment => "fragment launcher",
    };
    let s = crate::dispatch::run_setup(mem, va, USC_BASE, SETUP_BUDGET).map_err(|e| match e {
        SimError::Launch(w) => unestablished(va, name, w),
        SimError::Unestablished {
            pc,
            bytes,
            form,
            what,
        } => SimError::Unestablished {
            pc,
            bytes,
            form,
            what: format!("{name}: {what}"),
        },
        other => other,
    })?;
    let allocation = s
        .setup
        .allocation
        .ok_or_else(|| unestablished(va, name, "launcher without a stage allocation"))?;
    let fits = matches!(
        (stage, allocation),
        (RenderStage::Vertex, StageAllocation::Empty)
            | (RenderStage::Fragment, StageAllocation::Tile { .. })
    );
    if !fits {
        return Err(unestablished(
            va,
            name,
            format!(
                "{allocation:?} is not a {} allocation (vertex setup uses the zero-size form, \
                 fragment setup a tile layout)",
                match stage {
                    RenderStage::Vertex => "vertex",
                    RenderStage::Fragment => "fragment",
                }
            ),
        ));
    }
    let frame = s
        .setup
        .frame
        .ok_or_else(|| unestablished(va, name, "launcher without a launch frame"))?;
    Ok(StageSetup {
        launcher: va,
        allocation,
        entry: s.entry_va,
        body: s.body_va,
        arguments: s.arguments,
        frame,
    })
}

/// Per-invocation scratch bytes of a render stage: its frame's extent A, the byte capacity of
/// the word-indexed spill slots as for compute (GravityLinux/mesa
/// src/gallium/drivers/asahi/README.apple9-launchers.md "Resource ABI": measured on T8132 in
/// compute, "graphics uses the same record and resource ABI", and that driver's spilling
/// VS/FS bodies ran on T8132; `core::scratch` has the access rules). Beyond the largest extent
/// exercised it is refused like a compute launch's.
pub fn stage_scratch(frame: &LaunchFrame, launcher: u64) -> Result<u32, SimError> {
    let bytes = frame.extent_a as u32;
    if bytes > crate::core::scratch::MAX_SCRATCH_BYTES {
        return Err(super::unestablished(
            launcher,
            "stage launcher",
            format!(
                "{bytes} bytes of scratch per invocation: beyond the {} bytes exercised on T8132",
                crate::core::scratch::MAX_SCRATCH_BYTES
            ),
        ));
    }
    Ok(bytes)
}

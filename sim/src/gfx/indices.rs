//! Index lists: which vertex ids a draw visits, in order, with primitive restarts.
//!
//! Direct draws visit `start..start+count`. Indexed draws read u8/u16/u32 indices
//! (little-endian) from the index buffer and add the signed base vertex (`start`); an index
//! equal to the latched restart value ends the current primitive run when restart is enabled
//! (GravityLinux/mesa agx_apple9.c draw emission; G13 genxml; inferred semantics).

use super::stream::DrawState;
use super::{render_error, unestablished};
use crate::error::SimError;
use crate::mem::GpuMemory;
use agx16_cmdstream::vdm::IndexSize;

/// Vertex ids of one draw split at restarts (each run is assembled independently).
pub fn vertex_runs(mem: &dyn GpuMemory, draw: &DrawState) -> Result<Vec<Vec<u32>>, SimError> {
    let list = &draw.index_list;
    let count = list
        .count
        .ok_or_else(|| render_error(format!("draw at {:#x} has no count", draw.at)))?;
    let start = list.start.unwrap_or(0);
    let Some(buffer) = list.index_buffer() else {
        let ids = (0..count).map(|i| start.wrapping_add(i)).collect();
        return Ok(vec![ids]);
    };
    let h = &list.header;
    let size = match h.index_size {
        IndexSize::Unknown(v) => {
            return Err(unestablished(
                draw.at,
                "VDM index list",
                format!("index size {v}"),
            ))
        }
        s => s.bytes().unwrap_or(4) as u64,
    };
    // The draw announces its index range in words from the word holding the first index;
    // reading past it is a stream error rather than a silent over-read.
    let words = list.buffer_size_words_minus1.map(|w| w as u64 + 1);
    let need = (buffer & 3) + count as u64 * size;
    if let Some(words) = words {
        if need > words * 4 {
            return Err(render_error(format!(
                "draw at {:#x}: {count} indices of {size} B need {need} B, the list declares {} B",
                draw.at,
                words * 4
            )));
        }
    }
    let mut bytes = vec![0u8; (count as u64 * size) as usize];
    mem.read(buffer, &mut bytes)?;
    let restart = if h.restart_enable {
        let r = draw.state.restart_index.as_ref().ok_or_else(|| {
            render_error(format!(
                "draw at {:#x} enables restart without a restart index",
                draw.at
            ))
        })?;
        Some(r.value)
    } else {
        None
    };
    let mut runs = vec![Vec::with_capacity(count as usize)];
    let mut push = |index: u32| {
        if Some(index) == restart {
            runs.push(Vec::new());
        } else if let Some(run) = runs.last_mut() {
            run.push(index.wrapping_add(start));
        }
    };
    match size {
        1 => bytes.iter().for_each(|&b| push(b as u32)),
        2 => bytes
            .chunks_exact(2)
            .for_each(|c| push(u16::from_le_bytes([c[0], c[1]]) as u32)),
        _ => bytes
            .chunks_exact(4)
            .for_each(|c| push(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))),
    }
    runs.retain(|r| !r.is_empty());
    Ok(runs)
}

//! The VDM control stream as the render model consumes it: walked and unpacked by
//! agx16-cmdstream (links, calls, returns, barriers, terminate), grouped into draws, each
//! with its latched vertex state and its PPP page.

use super::command::RenderCommand;
use super::memory::Reader;
use super::{render_error, unestablished};
use crate::error::SimError;
use crate::mem::GpuMemory;
use agx16_cmdstream::ppp::PppPage;
use agx16_cmdstream::print::PrintOptions;
use agx16_cmdstream::stream::WalkLimits;
use agx16_cmdstream::vdm::{self, VdmBlock, VdmIndexList, VdmState};

/// One draw with the state it runs under.
#[derive(Debug, Clone)]
pub struct DrawState {
    /// VA of the index-list block (for error messages).
    pub at: u64,
    pub state: VdmState,
    pub page: PppPage,
    pub index_list: VdmIndexList,
}

/// Blocks one render may walk. The hardware has no documented bound; this only stops a
/// looping stream (links are followed without a cycle check).
const MAX_BLOCKS: usize = 1 << 20;

/// Walks the command's VDM stream into draws.
pub fn read_draws(mem: &dyn GpuMemory, cmd: &RenderCommand) -> Result<Vec<DrawState>, SimError> {
    let reader = Reader(mem);
    let limits = WalkLimits {
        max_blocks: MAX_BLOCKS,
        ..WalkLimits::default()
    };
    // One pass over the blocks, grouped into draws as they come (no list of every block).
    // The stream's own errors come first: a refused block is reported once the walk is
    // complete.
    let mut grouper = vdm::DrawGrouper::default();
    let mut draws = Vec::new();
    let mut refused = None;
    for it in vdm::Walker::new(&reader, cmd.raw.vdm_ctrl_stream_base.0, limits) {
        let it = it.map_err(|e| render_error(format!("VDM stream: {e}")))?;
        if refused.is_none() {
            refused = refusal(&it);
        }
        draws.extend(grouper.push(&it));
    }
    if let Some(e) = refused {
        return Err(e);
    }
    let mut out: Vec<DrawState> = Vec::with_capacity(draws.len());
    for d in draws {
        // PPP state is latched: a draw without updates keeps the previous draw's page.
        let page = if !d.ppp_updates.is_empty() {
            let p = PppPage::from_updates(&reader, &d.ppp_updates)
                .map_err(|e| render_error(format!("PPP state of the draw at {:#x}: {e}", d.at)))?;
            if let Some(what) = unknown_records(&p) {
                return Err(unestablished(d.at, "PPP page", what));
            }
            p
        } else {
            match out.last() {
                Some(prev) => prev.page.clone(),
                None => {
                    return Err(render_error(format!(
                        "draw at {:#x} has no PPP state",
                        d.at
                    )))
                }
            }
        };
        out.push(DrawState {
            at: d.at,
            state: d.state,
            page,
            index_list: d.index_list,
        });
    }
    Ok(out)
}

/// Why the model refuses a walked block: undocumented bits or values, or an indirect draw.
fn refusal(it: &vdm::VdmItem) -> Option<SimError> {
    if !it.block.fully_known() {
        let (text, _) = it.block.format(2, PrintOptions::default());
        return Some(unestablished(
            it.at,
            "VDM block",
            format!("undocumented bits or values:\n{text}"),
        ));
    }
    match &it.block {
        VdmBlock::IndexList(d) if d.indirect.is_some() => Some(unestablished(
            it.at,
            "VDM index list",
            "indirect draw argument layout on G16",
        )),
        _ => None,
    }
}

/// Names the PPP records holding undocumented bits or enum values, with their dumps.
fn unknown_records(p: &PppPage) -> Option<String> {
    use agx16_cmdstream::print::dump;
    use agx16_cmdstream::Record;
    fn one<R: Record>(r: &R, out: &mut String) {
        if !r.fully_known() {
            out.push_str(&dump(r, 2, PrintOptions::default()).0);
        }
    }
    let mut out = String::new();
    one(&p.varying_counts, &mut out);
    one(&p.fragment_shader, &mut out);
    one(&p.output_select, &mut out);
    one(&p.fragment_faces, &mut out);
    one(&p.fragment_control_2, &mut out);
    one(&p.viewport, &mut out);
    one(&p.w_clamp_cull_2, &mut out);
    one(&p.cull, &mut out);
    one(&p.scissor_depth_bias, &mut out);
    (!out.is_empty()).then(|| format!("undocumented bits or values:\n{out}"))
}

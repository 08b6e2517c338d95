//! Shader variants for a draw: the vertex program keyed on the vertex elements (vertex fetch is
//! part of the G16 vertex program) and the fragment program keyed on the framebuffer's formats
//! (the program packs colour into tile words), compiled on first use and kept with the CSO.

use crate::context::Context;
use crate::screen::Screen;
use agx16_draw::{FragmentProgram, VertexProgram};
use std::sync::Arc;

/// The programs and launcher argument words of one draw.
pub struct DrawPrograms {
    pub vs: Arc<VertexProgram>,
    pub fs: Arc<FragmentProgram>,
    pub vs_args: Vec<u32>,
    pub fs_args: Vec<u32>,
}

/// The compiled variants the bound shaders need for this draw.
///
/// # Safety
/// The bound CSOs must be live.
pub unsafe fn for_draw(ctx: &mut Context, _screen: &Screen) -> Result<DrawPrograms, String> {
    let vs = ctx.state.vs.as_ref().ok_or("no vertex shader bound")?;
    let fs = ctx.state.fs.as_ref().ok_or("no fragment shader bound")?;
    let _ = (vs, fs);
    Err(
        "compiling vertex/fragment variants needs agx16-compiler's graphics entry \
         (vertex fetch and tile-word packing), which this build does not have yet"
            .into(),
    )
}

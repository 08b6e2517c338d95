//! agx16-draw: the render path of the agx16 driver, as plain Rust with no Mesa types.
//!
//! The Gallium driver (`agx16-gallium`) records each draw and clear for the bound framebuffer
//! into a [`Batch`], with every piece of state already resolved into the plain values here
//! (programs already uploaded, buffer addresses, viewport, depth/stencil, ...). On flush,
//! [`build_render`] turns the batch into one `drm_asahi_cmd_render` plus the GPU memory it
//! points at (VDM stream, one PPP page per draw, CF-binding tables, launchers, resource
//! roots, the scissor array), written through a [`GpuWriter`] — BOs in the driver, the
//! model's page table in the tests. Submission, fences and resource tracking stay in the
//! driver.
//!
//! Formats of every word come from agx16-cmdstream (one definition per hardware format);
//! what the render model executes is `sim/GFX.md`, which the tests run the output on.

pub mod batch;
pub mod build;
pub mod fb;
pub mod mem;
pub mod program;
pub mod textures;
pub mod tiles;

pub use batch::{
    Batch, Clear, DepthBiasState, DepthStencil, Draw, Indices, Raster, StencilFace, Viewport,
};
pub use build::{build_renders, BuiltRender, TilePass, TilePrograms};
pub use fb::{tile_words, ColorTarget, Framebuffer, TileFormat, ZsSurface, ZsTarget};
pub use mem::{DrawError, GpuWriter, Heap};
pub use program::{EntryArena, FragmentProgram, Interp, ShaderBody, Varying, VertexProgram};
pub use textures::StageTextures;
pub use tiles::{G16Tiles, TileCache};

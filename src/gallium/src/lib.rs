//! agx16: the Gallium pipe driver for the Apple M4 GPU (G16G, T8132).
//!
//! Built as the one Rust staticlib inside Mesa's libgallium (see the root meson.build). Mesa calls
//! `agx16_drm_screen_create` for render nodes whose kernel driver is "asahi".

mod batch;
mod blit;
mod bo;
mod caps;
mod context;
mod debug;
mod device;
mod draw;
mod fence;
mod ffi;
mod formats;
mod query;
mod resource;
#[cfg(test)]
mod resource_tests;
mod rt_format;
mod screen;
mod shader;
mod so;
mod state;
mod texture;
#[cfg(test)]
mod texture_tests;
mod transfer;
mod va;
mod variants;
#[cfg(test)]
mod zs_tests;

pub use screen::agx16_drm_screen_create;

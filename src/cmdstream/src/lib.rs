//! G16 (Apple M4) command streams, state records, descriptors and image layouts.
//!
//! Every hardware format is declared once, with [`record!`] and [`hw_enum!`]; the
//! declaration generates pack, unpack, the printer's field table and unknown-bit
//! tracking. Each field names its evidence (see [`evidence`]).

#[macro_use]
mod macros;
pub mod builder;
pub mod capture;
pub mod cdm;
pub mod decode;
pub mod descriptors;
pub mod evidence;
pub mod launch;
pub mod layout;
pub mod ppp;
pub mod print;
pub mod record;
pub mod render;
pub mod stream;
pub mod texture_layout;
pub mod vdm;

pub use record::{DecodeError, FieldType, Hex, PackError, Record, Unexplained};

//! G16 (Apple M4) instruction set: one declarative table of instruction forms driving
//! encoder, decoder, printer and parser. See README.md for the API contract.

pub mod bits;
pub mod check;
mod decode;
mod encode;
pub mod evidence;
pub mod form;
mod instr;
pub mod meaning;
pub mod minifloat;
pub mod op;
mod parse;
mod print;
mod scoreboard;
pub mod table;

pub use bits::Word;
pub use decode::{decode, decode_at, decode_program, split, DecodeError, Split};
pub use encode::encode_program;
pub use evidence::Evidence;
pub use form::{Field, Form, Kind, ProduceLayout, Reach, Role, SlotLayout};
pub use instr::{EncodeError, Instr, Operand, Part, TypedOperand, MAX_FIELDS};
pub use op::Op;
pub use parse::{parse_line, parse_program, ParseError};
pub use scoreboard::{SlotSet, Wait};
pub use table::{form_by_name, forms};

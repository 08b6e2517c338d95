//! G16 (Apple M4) instruction set: one declarative table of instruction forms driving encoder, decoder, printer and parser

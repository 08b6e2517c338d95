//! NIR to G16 machine code compiler

//! Gallium pipe driver for the Apple M4 GPU

//! Functional model of the Apple M4 GPU

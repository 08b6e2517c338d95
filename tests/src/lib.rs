//! End-to-end tests of the agx16 stack

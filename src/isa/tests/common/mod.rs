//! Locating the shared real-M4 oracles (../shared/oracles from the workspace root, or $AGX16_ORACLES).
#![allow(dead_code)]

use std::path::PathBuf;

pub fn oracles() -> PathBuf {
    std::env::var_os("AGX16_ORACLES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/oracles")
        })
}

pub fn read_json(rel: &str) -> serde_json::Value {
    let p = oracles().join(rel);
    let t = std::fs::read_to_string(&p)
        .unwrap_or_else(|e| panic!("{}: {e} (set AGX16_ORACLES)", p.display()));
    serde_json::from_str(&t).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

pub fn hex(s: &str) -> Vec<u8> {
    let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}

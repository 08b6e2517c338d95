//! Loader for the shared executable oracles (schema `agx-sim-oracle/1`,
//! `../shared/oracles/sim/README` section of `oracles/README.md`).

use serde::Deserialize;
use std::path::{Path, PathBuf};

pub const SCHEMA: &str = "agx-sim-oracle/1";

/// Where the shared oracles live: `$AGX16_ORACLES`, else `../shared/oracles`
/// relative to the workspace root.
pub fn oracles_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("AGX16_ORACLES") {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/oracles")
}

/// One executable oracle: program, buffers, dispatch and expected output.
#[derive(Clone, Debug, Deserialize)]
pub struct Oracle {
    pub schema: String,
    pub name: String,
    pub main_hex: String,
    #[serde(default)]
    pub main_size: Option<usize>,
    pub threads: Threads,
    pub buffers: Vec<Buffer>,
    pub expected: Vec<Expected>,
    #[serde(default)]
    pub decoded_buffer_slots: Option<Vec<DecodedSlot>>,
    #[serde(default)]
    pub program_origin: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Threads {
    pub grid: [u32; 3],
    /// `None` where the source did not record it.
    pub threadgroup: Option<[u32; 3]>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Buffer {
    pub binding: u32,
    #[serde(default)]
    pub name: Option<String>,
    pub words_u32: Vec<u32>,
    #[serde(default)]
    pub size_bytes: Option<usize>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Expected {
    pub binding: u32,
    pub words_u32: Vec<u32>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct DecodedSlot {
    pub mnemonic: String,
    pub base_slot: u32,
}

/// Why an oracle file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not an oracle: {source}")]
    Json {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{path}: schema {found:?}, expected {SCHEMA}")]
    Schema { path: PathBuf, found: String },
    #[error("{path}: main_hex is not even-length hex")]
    Hex { path: PathBuf },
    #[error("{path}: main_hex has {got} bytes, main_size says {want}")]
    Size {
        path: PathBuf,
        got: usize,
        want: usize,
    },
}

impl Oracle {
    pub fn load(path: &Path) -> Result<Oracle, OracleError> {
        let text = std::fs::read_to_string(path).map_err(|source| OracleError::Io {
            path: path.into(),
            source,
        })?;
        let o: Oracle = serde_json::from_str(&text).map_err(|source| OracleError::Json {
            path: path.into(),
            source,
        })?;
        if o.schema != SCHEMA {
            return Err(OracleError::Schema {
                path: path.into(),
                found: o.schema,
            });
        }
        let code = o
            .code()
            .ok_or_else(|| OracleError::Hex { path: path.into() })?;
        if let Some(want) = o.main_size {
            if want != code.len() {
                return Err(OracleError::Size {
                    path: path.into(),
                    got: code.len(),
                    want,
                });
            }
        }
        Ok(o)
    }

    /// The program bytes, or `None` if `main_hex` is malformed.
    pub fn code(&self) -> Option<Vec<u8>> {
        decode_hex(&self.main_hex)
    }

    /// Whether the program is a hardware-run mutation rather than compiler output.
    pub fn is_mutation(&self) -> bool {
        self.program_origin
            .as_deref()
            .is_some_and(|o| o.starts_with("NOT compiler output"))
    }
}

/// Every `*.json` oracle in `dir` except `INDEX.json`, sorted by file name.
pub fn oracle_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && p.file_name().is_some_and(|n| n != "INDEX.json")
        })
        .collect();
    v.sort();
    Ok(v)
}

pub fn decode_hex(s: &str) -> Option<Vec<u8>> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

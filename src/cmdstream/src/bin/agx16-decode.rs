//! agx16-decode: prints every command, record and descriptor a captured submission reaches.
//!
//! Usage: agx16-decode [--evidence] CAPTURE...
//!        agx16-decode --cdm BASE_VA FILE     (a raw CDM stream mapped at BASE_VA)
//!        agx16-decode --launcher FILE        (a launcher program, binary or hex text)

use agx16_cmdstream::capture::Capture;
use agx16_cmdstream::cdm::{CdmBlock, CdmReader};
use agx16_cmdstream::decode::decode_capture;
use agx16_cmdstream::launch;
use agx16_cmdstream::print::PrintOptions;
use std::process::ExitCode;

fn parse_va(s: &str) -> Option<u64> {
    let s = s.trim_start_matches("0x");
    u64::from_str_radix(s, 16).ok()
}

/// Reads `path` as hex text when it is only hex digits and whitespace, else as raw bytes.
fn read_code(path: &str) -> Result<Vec<u8>, String> {
    let raw = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    let text: Vec<u8> = raw
        .iter()
        .copied()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    if !text.is_empty()
        && text.len().is_multiple_of(2)
        && text.iter().all(|c| c.is_ascii_hexdigit())
    {
        let text = String::from_utf8(text).map_err(|e| e.to_string())?;
        (0..text.len() / 2)
            .map(|i| u8::from_str_radix(&text[2 * i..2 * i + 2], 16).map_err(|e| e.to_string()))
            .collect()
    } else {
        Ok(raw)
    }
}

/// Disassembles a launcher and prints what it sets up.
fn launcher(path: &str) -> ExitCode {
    let bytes = match read_code(path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    for item in agx16_isa::split(&bytes) {
        match item {
            Ok((off, i)) => {
                println!("{off:04x}: {i}");
                if i.form.op == agx16_isa::Op::Stop {
                    break;
                }
            }
            Err(e) => {
                println!("ERROR: {e}");
                break;
            }
        }
    }
    match launch::summarize_launcher(&bytes) {
        Ok(s) => {
            println!("= {s}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("ERROR: not an established launcher: {e}");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let opts = PrintOptions {
        evidence: args.iter().any(|a| a == "--evidence"),
    };
    args.retain(|a| a != "--evidence");
    if args.is_empty() || args[0] == "--help" {
        eprintln!(
            "usage: agx16-decode [--evidence] CAPTURE... | --cdm BASE_VA FILE | --launcher FILE"
        );
        return ExitCode::from(2);
    }
    if args[0] == "--launcher" {
        return match args.get(1) {
            Some(path) => launcher(path),
            None => {
                eprintln!("--launcher needs FILE");
                ExitCode::from(2)
            }
        };
    }
    if args[0] == "--cdm" {
        let (Some(base), Some(path)) = (args.get(1).and_then(|s| parse_va(s)), args.get(2)) else {
            eprintln!("--cdm needs BASE_VA (hex) and FILE");
            return ExitCode::from(2);
        };
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let (mut bad, mut flagged, mut terminated) = (false, 0, false);
        for item in CdmReader::new(&bytes) {
            match item {
                Ok(i) => {
                    println!("CDM @ {:#x} ({} bytes)", base + i.at, i.size);
                    let (text, f) = i.block.format(2, opts);
                    print!("{text}");
                    flagged += f as usize;
                    terminated = matches!(i.block, CdmBlock::Terminate(_));
                }
                Err(e) => {
                    println!("ERROR at {:#x}: {}", base + e.at, e.kind);
                    bad = true;
                }
            }
        }
        if !bad && !terminated {
            println!("ERROR: the stream ends without a terminate");
            bad = true;
        }
        println!("summary: {flagged} flagged blocks");
        return if bad {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    }
    let mut status = ExitCode::SUCCESS;
    for path in &args {
        let parsed = std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|b| Capture::parse(&b).map_err(|e| e.to_string()));
        match parsed {
            Ok(cap) => {
                println!("== {path}");
                let r = decode_capture(&cap, opts);
                print!("{}", r.text);
                if r.errors > 0 {
                    status = ExitCode::FAILURE;
                }
            }
            Err(e) => {
                eprintln!("{path}: {e}");
                status = ExitCode::FAILURE;
            }
        }
    }
    status
}

//! `agx16-sim`: run the M4 model on oracle files and programs.

use agx16_sim::harness::{check, Outcome};
use agx16_sim::oracle::{oracle_files, Oracle};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(about = "Functional model of the Apple M4 shader core")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run every oracle JSON in DIR (or one file), print each failure, then `N passed, M failed`.
    Check { path: PathBuf },
    /// Print the model's decoded view of a program (hex string or oracle file).
    Dump { input: String },
    /// Re-run the compute launches of an `AGX16_DUMP` capture file on the model.
    Replay { file: PathBuf },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.cmd {
        Cmd::Check { path } => check_cmd(&path),
        Cmd::Dump { input } => dump_cmd(&input),
        Cmd::Replay { file } => replay_cmd(&file),
    }
}

fn check_cmd(path: &std::path::Path) -> ExitCode {
    let files = if path.is_dir() {
        match oracle_files(path) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
    } else {
        vec![path.to_path_buf()]
    };
    let (mut passed, mut failed) = (0, 0);
    for f in files {
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        match Oracle::load(&f) {
            Err(e) => {
                failed += 1;
                println!("FAIL {name}: {e}");
            }
            Ok(o) => match check(&o) {
                Outcome::Pass(_) => passed += 1,
                other => {
                    failed += 1;
                    println!("FAIL {name}: {other}");
                }
            },
        }
    }
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn dump_cmd(input: &str) -> ExitCode {
    let code = if std::path::Path::new(input).exists() {
        match Oracle::load(std::path::Path::new(input)) {
            Ok(o) => o.code().unwrap_or_default(),
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(2);
            }
        }
    } else {
        match agx16_sim::oracle::decode_hex(input) {
            Some(c) => c,
            None => {
                eprintln!("not a file and not hex: {input}");
                return ExitCode::from(2);
            }
        }
    };
    print!("{}", agx16_sim::lower::dump(&code));
    ExitCode::SUCCESS
}

fn replay_cmd(file: &std::path::Path) -> ExitCode {
    let capture = std::fs::read(file)
        .map_err(|e| e.to_string())
        .and_then(|b| agx16_cmdstream::capture::Capture::parse(&b).map_err(|e| e.to_string()));
    let capture = match capture {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            return ExitCode::from(2);
        }
    };
    let budget = agx16_sim::ComputeLaunch::DEFAULT_BUDGET;
    let launches = match agx16_sim::dispatch::replay_compute(&capture, budget) {
        Ok((_, launches)) => launches,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
            return ExitCode::FAILURE;
        }
    };
    let (mut ok, mut failed) = (0, 0);
    for l in &launches {
        match &l.result {
            Ok(s) => {
                ok += 1;
                println!(
                    "command {} launch at {:#x}: {} SIMD-groups, {} instructions",
                    l.command, l.record_va, s.simdgroups, s.instructions
                );
            }
            Err(e) => {
                failed += 1;
                println!("command {} launch at {:#x}: {e}", l.command, l.record_va);
            }
        }
    }
    println!("{ok} passed, {failed} failed");
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

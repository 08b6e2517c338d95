//! agx16-compile: compile a shader and print its G16 disassembly and statistics.
//!
//! `agx16-compile [--stage vs|fs|cs] FILE.glsl` needs Mesa's GLSL front end, which this crate
//! does not link yet; until then the tool compiles generated programs:
//! `agx16-compile --random SEED [--ops N] [--gprs N]` (straight-line kernels with validated
//! forms: MIR, disassembly and statistics) and
//! `agx16-compile --ir-random SEED [--ops N] [--gprs N]` (programs with control flow: the
//! allocated MIR and statistics; control flow is not encoded yet).

use agx16_compiler::isel::{G16Regs, G16Target};
use agx16_compiler::pipeline::{compile_g16, compile_to_mir, Options};
use agx16_compiler::testgen::{random_g16_kernel, random_program};
use std::process::ExitCode;

fn arg<T: std::str::FromStr>(args: &[String], name: &str) -> Option<T> {
    args.iter()
        .position(|a| a == name)
        .and_then(|k| args.get(k + 1))
        .and_then(|v| v.parse().ok())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let ops = arg(&args, "--ops").unwrap_or(24usize);
    let opts = Options {
        gprs: arg(&args, "--gprs").unwrap_or(96),
        schedule: !args.iter().any(|a| a == "--no-sched"),
    };
    if let Some(seed) = arg::<u64>(&args, "--random") {
        let f = random_g16_kernel(seed, ops, 2, 2, 64);
        println!("; IR\n{f}");
        match compile_g16(&f, opts) {
            Ok(c) => {
                println!("; MIR\n{}", c.mir);
                println!("; G16");
                for r in agx16_isa::split(&c.code) {
                    match r {
                        Ok((off, i)) => println!("{off:04x}: {i}"),
                        Err(e) => println!("; {e}"),
                    }
                }
                println!("{}", c.stats.shader_db_line("MESA_SHADER_COMPUTE"));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("agx16-compile: {e}");
                ExitCode::FAILURE
            }
        }
    } else if let Some(seed) = arg::<u64>(&args, "--ir-random") {
        let f = random_program(seed, ops);
        println!("; IR\n{f}");
        match compile_to_mir(&f, &G16Target, &G16Regs, opts) {
            Ok(p) => {
                println!("; MIR\n{p}");
                println!("{}", p.stats.shader_db_line("MESA_SHADER_COMPUTE"));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("agx16-compile: {e}");
                ExitCode::FAILURE
            }
        }
    } else if let Some(file) = args.iter().find(|a| {
        a.ends_with(".glsl") || a.ends_with(".comp") || a.ends_with(".vert") || a.ends_with(".frag")
    }) {
        eprintln!("agx16-compile: {file}: GLSL input needs Mesa's GLSL front end, which agx16-compile does not link yet");
        ExitCode::FAILURE
    } else {
        eprintln!("usage: agx16-compile --random SEED [--ops N] [--gprs N] | --ir-random SEED [--ops N] [--gprs N] | [--stage vs|fs|cs] FILE.glsl");
        ExitCode::from(2)
    }
}

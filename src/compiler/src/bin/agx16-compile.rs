//! agx16-compile: compile a shader and print its G16 disassembly and statistics.
//!
//! With feature `glsl` (Mesa's GLSL front end linked in):
//! `agx16-compile [--stage vs|fs|cs] [--gprs N] [--mir] FILE` compiles GLSL (stage from
//! `--stage` or the extension: `.vert`/`.frag`/`.comp`, optionally followed by `.glsl`) and
//! prints the G16 disassembly and a shader-db line; a shader it cannot compile prints the reason
//! (naming the NIR instruction or G16 form) and exits 1.
//! `agx16-compile --stats PATH...` compiles every shader file under the paths and prints one
//! shader-db line per shader, the totals over those that compiled and the backend (NIR → G16)
//! compile-time median and p95.
//!
//! Without GLSL: `agx16-compile --random SEED [--ops N] [--gprs N]` (straight-line kernels with
//! validated forms: MIR, disassembly and statistics) and
//! `agx16-compile --ir-random SEED [--ops N] [--gprs N]` (programs with control flow: the
//! allocated MIR and statistics).

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
    } else if let Some(code) = glsl_main(&args, opts) {
        code
    } else {
        eprintln!("usage: agx16-compile [--stage vs|fs|cs] [--gprs N] [--mir] FILE | --stats PATH... | --random SEED [--ops N] [--gprs N] | --ir-random SEED [--ops N] [--gprs N]");
        ExitCode::from(2)
    }
}

/// The GLSL modes; `None` when the arguments name no shader file.
#[cfg(not(feature = "glsl"))]
fn glsl_main(args: &[String], _opts: Options) -> Option<ExitCode> {
    let file = args
        .iter()
        .find(|a| !a.starts_with("--") && std::path::Path::new(a).is_file())?;
    eprintln!(
        "agx16-compile: {file}: GLSL input needs Mesa's GLSL front end; build with \
         `--features glsl` (and AGX16_MESA_SRC/AGX16_MESA_BUILD set)"
    );
    Some(ExitCode::FAILURE)
}

#[cfg(feature = "glsl")]
fn glsl_main(args: &[String], opts: Options) -> Option<ExitCode> {
    use agx16_compiler::glsl::ShaderStage;
    use std::path::{Path, PathBuf};
    let valued = ["--stage", "--gprs", "--ops"];
    let mut paths = Vec::new();
    let mut k = 0;
    while k < args.len() {
        if valued.contains(&args[k].as_str()) {
            k += 2;
            continue;
        }
        if !args[k].starts_with("--") {
            paths.push(PathBuf::from(&args[k]));
        }
        k += 1;
    }
    if args.iter().any(|a| a == "--stats") {
        return Some(stats::run(&paths, opts));
    }
    let [file] = paths.as_slice() else {
        return None;
    };
    let stage = match args.iter().position(|a| a == "--stage") {
        Some(p) => match args.get(p + 1).and_then(|s| ShaderStage::parse(s)) {
            Some(s) => s,
            None => {
                eprintln!("agx16-compile: --stage takes vs, fs or cs");
                return Some(ExitCode::from(2));
            }
        },
        None => match ShaderStage::from_path(Path::new(file)) {
            Some(s) => s,
            None => {
                eprintln!(
                    "agx16-compile: {}: cannot tell the stage from the file name; pass --stage vs|fs|cs",
                    file.display()
                );
                return Some(ExitCode::from(2));
            }
        },
    };
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("agx16-compile: {}: {e}", file.display());
            return Some(ExitCode::FAILURE);
        }
    };
    match agx16_compiler::glsl::compile_glsl(&source, stage, opts) {
        Ok(g) => {
            let c = g.compiled;
            if args.iter().any(|a| a == "--mir") {
                println!("; MIR\n{}", c.mir);
            }
            println!("; G16");
            for r in agx16_isa::split(&c.code) {
                match r {
                    Ok((off, i)) => println!("{off:04x}: {i}"),
                    Err(e) => println!("; {e}"),
                }
            }
            println!("{}", c.stats.shader_db_line(stage.mesa_name()));
            Some(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("agx16-compile: {}: {e}", file.display());
            Some(ExitCode::FAILURE)
        }
    }
}

/// `--stats`: shader-db style report over a corpus.
#[cfg(feature = "glsl")]
mod stats {
    use super::*;
    use agx16_compiler::glsl::{glsl_to_nir, ShaderStage};
    use agx16_compiler::mir::Stats;
    use agx16_mesa_sys as m;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};

    fn collect(p: &Path, out: &mut Vec<(PathBuf, ShaderStage)>) {
        if p.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .collect();
            entries.sort();
            for e in entries {
                collect(&e, out);
            }
        } else if let Some(s) = ShaderStage::from_path(p) {
            out.push((p.to_path_buf(), s));
        }
    }

    /// The q-quantile of sorted durations (nearest rank).
    pub fn quantile(sorted: &[Duration], q: f64) -> Duration {
        if sorted.is_empty() {
            return Duration::ZERO;
        }
        let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
        sorted[rank - 1]
    }

    pub fn run(paths: &[PathBuf], opts: Options) -> ExitCode {
        let mut files = Vec::new();
        for p in paths {
            collect(p, &mut files);
        }
        if files.is_empty() {
            eprintln!(
                "agx16-compile --stats: no shader files (.vert/.frag/.comp) under the paths given"
            );
            return ExitCode::from(2);
        }
        let mut total = Stats::default();
        let mut times = Vec::new();
        let (mut ok, mut frontend, mut failed) = (0, 0, 0);
        for (path, stage) in &files {
            let source = match std::fs::read_to_string(path) {
                Ok(s) => s,
                Err(e) => {
                    println!("{}: error: {e}", path.display());
                    frontend += 1;
                    continue;
                }
            };
            let nir = match glsl_to_nir(&source, *stage) {
                Ok(n) => n,
                Err(e) => {
                    let first = e.to_string();
                    let first = first.lines().take(3).collect::<Vec<_>>().join(" | ");
                    println!("{}: GLSL error: {first}", path.display());
                    frontend += 1;
                    continue;
                }
            };
            // Each shader's time is the fastest of three compiles of a fresh copy of its NIR
            // (the passes lower in place), so scheduling noise on a shared machine does not
            // count; the first compile also warms up lazily built tables.
            let mut best = Duration::MAX;
            let mut r = None;
            for _ in 0..3 {
                let copy = unsafe { m::nir_shader_clone(std::ptr::null_mut(), nir.as_ptr()) };
                let t = Instant::now();
                let out = unsafe { agx16_compiler::glsl::compile_nir_stage(copy, *stage, opts) };
                best = best.min(t.elapsed());
                unsafe { m::ralloc_free(copy as *mut _) };
                r = Some(out);
            }
            times.push(best);
            let r = r.expect("compiled at least once");
            match r {
                Ok(c) => {
                    ok += 1;
                    let s = c.stats;
                    println!(
                        "{}: {}",
                        path.display(),
                        s.shader_db_line(stage.mesa_name())
                    );
                    total.instrs += s.instrs;
                    total.bytes += s.bytes;
                    total.gprs += s.gprs;
                    total.spills += s.spills;
                    total.fills += s.fills;
                    total.scoreboard_waits += s.scoreboard_waits;
                    total.copies += s.copies;
                }
                Err(e) => {
                    failed += 1;
                    println!("{}: error: {e}", path.display());
                }
            }
        }
        times.sort();
        println!(
            "totals over {ok} of {} shaders compiled ({failed} not compiled by agx16, {frontend} rejected by the GLSL front end): {} inst, {} bytes, {} gprs, {} spills, {} fills, {} scoreboard waits, {} copies",
            files.len(),
            total.instrs,
            total.bytes,
            total.gprs,
            total.spills,
            total.fills,
            total.scoreboard_waits,
            total.copies
        );
        println!(
            "backend compile time (NIR passes → G16, fastest of 3 per shader) over {} shaders: median {:.3} ms, p95 {:.3} ms",
            times.len(),
            quantile(&times, 0.5).as_secs_f64() * 1e3,
            quantile(&times, 0.95).as_secs_f64() * 1e3
        );
        ExitCode::SUCCESS
    }
}

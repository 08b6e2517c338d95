//! Disassemble G16 programs, or check a directory of them.
//!
//! `agx16-disasm FILE...` prints one line per instruction: offset, bytes, assembly, and a
//! `;` comment with scoreboard/lifetime annotations and the form's evidence level.
//! `agx16-disasm --check DIR` prints the corpus summary line (add `-v` for failures).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use agx16_isa::check::{check_dir, read_program};
use agx16_isa::{split, Evidence, Instr, Role};

fn annotations(i: &Instr) -> String {
    use agx16_isa::meaning;
    let mut a = Vec::new();
    // Meanings of op-select numbers, where established.
    if let Some(sel) = i
        .field("sr_sel")
        .filter(|_| i.form.op == agx16_isa::Op::GetSr)
    {
        if let Some(sr) = meaning::special_register(sel as u8) {
            a.push(sr.name.to_string());
        }
    }
    if let Ok((f, _)) = meaning::sfu_function(i) {
        a.push(format!("{f:?}").to_lowercase());
    }
    if let Ok((f, _)) = meaning::logic_function(i) {
        a.push(f.name.to_string());
    }
    if let Ok((c, imm, _)) = meaning::compare_condition(i) {
        a.push(format!("{c:?}{}", if imm { " imm" } else { "" }));
    }
    if let Some(w) = i.wait() {
        if !w.slots.is_empty() {
            let s: Vec<String> = w.slots.slots().map(|s| s.to_string()).collect();
            a.push(format!("wait s{}", s.join("+s")));
        }
        if w.reserved7 {
            a.push("wait 7(reserved)".into());
        }
    }
    if let Some((s, _)) = i.produce() {
        a.push(format!("produce s{s}"));
    }
    for r in [Role::SrcA, Role::SrcB, Role::SrcC] {
        if let Some((true, _)) = i.releases(r) {
            a.push(format!("release {}", r.as_str()));
        }
    }
    if let Some((true, _)) = i.publishes() {
        a.push("publish".into());
    }
    if i.form.evidence != Evidence::Hardware {
        a.push(i.form.evidence.as_str().into());
    }
    if a.is_empty() {
        String::new()
    } else {
        format!("  ; {}", a.join(", "))
    }
}

fn disasm(path: &Path, out: &mut impl Write) -> Result<(), String> {
    let bytes = read_program(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let io = |e: std::io::Error| e.to_string();
    writeln!(out, "; {}", path.display()).map_err(io)?;
    for item in split(&bytes) {
        match item {
            Ok((off, i)) => {
                let hex: String = bytes[off..off + i.form.len as usize]
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                writeln!(out, "{off:04x}: {hex:<32} {i}{}", annotations(&i)).map_err(io)?;
            }
            Err(e) => {
                let rest: String = bytes[e.offset()..]
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                writeln!(out, "; error: {e}").map_err(io)?;
                writeln!(out, "; undecoded: {rest}").map_err(io)?;
                return Err(e.to_string());
            }
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() || args[0] == "-h" || args[0] == "--help" {
        eprintln!("usage: agx16-disasm FILE... | agx16-disasm --check DIR [-v]");
        return ExitCode::from(2);
    }
    if args[0] == "--length-map" {
        // Debug aid for length-rule work: the decoded length at every even offset (0 = none).
        for a in &args[1..] {
            let Ok(bytes) = read_program(Path::new(a)) else {
                continue;
            };
            let lens: Vec<String> = (0..bytes.len())
                .step_by(2)
                .map(|o| {
                    agx16_isa::decode_at(&bytes, o)
                        .map(|i| i.form.len)
                        .unwrap_or(0)
                        .to_string()
                })
                .collect();
            println!("{a} {}", lens.join(","));
        }
        return ExitCode::SUCCESS;
    }
    if args[0] == "--check" {
        let Some(dir) = args.get(1) else {
            eprintln!("--check needs a directory");
            return ExitCode::from(2);
        };
        let verbose = args.iter().any(|a| a == "-v");
        return match check_dir(Path::new(dir)) {
            Ok(s) => {
                if verbose {
                    for (p, off, why) in &s.failures {
                        println!("FAIL {} @{off:#x}: {why}", p.display());
                    }
                    println!("opaque-form instructions in decoded programs: {}", s.opaque);
                }
                println!("{}", s.line());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{dir}: {e}");
                ExitCode::from(1)
            }
        };
    }
    let mut ok = true;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for a in &args {
        if let Err(e) = disasm(Path::new(a), &mut out) {
            eprintln!("{e}");
            ok = false;
        }
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

//! Assemble `agx16-disasm` syntax back into bytes.
//!
//! `agx16-asm [FILE]` reads assembly (stdin if no file) and prints the program as one line of
//! lowercase hex; `-o OUT` writes raw bytes instead.

use std::io::Read;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut input = None;
    let mut out = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-o" => out = it.next().cloned(),
            "-h" | "--help" => {
                eprintln!("usage: agx16-asm [FILE] [-o OUT.bin]");
                return ExitCode::from(2);
            }
            _ => input = Some(a.clone()),
        }
    }
    let text = match &input {
        Some(p) => std::fs::read_to_string(p),
        None => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).map(|_| s)
        }
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {e}", input.as_deref().unwrap_or("stdin"));
            return ExitCode::from(1);
        }
    };
    let instrs = match agx16_isa::parse_program(&text) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(1);
        }
    };
    let bytes = agx16_isa::encode_program(&instrs);
    match out {
        Some(p) => {
            if let Err(e) = std::fs::write(&p, &bytes) {
                eprintln!("{p}: {e}");
                return ExitCode::from(1);
            }
        }
        None => println!(
            "{}",
            bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
        ),
    }
    ExitCode::SUCCESS
}

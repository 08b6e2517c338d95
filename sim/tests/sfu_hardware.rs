//! The SFU model against every native fp32/fp16 hardware run of
//! niklassheth/agx-re EXP-M4-54 (HARDWARE.json, measured on M4). The kernel
//! name says the function, the source type and the shape (store/reuse: f(x);
//! alu: f(x + 0.25); neg: f(-x); abs: f(|x|)).

use agx16_sim::fp::sfu::{eval, SfuFunc};
use agx16_sim::fp::{f16_to_f32, f32_to_f16};
use agx16_sim::oracle::{decode_hex, oracles_dir};

#[test]
fn native_sfu_runs_match_bit_for_bit() {
    let path = oracles_dir().join("isa/decodes/EXP-M4-54-sfu-source-controls/HARDWARE.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // The file's decoded float lists use bare NaN/Infinity (not JSON); only the
    // raw hex fields are used here.
    let text = text
        .replace("-Infinity", "null")
        .replace("Infinity", "null")
        .replace("NaN", "null");
    let runs: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut checked = 0;
    let mut failures = vec![];
    for run in runs.as_array().unwrap() {
        if run["tag"] != "native" {
            continue;
        }
        let name = run["name"].as_str().unwrap();
        let parts: Vec<&str> = name.split('_').collect();
        let func = match parts[0] {
            "rcp" => SfuFunc::Rcp,
            "rsqrt" => SfuFunc::Rsqrt,
            "exp2" => SfuFunc::Exp2,
            "log2" => SfuFunc::Log2,
            "floor" => SfuFunc::Floor,
            other => panic!("unknown function {other}"),
        };
        let half = parts[1] == "half";
        let input = decode_hex(run["input_hex"].as_str().unwrap()).unwrap();
        let output = decode_hex(run["raw_outputs"]["2"].as_str().unwrap()).unwrap();
        let width = if half { 2 } else { 4 };
        for (i, (xi, yi)) in input.chunks(width).zip(output.chunks(width)).enumerate() {
            let mut x = if half {
                f16_to_f32(u16::from_le_bytes([xi[0], xi[1]]))
            } else {
                f32::from_le_bytes([xi[0], xi[1], xi[2], xi[3]])
            };
            match parts[2] {
                "alu" if half => x = f16_to_f32(f32_to_f16(x + 0.25)),
                "alu" => x += 0.25,
                "neg" => x = -x,
                "abs" => x = x.abs(),
                _ => {}
            }
            let got = eval(func, x);
            let (got, want) = if half {
                (
                    f32_to_f16(f32::from_bits(got)) as u32,
                    u16::from_le_bytes([yi[0], yi[1]]) as u32,
                )
            } else {
                (got, u32::from_le_bytes([yi[0], yi[1], yi[2], yi[3]]))
            };
            checked += 1;
            if got != want {
                failures.push(format!(
                    "{name}[{i}] x={x}: got {got:#x}, hardware {want:#x}"
                ));
            }
        }
    }
    assert!(checked >= 400, "only {checked} values checked");
    assert!(
        failures.is_empty(),
        "{} of {checked} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

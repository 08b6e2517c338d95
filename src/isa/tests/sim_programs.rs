//! Every executable oracle program in ../shared/oracles/sim decodes completely, re-encodes
//! byte-exactly and re-assembles from its disassembly.

mod common;

#[test]
fn sim_oracle_programs_decode() {
    let index = common::read_json("sim/INDEX.json");
    let dir = common::oracles().join("sim");
    let mut n = 0;
    let mut failures = Vec::new();
    for e in std::fs::read_dir(&dir).expect("sim dir") {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".json") || name == "INDEX.json" {
            continue;
        }
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        let bytes = common::hex(v["main_hex"].as_str().unwrap());
        let c = agx16_isa::check::check_program(&bytes);
        n += 1;
        if !c.decoded || c.encode_mismatches + c.asm_mismatches != 0 {
            failures.push(format!("{name}: {:?}", c.failure));
        }
        // The last instruction of every captured program is stop.
        let last = agx16_isa::decode_program(&bytes)
            .ok()
            .and_then(|v| v.last().map(|(_, i)| i.form.op));
        if c.decoded && last != Some(agx16_isa::Op::Stop) {
            failures.push(format!("{name}: does not end in stop"));
        }
    }
    assert!(n >= 100, "only {n} oracle files found ({index:.0})");
    assert!(
        failures.is_empty(),
        "{} of {n}:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

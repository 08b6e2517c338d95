//! Every instruction-length canary (ADevWithAnIdea/agx-re tools/agx-isa/length_canaries.json,
//! copied to ../shared/oracles/isa) splits to its recorded length and round-trips.

mod common;

#[test]
fn all_length_canaries() {
    let v = common::read_json("isa/length_canaries.json");
    let cases = v["cases"].as_array().expect("cases");
    assert_eq!(cases.len(), 41, "canary file changed");
    let mut failures = Vec::new();
    for c in cases {
        let id = c["id"].as_str().unwrap();
        let bytes = common::hex(c["hex"].as_str().unwrap());
        let want = c["length"].as_u64().unwrap() as usize;
        match agx16_isa::decode(&bytes) {
            Ok(i) if i.form.len as usize == want => {
                let roundtrip = c.get("roundtrip").and_then(|r| r.as_bool()).unwrap_or(true);
                if roundtrip && i.encode() != bytes[..want] {
                    failures.push(format!("{id}: re-encodes differently"));
                }
            }
            Ok(i) => failures.push(format!(
                "{id}: length {} (form {}), want {want}",
                i.form.len, i.form.name
            )),
            Err(e) => failures.push(format!("{id}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} canaries fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

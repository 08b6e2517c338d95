//! Print the form table: name, length, op, evidence and source (`cargo run --example forms`).

fn main() {
    for f in agx16_isa::forms() {
        println!(
            "{:<20} {:>2}  {:<16} {:<18} {}",
            f.name,
            f.len,
            format!("{:?}", f.op),
            f.evidence.as_str(),
            f.source
        );
    }
}

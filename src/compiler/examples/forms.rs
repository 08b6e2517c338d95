fn main() {
    for f in agx16_isa::forms() {
        if f.emittable() {
            let fields: Vec<String> = f
                .fields
                .iter()
                .map(|x| format!("{}:{:?}:{:?}", x.name, x.kind, x.evidence))
                .collect();
            println!("{} {:?} len{} | {}", f.name, f.op, f.len, fields.join(" "));
        }
    }
}

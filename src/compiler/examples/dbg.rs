use agx16_compiler::ir::*;
fn main() {
    let mut b = Builder::new(Stage::Compute);
    let x = b.sysval(SysVal::GlobalId(0));
    let v = b.load_global(0, x, Type::F32, 2);
    let s = b.fadd(Src::comp(v, 0), Src::comp(v, 1));
    b.store_global(1, x, s);
    let mut f = b.finish();
    agx16_compiler::opt::split_vectors::run(&mut f);
    println!("{f}");
    agx16_compiler::opt::copy_prop::run(&mut f);
    println!("{f}");
}

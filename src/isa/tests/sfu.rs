//! SFU function and source-control fields against the EXP-M4-54/55 oracle programs, whose
//! names say what each kernel computes (native kernels measured on M4) and which single field
//! each mutation changed.

mod common;

use agx16_isa::meaning::{sfu_function, SfuFn};
use agx16_isa::{Op, Role};

fn sfu_of(name: &str) -> agx16_isa::Instr {
    let v = common::read_json(&format!("sim/{name}.json"));
    let bytes = common::hex(v["main_hex"].as_str().unwrap());
    let prog = agx16_isa::decode_program(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let sfus: Vec<_> = prog
        .into_iter()
        .filter(|(_, i)| i.form.op == Op::Sfu)
        .collect();
    assert_eq!(sfus.len(), 1, "{name}: one SFU instruction expected");
    sfus[0].1
}

#[test]
fn native_sfu_functions_match_kernel_names() {
    let index = common::read_json("sim/INDEX.json");
    let mut n = 0;
    for e in index["oracles"]
        .as_array()
        .or(index["files"].as_array())
        .expect("index list")
    {
        let name = e
            .as_str()
            .map(str::to_string)
            .or_else(|| e["name"].as_str().map(str::to_string))
            .unwrap();
        let name = name.trim_end_matches(".json").to_string();
        let want = if !name.starts_with("EXP-M4-54__native__")
            && !name.starts_with("EXP-M4-54__mixed__")
        {
            continue;
        } else if name.contains("__rcp_") {
            SfuFn::Rcp
        } else if name.contains("__rsqrt_") {
            SfuFn::Rsqrt
        } else if name.contains("__exp2_") {
            SfuFn::Exp2
        } else if name.contains("__log2_") {
            SfuFn::Log2
        } else if name.contains("__floor_") {
            SfuFn::Floor
        } else {
            continue;
        };
        let i = sfu_of(&name);
        assert_eq!(sfu_function(&i).map(|x| x.0), Ok(want), "{name}");
        // Source type: float kernels read f32 (2), half kernels f16 (1), bfloat ones bf16 (0).
        let ty = i.field("src_type").unwrap();
        let want_ty = if name.contains("_half_") {
            1
        } else if name.contains("_bfloat_") {
            0
        } else {
            2
        };
        assert_eq!(ty, want_ty, "{name}: src_type");
        // abs / neg kernels set exactly their modifier.
        if name.ends_with("_abs") {
            assert_eq!(i.field("src_abs"), Some(1), "{name}");
        }
        if name.ends_with("_neg") && i.form.name == "sfu" {
            assert_eq!(i.field("src_neg"), Some(1), "{name}");
        }
        n += 1;
    }
    assert!(n >= 40, "only {n} SFU oracles checked");
}

#[test]
fn forced_release_mutations_set_the_release_bit() {
    for (name, native) in [
        (
            "EXP-M4-54__mutation__rcp_float_reuse__forced_release",
            "EXP-M4-54__native__rcp_float_reuse",
        ),
        (
            "EXP-M4-54__mutation__exp2_float_reuse__forced_release",
            "EXP-M4-54__native__exp2_float_reuse",
        ),
        (
            "EXP-M4-54__mutation__floor_float_reuse__forced_release",
            "EXP-M4-54__native__floor_float_reuse",
        ),
    ] {
        assert_eq!(
            sfu_of(name).releases(Role::SrcA).map(|r| r.0),
            Some(true),
            "{name}"
        );
        assert_eq!(
            sfu_of(native).releases(Role::SrcA).map(|r| r.0),
            Some(false),
            "{native}"
        );
    }
}

#[test]
fn sqrt_kernel_uses_the_sqrt_factor() {
    // k_sqrt = x * factor(x) (EXP-M4-55): the SFU op is the factor and a multiply follows.
    assert_eq!(
        sfu_function(&sfu_of("EXP-M4-55__native__k_sqrt")).map(|x| x.0),
        Ok(SfuFn::SqrtFactor)
    );
}

//! Value cases never lose a frame (issues #14, #17): agx16-valuetest draws a shader that fetches
//! a texel far outside its texture, takes min() of a NaN, converts a negative float to uint and
//! divides a negative int. On agx16 the draw runs and every pixel holds what the model's value
//! rules give (agx16_sim::value_rules: robust fetch 0, minNum, saturating float->uint); the one
//! defined channel (the division) matches softpipe on the same Mesa build; the shim's per-job
//! line names the inferred rules used; strict mode (AGX16_SIM_STRICT=1) refuses the job instead.

use agx16_tests::{field, run, Stack};

const VALUETEST: &str = env!("CARGO_BIN_EXE_agx16-valuetest");

fn pixels(out: &str) -> Vec<[u8; 4]> {
    let hex = field(out, "pixels").unwrap_or_else(|| panic!("no pixels line:\n{out}"));
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    assert_eq!(bytes.len(), 16 * 16 * 4);
    bytes.chunks(4).map(|c| c.try_into().unwrap()).collect()
}

fn draw(softpipe: bool, env: &[(&str, &str)]) -> (bool, String, String) {
    let stack = Stack::from_env().unwrap_or_else(|e| panic!("{e}"));
    let mut cmd = stack.command(VALUETEST, !softpipe);
    if softpipe {
        cmd.env("LIBGL_ALWAYS_SOFTWARE", "1");
    }
    cmd.env_remove("AGX16_SIM_STRICT")
        .env_remove("AGX16_SIM_RULES");
    cmd.envs(env.iter().copied());
    run(cmd)
}

#[test]
fn value_cases_draw_by_the_value_rules_and_match_softpipe_where_defined() {
    let (ok, out, err) = draw(false, &[("AGX16_SIM_RULES", "1")]);
    assert!(ok, "agx16-valuetest failed:\n{out}\n{err}");
    let renderer = field(&out, "GL_RENDERER").unwrap_or_default();
    assert!(
        renderer.starts_with("Apple M4 (G16G) agx16"),
        "{renderer:?}"
    );
    // r: robust fetch 0; g: min(NaN, 0.25) = 0.25; b: (-7 / 2 + 8) / 16 = 5/16; a: uint(-7.5)
    // saturates to 0 -> 1.0.
    let agx = pixels(&out);
    assert!(
        agx.iter().all(|p| *p == [0, 64, 80, 255]),
        "{:?}",
        &agx[..4]
    );
    let report = err
        .lines()
        .find(|l| l.contains("inferred value rules:"))
        .unwrap_or_else(|| panic!("no value-rule report:\n{err}"));
    assert!(
        report.contains("fetch_outside_level") && report.contains("fminmax_nan"),
        "{report}"
    );
    assert!(!err.contains("job failed"), "{err}");

    let (ok, out, err) = draw(true, &[]);
    assert!(ok, "softpipe run failed:\n{out}\n{err}");
    assert_eq!(field(&out, "GL_RENDERER"), Some("softpipe"));
    let soft = pixels(&out);
    assert!(soft.iter().all(|p| p[2] == 80), "{:?}", &soft[..4]);
}

#[test]
fn strict_mode_refuses_the_job_naming_the_inferred_rule() {
    let (_, out, err) = draw(false, &[("AGX16_SIM_STRICT", "1")]);
    assert!(
        err.contains("job failed") && err.contains("strict mode: inferred value rule"),
        "{err}"
    );
    assert!(pixels(&out).iter().all(|p| *p != [0, 64, 80, 255]));
}

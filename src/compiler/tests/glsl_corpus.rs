//! Differential execution of the GLSL corpus: GLSL → Mesa's GLSL front end → NIR → agx16 →
//! G16 code → the M4 model, against values computed on the CPU from the GLSL ES 3.00
//! definitions (tests/corpus/reference.rs, cases.rs) with the spec's tolerances.
//!
//! The corpus exercises GLSL ES 3.00 operators and built-ins (and the ES 3.10 integer
//! built-ins) inside `#version 310 es` compute kernels, the stage the model runs.
//! `tests/corpus/expected-failures.txt` lists the shaders agx16 cannot handle yet, with the
//! reason; the test fails when an unlisted shader fails or a listed one passes.
//! `AGX16_CORPUS_BLESS=1` rewrites tests/corpus/gen from the table and the expectations file.
#![cfg(feature = "glsl")]

#[path = "corpus/cases.rs"]
mod cases;
#[path = "corpus/reference.rs"]
mod reference;

use agx16_compiler::glsl::{compile_glsl, ShaderStage};
use agx16_compiler::pipeline::Options;
use cases::{Base, Case, THREADS};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn bless() -> bool {
    std::env::var("AGX16_CORPUS_BLESS").is_ok_and(|v| v == "1")
}

/// Run `code` with `buffers[k]` at buffer slot k and `scratch` bytes of scratch per invocation
/// (frame extent A); returns the buffers afterwards.
fn run_on_model(code: &[u8], buffers: &[Vec<u32>], scratch: u32) -> Result<Vec<Vec<u32>>, String> {
    agx16_sim::harness::run_with_buffers(code, buffers, &[], THREADS, scratch)
}

/// Pass, or the reason it failed (one line).
fn run_case(case: &Case) -> Result<(), String> {
    let compiled = compile_glsl(&case.source, ShaderStage::Compute, Options::default())
        .map_err(|e| format!("compile: {}", first_line(&e.to_string())))?
        .compiled;
    {
        let mut bufs = cases::inputs(case, 1000 + case.path.len() as u64);
        let args = bufs.clone();
        // The output starts as a pattern no kernel writes by accident.
        bufs.push(vec![0xdead_beef; case.out.comps() * THREADS as usize]);
        let got = run_on_model(&compiled.code, &bufs, 4 * compiled.mir.scratch_words)
            .map_err(|e| format!("model: {}", first_line(&e)))?;
        let out = &got[case.args.len()];
        for t in 0..THREADS as usize {
            let targs = cases::thread_args(case, &args, t);
            let wants = cases::expected(case, &targs);
            for (c, want) in wants.iter().enumerate() {
                let g = out[t + c * THREADS as usize];
                if !reference::accepts(want, g, case.out.base == Base::F) {
                    return Err(format!(
                        "mismatch: thread {t} component {c} inputs {:08x?} got {g:08x} want {want:?}",
                        targs
                    ));
                }
            }
        }
    }
    Ok(())
}

fn first_line(s: &str) -> String {
    let l = s.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let l = l.trim();
    if l.len() > 200 {
        format!(
            "{}…",
            &l[..l.char_indices().nth(200).map_or(l.len(), |(k, _)| k)]
        )
    } else {
        l.to_string()
    }
}

fn all_cases() -> Vec<Case> {
    let mut v = cases::generated();
    v.extend(cases::hand_written());
    v
}

/// The generated kernels on disk are exactly what the table produces (so `agx16-compile
/// --stats tests/corpus` measures the corpus this test runs).
#[test]
fn generated_corpus_files_match_the_table() {
    let gen = cases::generated();
    let mut stale = vec![];
    for c in &gen {
        let path = corpus_dir().join(&c.path);
        if bless() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &c.source).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(c.source.as_str()) {
            stale.push(c.path.clone());
        }
    }
    assert!(
        stale.is_empty(),
        "{} generated corpus files differ from tests/corpus/cases.rs (regenerate with \
         AGX16_CORPUS_BLESS=1): {:?}",
        stale.len(),
        &stale[..stale.len().min(10)]
    );
    // No stray files either.
    let mut on_disk = vec![];
    collect(&corpus_dir().join("gen"), &mut on_disk);
    let known: std::collections::HashSet<PathBuf> =
        gen.iter().map(|c| corpus_dir().join(&c.path)).collect();
    let stray: Vec<_> = on_disk.iter().filter(|p| !known.contains(*p)).collect();
    assert!(
        stray.is_empty(),
        "files not produced by the table: {stray:?}"
    );
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn read_expectations() -> BTreeMap<String, String> {
    let text =
        std::fs::read_to_string(corpus_dir().join("expected-failures.txt")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (p, why) = l.split_once(' ').unwrap_or((l, ""));
            (p.to_string(), why.trim().to_string())
        })
        .collect()
}

#[test]
fn glsl_corpus_runs_on_the_model_against_the_reference() {
    let cases = all_cases();
    assert!(
        cases.len() >= 300,
        "corpus has only {} shaders",
        cases.len()
    );
    let expected = read_expectations();
    let mut results: BTreeMap<String, Result<(), String>> = BTreeMap::new();
    let mut by_cat: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    for c in &cases {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_case(c)))
            .unwrap_or_else(|_| Err("panic while running the case".into()));
        let e = by_cat.entry(c.category.clone()).or_default();
        if r.is_ok() {
            e.0 += 1;
        } else {
            e.1 += 1;
        }
        results.insert(c.path.clone(), r);
    }
    let passed = results.values().filter(|r| r.is_ok()).count();
    println!(
        "GLSL corpus: {passed} of {} shaders pass on the model",
        results.len()
    );
    for (cat, (p, f)) in &by_cat {
        println!("  {cat:<10} {p:>4} pass {f:>4} fail");
    }
    if bless() {
        let mut text = String::from(
            "# GLSL corpus shaders agx16 does not pass yet (path, then the first failure).\n\
             # Maintained by tests/glsl_corpus.rs; regenerate with AGX16_CORPUS_BLESS=1.\n",
        );
        for (p, r) in &results {
            if let Err(why) = r {
                text += &format!("{p} {why}\n");
            }
        }
        std::fs::write(corpus_dir().join("expected-failures.txt"), text).unwrap();
        return;
    }
    let mut problems = vec![];
    for (p, r) in &results {
        match (r, expected.get(p)) {
            (Err(why), None) => problems.push(format!("{p}: fails but is not listed: {why}")),
            (Ok(()), Some(_)) => problems.push(format!(
                "{p}: passes now; remove it from expected-failures.txt"
            )),
            (Err(why), Some(old)) if category(why) != category(old) => {
                problems.push(format!("{p}: fails differently: was `{old}`, now `{why}`"))
            }
            _ => {}
        }
    }
    for p in expected.keys() {
        if !results.contains_key(p) {
            problems.push(format!("{p}: listed but not in the corpus"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} corpus expectation problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Local arrays larger than the register file, indexed by variables inside a loop (issue #14):
/// every element a loop-carried phi, more phis than registers at the loop header. They compile
/// (the allocator keeps spilled phis in scratch, `ra::spill` memory phis) and match the CPU
/// reference on the model. The whole corpus runs them too; this runs them alone.
#[test]
fn large_local_arrays_run_on_the_model() {
    let cases: Vec<Case> = cases::hand_written()
        .into_iter()
        .filter(|c| c.path.starts_with("hand/local_array_1"))
        .collect();
    assert!(!cases.is_empty());
    for c in &cases {
        run_case(c).unwrap_or_else(|e| panic!("{}: {e}", c.path));
    }
}

/// The kind of failure (compile / model / mismatch), which must not change silently.
fn category(why: &str) -> &str {
    why.split(':').next().unwrap_or("")
}

//! glClearBuffer* on several colour attachments: whole, scissored and colour-masked clears of one
//! draw buffer among three leave every other pixel and buffer as it was (agx16-cleartest).
//!
//! Oracle: the clear values and rectangles themselves (GLES 3.0.6 §4.2.3: a clear writes the
//! scissored pixels of the named draw buffer, under its colour mask), computed here on the CPU.
//! softpipe is no oracle for this program: on the same Mesa build it leaves the RGBA8UI
//! attachment at zero after the whole glClearBufferuiv (its scissored clear is right).

use agx16_tests::{field, run, Stack};

const CLEARTEST: &str = env!("CARGO_BIN_EXE_agx16-cleartest");
const SIZE: usize = 8;

fn words(out: &str, key: &str) -> Vec<u32> {
    let hex = field(out, key).unwrap_or_else(|| panic!("no {key} line:\n{out}"));
    (0..hex.len())
        .step_by(8)
        .map(|i| {
            let b: Vec<u8> = (0..4)
                .map(|k| u8::from_str_radix(&hex[i + 2 * k..i + 2 * k + 2], 16).unwrap())
                .collect();
            u32::from_le_bytes(b.try_into().unwrap())
        })
        .collect()
}

fn cleartest() -> (bool, String, String) {
    let stack = Stack::from_env().unwrap_or_else(|e| panic!("{e}"));
    run(stack.command(CLEARTEST, true))
}

/// Per pixel (bottom row first): `inside` in the scissor rectangle x 2..5, y 1..5, else `outside`.
fn expected<T: Copy>(inside: T, outside: T) -> Vec<T> {
    (0..SIZE * SIZE)
        .map(|i| {
            let (x, y) = (i % SIZE, i / SIZE);
            if (2..5).contains(&x) && (1..5).contains(&y) {
                inside
            } else {
                outside
            }
        })
        .collect()
}

#[test]
fn scissored_and_masked_clears_of_one_draw_buffer_among_three() {
    let (ok, out, err) = cleartest();
    assert!(ok, "agx16-cleartest failed:\n{out}\n{err}");
    let renderer = field(&out, "GL_RENDERER").unwrap_or_default();
    assert!(
        renderer.starts_with("Apple M4 (G16G) agx16"),
        "{renderer:?}"
    );
    // RGBA8: (0.25, 0.5, 0.75, 1) whole, then R and B set to (1, 0) under the mask R_B_.
    let rgba8 = words(&out, "att0");
    let want = u32::from_le_bytes([255, 128, 0, 255]);
    assert!(
        rgba8.iter().all(|&p| p == want),
        "att0 {:08x?}",
        &rgba8[..4]
    );
    // RGBA8UI: (7, 8, 9, 250), (1, 2, 3, 4) in the scissor rectangle.
    let ui = words(&out, "att1");
    let pixels: Vec<[u32; 4]> = ui.chunks(4).map(|c| c.try_into().unwrap()).collect();
    assert_eq!(pixels, expected([1, 2, 3, 4], [7, 8, 9, 250]));
    // RGBA16I: untouched by the later clears.
    let si = words(&out, "att2");
    let pixels: Vec<[i32; 4]> = si
        .chunks(4)
        .map(|c| [c[0] as i32, c[1] as i32, c[2] as i32, c[3] as i32])
        .collect();
    assert_eq!(pixels, vec![[-3, 300, -32768, 32767]; SIZE * SIZE]);
}

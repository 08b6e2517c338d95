//! Depth and stencil tests and updates, from the PPP fragment-faces record (+0x70): depth
//! compare in word 2 bits 26:24, depth-write disable bit 21, stencil reference 7:0; stencil
//! word: write mask 7:0, read mask 15:8, ops 18:16 (depth pass), 21:19 (depth fail), 24:22
//! (stencil fail), compare 27:25 (ADevWithAnIdea/agx-re docs/cmdstream, validated on
//! hardware; field table in agx16-cmdstream ppp.rs). Compare semantics and operation
//! meanings are the G13 genxml names, read as in OpenGL (incoming compared with stored).

use super::unestablished;
use crate::error::SimError;
use agx16_cmdstream::ppp::{PppFragmentFaces, StencilOp, ZsFunc};

/// The depth/stencil state of one face.
#[derive(Debug, Clone, Copy)]
pub struct FaceState {
    pub depth_func: ZsFunc,
    pub depth_write: bool,
    pub stencil: Option<StencilState>,
}

#[derive(Debug, Clone, Copy)]
pub struct StencilState {
    pub reference: u8,
    pub read_mask: u8,
    pub write_mask: u8,
    pub func: ZsFunc,
    pub stencil_fail: StencilOp,
    pub depth_fail: StencilOp,
    pub depth_pass: StencilOp,
}

impl FaceState {
    /// The state for a face; back faces use the back words when two-sided stencil is on.
    pub fn of(f: &PppFragmentFaces, back: bool, depth_write_disable: bool) -> Self {
        let back = back && f.two_sided_stencil;
        let stencil = f.stencil_test_enable.then_some({
            if back {
                StencilState {
                    reference: f.back_stencil_reference,
                    read_mask: f.back_read_mask.0 as u8,
                    write_mask: f.back_write_mask.0 as u8,
                    func: f.back_stencil_compare,
                    stencil_fail: f.back_stencil_fail,
                    depth_fail: f.back_depth_fail,
                    depth_pass: f.back_depth_pass,
                }
            } else {
                StencilState {
                    reference: f.front_stencil_reference,
                    read_mask: f.front_read_mask.0 as u8,
                    write_mask: f.front_write_mask.0 as u8,
                    func: f.front_stencil_compare,
                    stencil_fail: f.front_stencil_fail,
                    depth_fail: f.front_depth_fail,
                    depth_pass: f.front_depth_pass,
                }
            }
        });
        let (func, no_write) = if back {
            (f.back_depth_function, f.back_disable_depth_write)
        } else {
            (f.front_depth_function, f.front_disable_depth_write)
        };
        FaceState {
            depth_func: func,
            depth_write: !no_write && !depth_write_disable,
            stencil,
        }
    }
}

/// `incoming FUNC stored`.
pub fn compare<T: PartialOrd>(
    f: ZsFunc,
    incoming: T,
    stored: T,
    at: u64,
) -> Result<bool, SimError> {
    Ok(match f {
        ZsFunc::Never => false,
        ZsFunc::Less => incoming < stored,
        ZsFunc::Equal => incoming == stored,
        ZsFunc::Lequal => incoming <= stored,
        ZsFunc::Greater => incoming > stored,
        ZsFunc::NotEqual => incoming != stored,
        ZsFunc::Gequal => incoming >= stored,
        ZsFunc::Always => true,
        ZsFunc::Unknown(v) => {
            return Err(unestablished(
                at,
                "PPP fragment faces",
                format!("compare function {v}"),
            ))
        }
    })
}

/// Applies a stencil operation under the write mask.
pub fn stencil_apply(op: StencilOp, s: &StencilState, cur: u8, at: u64) -> Result<u8, SimError> {
    let v = match op {
        StencilOp::Keep => cur,
        StencilOp::Zero => 0,
        StencilOp::Replace => s.reference,
        StencilOp::IncrSat => cur.saturating_add(1),
        StencilOp::DecrSat => cur.saturating_sub(1),
        StencilOp::Invert => !cur,
        StencilOp::IncrWrap => cur.wrapping_add(1),
        StencilOp::DecrWrap => cur.wrapping_sub(1),
        StencilOp::Unknown(v) => {
            return Err(unestablished(
                at,
                "PPP fragment faces",
                format!("stencil op {v}"),
            ))
        }
    };
    Ok((cur & !s.write_mask) | (v & s.write_mask))
}

/// Result of the depth/stencil test for one sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ZsOutcome {
    pub pass: bool,
    /// Stencil value to store (whether or not the sample passed).
    pub stencil: u8,
}

/// Runs the stencil then depth test (OpenGL order) for one sample.
pub fn test(
    face: &FaceState,
    z: f32,
    stored_z: f32,
    stored_s: u8,
    at: u64,
) -> Result<ZsOutcome, SimError> {
    if let Some(s) = &face.stencil {
        let ok = compare(
            s.func,
            s.reference & s.read_mask,
            stored_s & s.read_mask,
            at,
        )?;
        if !ok {
            let st = stencil_apply(s.stencil_fail, s, stored_s, at)?;
            return Ok(ZsOutcome {
                pass: false,
                stencil: st,
            });
        }
    }
    let zpass = compare(face.depth_func, z, stored_z, at)?;
    let stencil = match &face.stencil {
        Some(s) => stencil_apply(
            if zpass { s.depth_pass } else { s.depth_fail },
            s,
            stored_s,
            at,
        )?,
        None => stored_s,
    };
    Ok(ZsOutcome {
        pass: zpass,
        stencil,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(op: StencilOp, write_mask: u8) -> StencilState {
        StencilState {
            reference: 0x5a,
            read_mask: 0xff,
            write_mask,
            func: ZsFunc::Always,
            stencil_fail: StencilOp::Keep,
            depth_fail: StencilOp::Keep,
            depth_pass: op,
        }
    }

    #[test]
    fn stencil_operations_follow_gl() {
        let cases = [
            (StencilOp::Keep, 0xff, 0x10, 0x10),
            (StencilOp::Zero, 0xff, 0x10, 0x00),
            (StencilOp::Replace, 0xff, 0x10, 0x5a),
            (StencilOp::IncrSat, 0xff, 0xff, 0xff),
            (StencilOp::DecrSat, 0xff, 0x00, 0x00),
            (StencilOp::Invert, 0xff, 0x0f, 0xf0),
            (StencilOp::IncrWrap, 0xff, 0xff, 0x00),
            (StencilOp::DecrWrap, 0xff, 0x00, 0xff),
            // Only bits in the write mask change.
            (StencilOp::Replace, 0x0f, 0x30, 0x3a),
        ];
        for (op, mask, cur, want) in cases {
            assert_eq!(
                stencil_apply(op, &st(op, mask), cur, 0).unwrap(),
                want,
                "{op:?}"
            );
        }
        assert!(stencil_apply(StencilOp::Unknown(9), &st(StencilOp::Keep, 0xff), 0, 0).is_err());
    }

    #[test]
    fn stencil_fail_skips_the_depth_test() {
        let face = FaceState {
            depth_func: ZsFunc::Always,
            depth_write: true,
            stencil: Some(StencilState {
                func: ZsFunc::Equal,
                stencil_fail: StencilOp::IncrSat,
                ..st(StencilOp::Zero, 0xff)
            }),
        };
        // Reference 0x5a vs stored 1: stencil fails, fail op increments, no depth pass.
        let out = test(&face, 0.5, 1.0, 1, 0).unwrap();
        assert_eq!(
            out,
            ZsOutcome {
                pass: false,
                stencil: 2
            }
        );
        // Stored 0x5a: passes both, the pass op zeroes.
        let out = test(&face, 0.5, 1.0, 0x5a, 0).unwrap();
        assert_eq!(
            out,
            ZsOutcome {
                pass: true,
                stencil: 0
            }
        );
        assert!(compare(ZsFunc::Less, 0.25f32, 0.5, 0).unwrap());
        assert!(!compare(ZsFunc::Greater, 0.25f32, 0.5, 0).unwrap());
    }
}

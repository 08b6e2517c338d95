//! Polygon offset (depth bias) of a raster triangle: the draw's entry of the depth-bias array
//! at `isp_dbias_base` (G13 genxml "Depth bias": constant, slope scale, clamp; the M4 driver
//! uploads that array with each batch, GravityLinux/mesa README.apple9-state.md) moves the
//! triangle's depth plane by
//!
//!   bias = constant * r + slope_scale * max(|dz/dx|, |dz/dy|), then clamped
//!
//! where r is the depth format's unit: 2^-16 for unorm16, 2^(e - 23) for f32 with e the
//! exponent of the triangle's largest |z| (the D3D/Metal rule GL ES 3.0 §3.6.5 allows;
//! value_rules DepthBiasUnit, inferred). A positive clamp bounds the bias from above, a
//! negative one from below, 0 leaves it (EXT_polygon_offset_clamp).

use super::coeff::DepthPlane;
use super::render_error;
use crate::error::SimError;
use crate::mem::GpuMemory;
use crate::value_rules::{self, Rule};
use agx16_cmdstream::ppp::DepthBias;
use agx16_cmdstream::render::ZlsFormat;
use agx16_cmdstream::Record;

/// Entry `index` of the array at `base`.
pub fn read(mem: &dyn GpuMemory, base: u64, index: u16) -> Result<DepthBias, SimError> {
    if base == 0 {
        return Err(render_error(
            "depth bias enabled with no depth-bias array (isp_dbias_base 0)".to_string(),
        ));
    }
    let va = base + DepthBias::SIZE as u64 * index as u64;
    let mut b = [0u8; DepthBias::SIZE];
    mem.read(va, &mut b)?;
    DepthBias::unpack(&b).map_err(|e| render_error(format!("depth bias at {va:#x}: {e}")))
}

/// The bias of a triangle with `plane` and vertex depths `z` on a `format` depth plane; the
/// error is strict mode's refusal of the inferred unit.
pub fn bias(
    entry: &DepthBias,
    plane: &DepthPlane,
    z: [f64; 3],
    format: ZlsFormat,
) -> Result<f64, String> {
    let slope = plane.dzdx.abs().max(plane.dzdy.abs());
    let unit = match format {
        ZlsFormat::Unorm16 => (-16f64).exp2(),
        _ => {
            let m = z.iter().fold(0f64, |a, v| a.max(v.abs()));
            if m > 0.0 && m.is_finite() {
                (m.log2().floor() - 23.0).exp2()
            } else {
                (-149f64).exp2()
            }
        }
    };
    value_rules::apply(Rule::DepthBiasUnit, 1, None)?;
    let b = entry.depth_bias as f64 * unit + entry.slope_scale as f64 * slope;
    let c = entry.clamp as f64;
    let b = if c > 0.0 {
        b.min(c)
    } else if c < 0.0 {
        b.max(c)
    } else {
        b
    };
    Ok(if b.is_finite() { b } else { 0.0 })
}

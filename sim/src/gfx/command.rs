//! The render command as the model runs it: `drm_asahi_cmd_render` decoded through
//! agx16-cmdstream, checked against the G16 rules, with its register values unpacked.

use super::render_error;
use crate::error::SimError;
use agx16_cmdstream::render::{
    tilebuffer_blocks, CmdRender, IspBgObjVals, IspZlsPixels, PppControl, ZlsControl, ZlsFormat,
    UTILE_SIZES,
};
use agx16_cmdstream::Record;

/// A validated render command.
#[derive(Debug, Clone)]
pub struct RenderCommand {
    pub raw: CmdRender,
    pub zls: ZlsControl,
    pub zls_pixels: IspZlsPixels,
    pub bg_vals: IspBgObjVals,
    pub ppp_ctrl: PppControl,
    pub width: u32,
    pub height: u32,
    pub utile: (u32, u32),
    pub samples: u32,
    /// Sample positions inside the pixel in 1/16 pixel (x, y), sample 0 first.
    pub sample_positions: Vec<(u32, u32)>,
    pub sample_size: u32,
}

fn known<R: Record>(r: &R, what: &str) -> Result<(), SimError> {
    if r.fully_known() {
        Ok(())
    } else {
        Err(render_error(format!(
            "{what} ({}) has undocumented bits {:x?} or values {:?}",
            R::NAME,
            r.unknown_bits(),
            r.unknown_values()
        )))
    }
}

impl RenderCommand {
    /// Decodes the 240-byte `drm_asahi_cmd_render` payload.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SimError> {
        let raw = CmdRender::unpack(bytes).map_err(|e| render_error(format!("cmd_render: {e}")))?;
        Self::new(raw)
    }

    /// Checks the command against what the G16 kernel accepts and the model establishes.
    pub fn new(raw: CmdRender) -> Result<Self, SimError> {
        let e = |w: &str| Err(render_error(w.to_string()));
        // Allowed flags on G16: PROCESS_EMPTY_TILES and DBIAS_IS_INT (GravityLinux/linux
        // g16_render.rs, inferred from its validation).
        let allowed = agx16_cmdstream::render::RENDER_PROCESS_EMPTY_TILES
            | agx16_cmdstream::render::RENDER_DBIAS_IS_INT;
        if raw.flags.0 as u32 & !allowed != 0 || raw.flags.0 >> 32 != 0 {
            return e(&format!(
                "flags {:#x} outside what G16 accepts",
                raw.flags.0
            ));
        }
        if raw.vertex_helper_binary.0 != 0 || raw.fragment_helper_binary.0 != 0 {
            return e("helper programs must be zero on G16");
        }
        if raw.isp_scissor_base.0 == 0 {
            return e("isp_scissor_base must be nonzero on G16");
        }
        if raw.eot_usc.0 == 0 {
            return e("end-of-tile program (eot_usc) is mandatory");
        }
        let (width, height) = (raw.width_px as u32, raw.height_px as u32);
        if width == 0 || height == 0 || width > 16384 || height > 16384 {
            return e(&format!("framebuffer {width}x{height}"));
        }
        if raw.layers != 1 {
            return e(&format!(
                "{} layers: layered rendering is not modelled",
                raw.layers
            ));
        }
        let utile = (raw.utile_width_px as u32, raw.utile_height_px as u32);
        if !UTILE_SIZES
            .iter()
            .any(|(w, h)| (*w as u32, *h as u32) == utile)
        {
            return e(&format!(
                "utile {}x{} is not one G16 accepts",
                utile.0, utile.1
            ));
        }
        let samples = raw.samples as u32;
        if !matches!(samples, 1 | 2 | 4) {
            return e(&format!("{samples} samples: G16 accepts 1, 2 and 4"));
        }
        let sample_positions = sample_positions(raw.ppp_multisamplectl.0, samples)?;
        let sample_size = raw.sample_size_b as u32;
        if sample_size == 0 || tilebuffer_blocks(sample_size, utile.0, utile.1, samples).is_none() {
            return e(&format!(
                "tilebuffer of {sample_size} B/sample exceeds 32 blocks"
            ));
        }
        let zls = ZlsControl::unpack(&raw.zls_ctrl.0.to_le_bytes())
            .map_err(|x| render_error(format!("zls_ctrl: {x}")))?;
        known(&zls, "zls_ctrl")?;
        let zls_pixels = IspZlsPixels::unpack(&(raw.isp_zls_pixels.0 as u32).to_le_bytes())
            .map_err(|x| render_error(format!("isp_zls_pixels: {x}")))?;
        known(&zls_pixels, "isp_zls_pixels")?;
        let bg_vals = IspBgObjVals::unpack(&(raw.isp_bgobjvals.0 as u32).to_le_bytes())
            .map_err(|x| render_error(format!("isp_bgobjvals: {x}")))?;
        known(&bg_vals, "isp_bgobjvals")?;
        let ppp_ctrl = PppControl::unpack(&(raw.ppp_ctrl.0 as u32).to_le_bytes())
            .map_err(|x| render_error(format!("ppp_ctrl: {x}")))?;
        known(&ppp_ctrl, "ppp_ctrl")?;
        if matches!(zls.z_format, ZlsFormat::Unknown(_)) {
            return e("zls_ctrl depth format not established");
        }
        Ok(RenderCommand {
            raw,
            zls,
            zls_pixels,
            bg_vals,
            ppp_ctrl,
            width,
            height,
            utile,
            samples,
            sample_positions,
            sample_size,
        })
    }
}

/// Sample positions from `ppp_multisamplectl`: one byte per sample, sample 0 in the low
/// byte, x in the low nibble and y in the high nibble, in 1/16 pixel (Mesa
/// src/gallium/drivers/asahi agx_batch.c `agx_default_sample_positions`: 0x88, 0x44cc,
/// 0xeaa26e26, the D3D patterns agx-re docs/pipeline measured as the default on G17P).
/// Bytes past the sample count must be zero.
fn sample_positions(msctl: u64, samples: u32) -> Result<Vec<(u32, u32)>, SimError> {
    if samples < 8 && msctl >> (8 * samples) != 0 {
        return Err(render_error(format!(
            "ppp_multisamplectl {msctl:#x} has bytes past its {samples} sample(s)"
        )));
    }
    Ok((0..samples)
        .map(|s| {
            let b = (msctl >> (8 * s)) as u32 & 0xff;
            (b & 0xf, b >> 4)
        })
        .collect())
}

//! Submit-time validation of render and compute commands (G16 rules).
//!
//! Source: GravityLinux/linux drivers/gpu/drm/asahi/g16_drm.rs
//! (`render_parameters`, `compute_parameters`) and g16_render.rs
//! (`Parameters::valid`, `set_private`); read from that source.

use crate::errno::{Errno, KResult};
use crate::g16_ranges::render_window_ok;
use crate::params::USC_EXEC_BASE;
use crate::uapi::asahi::{
    BgEot, CmdCompute, CmdRender, HelperProgram, RENDER_DBIAS_IS_INT, RENDER_PROCESS_EMPTY_TILES,
};
use crate::vm::VmView;
use std::ops::Range;

fn helper_unused(h: &HelperProgram) -> bool {
    h.binary == 0 && h.cfg == 0 && h.data == 0
}

/// g16 `cover(start, size, access)`: READ=2 and WRITE=4 in its encoding.
fn cover(vm: &VmView, va: u64, len: u64, write: bool) -> KResult<()> {
    if vm.covers(va, len, write) {
        Ok(())
    } else {
        Err(Errno::EINVAL)
    }
}

pub fn check_compute(vm: &VmView, c: &CmdCompute) -> KResult<()> {
    if c.flags != 0 || !helper_unused(&c.helper) {
        return Err(Errno::ENOTSUPP);
    }
    let size = c
        .cdm_ctrl_stream_end
        .checked_sub(c.cdm_ctrl_stream_base)
        .ok_or(Errno::EINVAL)?;
    if (c.cdm_ctrl_stream_base | c.cdm_ctrl_stream_end) & 3 != 0
        || size < 4
        || c.sampler_heap & 7 != 0
        || c.sampler_count > 1024
        || (c.sampler_count == 0) != (c.sampler_heap == 0)
    {
        return Err(Errno::EINVAL);
    }
    cover(vm, c.cdm_ctrl_stream_base, size, false)?;
    if c.sampler_count != 0 {
        cover(vm, c.sampler_heap, u64::from(c.sampler_count) * 8, false)?;
    }
    Ok(())
}

pub fn check_render(vm: &VmView, kernel: &Range<u64>, c: &CmdRender) -> KResult<()> {
    if c.flags & !(RENDER_PROCESS_EMPTY_TILES | RENDER_DBIAS_IS_INT) != 0
        || !helper_unused(&c.vertex_helper)
        || !helper_unused(&c.fragment_helper)
    {
        return Err(Errno::ENOTSUPP);
    }
    // The render-private state must fit the VM's kernel window.
    if !render_window_ok(kernel) {
        return Err(Errno::EINVAL);
    }
    let (w, h, layers) = (
        u64::from(c.width_px),
        u64::from(c.height_px),
        u64::from(c.layers),
    );
    let (uw, uh) = (u64::from(c.utile_width_px), u64::from(c.utile_height_px));
    let samples = u64::from(c.samples);
    let tib_blocks = (u64::from(c.sample_size_b) * uw * uh * samples).div_ceil(2048);
    let geometry_ok = (1..=16384).contains(&w)
        && (1..=16384).contains(&h)
        && (1..=2048).contains(&layers)
        && matches!((uw, uh), (32, 32) | (32, 16) | (16, 16))
        && matches!(samples, 1 | 2 | 4)
        && tib_blocks <= 32;
    let encoder = c.vdm_ctrl_stream_base;
    if !geometry_ok || encoder == 0 || encoder & 3 != 0 {
        return Err(Errno::EINVAL);
    }
    cover(vm, encoder, 4, false)?;
    if c.isp_scissor_base == 0 {
        return Err(Errno::EINVAL);
    }
    for (va, write) in [
        (c.isp_scissor_base, false),
        (c.isp_dbias_base, false),
        (c.isp_oclqry_base, true),
    ] {
        if va != 0 {
            if va & 7 != 0 {
                return Err(Errno::EINVAL);
            }
            cover(vm, va, 8, write)?;
        }
    }
    for zls in [&c.depth, &c.stencil] {
        if (zls.base == 0 && (zls.comp_base != 0 || zls.stride != 0 || zls.comp_stride != 0))
            || (zls.comp_base == 0 && zls.comp_stride != 0)
            || (layers > 1 && zls.base != 0 && zls.stride == 0)
            || (zls.stride != 0 && zls.stride & 0x3fff != 1)
            || zls.comp_stride & 0x3fff != 0
        {
            return Err(Errno::EINVAL);
        }
        // ZLS surfaces are read and written (g16 access 6 = READ|WRITE).
        if zls.base != 0 {
            let stride = if zls.stride == 0 {
                0
            } else {
                (u64::from(zls.stride >> 14) + 1) * 0x4000
            };
            cover(vm, zls.base, stride * (layers - 1) + 1, false)?;
            cover(vm, zls.base, stride * (layers - 1) + 1, true)?;
        }
        if zls.comp_base != 0 {
            let len = (u64::from(zls.comp_stride >> 14) + 1) * 0x80 * (layers - 1) + 1;
            cover(vm, zls.comp_base, len, false)?;
            cover(vm, zls.comp_base, len, true)?;
        }
    }
    if (c.sampler_heap == 0) != (c.sampler_count == 0)
        || c.sampler_heap & 7 != 0
        || c.sampler_count > 1024
    {
        return Err(Errno::EINVAL);
    }
    if c.sampler_count != 0 {
        cover(vm, c.sampler_heap, u64::from(c.sampler_count) * 8, false)?;
    }
    // EOT programs are mandatory; bg optional; partial_bg optional only if
    // bg is absent (g16_drm render_parameters).
    let programs: [(&BgEot, bool); 4] = [
        (&c.bg, true),
        (&c.eot, false),
        (&c.partial_bg, c.bg.usc == 0),
        (&c.partial_eot, false),
    ];
    for (program, optional) in programs {
        if program.usc == 0 {
            if !optional || program.rsrc_spec != 0 {
                return Err(Errno::EINVAL);
            }
        } else {
            cover(vm, USC_EXEC_BASE + u64::from(program.usc & !7), 4, false)?;
        }
    }
    Ok(())
}

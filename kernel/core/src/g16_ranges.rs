//! VA ranges the G16 firmware owns inside every client VM. Binding user
//! memory over them is rejected with EINVAL.
//!
//! Source: GravityLinux/linux drivers/gpu/drm/asahi/g16_drm.rs (`vm_bind`),
//! g16_compute.rs (`private_ranges`) and g16_render.rs (`fixed_ranges`,
//! `set_private`, `OperandPool`); values read from that source, which its
//! authors ran on a real M4.

use std::ops::Range;

/// Start of the render-context aperture (g16_render `CONTEXT_BASE`).
pub const CONTEXT_BASE: u64 = 0x10_0000_0000;
/// Render-private memory the kernel places at the start of the kernel window
/// (g16_render `PRIVATE_SIZE`).
pub const RENDER_PRIVATE_SIZE: u64 = 0x35d_4000;

/// Half-open ranges that no user bind may overlap (besides the VM's own
/// kernel window, checked separately).
pub fn firmware_ranges() -> &'static [Range<u64>] {
    static RANGES: std::sync::OnceLock<Vec<Range<u64>>> = std::sync::OnceLock::new();
    RANGES.get_or_init(build_firmware_ranges)
}

fn build_firmware_ranges() -> Vec<Range<u64>> {
    let mut out = vec![
        // Firmware shared window (g16_drm vm_bind).
        0x71_0000_0000..0x73_0000_0000,
        0x70_0000_0000..0x70_0040_0000,
        0x70_0040_8000..0x70_0041_8000,
        0x70_0042_0000..0x70_02cb_8000,
        0x70_0310_8000..0x70_0518_0000,
        // Compute private namespace (g16_compute private_ranges):
        // directory, scratch, marker, then 16 operand buffers.
        0x70_02cc_0000..0x70_02cc_0000 + 0x18000,
        0x70_030e_0000..0x70_030e_0000 + 0x20000,
        0x10_00c6_0000..0x10_00c6_0000 + 0x4000,
        // Render fixed aliases (g16_render fixed_ranges).
        0x10_0008_0000..0x10_0008_4000,
        0x10_0025_8000..0x10_0025_8000 + 0x1c000,
        0x10_0024_0000..0x10_0024_4000,
    ];
    for i in 0..16u64 {
        let base = 0x70_0310_8000 + i * 0x20_8000;
        out.push(base..base + 0x20_0000);
    }
    for i in 0..11u64 {
        let base = 0x10_0008_8000 + i * 0x2_8000;
        out.push(base..base + 0x2_0000);
    }
    out
}

/// Bytes the render operand pool needs after the kernel window start
/// (g16_render `OperandPool::new`: private area, a page, a 0x408000-byte
/// directory, a 0x18000-byte table, then 24 buffers of 0x208000 bytes).
pub const RENDER_POOL_SIZE: u64 =
    RENDER_PRIVATE_SIZE + 0x4000 + 0x40_8000 + 0x1_8000 + 24 * 0x20_8000;

/// Whether a VM's kernel window can hold the render-private state, which
/// G16 requires for any render submission (g16_render `set_private`).
pub fn render_window_ok(kernel: &Range<u64>) -> bool {
    let start = kernel.start;
    start & crate::params::PAGE_MASK == 0
        && start >= CONTEXT_BASE
        && start
            .checked_add(RENDER_PRIVATE_SIZE)
            .is_some_and(|e| e <= kernel.end.min(CONTEXT_BASE + (1 << 32)))
        && start
            .checked_add(RENDER_POOL_SIZE)
            .is_some_and(|e| e <= kernel.end)
}

pub fn overlaps(a: &Range<u64>, b: &Range<u64>) -> bool {
    a.start < b.end && b.start < a.end
}

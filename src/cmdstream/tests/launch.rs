//! Launcher parameters and resource records against the T8132 launcher write-up
//! (GravityLinux/mesa README.apple9-launchers.md).

use agx16_cmdstream::launch::*;
use agx16_cmdstream::{Hex, Record};

#[test]
fn stage_target_encoding() {
    // "The target field at byte 2 is 2 * entry_offset + 0x2a"; placements at +0x7f8000 ran.
    assert_eq!(stage_target(0x7f_8000).unwrap(), 2 * 0x7f_8000 + 0x2a);
    assert_eq!(
        entry_from_target(stage_target(0x7f_0000).unwrap()),
        Some(0x7f_0000)
    );
    assert_eq!(stage_target(0x101), Err(LaunchError::OddEntry(0x101)));
    assert!(stage_target(0x80_0000).is_err(), "24-bit field overflows");
}

#[test]
fn allocation_publication_and_call_position() {
    assert_eq!(compute_allocation(1024).unwrap(), Some((1024 << 2) | 0x80));
    assert_eq!(compute_allocation(0).unwrap(), None);
    assert!(compute_allocation(2048).is_err());
    assert_eq!(fragment_allocation_mode(2).unwrap(), 0x4b);
    assert_eq!(fragment_allocation_mode(4).unwrap(), 0x43);
    assert_eq!(publication_word(5), 3 << 7);
    // C = 26 + 14 * ceil(R / 2), R = visible + 1.
    assert_eq!(compute_call_position(1).unwrap(), 40);
    assert_eq!(compute_call_position(18).unwrap(), 26 + 14 * 10);
    assert_eq!(compute_argument_uniforms(3), (12, 14));
}

#[test]
fn compute_resource_record_layout() {
    let mut r = ComputeResources {
        group_count_pointer: Hex(0x100_0000_1000),
        group_count_x: 4,
        group_count_y: 2,
        group_count_z: 1,
        ..Default::default()
    };
    r.set_buffers(&[0xaaaa_0000, 0xbbbb_0000]).unwrap();
    let b = r.pack().unwrap();
    assert_eq!(b.len(), 0x100);
    let q = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
    assert_eq!(
        (q(0), q(1), q(2), q(3)),
        (0x100_0000_1000, 0xaaaa_0000, 0xbbbb_0000, 0)
    );
    assert_eq!(
        u32::from_le_bytes(b[0xc0..0xc4].try_into().unwrap()),
        4,
        "inline group counts at +0xc0"
    );
    assert_eq!(
        ComputeResources::unpack(&b).unwrap().buffer(2),
        Some(0xbbbb_0000)
    );
    assert!(r.set_buffers(&[0; 19]).is_err());
}

#[test]
fn entry_blocks_follow_the_directory() {
    // agx_apple9_layout.h: header 0x340, 0xc0-byte blocks, code at +0x80.
    assert_eq!(entry_offset(0), 0x340 + 0x80);
    assert_eq!(entry_offset(3), 0x340 + 3 * 0xc0 + 0x80);
    // AGX_APPLE9_ENTRY_MAX_OFFSET = (0xffffff - 0x2a) / 2 is the last encodable even entry.
    let max = ((0xff_ffff - 0x2a) / 2) & !1;
    assert!(stage_target(max).is_ok());
    assert!(stage_target(max + 2).is_err());
}

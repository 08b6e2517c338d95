//! Descriptor <-> layout: the two directions agree, and the descriptor bits follow agx-re.

use agx16_cmdstream::descriptors::*;
use agx16_cmdstream::layout::*;
use agx16_cmdstream::texture_layout::*;
use agx16_cmdstream::Record;

const RGBA8: TextureFormat = TextureFormat {
    channels: Channels::R8G8B8A8,
    numeric_type: NumericType::Unorm,
    swizzle: [Swizzle::R, Swizzle::G, Swizzle::B, Swizzle::A],
    srgb: false,
};

fn desc(
    w: u32,
    h: u32,
    kind: Kind,
    layers: u32,
    levels: u32,
    samples: u32,
    compressible: bool,
) -> ImageDesc {
    ImageDesc {
        layers,
        levels,
        samples,
        kind,
        compressible,
        ..ImageDesc::simple_2d(w, h, 4, Tiling::Twiddled)
    }
}

#[test]
fn compressed_texture_points_at_its_aux() {
    let l = ImageLayout::new(desc(256, 256, Kind::D2, 1, 1, 1, true)).unwrap();
    let t = texture_for(&l, 0x1_0000_0000, RGBA8).unwrap();
    let b = t.pack().unwrap();
    let w = |i: usize| u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().unwrap());
    assert_eq!(w(1) >> 27 & 1, 1, "word1 bit 27: compression aux present");
    assert_eq!(w(3) >> 31, 1, "word3 bit 31: aux layout metadata");
    let aux = (w(4) as u64 | ((w(5) & 0xfff) as u64) << 32) << 4;
    assert_eq!(
        aux,
        0x1_0000_0000 + 256 * 256 * 4,
        "aux follows the padded image"
    );
}

#[test]
fn mipmapped_texture_bits() {
    let l = ImageLayout::new(desc(128, 128, Kind::D2, 1, 8, 1, false)).unwrap();
    let b = texture_for(&l, 0x4000, RGBA8).unwrap().pack().unwrap();
    let w = |i: usize| u32::from_le_bytes(b[i * 4..i * 4 + 4].try_into().unwrap());
    assert_eq!(w(1) >> 26 & 1, 1, "word1 bit 26: mipmapped");
    assert_eq!(w(5) >> 16 & 0xf, 7, "mip count - 1 at byte 0x16");
    assert_eq!(w(3) >> 31, 1);
}

#[test]
fn both_directions_agree() {
    for d in [
        desc(300, 200, Kind::D2, 1, 9, 1, false),
        desc(64, 64, Kind::D2Array, 5, 7, 1, false),
        desc(32, 32, Kind::Cube, 1, 6, 1, false),
        desc(32, 32, Kind::Cube, 3, 1, 1, false),
        desc(40, 20, Kind::D3, 9, 1, 1, false),
        desc(96, 96, Kind::D2, 1, 1, 4, false),
        desc(64, 64, Kind::D2, 1, 1, 1, true),
    ] {
        let l = ImageLayout::new(d).unwrap();
        let t = texture_for(&l, 0x8000, RGBA8).unwrap();
        let back = layout_for(&Texture::unpack(&t.pack().unwrap()).unwrap()).unwrap();
        assert_eq!(back, l, "{d:?}");
    }
}

/// A cube's extent field counts cubes (Metal's array length 1, GravityLinux's layers / 6), and
/// its six faces are six planes of the layout.
#[test]
fn cube_extent_counts_cubes() {
    let l = ImageLayout::new(desc(16, 16, Kind::Cube, 1, 5, 1, false)).unwrap();
    assert_eq!(l.planes, 6);
    let t = texture_for(&l, 0x8000, RGBA8).unwrap();
    assert_eq!((t.dimension, t.extent_minus1), (TextureDimension::Cube, 0));
    let b = t.pack().unwrap();
    assert_eq!(b[0] & 0xf, 6, "type Cube = 6 (agx-re EXP-0015)");
    let w3 = u32::from_le_bytes(b[12..16].try_into().unwrap());
    assert_eq!(w3 >> 14 & 0x1ffff, 0, "array length - 1");
    let a = ImageLayout::new(desc(16, 16, Kind::Cube, 2, 1, 1, false)).unwrap();
    let t = texture_for(&a, 0x8000, RGBA8).unwrap();
    assert_eq!(
        (t.dimension, t.extent_minus1),
        (TextureDimension::CubeArray, 1)
    );
    // A cube descriptor with an extent of several cubes is not a cube.
    let mut bad = texture_for(&l, 0x8000, RGBA8).unwrap();
    bad.extent_minus1 = 5;
    assert!(layout_for(&bad).is_err());
}

#[test]
fn mismatches_are_errors() {
    let l = ImageLayout::new(desc(16, 16, Kind::D2, 1, 1, 1, false)).unwrap();
    let mut f = RGBA8;
    f.channels = Channels::R32G32;
    assert!(
        texture_for(&l, 0, f).is_err(),
        "8-byte format on a 4-byte image"
    );
    let lin = ImageLayout::new(ImageDesc::simple_2d(16, 16, 4, Tiling::Linear)).unwrap();
    assert!(texture_for(&lin, 0, RGBA8).is_err());
}

#[test]
fn rgba8_2d_format_bytes_match_the_m4_capture() {
    // agx-re docs/descriptors/format-table.md (EXP-M4-08, M4 + A18): a sampled 2D rgba8unorm
    // descriptor starts 0x22 0x0a; rgba8unorm_srgb is the same code with word3 bit 12.
    let l = ImageLayout::new(desc(64, 32, Kind::D2, 1, 1, 1, false)).unwrap();
    let b = texture_for(&l, 0x10_0000, RGBA8).unwrap().pack().unwrap();
    assert_eq!((b[0], b[1]), (0x22, 0x0a));
    let mut srgb = RGBA8;
    srgb.srgb = true;
    let s = texture_for(&l, 0x10_0000, srgb).unwrap().pack().unwrap();
    assert_eq!((s[0], s[1]), (0x22, 0x0a));
    let w3 = |b: &[u8]| u32::from_le_bytes(b[12..16].try_into().unwrap());
    assert_eq!(w3(&s) ^ w3(&b), 1 << 12);
}

/// A 3D image deeper than it is wide has the levels of its depth (4x4x16: 5 levels; the
/// last three are 1x1 planes), and the descriptor round trip keeps them.
#[test]
fn deep_3d_images_have_the_levels_of_their_depth() {
    let l = ImageLayout::new(desc(4, 4, Kind::D3, 16, 5, 1, false)).unwrap();
    assert_eq!(l.levels.len(), 5);
    assert_eq!((l.levels[4].plane.width, l.levels[4].plane.height), (1, 1));
    let t = texture_for(&l, 0x10_0000, RGBA8).unwrap();
    assert_eq!(layout_for(&t).unwrap(), l);
    // A 2D array's layers do not add levels.
    assert!(ImageLayout::new(desc(4, 4, Kind::D2Array, 16, 5, 1, false)).is_err());
}

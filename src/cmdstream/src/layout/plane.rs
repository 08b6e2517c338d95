//! One 2D plane: linear, or a row-major grid of square Morton tiles.

/// The GPU page size; tiles and tile rows are sized against it.
pub const PAGE: u64 = 0x4000;

/// Spreads the low 16 bits of `v` to the even bit positions.
fn spread(v: u32) -> u64 {
    let mut x = v as u64 & 0xffff;
    x = (x | (x << 8)) & 0x00ff_00ff;
    x = (x | (x << 4)) & 0x0f0f_0f0f;
    x = (x | (x << 2)) & 0x3333_3333;
    x = (x | (x << 1)) & 0x5555_5555;
    x
}

/// `v / d`, by a shift for the power-of-two tile sizes every constructor makes (the model
/// addresses each sampled texel through here; a hardware divide per texel showed up).
#[inline(always)]
fn div(v: u32, d: u32) -> u32 {
    if d.is_power_of_two() {
        v >> d.trailing_zeros()
    } else {
        v / d
    }
}

/// Morton index of (x, y) with x on the lower bit of each pair.
pub fn morton_interleave(x: u32, y: u32) -> u64 {
    spread(x) | (spread(y) << 1)
}

/// Layout of one plane, in elements (texels, sample groups or compressed blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlaneLayout {
    pub width: u32,
    pub height: u32,
    pub element_bytes: u32,
    /// Linear: row stride in bytes. Twiddled: zero.
    pub row_stride: u64,
    /// Twiddled: tile width and height in elements (both the tile edge T unless the plane
    /// is narrower than a tile).
    pub tile_w: u32,
    pub tile_h: u32,
    /// Twiddled: tiles per row.
    pub cols: u32,
    /// Padded size in elements.
    pub pad_w: u32,
    pub pad_h: u32,
    /// Bytes the plane occupies.
    pub size: u64,
}

/// Tile edge: the largest power of two T with T*T*element_bytes <= 16 KiB.
pub fn tile_edge(element_bytes: u32) -> u32 {
    let mut t = 1u32;
    while (2 * t as u64) * (2 * t as u64) * element_bytes as u64 <= PAGE {
        t *= 2;
    }
    t
}

fn pad_dim(d: u32, t: u32) -> u32 {
    if d >= t {
        d.div_ceil(t) * t
    } else {
        d.next_power_of_two()
    }
}

impl PlaneLayout {
    /// Row-major plane; rows are 16-byte aligned (the descriptor stores stride / 16 - 1).
    pub fn linear(width: u32, height: u32, element_bytes: u32) -> Self {
        let row_stride = (width as u64 * element_bytes as u64).next_multiple_of(16);
        PlaneLayout {
            width,
            height,
            element_bytes,
            row_stride,
            tile_w: 0,
            tile_h: 0,
            cols: 0,
            pad_w: width,
            pad_h: height,
            size: row_stride * height as u64,
        }
    }

    /// Tiled Morton plane: tiles of edge T (largest power of two with T*T*bytes <= 16 KiB);
    /// tile rows padded to whole 16 KiB pages (granule G = 16 KiB / tile bytes columns);
    /// dimensions below T pad to a power of two and interleave up to the smaller one.
    /// When only one dimension is below T the tiles are (padded small dim) x T: inferred,
    /// the sources measured sizes but not addresses for that shape.
    pub fn twiddled(width: u32, height: u32, element_bytes: u32) -> Self {
        let t = tile_edge(element_bytes);
        let tile_bytes = (t as u64) * (t as u64) * element_bytes as u64;
        let granule = (PAGE / tile_bytes).max(1) as u32;
        let mut pad_w = pad_dim(width, t);
        let pad_h = pad_dim(height, t);
        if width > t {
            pad_w = width.div_ceil(t).next_multiple_of(granule) * t;
        }
        let tile_w = pad_w.min(t);
        let tile_h = pad_h.min(t);
        PlaneLayout {
            width,
            height,
            element_bytes,
            row_stride: 0,
            tile_w,
            tile_h,
            cols: pad_w / tile_w,
            pad_w,
            pad_h,
            size: pad_w as u64 * pad_h as u64 * element_bytes as u64,
        }
    }

    pub fn is_twiddled(&self) -> bool {
        self.tile_w != 0
    }

    /// Element index of (x, y) within its tile: Morton over the smaller tile dimension,
    /// remaining bits of the larger one appended above.
    #[inline]
    pub fn within_tile(&self, x: u32, y: u32) -> u64 {
        let (tw, th) = (self.tile_w, self.tile_h);
        let (xi, yi) = (x & (tw - 1), y & (th - 1));
        let m = tw.min(th);
        let low = morton_interleave(xi & (m - 1), yi & (m - 1));
        let high = if tw > th { div(xi, m) } else { div(yi, m) };
        low + (high as u64) * (m as u64 * m as u64)
    }

    /// Byte offset of element (x, y).
    #[inline]
    pub fn offset(&self, x: u32, y: u32) -> u64 {
        let b = self.element_bytes as u64;
        if !self.is_twiddled() {
            return y as u64 * self.row_stride + x as u64 * b;
        }
        let tile = div(y, self.tile_h) as u64 * self.cols as u64 + div(x, self.tile_w) as u64;
        (tile * self.tile_w as u64 * self.tile_h as u64 + self.within_tile(x, y)) * b
    }
}

//! Fast CPU conversion between a linear image and a twiddled plane (for transfers).
//!
//! Within a tile the Morton offset splits into a sum of an x part and a y part, so each row
//! is copied with two small lookup tables; even/odd x pairs are adjacent in memory, so
//! texels move two at a time.

use super::plane::{morton_interleave, PlaneLayout};
use super::LayoutError;

/// Per-coordinate contributions to the within-tile element index.
fn tables(p: &PlaneLayout) -> (Vec<u32>, Vec<u32>) {
    let (tw, th) = (p.tile_w, p.tile_h);
    let m = tw.min(th);
    let sq = m * m;
    let xt = (0..tw)
        .map(|x| morton_interleave(x & (m - 1), 0) as u32 + if tw > th { (x / m) * sq } else { 0 })
        .collect();
    let yt = (0..th)
        .map(|y| morton_interleave(0, y & (m - 1)) as u32 + if th > tw { (y / m) * sq } else { 0 })
        .collect();
    (xt, yt)
}

fn check(p: &PlaneLayout, linear: usize, stride: usize, tiled: usize) -> Result<(), LayoutError> {
    if !p.is_twiddled() {
        return Err(LayoutError::Unsupported("plane is not twiddled"));
    }
    let row = p.width as usize * p.element_bytes as usize;
    if stride < row {
        return Err(LayoutError::Buffer {
            have: stride,
            need: row,
        });
    }
    let need_linear = stride * (p.height as usize - 1) + row;
    if linear < need_linear {
        return Err(LayoutError::Buffer {
            have: linear,
            need: need_linear,
        });
    }
    if tiled < p.size as usize {
        return Err(LayoutError::Buffer {
            have: tiled,
            need: p.size as usize,
        });
    }
    Ok(())
}

// Square full tiles are written in Morton order as 4x4 blocks: each block is 16 consecutive
// elements, assembled from two 2-element pieces of each of four source rows.
fn block_coords(t: usize) -> Vec<(usize, usize)> {
    let n = t / 4;
    let compact = |mut v: usize| {
        let mut out = 0;
        for bit in 0..16 {
            out |= (v & 1) << bit;
            v >>= 2;
        }
        out
    };
    (0..n * n).map(|b| (compact(b), compact(b >> 1))).collect()
}

/// Offset (in elements) inside a 4x4 block of the first element of row r's two pieces.
const ROW_BASE: [usize; 4] = [0, 2, 8, 10];

fn full_square(p: &PlaneLayout, tx: usize, ty: usize) -> bool {
    let t = p.tile_w as usize;
    p.tile_w == p.tile_h
        && t >= 4
        && (tx + 1) * t <= p.width as usize
        && (ty + 1) * t <= p.height as usize
}

fn square_to_tiled<const B: usize>(
    linear: &[u8],
    stride: usize,
    tile: &mut [u8],
    x0: usize,
    y0: usize,
    coords: &[(usize, usize)],
) {
    for (dst, &(bx, by)) in tile.chunks_exact_mut(16 * B).zip(coords) {
        let (x, y) = (x0 + 4 * bx, y0 + 4 * by);
        for (r, base) in ROW_BASE.iter().enumerate() {
            let src = &linear[(y + r) * stride + x * B..][..4 * B];
            dst[base * B..(base + 2) * B].copy_from_slice(&src[..2 * B]);
            dst[(base + 4) * B..(base + 6) * B].copy_from_slice(&src[2 * B..]);
        }
    }
}

fn square_from_tiled<const B: usize>(
    linear: &mut [u8],
    stride: usize,
    tile: &[u8],
    x0: usize,
    y0: usize,
    coords: &[(usize, usize)],
) {
    for (src, &(bx, by)) in tile.chunks_exact(16 * B).zip(coords) {
        let (x, y) = (x0 + 4 * bx, y0 + 4 * by);
        for (r, base) in ROW_BASE.iter().enumerate() {
            let dst = &mut linear[(y + r) * stride + x * B..][..4 * B];
            dst[..2 * B].copy_from_slice(&src[base * B..(base + 2) * B]);
            dst[2 * B..].copy_from_slice(&src[(base + 4) * B..(base + 6) * B]);
        }
    }
}

// Full tiles move 2x2 quads: Morton keeps (x, y), (x+1, y), (x, y+1), (x+1, y+1) adjacent
// for even x and y, so each quad is two 2-element reads and one 4-element write. Partial
// tiles at the right and bottom edges go element by element.
fn to_tiled<const B: usize>(p: &PlaneLayout, linear: &[u8], stride: usize, tiled: &mut [u8]) {
    let (xt, yt) = tables(p);
    let (tw, th) = (p.tile_w as usize, p.tile_h as usize);
    let (w, h) = (p.width as usize, p.height as usize);
    let tile_bytes = tw * th * B;
    let coords = block_coords(tw.min(th));
    for ty in 0..h.div_ceil(th) {
        for tx in 0..w.div_ceil(tw) {
            let t0 = (ty * p.cols as usize + tx) * tile_bytes;
            let tile = &mut tiled[t0..t0 + tile_bytes];
            let (x0, y0) = (tx * tw, ty * th);
            if full_square(p, tx, ty) {
                square_to_tiled::<B>(linear, stride, tile, x0, y0, &coords);
                continue;
            }
            if x0 + tw > w || y0 + th > h || th < 2 {
                for y in y0..h.min(y0 + th) {
                    for x in x0..w.min(x0 + tw) {
                        let d = (yt[y - y0] + xt[x - x0]) as usize * B;
                        tile[d..d + B].copy_from_slice(&linear[y * stride + x * B..][..B]);
                    }
                }
                continue;
            }
            for y in (0..th).step_by(2) {
                let r0 = &linear[(y0 + y) * stride + x0 * B..][..tw * B];
                let r1 = &linear[(y0 + y + 1) * stride + x0 * B..][..tw * B];
                let yo = yt[y] as usize;
                for ((a, b), xo) in r0
                    .chunks_exact(2 * B)
                    .zip(r1.chunks_exact(2 * B))
                    .zip(xt.iter().step_by(2))
                {
                    let d = (yo + *xo as usize) * B;
                    let q = &mut tile[d..d + 4 * B];
                    q[..2 * B].copy_from_slice(a);
                    q[2 * B..].copy_from_slice(b);
                }
            }
        }
    }
}

fn from_tiled<const B: usize>(p: &PlaneLayout, linear: &mut [u8], stride: usize, tiled: &[u8]) {
    let (xt, yt) = tables(p);
    let (tw, th) = (p.tile_w as usize, p.tile_h as usize);
    let (w, h) = (p.width as usize, p.height as usize);
    let tile_bytes = tw * th * B;
    let coords = block_coords(tw.min(th));
    for ty in 0..h.div_ceil(th) {
        for tx in 0..w.div_ceil(tw) {
            let t0 = (ty * p.cols as usize + tx) * tile_bytes;
            let tile = &tiled[t0..t0 + tile_bytes];
            let (x0, y0) = (tx * tw, ty * th);
            if full_square(p, tx, ty) {
                square_from_tiled::<B>(linear, stride, tile, x0, y0, &coords);
                continue;
            }
            if x0 + tw > w || y0 + th > h || th < 2 {
                for y in y0..h.min(y0 + th) {
                    for x in x0..w.min(x0 + tw) {
                        let d = (yt[y - y0] + xt[x - x0]) as usize * B;
                        linear[y * stride + x * B..][..B].copy_from_slice(&tile[d..d + B]);
                    }
                }
                continue;
            }
            for y in (0..th).step_by(2) {
                let yo = yt[y] as usize;
                let (top, bottom) = linear.split_at_mut((y0 + y + 1) * stride);
                let r0 = &mut top[(y0 + y) * stride + x0 * B..][..tw * B];
                let r1 = &mut bottom[x0 * B..][..tw * B];
                for ((a, b), xo) in r0
                    .chunks_exact_mut(2 * B)
                    .zip(r1.chunks_exact_mut(2 * B))
                    .zip(xt.iter().step_by(2))
                {
                    let d = (yo + *xo as usize) * B;
                    let q = &tile[d..d + 4 * B];
                    a.copy_from_slice(&q[..2 * B]);
                    b.copy_from_slice(&q[2 * B..]);
                }
            }
        }
    }
}

fn per_element(p: &PlaneLayout, mut f: impl FnMut(usize, usize, usize)) {
    // A tile one element wide cannot pair texels; address every element.
    let b = p.element_bytes as usize;
    for y in 0..p.height {
        for x in 0..p.width {
            f(p.offset(x, y) as usize, y as usize, x as usize * b);
        }
    }
}

/// Copies a linear image (`stride` bytes per row) into twiddled plane `p` in `tiled`.
/// Padding outside the image is left as it was.
pub fn tile_plane(
    p: &PlaneLayout,
    linear: &[u8],
    stride: usize,
    tiled: &mut [u8],
) -> Result<(), LayoutError> {
    check(p, linear.len(), stride, tiled.len())?;
    let b = p.element_bytes as usize;
    if p.tile_w < 2 {
        per_element(p, |d, y, xo| {
            tiled[d..d + b].copy_from_slice(&linear[y * stride + xo..][..b])
        });
        return Ok(());
    }
    match b {
        1 => to_tiled::<1>(p, linear, stride, tiled),
        2 => to_tiled::<2>(p, linear, stride, tiled),
        4 => to_tiled::<4>(p, linear, stride, tiled),
        8 => to_tiled::<8>(p, linear, stride, tiled),
        _ => to_tiled::<16>(p, linear, stride, tiled),
    }
    Ok(())
}

/// Copies twiddled plane `p` out of `tiled` into a linear image with `stride` bytes per row.
pub fn untile_plane(
    p: &PlaneLayout,
    tiled: &[u8],
    linear: &mut [u8],
    stride: usize,
) -> Result<(), LayoutError> {
    check(p, linear.len(), stride, tiled.len())?;
    let b = p.element_bytes as usize;
    if p.tile_w < 2 {
        per_element(p, |d, y, xo| {
            linear[y * stride + xo..][..b].copy_from_slice(&tiled[d..d + b])
        });
        return Ok(());
    }
    match b {
        1 => from_tiled::<1>(p, linear, stride, tiled),
        2 => from_tiled::<2>(p, linear, stride, tiled),
        4 => from_tiled::<4>(p, linear, stride, tiled),
        8 => from_tiled::<8>(p, linear, stride, tiled),
        _ => from_tiled::<16>(p, linear, stride, tiled),
    }
    Ok(())
}

//! Coefficient registers: each holds a plane `value(x, y) = a*x + b*y + c` over framebuffer
//! pixel coordinates that the fragment program's iterators evaluate at the pixel centre
//! (Mesa docs/drivers/asahi.rst, "coefficient registers" as plane equations; inferred for
//! G16 from the unchanged CF-binding format).
//!
//! The CF-binding table (header, then one 4-byte binding per run of 1..4 scalars) is read
//! from the USC heap at the PPP fragment-shader record's pointer and unpacked through
//! agx16-cmdstream. Slot numbering, from how T8132 Mesa builds the table
//! (GravityLinux/mesa agx_apple9.c `apple9_build_cf_bindings`, validated by its M4 scenes):
//! slot 0 is W, delivered as 1/W (binding 0x0c = linear, slot 0, coefficient 0 is "1/W");
//! slot 1 is the fragment Z when the output-select record's frag_coord_z is set; the user
//! scalars follow in vertex-output order. Shade models: linear = plane of the value in
//! screen space; perspective = plane of value/W (the iterator divides by coefficient 0);
//! flat = the constant of vertex 0, 1 or 2 of the primitive.

use super::unestablished;
use crate::error::SimError;
use crate::mem::GpuMemory;
use agx16_cmdstream::descriptors::{CfBinding, CfBindingHeader, CoefficientSource, ShadeModel};
use agx16_cmdstream::vdm::USC_BASE;
use agx16_cmdstream::Record;

/// One coefficient register.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Plane {
    pub a: f32,
    pub b: f32,
    pub c: f32,
    /// The register holds value/W (a perspective binding): the hardware iterator divides
    /// it by coefficient 0 (1/W). Set from the CF binding's shade model, which is where the
    /// mode lives on G16 (GravityLinux/mesa agx_apple9.c `apple9_build_cf_bindings`; its
    /// `iter` packer has no perspective bit; run on M4).
    pub perspective: bool,
    /// A flat binding: the iterator hands back the provoking vertex's 32 bits unchanged, as
    /// integer varyings need (a plane evaluation `0*x + 0*y + c` would turn INT_MIN, the bits
    /// of -0.0, into 0 and quiet signalling-NaN patterns). Validated by a CTS-passing M4 driver:
    /// GravityLinux/mesa passes dEQP-GLES3 fragment_out.random.* (flat ivec/uvec varyings over
    /// the full 32-bit range, README.apple9-es3.md).
    pub flat: bool,
}

impl Plane {
    pub fn constant(c: f32) -> Self {
        Plane {
            a: 0.0,
            b: 0.0,
            c,
            perspective: false,
            flat: false,
        }
    }

    /// A flat register holding `c` bit for bit.
    pub fn flat(c: f32) -> Self {
        Plane {
            flat: true,
            ..Plane::constant(c)
        }
    }

    pub fn at(&self, x: f32, y: f32) -> f32 {
        if self.flat {
            return self.c;
        }
        self.a * x + self.b * y + self.c
    }

    /// The plane through three (x, y, value) points; `None` for collinear points.
    pub fn through(p: [(f64, f64, f64); 3]) -> Option<Self> {
        let [(x0, y0, v0), (x1, y1, v1), (x2, y2, v2)] = p;
        Geometry::of([(x0, y0), (x1, y1), (x2, y2)]).plane([v0, v1, v2])
    }
}

/// The differences and determinant of a triangle's three (x, y) points that every plane
/// through them shares: computed once per raster triangle, not once per register (the same
/// operations in the same order, so each plane is the one its own computation gives).
#[derive(Debug, Clone, Copy)]
pub struct Geometry {
    x0: f64,
    y0: f64,
    dx1: f64,
    dy1: f64,
    dx2: f64,
    dy2: f64,
    det: f64,
}

impl Geometry {
    pub fn of(p: [(f64, f64); 3]) -> Self {
        let [(x0, y0), (x1, y1), (x2, y2)] = p;
        let (dx1, dy1, dx2, dy2) = (x1 - x0, y1 - y0, x2 - x0, y2 - y0);
        Geometry {
            x0,
            y0,
            dx1,
            dy1,
            dx2,
            dy2,
            det: dx1 * dy2 - dx2 * dy1,
        }
    }

    /// The value's gradient (d/dx, d/dy); `None` for collinear points.
    fn gradient(&self, [v0, v1, v2]: [f64; 3]) -> Option<(f64, f64)> {
        if self.det == 0.0 {
            return None;
        }
        let (dv1, dv2) = (v1 - v0, v2 - v0);
        Some((
            (dv1 * self.dy2 - dv2 * self.dy1) / self.det,
            (self.dx1 * dv2 - self.dx2 * dv1) / self.det,
        ))
    }

    /// The plane through the points with these values; `None` for collinear points.
    pub fn plane(&self, v: [f64; 3]) -> Option<Plane> {
        let (a, b) = self.gradient(v)?;
        let c = v[0] - a * self.x0 - b * self.y0;
        Some(Plane {
            a: a as f32,
            b: b as f32,
            c: c as f32,
            perspective: false,
            flat: false,
        })
    }
}

/// The window-depth plane of a primitive, kept in f64 and anchored at its first vertex so
/// large framebuffer coordinates do not cost depth precision (the M4's internal depth
/// interpolation precision is not documented; results are rounded to f32 per sample).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DepthPlane {
    pub x0: f64,
    pub y0: f64,
    pub z0: f64,
    pub dzdx: f64,
    pub dzdy: f64,
}

impl DepthPlane {
    pub fn through(p: [(f64, f64, f64); 3]) -> Self {
        let [(x0, y0, z0), (x1, y1, z1), (x2, y2, z2)] = p;
        Self::of(&Geometry::of([(x0, y0), (x1, y1), (x2, y2)]), [z0, z1, z2])
    }

    /// The plane of depths `z` at the triangle's points.
    pub fn of(g: &Geometry, z: [f64; 3]) -> Self {
        let (dzdx, dzdy) = g.gradient(z).unwrap_or((0.0, 0.0));
        DepthPlane {
            x0: g.x0,
            y0: g.y0,
            z0: z[0],
            dzdx,
            dzdy,
        }
    }

    pub fn at(&self, x: f64, y: f64) -> f32 {
        (self.z0 + self.dzdx * (x - self.x0) + self.dzdy * (y - self.y0)) as f32
    }
}

/// A decoded CF-binding table.
#[derive(Debug, Clone)]
pub struct CfTable {
    pub header: CfBindingHeader,
    pub bindings: Vec<CfBinding>,
}

impl CfTable {
    /// Reads `count` bindings at USC-relative `offset`.
    pub fn read(mem: &dyn GpuMemory, offset: u32, count: u8) -> Result<Self, SimError> {
        let va = USC_BASE + offset as u64;
        let mut bytes = vec![0u8; 4 + 4 * count as usize];
        mem.read(va, &mut bytes)?;
        let bad = |what: String| unestablished(va, "CF binding table", what);
        let header = CfBindingHeader::unpack(&bytes).map_err(|e| bad(e.to_string()))?;
        let mut bindings = Vec::new();
        for (i, w) in bytes[4..].chunks_exact(4).enumerate() {
            let b = CfBinding::unpack(w).map_err(|e| bad(e.to_string()))?;
            if !b.fully_known() {
                return Err(bad(format!(
                    "binding {i} {w:02x?} has undocumented bits or values"
                )));
            }
            bindings.push(b);
        }
        Ok(CfTable { header, bindings })
    }
}

/// One vertex of a raster triangle as the coefficient setup needs it (its outputs borrowed
/// from the clip-space vertex: setup makes several of these per primitive).
#[derive(Debug, Clone, Copy)]
pub struct SetupVertex<'a> {
    /// Snapped framebuffer position.
    pub x: f64,
    pub y: f64,
    /// Window depth.
    pub z: f64,
    pub inv_w: f64,
    /// All scalar vertex outputs (position first).
    pub out: &'a [f32],
}

/// How the fragment slots map onto vertex outputs.
#[derive(Debug, Clone, Copy)]
pub struct SlotMap {
    pub has_z: bool,
    pub user_scalars: usize,
}

impl SlotMap {
    /// Where `slot` comes from on vertices of `outputs` scalars; `None` when the vertex
    /// stage does not produce it.
    fn source(&self, slot: usize, outputs: usize) -> Option<Source> {
        let user0 = if self.has_z { 2 } else { 1 };
        match slot {
            0 => Some(Source::InvW),
            1 if self.has_z => Some(Source::Z),
            s if s >= user0 && s - user0 < self.user_scalars => {
                let k = 4 + s - user0;
                (k < outputs).then_some(Source::Output(k))
            }
            _ => None,
        }
    }

    #[cfg(test)]
    fn value(&self, v: &SetupVertex, slot: usize) -> Option<f64> {
        self.source(slot, v.out.len()).map(|s| s.value(v))
    }

    #[cfg(test)]
    fn bits(&self, v: &SetupVertex, slot: usize) -> Option<f32> {
        self.source(slot, v.out.len()).map(|s| s.bits(v))
    }
}

/// A fragment slot resolved against the vertex layout.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Source {
    /// Slot 0: 1/W.
    InvW,
    /// The window depth (slot 1 with frag_coord_z).
    Z,
    /// A user scalar: this vertex output.
    Output(usize),
}

impl Source {
    fn value(self, v: &SetupVertex) -> f64 {
        match self {
            Source::InvW => v.inv_w,
            Source::Z => v.z,
            Source::Output(k) => v.out[k] as f64,
        }
    }

    /// The slot's 32 bits as the vertex stage wrote them (flat shading copies them; going
    /// through f64 would quiet signalling-NaN patterns that integer varyings can hold).
    fn bits(self, v: &SetupVertex) -> f32 {
        match self {
            Source::Output(k) => v.out[k],
            s => s.value(v) as f32,
        }
    }
}

/// What a raster triangle belongs to (point sprites generate their own coordinates).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PrimShape {
    Triangle,
    Line,
    /// A point's square: top-left corner, edge, and whether t grows upwards (sprite
    /// origin lower-left) or downwards (upper-left). `None` orientation: the draw's object
    /// type is not a point sprite.
    Point {
        left: f64,
        top: f64,
        size: f64,
        t_up: Option<bool>,
    },
}

/// How one coefficient register is computed from a raster triangle.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Rule {
    /// Plane of the value in screen space.
    Linear(Source),
    /// Plane of value/W.
    Perspective(Source),
    /// The bits of the value at vertex k of the primitive (before clipping).
    Flat(usize, Source),
    /// Plane of the window depth.
    FragcoordZ,
    /// Point-sprite s, left to right across the point's square.
    PointS,
    /// Point-sprite t, bottom to top (`up`) or top to bottom.
    PointT { up: bool },
}

/// A draw's CF-binding table resolved for one kind of primitive: which register each
/// binding component writes and how, checked once. The checks, their order and their
/// messages are those a triangle's registers were built with; the bindings depend only on
/// the draw and the primitive kind, so every triangle of that kind would meet the same.
#[derive(Debug, Clone)]
pub struct CoeffPlan {
    registers: usize,
    /// In binding order: a later binding writing the same register wins.
    rules: Vec<(usize, Rule)>,
}

impl CoeffPlan {
    /// Resolves `table` for primitives shaped like `shape` from vertices of `outputs`
    /// scalars; the error is the first binding component the model cannot build.
    pub fn new(
        table: &CfTable,
        at: u64,
        map: SlotMap,
        outputs: usize,
        shape: PrimShape,
    ) -> Result<Self, SimError> {
        let registers = table.header.coefficient_registers as usize;
        let mut rules = Vec::new();
        let bad = |what: String| unestablished(at, "CF binding", what);
        for (i, b) in table.bindings.iter().enumerate() {
            for c in 0..b.components as usize {
                let reg = b.base_coefficient as usize + c;
                let slot = b.base_slot as usize + c;
                let source = || {
                    map.source(slot, outputs).ok_or_else(|| {
                        bad(format!(
                            "binding {i} reads slot {slot}, which the vertex stage does not produce"
                        ))
                    })
                };
                let rule = match b.source {
                    CoefficientSource::Varying => match b.shade_model {
                        ShadeModel::Linear => Rule::Linear(source()?),
                        ShadeModel::Perspective => Rule::Perspective(source()?),
                        ShadeModel::FlatVertex0 => Rule::Flat(0, source()?),
                        ShadeModel::FlatVertex1 => Rule::Flat(1, source()?),
                        ShadeModel::FlatVertex2 => Rule::Flat(2, source()?),
                        ShadeModel::Unknown(s) => {
                            return Err(bad(format!("binding {i}: shade model {s}")))
                        }
                    },
                    CoefficientSource::FragcoordZ => Rule::FragcoordZ,
                    // Point-sprite coordinates across the point's square: s left to right, t
                    // top to bottom for the upper-left origin (object type "UV=01", which Mesa
                    // selects for an upper-left sprite origin: agx_state.c
                    // `agx_point_object_type`, hk_cmd_draw.c for Vulkan points; G13, inferred
                    // for G16), bottom to top for "UV=10".
                    CoefficientSource::PointCoord => match (shape, c) {
                        (PrimShape::Point { .. }, 0) => Rule::PointS,
                        (PrimShape::Point { t_up: Some(up), .. }, 1) => Rule::PointT { up },
                        _ => {
                            return Err(bad(format!(
                                "binding {i}: point coordinate component {c} on a {shape:?} (only the two components of a point sprite are established)"
                            )))
                        }
                    },
                    other => {
                        return Err(bad(format!(
                            "binding {i}: source {other:?} is not modelled (primitive id and barycentric layouts are not established)"
                        )))
                    }
                };
                if reg >= registers {
                    return Err(bad(format!(
                        "binding {i} writes coefficient {reg} past the {} declared",
                        table.header.coefficient_registers
                    )));
                }
                rules.push((reg, rule));
            }
        }
        Ok(CoeffPlan { registers, rules })
    }

    /// Coefficient registers the bindings declare.
    pub fn registers(&self) -> usize {
        self.registers
    }

    /// Writes the coefficient registers of a raster triangle (`g` its [`Geometry`]) of the
    /// kind the plan was made for into `regs` ([`Self::registers`] of them, zeroed: a
    /// register no binding writes stays zero). `flat` are the outputs of the primitive's
    /// vertices 0, 1, 2 before clipping (for flat shading).
    pub fn build(
        &self,
        regs: &mut [Plane],
        tri: &[SetupVertex; 3],
        g: &Geometry,
        flat: &[SetupVertex; 3],
        shape: PrimShape,
    ) {
        let plane = |v: [f64; 3]| {
            // Degenerate triangles never reach setup (culled), so this only guards.
            g.plane(v).unwrap_or_else(|| Plane::constant(v[0] as f32))
        };
        for &(reg, rule) in &self.rules {
            regs[reg] = match rule {
                Rule::Linear(s) => plane(tri.each_ref().map(|v| s.value(v))),
                Rule::Perspective(s) => Plane {
                    perspective: true,
                    ..plane(tri.each_ref().map(|v| s.value(v) * v.inv_w))
                },
                Rule::Flat(k, s) => Plane::flat(s.bits(&flat[k])),
                Rule::FragcoordZ => plane(tri.each_ref().map(|v| v.z)),
                Rule::PointS => {
                    let (left, _, size) = square(shape);
                    Plane {
                        a: (1.0 / size) as f32,
                        b: 0.0,
                        c: (-left / size) as f32,
                        perspective: false,
                        flat: false,
                    }
                }
                Rule::PointT { up } => {
                    let (_, top, size) = square(shape);
                    let (b, c) = ((1.0 / size) as f32, (-top / size) as f32);
                    if up {
                        Plane {
                            a: 0.0,
                            b: -b,
                            c: 1.0 - c,
                            perspective: false,
                            flat: false,
                        }
                    } else {
                        Plane {
                            a: 0.0,
                            b,
                            c,
                            perspective: false,
                            flat: false,
                        }
                    }
                }
            };
        }
    }
}

/// A point's square (left, top, edge); point-sprite rules are planned for points only.
fn square(shape: PrimShape) -> (f64, f64, f64) {
    match shape {
        PrimShape::Point {
            left, top, size, ..
        } => (left, top, size),
        _ => (0.0, 0.0, 1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planes_reproduce_their_points() {
        let pts = [(1.5, 2.5, 10.0), (40.25, 3.0, -4.0), (7.0, 30.5, 0.5)];
        let p = Plane::through(pts).unwrap();
        for (x, y, v) in pts {
            assert!((p.at(x as f32, y as f32) as f64 - v).abs() < 1e-4);
        }
        assert!(Plane::through([(0.0, 0.0, 1.0), (1.0, 1.0, 2.0), (2.0, 2.0, 3.0)]).is_none());
    }

    #[test]
    fn slots_put_w_then_z_then_user_scalars() {
        let v = SetupVertex {
            x: 0.0,
            y: 0.0,
            z: 0.25,
            inv_w: 0.5,
            out: &[0.0, 0.0, 0.0, 2.0, 7.0, 8.0],
        };
        let with_z = SlotMap {
            has_z: true,
            user_scalars: 2,
        };
        assert_eq!(with_z.value(&v, 0), Some(0.5));
        assert_eq!(with_z.value(&v, 1), Some(0.25));
        assert_eq!(with_z.value(&v, 2), Some(7.0));
        assert_eq!(with_z.value(&v, 3), Some(8.0));
        assert_eq!(with_z.value(&v, 4), None);
        let no_z = SlotMap {
            has_z: false,
            user_scalars: 2,
        };
        assert_eq!(no_z.value(&v, 1), Some(7.0));
    }

    #[test]
    fn flat_registers_keep_every_bit() {
        // INT_MIN (the bits of -0.0) and a signalling-NaN pattern, as integer varyings carry.
        for bits in [0x8000_0000u32, 0x7f80_0001, 0xffbf_ffff, 7] {
            let v = SetupVertex {
                x: 0.0,
                y: 0.0,
                z: 0.0,
                inv_w: 1.0,
                out: &[0.0, 0.0, 0.0, 1.0, f32::from_bits(bits)],
            };
            let map = SlotMap {
                has_z: false,
                user_scalars: 1,
            };
            let c = map.bits(&v, 1).unwrap();
            assert_eq!(Plane::flat(c).at(13.5, 7.5).to_bits(), bits);
        }
    }
}

//! Walking NIR's structured control flow into the SSA IR builder. NIR's shape (lists that start
//! and end with blocks, an if/loop always followed by a block) is the IR's shape, so every NIR
//! block becomes exactly one IR block and phi predecessors map one to one.

use super::{alu, intrinsic};
use crate::error::CompileError;
use crate::ir::{BlockId, Builder, Op, Shape, Src, Stage, Type, Value};
use agx16_mesa_sys as m;
use agx16_mesa_sys::nir_iter::exec_list_iter;
use std::collections::HashMap;
use std::mem::offset_of;

pub(super) struct Importer {
    pub b: Builder,
    defs: HashMap<u32, Value>,
    blocks: HashMap<usize, BlockId>,
    phis: Vec<(Value, *const m::nir_phi_instr)>,
    /// Graphics programs: the key and the IO layout (`nir/gfx.rs`).
    pub gfx: Option<super::gfx::GfxImport>,
}

/// The printable name of a NIR instruction for error messages.
pub(super) unsafe fn instr_name(i: *const m::nir_instr) -> String {
    unsafe {
        match (*i).type_ {
            m::nir_instr_type_alu => {
                let a = m::nir_instr_as_alu(i);
                cstr(m::nir_op_infos[(*a).op as usize].name)
            }
            m::nir_instr_type_intrinsic => {
                let x = m::nir_instr_as_intrinsic(i);
                cstr(m::nir_intrinsic_infos[(*x).intrinsic as usize].name)
            }
            // Derefs reach the importer only when a variable stays in memory: a local array
            // indexed by a variable that is too large for nir/prepare.rs's ladders.
            m::nir_instr_type_deref => {
                "deref (a dynamically indexed local array larger than 256 elements)".into()
            }
            t => format!("instruction type {t}"),
        }
    }
}

pub(super) unsafe fn cstr(p: *const std::os::raw::c_char) -> String {
    if p.is_null() {
        return "?".into();
    }
    unsafe { std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned() }
}

impl Importer {
    /// The IR value of a NIR SSA def (defined earlier in dominance order).
    pub unsafe fn value(&self, d: *const m::nir_def) -> Result<Value, CompileError> {
        let idx = unsafe { (*d).index };
        self.defs.get(&idx).copied().ok_or_else(|| {
            CompileError::Internal(format!("NIR def %{idx} used before its definition"))
        })
    }

    /// Source for component `comp` of a NIR def.
    pub unsafe fn comp(&self, d: *const m::nir_def, comp: u8) -> Result<Src, CompileError> {
        let v = unsafe { self.value(d)? };
        Ok(if self.b.func().shape(v).comps > 1 {
            Src::comp(v, comp)
        } else {
            Src::val(v)
        })
    }

    pub unsafe fn define(&mut self, d: *const m::nir_def, v: Value) {
        self.defs.insert(unsafe { (*d).index }, v);
    }

    unsafe fn block(&mut self, blk: *const m::nir_block) -> Result<(), CompileError> {
        unsafe {
            let id = self.b.current_block();
            self.blocks.insert(blk as usize, id);
            let list = &(*blk).instr_list as *const m::exec_list;
            let instrs: Vec<*const m::nir_instr> =
                exec_list_iter::<m::nir_instr>(list, offset_of!(m::nir_instr, node))
                    .map(|i| i as *const m::nir_instr)
                    .collect();
            let mut k = 0;
            while k < instrs.len() {
                // A multisampled destination read: the section up to the last colour store
                // runs once per sample (super::gfx::per_sample_section).
                if let Some((end, samples)) = super::gfx::per_sample_section(self, &instrs, k)? {
                    for s in 0..samples {
                        self.gfx.as_mut().unwrap().sample = Some(s);
                        for &i in &instrs[k..=end] {
                            self.instr(i)?;
                        }
                    }
                    self.gfx.as_mut().unwrap().sample = None;
                    k = end + 1;
                    continue;
                }
                self.instr(instrs[k])?;
                k += 1;
            }
            Ok(())
        }
    }

    unsafe fn instr(&mut self, i: *const m::nir_instr) -> Result<(), CompileError> {
        unsafe {
            match (*i).type_ {
                m::nir_instr_type_alu => alu::import(self, m::nir_instr_as_alu(i))?,
                m::nir_instr_type_intrinsic => {
                    intrinsic::import(self, m::nir_instr_as_intrinsic(i))?
                }
                m::nir_instr_type_tex => super::texture::import(self, m::nir_instr_as_tex(i))?,
                m::nir_instr_type_load_const => self.load_const(m::nir_instr_as_load_const(i))?,
                m::nir_instr_type_undef => {
                    let u = m::nir_instr_as_undef(i);
                    let shape = Shape::vec(int_type((*u).def.bit_size)?, (*u).def.num_components);
                    let v = self.b.op(Op::Undef, shape, []);
                    self.define(&(*u).def, v);
                }
                m::nir_instr_type_phi => {
                    let p = m::nir_instr_as_phi(i);
                    let shape = Shape::vec(int_type((*p).def.bit_size)?, (*p).def.num_components);
                    let v = self.b.phi(shape, &[]);
                    self.define(&(*p).def, v);
                    self.phis.push((v, p));
                }
                m::nir_instr_type_jump => {
                    let j = m::nir_instr_as_jump(i);
                    match (*j).type_ {
                        m::nir_jump_break => self.b.break_(),
                        m::nir_jump_continue => self.b.continue_(),
                        m::nir_jump_return => self.b.return_(),
                        m::nir_jump_halt => super::gfx::kill(self, None)?,
                        t => {
                            return Err(CompileError::Unsupported(format!(
                                "NIR jump type {t} (unstructured control flow)"
                            )))
                        }
                    }
                }
                _ => return Err(CompileError::Unsupported(format!("NIR {}", instr_name(i)))),
            }
            Ok(())
        }
    }

    unsafe fn load_const(&mut self, c: *const m::nir_load_const_instr) -> Result<(), CompileError> {
        unsafe {
            let n = (*c).def.num_components;
            let bits = (*c).def.bit_size;
            let ty = int_type(bits)?;
            let vals = (*c).value.as_slice(n as usize);
            let word = |k: usize| -> u32 {
                match bits {
                    1 => u32::from(vals[k].b),
                    16 => vals[k].u16_ as u32,
                    _ => vals[k].u32_,
                }
            };
            let v = if n == 1 {
                self.b.copy(ty, Src::imm(word(0)))
            } else {
                let srcs: Vec<Src> = (0..n as usize).map(|k| Src::imm(word(k))).collect();
                self.b.collect(ty, &srcs)
            };
            self.define(&(*c).def, v);
            Ok(())
        }
    }

    /// An if's condition computed by a compare that is not the last instruction of the if's
    /// block (NIR shares one compare between a select and an if, or between the ifs of two
    /// if-ladders of an indexed local array) gets a copy of the compare right before the
    /// branch: the backend fuses a condition's compare into its branch, splits selects into
    /// branches (which would move the if away from the compare), and has no validated form for a
    /// compare kept as a value (`pcmp`).
    fn compare_at_branch(&mut self, c: Value) -> Value {
        let cur = self.b.current_block();
        let f = self.b.func();
        let cur = f.blocks.get(cur.0 as usize);
        if cur
            .and_then(|b| b.instrs.last())
            .is_some_and(|i| i.dst == Some(c))
        {
            return c;
        }
        let def = f
            .blocks
            .iter()
            .flat_map(|b| &b.instrs)
            .find(|i| i.dst == Some(c))
            .filter(|i| matches!(i.op, Op::ICmp { .. } | Op::FCmp(_)) && !i.sat)
            .map(|i| (i.op, i.srcs.clone()));
        match def {
            Some((op, srcs)) => {
                let shape = f.shape(c);
                self.b.op(op, shape, srcs)
            }
            None => c,
        }
    }

    unsafe fn list(&mut self, list: *const m::exec_list) -> Result<(), CompileError> {
        unsafe {
            for n in exec_list_iter::<m::nir_cf_node>(list, offset_of!(m::nir_cf_node, node)) {
                let n = n as *const m::nir_cf_node;
                match (*n).type_ {
                    m::nir_cf_node_block => self.block(m::nir_cf_node_as_block(n))?,
                    m::nir_cf_node_if => {
                        let nif = m::nir_cf_node_as_if(n);
                        let c = self.value((*nif).condition.ssa)?;
                        let c = if self.b.func().ty(c) == Type::Bool {
                            self.compare_at_branch(c)
                        } else {
                            self.b.icmp(crate::ir::Cmp::Ne, false, c, Src::imm(0))
                        };
                        self.b.if_(c);
                        self.list(&(*nif).then_list)?;
                        self.b.else_();
                        self.list(&(*nif).else_list)?;
                        self.b.end_if();
                    }
                    m::nir_cf_node_loop => {
                        let l = m::nir_cf_node_as_loop(n);
                        if exec_list_iter::<m::nir_cf_node>(
                            &(*l).continue_list,
                            offset_of!(m::nir_cf_node, node),
                        )
                        .next()
                        .is_some()
                        {
                            return Err(CompileError::Unsupported(
                                "NIR loop with a continue construct".into(),
                            ));
                        }
                        self.b.loop_();
                        self.list(&(*l).body)?;
                        self.b.end_loop();
                    }
                    t => {
                        return Err(CompileError::Unsupported(format!(
                            "NIR control-flow node type {t}"
                        )))
                    }
                }
            }
            Ok(())
        }
    }
}

/// The IR type for untyped NIR data of `bits` (loads, phis, constants, undefs).
pub(super) fn int_type(bits: u8) -> Result<Type, CompileError> {
    match bits {
        32 | 1 => Ok(Type::I32),
        16 => Ok(Type::I16),
        b => Err(CompileError::Unsupported(format!("{b}-bit values"))),
    }
}

/// Import the entry point of a NIR shader (already lowered by `prepare::run`).
///
/// # Safety
/// `shader` must be a valid NIR shader.
pub unsafe fn import(shader: *const m::nir_shader) -> Result<crate::ir::Function, CompileError> {
    unsafe { import_with(shader, None).map(|(f, _)| f) }
}

/// Import a vertex or fragment shader under the graphics ABI `key` (`crate::abi`).
///
/// # Safety
/// `shader` must be a valid NIR shader (already lowered by `prepare::run`).
pub(super) unsafe fn import_graphics(
    shader: *const m::nir_shader,
    key: &crate::abi::GraphicsKey,
) -> Result<(crate::ir::Function, super::gfx::GfxImport), CompileError> {
    unsafe {
        let (f, g) = import_with(shader, Some(super::gfx::GfxImport::new(key)))?;
        Ok((f, g.expect("graphics import keeps its state")))
    }
}

unsafe fn import_with(
    shader: *const m::nir_shader,
    gfx: Option<super::gfx::GfxImport>,
) -> Result<(crate::ir::Function, Option<super::gfx::GfxImport>), CompileError> {
    unsafe {
        let stage = match (*shader).info.stage() as i64 {
            s if s == m::MESA_SHADER_COMPUTE as i64 => Stage::Compute,
            s if s == m::MESA_SHADER_VERTEX as i64 => Stage::Vertex,
            s if s == m::MESA_SHADER_FRAGMENT as i64 => Stage::Fragment,
            s => return Err(CompileError::Unsupported(format!("shader stage {s}"))),
        };
        let entry = m::nir_shader_get_entrypoint(shader);
        if entry.is_null() {
            return Err(CompileError::InvalidIr(
                "NIR shader without an entry point".into(),
            ));
        }
        let mut im = Importer {
            b: Builder::new(stage),
            defs: HashMap::new(),
            blocks: HashMap::new(),
            phis: Vec::new(),
            gfx,
        };
        let want = im.gfx.as_ref().map(|g| match g.key {
            crate::abi::GraphicsKey::Vertex(_) => Stage::Vertex,
            crate::abi::GraphicsKey::Fragment(_) => Stage::Fragment,
        });
        if want.is_some_and(|w| w != stage) {
            return Err(CompileError::InvalidIr(format!(
                "a {stage:?} shader compiled with a {want:?} key"
            )));
        }
        super::gfx::prologue(&mut im, &(*entry).body)?;
        im.list(&(*entry).body)?;
        // A discarding fragment program without colour output still tests its samples.
        super::gfx::coverage_test(&mut im)?;
        let phis = std::mem::take(&mut im.phis);
        for (v, p) in phis {
            for s in exec_list_iter::<m::nir_phi_src>(&(*p).srcs, offset_of!(m::nir_phi_src, node))
            {
                let pred = *im
                    .blocks
                    .get(&(s.pred as usize))
                    .ok_or_else(|| CompileError::Internal("phi predecessor not imported".into()))?;
                let comps = (*p).def.num_components;
                let src = if comps > 1 {
                    Src::val(im.value(s.src.ssa)?)
                } else {
                    im.comp(s.src.ssa, 0)?
                };
                im.b.add_phi_src(v, pred, src);
            }
        }
        let gfx = im.gfx.take();
        let f = im.b.finish();
        crate::ir::validate::validate(&f)?;
        Ok((f, gfx))
    }
}

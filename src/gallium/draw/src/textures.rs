//! A stage's texture and sampler tables: the 32-byte texture descriptors and 8-byte samplers
//! its `tex_sample`s index, uploaded per draw, with their addresses in roots 0 and 1 of the
//! stage's root record (sim/GFX.md "Render-stage uniform ABI" rows 0/1; agx16-compiler
//! README "Textures": entry T at +32T, entry S at +8S, T and S are Gallium's sampler-view and
//! sampler units). Descriptors are agx16-cmdstream records, packed by its tables.

use crate::mem::{DrawError, GpuWriter, Heap};
use agx16_cmdstream::descriptors::{Sampler, Texture, SAMPLER_TABLE_STRIDE, TEXTURE_TABLE_STRIDE};
use agx16_cmdstream::Record;

/// The descriptors one stage samples through, by unit. `None` leaves the unit's entry zero
/// (an unused unit; the model refuses a zero descriptor if a program samples it anyway).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StageTextures {
    pub textures: Vec<Option<Texture>>,
    pub samplers: Vec<Option<Sampler>>,
}

impl StageTextures {
    pub fn is_empty(&self) -> bool {
        self.textures.is_empty() && self.samplers.is_empty()
    }

    /// Uploads both tables (general heap) and writes their addresses into argument words
    /// 0..3 of `args` (root qwords 0 and 1), growing `args` to hold them. A table with no
    /// entries keeps its root zero.
    pub fn upload(&self, mem: &mut dyn GpuWriter, args: &mut Vec<u32>) -> Result<(), DrawError> {
        if args.len() < 4 {
            args.resize(4, 0);
        }
        let textures = table(&self.textures, TEXTURE_TABLE_STRIDE)?;
        let samplers = table(&self.samplers, SAMPLER_TABLE_STRIDE)?;
        for (root, bytes) in [(0, textures), (1, samplers)] {
            if bytes.is_empty() {
                continue;
            }
            let va = mem.upload(Heap::General, &bytes, 64)?;
            args[2 * root] = va as u32;
            args[2 * root + 1] = (va >> 32) as u32;
        }
        Ok(())
    }
}

fn table<R: Record>(entries: &[Option<R>], stride: usize) -> Result<Vec<u8>, DrawError> {
    let mut bytes = vec![0u8; entries.len() * stride];
    for (i, e) in entries.iter().enumerate() {
        if let Some(r) = e {
            r.pack_into(&mut bytes[i * stride..(i + 1) * stride])?;
        }
    }
    Ok(bytes)
}

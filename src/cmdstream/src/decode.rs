//! Full human-readable dump of a captured submission: every command, the control streams
//! it reaches (following links and calls), the PPP records and CF tables draws point at,
//! scissors, and the launch programs (disassembled through `agx16-isa`). Unknown bits and
//! values are flagged and counted.

use crate::capture::Capture;
use crate::cdm;
use crate::descriptors::{CfBinding, CfBindingHeader, Sampler};
use crate::launch;
use crate::ppp::*;
use crate::print::{dump, format_fields, PrintOptions};
use crate::record::Record;
use crate::render::*;
use crate::stream::{GpuRead, WalkLimits};
use crate::vdm::{self, VdmBlock, RENDER_CONTEXT_BASE};
use std::fmt::Write;

/// Result of decoding a capture.
#[derive(Debug, Default, Clone)]
pub struct Report {
    pub text: String,
    /// Records with bits or values no source documents.
    pub flagged: usize,
    /// Things that could not be decoded at all (bad streams, unmapped pointers).
    pub errors: usize,
}

impl Report {
    fn add(&mut self, (t, f): (String, bool)) {
        self.text.push_str(&t);
        self.flagged += f as usize;
    }
    fn line(&mut self, s: impl AsRef<str>) {
        self.text.push_str(s.as_ref());
        self.text.push('\n');
    }
    fn error(&mut self, s: impl AsRef<str>) {
        self.errors += 1;
        self.line(format!("ERROR: {}", s.as_ref()));
    }
}

/// Bytes of a launch program to disassemble at most.
const LAUNCH_MAX: usize = 0x100;

fn read_upto(mem: &impl GpuRead, va: u64, max: usize) -> Vec<u8> {
    let mut n = max;
    while n > 0 {
        let mut b = vec![0u8; n];
        if mem.read(va, &mut b).is_ok() {
            return b;
        }
        n /= 2;
    }
    Vec::new()
}

fn disassemble(r: &mut Report, mem: &impl GpuRead, what: &str, va: u64) -> Vec<u8> {
    let bytes = read_upto(mem, va, LAUNCH_MAX);
    if bytes.is_empty() {
        r.error(format!("{what} at {va:#x} is not mapped"));
        return bytes;
    }
    r.line(format!("    {what} @ {va:#x}:"));
    for item in agx16_isa::split(&bytes) {
        match item {
            Ok((off, i)) => {
                r.line(format!("      {off:04x}: {i}"));
                if i.form.op == agx16_isa::Op::Stop {
                    break;
                }
            }
            Err(e) => {
                r.line(format!("      (stops decoding: {e})"));
                r.flagged += 1;
                break;
            }
        }
    }
    bytes
}

/// A launcher: its disassembly, what it sets up, the argument words its loads produce, and the
/// entry it selects (whose `JMP_EXEC_ANY` names the stage body).
fn launch_program(r: &mut Report, cap: &Capture, what: &str, va: u64) {
    let bytes = disassemble(r, cap, what, va);
    if bytes.is_empty() {
        return;
    }
    match launch::summarize_launcher(&bytes) {
        Ok(s) => r.line(format!("      = {s}")),
        Err(e) => {
            r.flagged += 1;
            return r.line(format!("      not an established launcher: {e}"));
        }
    }
    match launch::resolve_launch(cap, cap.usc_exec_base, va) {
        Ok(res) => {
            let qwords: Vec<String> = res
                .argument_words
                .chunks(2)
                .map(|w| match w {
                    [lo, hi] => format!("{:#x}", (*hi as u64) << 32 | *lo as u64),
                    [lo] => format!("{lo:#x}"),
                    _ => unreachable!("chunks of two"),
                })
                .collect();
            r.line(format!("      = argument qwords: {}", qwords.join(" ")));
            disassemble(r, cap, "entry", res.entry_va);
            r.line(format!("      = stage body @ {:#x}", res.body_va));
        }
        Err(e) => {
            r.flagged += 1;
            r.line(format!("      unresolved launcher: {e}"));
        }
    }
}

/// Bytes between samplers in a sampler heap (agx-re m4-deltas: "sampler stride 0x20").
pub const SAMPLER_STRIDE: u64 = 0x20;
/// Most samplers printed per command.
const SAMPLERS_MAX: u64 = 64;

fn samplers(r: &mut Report, cap: &Capture, heap: u64, count: u64, opts: PrintOptions) {
    for i in 0..count.min(SAMPLERS_MAX) {
        let va = heap + i * SAMPLER_STRIDE;
        let b = read_upto(cap, va, Sampler::SIZE);
        match Sampler::unpack(&b) {
            Ok(s) => {
                r.line(format!("  sampler[{i}] @ {va:#x}"));
                r.add(dump(&s, 4, opts));
            }
            Err(e) => r.error(format!("sampler {i} at {va:#x}: {e}")),
        }
    }
}

fn decode_compute(r: &mut Report, cap: &Capture, payload: &[u8], opts: PrintOptions) {
    let c = match CmdCompute::unpack(payload) {
        Ok(c) => c,
        Err(e) => return r.error(format!("compute command: {e}")),
    };
    r.add(dump(&c, 2, opts));
    samplers(r, cap, c.sampler_heap.0, c.sampler_count as u64, opts);
    match cdm::walk(cap, c.cdm_ctrl_stream_base.0, WalkLimits::default()) {
        Ok(items) => {
            for it in items {
                r.line(format!("  CDM @ {:#x} ({} bytes)", it.at, it.size));
                r.add(it.block.format(4, opts));
                if let Some(l) = it.block.launch() {
                    launch_program(r, cap, "launch program", l.pipeline);
                }
            }
        }
        Err(e) => r.error(format!("CDM stream: {e}")),
    }
}

fn ppp_record(r: &mut Report, cap: &Capture, index: usize, va: u64, words: u8, opts: PrintOptions) {
    let mut b = vec![0u8; words as usize * 4];
    if let Err(e) = cap.read(va, &mut b) {
        return r.error(format!("PPP state at {va:#x}: {e}"));
    }
    macro_rules! rec {
        ($t:ty) => {
            match <$t>::unpack(&b) {
                Ok(x) => {
                    r.add(dump(&x, 6, opts));
                    Some(x)
                }
                Err(e) => {
                    r.error(format!("PPP record: {e}"));
                    None
                }
            }
        };
    }
    let expected = PPP_RECORDS.get(index).filter(|(_, w, _)| *w == words);
    match expected.map(|e| e.2) {
        Some("varying counts") => {
            rec!(PppVaryingCounts);
        }
        Some("fragment shader") => {
            if let Some(fs) = rec!(PppFragmentShader) {
                cf_table(r, cap, fs.cf_bindings, fs.cf_binding_count, opts);
                launch_program(
                    r,
                    cap,
                    "fragment launch program",
                    cap.usc_exec_base + fs.launch,
                );
            }
        }
        Some("output select") => {
            rec!(PppOutputSelect);
        }
        Some("fragment faces") => {
            rec!(PppFragmentFaces);
        }
        Some("fragment control 2") => {
            rec!(PppFragmentControl2);
        }
        Some("viewport") => {
            rec!(PppViewport);
        }
        Some("W clamp / cull 2") => {
            rec!(PppWClampCull2);
        }
        Some("cull") => {
            rec!(PppCull);
        }
        Some(_) => {
            rec!(PppScissorDepthBias);
        }
        None => {
            r.flagged += 1;
            let words: Vec<String> = b
                .chunks(4)
                .map(|w| format!("{:#010x}", u32::from_le_bytes(w.try_into().unwrap())))
                .collect();
            r.line(format!(
                "      UNRECOGNISED PPP state ({} words): {}",
                words.len(),
                words.join(" ")
            ));
        }
    }
}

fn cf_table(r: &mut Report, cap: &Capture, offset: u32, count: u8, opts: PrintOptions) {
    let va = cap.usc_exec_base + offset as u64;
    let mut b = vec![0u8; 4 + 4 * count as usize];
    if let Err(e) = cap.read(va, &mut b) {
        return r.error(format!("CF bindings at {va:#x}: {e}"));
    }
    r.line(format!("      CF bindings @ {va:#x}:"));
    match CfBindingHeader::unpack(&b) {
        Ok(h) => r.add(dump(&h, 8, opts)),
        Err(e) => r.error(format!("CF header: {e}")),
    }
    for w in b[4..].chunks(4) {
        match CfBinding::unpack(w) {
            Ok(x) => r.add(dump(&x, 8, opts)),
            Err(e) => r.error(format!("CF binding: {e}")),
        }
    }
}

fn decode_render(r: &mut Report, cap: &Capture, payload: &[u8], opts: PrintOptions) {
    let c = match CmdRender::unpack(payload) {
        Ok(c) => c,
        Err(e) => return r.error(format!("render command: {e}")),
    };
    r.add(dump(&c, 2, opts));
    r.add(format_fields(
        "zls_ctrl",
        ZlsControl::fields(),
        &c.zls_ctrl.0.to_le_bytes(),
        4,
        opts,
    ));
    r.add(format_fields(
        "ppp_ctrl",
        PppControl::fields(),
        &(c.ppp_ctrl.0 as u32).to_le_bytes(),
        4,
        opts,
    ));
    r.add(format_fields(
        "isp_bgobjvals",
        IspBgObjVals::fields(),
        &(c.isp_bgobjvals.0 as u32).to_le_bytes(),
        4,
        opts,
    ));
    r.add(format_fields(
        "isp_zls_pixels",
        IspZlsPixels::fields(),
        &(c.isp_zls_pixels.0 as u32).to_le_bytes(),
        4,
        opts,
    ));
    let items = match vdm::walk(cap, c.vdm_ctrl_stream_base.0, WalkLimits::default()) {
        Ok(items) => items,
        Err(e) => return r.error(format!("VDM stream: {e}")),
    };
    let mut run = 0usize;
    for it in items {
        r.line(format!("  VDM @ {:#x} ({} bytes)", it.at, it.size));
        r.add(it.block.format(4, opts));
        match &it.block {
            VdmBlock::PppUpdate(u) => {
                let va = RENDER_CONTEXT_BASE + u.pointer as u64;
                ppp_record(r, cap, run, va, u.size_words, opts);
                if run == 8 {
                    if let Ok(s) = PppScissorDepthBias::unpack(&read_upto(cap, va, 8)) {
                        scissor(r, cap, c.isp_scissor_base.0, s.scissor, opts);
                        if c.isp_dbias_base.0 != 0 {
                            depth_bias(r, cap, c.isp_dbias_base.0, s.depth_bias, opts);
                        }
                    }
                }
                run += 1;
                continue;
            }
            VdmBlock::IndexList(d) => indices(r, cap, d),
            VdmBlock::State(s) => {
                if let Some(w1) = &s.vertex_word1 {
                    launch_program(
                        r,
                        cap,
                        "vertex launch program",
                        cap.usc_exec_base + w1.launch,
                    );
                }
            }
            _ => {}
        }
        run = 0;
    }
}

/// Prints the first indices an indexed draw reads (at most 16).
fn indices(r: &mut Report, cap: &Capture, d: &vdm::VdmIndexList) {
    let Some(va) = d.index_buffer() else { return };
    let Some(size) = d.header.index_size.bytes() else {
        return;
    };
    let size = size as usize;
    let n = d.count.unwrap_or(0).min(16) as usize;
    let b = read_upto(cap, va, n * size);
    if b.len() < n * size {
        return r.error(format!("index buffer at {va:#x} is not mapped"));
    }
    let list: Vec<String> = b
        .chunks(size)
        .map(|c| {
            let mut w = [0u8; 4];
            w[..size].copy_from_slice(c);
            u32::from_le_bytes(w).to_string()
        })
        .collect();
    r.line(format!("      indices @ {va:#x}: {}", list.join(" ")));
}

fn scissor(r: &mut Report, cap: &Capture, base: u64, index: u16, opts: PrintOptions) {
    let va = base + index as u64 * Scissor::SIZE as u64;
    let b = read_upto(cap, va, Scissor::SIZE);
    match Scissor::unpack(&b) {
        Ok(s) => {
            r.line(format!("      scissor[{index}] @ {va:#x}:"));
            r.add(dump(&s, 8, opts));
        }
        Err(e) => r.error(format!("scissor {index} at {va:#x}: {e}")),
    }
}

fn depth_bias(r: &mut Report, cap: &Capture, base: u64, index: u16, opts: PrintOptions) {
    // Entries are 12 bytes, unpadded (G13 genxml).
    let va = base + index as u64 * DepthBias::SIZE as u64;
    match DepthBias::unpack(&read_upto(cap, va, DepthBias::SIZE)) {
        Ok(d) => {
            r.line(format!("      depth_bias[{index}] @ {va:#x}:"));
            r.add(dump(&d, 8, opts));
        }
        Err(e) => r.error(format!("depth bias {index} at {va:#x}: {e}")),
    }
}

/// Decodes every command of a capture.
pub fn decode_capture(cap: &Capture, opts: PrintOptions) -> Report {
    let mut r = Report::default();
    let _ = writeln!(
        r.text,
        "job {} queue {} usc_exec_base {:#x}, {} mappings, {} command bytes",
        cap.job_id,
        cap.queue_id,
        cap.usc_exec_base,
        cap.mappings.len(),
        cap.cmdbuf.len()
    );
    let mut off = 0usize;
    let mut index = 0;
    while off < cap.cmdbuf.len() {
        let h = match CmdHeader::unpack(&cap.cmdbuf[off..]) {
            Ok(h) => h,
            Err(e) => {
                r.error(format!("command header at {off:#x}: {e}"));
                break;
            }
        };
        let start = off + CmdHeader::SIZE;
        let end = start + h.size as usize;
        r.line(format!("command {index} @ {off:#x}"));
        r.add(dump(&h, 2, opts));
        let Some(payload) = cap.cmdbuf.get(start..end) else {
            r.error(format!("command {index}: payload runs past the buffer"));
            break;
        };
        match h.cmd_type {
            CMD_COMPUTE => decode_compute(&mut r, cap, payload, opts),
            CMD_RENDER => decode_render(&mut r, cap, payload, opts),
            CMD_SET_VERTEX_ATTACHMENTS..=CMD_SET_COMPUTE_ATTACHMENTS => {
                for a in payload.chunks(Attachment::SIZE) {
                    match Attachment::unpack(a) {
                        Ok(a) => r.add(dump(&a, 2, opts)),
                        Err(e) => r.error(format!("attachment: {e}")),
                    }
                }
            }
            t => {
                r.flagged += 1;
                r.line(format!("  UNKNOWN command type {t}"));
            }
        }
        off = end;
        index += 1;
    }
    let _ = writeln!(
        r.text,
        "summary: {} flagged records, {} errors",
        r.flagged, r.errors
    );
    r
}

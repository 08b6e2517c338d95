//! Where each hardware fact comes from. Every field of every record names one of these.

/// How strongly a source establishes a fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// Emitted by code that was run on a real M4 (T8132), or read back from one.
    MeasuredM4,
    /// Measured on Apple9 silicon of another product (A18 Pro / G17P) whose command
    /// formats the source states are byte-identical to M4.
    MeasuredApple9,
    /// The G13 (M1) layout, carried over because G16 code emits the same words.
    InferredFromG13,
    /// Reasoned from how a driver or kernel uses the word, not observed directly.
    Inferred,
}

/// One source for a fact: `repo:path` plus how it was established.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Evidence {
    pub source: &'static str,
    pub basis: Basis,
}

const fn ev(source: &'static str, basis: Basis) -> Evidence {
    Evidence { source, basis }
}

/// The G16 kernel walks CDM streams on the CPU; its accepted sizes and checks ran on T8132.
pub const KERNEL_CDM: Evidence = ev(
    "GravityLinux/linux:drivers/gpu/drm/asahi/g16_cdm.rs",
    Basis::MeasuredM4,
);
/// The Apple9 compute launch emitter in GravityLinux Mesa, exercised on T8132.
pub const MESA_APPLE9_LAUNCH: Evidence = ev(
    "GravityLinux/mesa:src/gallium/drivers/asahi/agx_apple9_launch.c",
    Basis::MeasuredM4,
);
/// The Apple9 draw/state emitter in GravityLinux Mesa, exercised on T8132.
pub const MESA_APPLE9: Evidence = ev(
    "GravityLinux/mesa:src/gallium/drivers/asahi/agx_apple9.c",
    Basis::MeasuredM4,
);
/// G13 genxml description (with the G16 annotations GravityLinux added).
pub const GENXML_G13: Evidence = ev(
    "GravityLinux/mesa:src/asahi/genxml/cmdbuf.xml",
    Basis::InferredFromG13,
);
/// G16-specific annotations in the same genxml, established on T8132.
pub const GENXML_G16: Evidence = ev(
    "GravityLinux/mesa:src/asahi/genxml/cmdbuf.xml",
    Basis::MeasuredM4,
);
/// Black-box Metal traces (command streams), traced on A18 Pro and re-traced byte-identical
/// on M4 (docs/m4-deltas.md section 3, EXP-M4-03).
pub const AGXRE_CMDSTREAM: Evidence = ev(
    "ADevWithAnIdea/agx-re:docs/cmdstream/README.md + docs/m4-deltas.md",
    Basis::MeasuredM4,
);
/// Black-box Metal traces (descriptors), byte-identical on M4 (m4-deltas section 4, EXP-M4-04).
pub const AGXRE_DESCRIPTORS: Evidence = ev(
    "ADevWithAnIdea/agx-re:docs/descriptors/README.md + docs/m4-deltas.md",
    Basis::MeasuredM4,
);
/// Hardware probes of texture memory on M4 and A18 Pro (EXP-0017/0028, EXP-M4-04..07).
pub const AGXRE_TILING: Evidence = ev(
    "ADevWithAnIdea/agx-re:docs/tiling/README.md",
    Basis::MeasuredM4,
);
/// Mainline asahi UAPI header.
pub const UAPI: Evidence = ev(
    "torvalds/linux:include/uapi/drm/asahi_drm.h",
    Basis::MeasuredM4,
);
/// The G16 kernel's render command handling.
pub const KERNEL_RENDER: Evidence = ev(
    "GravityLinux/linux:drivers/gpu/drm/asahi/g16_render.rs",
    Basis::MeasuredM4,
);
/// The pre-Apple9 Gallium driver's render setup (G13 values still passed through on G16).
pub const MESA_AGX_PIPE: Evidence = ev(
    "GravityLinux/mesa:src/gallium/drivers/asahi/agx_pipe.c",
    Basis::InferredFromG13,
);

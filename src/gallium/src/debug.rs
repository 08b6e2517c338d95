//! AGX16_DEBUG: comma-separated debug switches.

use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, Default)]
pub struct DebugFlags {
    /// Print per-shader statistics in Mesa's shader-db style to stderr.
    pub shaderdb: bool,
    /// Report BO counts at screen destruction (leak checks).
    pub bo: bool,
    /// Print each shader's NIR as it reaches the compiler's importer (read by agx16-compiler
    /// itself, `nir::prepare`; listed here so it is a known flag).
    pub nir: bool,
    /// Print each image resource as it is created: size, format, bind flags, usage and the
    /// layout chosen for it.
    pub resource: bool,
}

pub fn flags() -> DebugFlags {
    static FLAGS: OnceLock<DebugFlags> = OnceLock::new();
    *FLAGS.get_or_init(|| parse(&std::env::var("AGX16_DEBUG").unwrap_or_default()))
}

fn parse(value: &str) -> DebugFlags {
    let mut flags = DebugFlags::default();
    for word in value.split(',').map(str::trim).filter(|w| !w.is_empty()) {
        match word {
            "shaderdb" => flags.shaderdb = true,
            "bo" => flags.bo = true,
            "nir" => flags.nir = true,
            "resource" => flags.resource = true,
            other => eprintln!(
                "agx16: unknown AGX16_DEBUG flag {other:?} (known: shaderdb, bo, nir, resource)"
            ),
        }
    }
    flags
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn parses_known_flags_and_ignores_spaces() {
        assert!(parse(" shaderdb ").shaderdb);
        assert!(parse("bogus,shaderdb").shaderdb);
        assert!(!parse("").shaderdb);
        assert!(parse("nir,bo").nir && parse("nir,bo").bo);
        assert!(parse("resource").resource && !parse("bo").resource);
    }
}

//! Shorthand for table entries.

/// `f!(name, [(lo, width), ...], kind, evidence, source)` builds a `Field`.
macro_rules! f {
    ($name:literal, [$(($lo:expr, $w:expr)),+ $(,)?], $kind:expr, $ev:ident, $src:expr) => {
        $crate::form::fld($name, &[$($crate::form::b($lo, $w)),+], $kind, $crate::evidence::Evidence::$ev, $src)
    };
}

/// `raw!(name, lo, width)`: bits localised but not understood.
macro_rules! raw {
    ($name:literal, $lo:expr, $w:expr) => {
        $crate::form::fld(
            $name,
            &[$crate::form::b($lo, $w)],
            $crate::form::Kind::Raw,
            $crate::evidence::Evidence::Hypothesis,
            "",
        )
    };
}

/// `form!(name, op, len, evidence, source, [matches], [fields], [reach])`.
macro_rules! form {
    ($name:literal, $op:ident, $len:expr, $ev:ident, $src:expr,
     [$(($mlo:expr, $mw:expr, $mv:expr)),* $(,)?], $fields:expr, [$($reach:expr),* $(,)?]) => {
        $crate::form::Form {
            name: $name,
            op: $crate::op::Op::$op,
            len: $len,
            matches: &[$($crate::form::m($mlo, $mw, $mv)),*],
            fields: $fields,
            reach: &[$($reach),*],
            evidence: $crate::evidence::Evidence::$ev,
            source: $src,
        }
    };
}

/// `rch!(role, max, evidence)`: register reach of one operand.
macro_rules! rch {
    ($role:ident, $max:expr, $ev:ident) => {
        $crate::form::reach(
            $crate::form::Role::$role,
            $max,
            $crate::evidence::Evidence::$ev,
        )
    };
}

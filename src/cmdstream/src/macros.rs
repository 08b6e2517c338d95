//! Declarative description macros. A `hw_enum!` names the values of a field; a `record!`
//! lays out one fixed-size record. From one declaration they generate the typed struct,
//! pack, unpack, the field table the printer walks, and unknown-bit tracking.

/// Declares an enum of hardware values. Values no source names decode to `Unknown(raw)`.
#[macro_export]
macro_rules! hw_enum {
    (
        $(#[$m:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vm:meta])* $var:ident = $val:literal => $label:literal ),* $(,)?
        }
    ) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[$vm])* $var, )*
            /// A raw value that no source names.
            Unknown(u64),
        }
        impl $crate::record::FieldType for $name {
            const DISPLAY: $crate::record::Display = $crate::record::Display::Enum;
            const NAMES: &'static [(u64, &'static str)] = &[ $( ($val, $label) ),* ];
            fn to_u64(&self) -> u64 {
                match self { $( Self::$var => $val, )* Self::Unknown(v) => *v }
            }
            fn from_u64(raw: u64) -> Self {
                match raw { $( $val => Self::$var, )* v => Self::Unknown(v) }
            }
            fn is_known(&self) -> bool {
                !matches!(self, Self::Unknown(_))
            }
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __codec {
    (plain) => {
        $crate::record::Codec::Plain
    };
    (minus1) => {
        $crate::record::Codec::MinusOne
    };
    (shr($n:expr)) => {
        $crate::record::Codec::Shr($n)
    };
}

/// Declares a fixed-size record.
///
/// ```text
/// record! {
///     /// doc
///     pub struct Name : SIZE_IN_BYTES {
///         field: Type = [first_bit, width] codec, EVIDENCE;   // codec: plain | minus1 | shr(n)
///     }
///     fixed { block_type = [29, 3] == 0, EVIDENCE; }
/// }
/// ```
/// Bits are counted from bit 0 of the first little-endian 32-bit word.
#[macro_export]
macro_rules! record {
    (
        $(#[$m:meta])*
        $vis:vis struct $name:ident : $size:literal {
            $( $(#[$fm:meta])* $fname:ident : $fty:ty = [$start:expr, $width:expr]
               $codec:ident $(($carg:expr))? , $ev:path ; )*
        }
        $( fixed { $( $xname:ident = [$xstart:expr, $xwidth:expr] == $xval:expr , $xev:path ; )* } )?
    ) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq)]
        $vis struct $name {
            $( $(#[$fm])* pub $fname: $fty, )*
            /// Bits no source documents, per 32-bit word, preserved from unpack.
            pub unknown: [u32; $size / 4],
        }

        impl $name {
            /// Per-word masks of the bits some field covers (fixed fields included).
            const KNOWN: [u32; $size / 4] = $crate::record::known_words(Self::FIELD_TABLE);
            const FIELD_TABLE: &'static [$crate::record::FieldSpec] = &[
                $( $crate::record::FieldSpec {
                    name: stringify!($fname),
                    start: $start,
                    width: $width,
                    codec: $crate::__codec!($codec $(($carg))?),
                    display: <$fty as $crate::record::FieldType>::DISPLAY,
                    names: <$fty as $crate::record::FieldType>::NAMES,
                    fixed: None,
                    evidence: &$ev,
                }, )*
                $( $( $crate::record::FieldSpec {
                    name: stringify!($xname),
                    start: $xstart,
                    width: $xwidth,
                    codec: $crate::record::Codec::Plain,
                    display: $crate::record::Display::Hex,
                    names: &[],
                    fixed: Some($xval),
                    evidence: &$xev,
                }, )* )?
            ];
        }

        impl Default for $name {
            /// The record every documented field of which is raw zero (fixed fields set).
            #[allow(unused_assignments, unused_mut, unused_variables)]
            fn default() -> Self {
                let mut i = 0usize;
                $( let $fname = {
                    let s = &Self::FIELD_TABLE[i];
                    i += 1;
                    <$fty as $crate::record::FieldType>::from_u64($crate::record::decode_field(s, 0))
                }; )*
                Self { $( $fname, )* unknown: [0; $size / 4] }
            }
        }

        impl $crate::record::Record for $name {
            const NAME: &'static str = stringify!($name);
            const SIZE: usize = $size;

            fn fields() -> &'static [$crate::record::FieldSpec] {
                Self::FIELD_TABLE
            }

            #[allow(unused_assignments, unused_mut, unused_variables)]
            fn unpack(bytes: &[u8]) -> Result<Self, $crate::record::DecodeError> {
                #[allow(unused_imports)]
                use $crate::record::{get_bits, decode_field, FieldType};
                if bytes.len() < $size {
                    return Err($crate::record::DecodeError::Truncated {
                        record: Self::NAME, need: $size, have: bytes.len(),
                    });
                }
                let mut i = 0usize;
                $( let $fname = {
                    let s = &Self::FIELD_TABLE[i];
                    i += 1;
                    <$fty>::from_u64(decode_field(s, get_bits(bytes, s.start, s.width)))
                }; )*
                for s in &Self::FIELD_TABLE[i..] {
                    let found = get_bits(bytes, s.start, s.width);
                    let expected = s.fixed.unwrap_or(0);
                    if found != expected {
                        return Err($crate::record::DecodeError::FixedMismatch {
                            record: Self::NAME, field: s.name, expected, found,
                        });
                    }
                }
                let known = &Self::KNOWN;
                let mut unknown = [0u32; $size / 4];
                for (w, u) in unknown.iter_mut().enumerate() {
                    let word = u32::from_le_bytes(bytes[w * 4..w * 4 + 4].try_into().unwrap());
                    *u = word & !known[w];
                }
                Ok(Self { $( $fname, )* unknown })
            }

            #[allow(unused_assignments, unused_mut)]
            fn pack_into(&self, out: &mut [u8]) -> Result<(), $crate::record::PackError> {
                #[allow(unused_imports)]
                use $crate::record::{encode_field, set_bits, FieldType};
                let out = &mut out[..$size];
                let known = &Self::KNOWN;
                for (w, u) in self.unknown.iter().enumerate() {
                    out[w * 4..w * 4 + 4].copy_from_slice(&(u & !known[w]).to_le_bytes());
                }
                let mut i = 0usize;
                $( {
                    let s = &Self::FIELD_TABLE[i];
                    i += 1;
                    let raw = encode_field(Self::NAME, s, self.$fname.to_u64())?;
                    set_bits(out, s.start, s.width, raw);
                } )*
                for s in &Self::FIELD_TABLE[i..] {
                    set_bits(out, s.start, s.width, s.fixed.unwrap_or(0));
                }
                Ok(())
            }

            fn unknown_bits(&self) -> &[u32] {
                &self.unknown
            }

            #[allow(unused_mut)]
            fn unknown_values(&self) -> Vec<&'static str> {
                #[allow(unused_imports)]
                use $crate::record::FieldType;
                let mut v = Vec::new();
                $( if !self.$fname.is_known() { v.push(stringify!($fname)); } )*
                v
            }
        }
    };
}

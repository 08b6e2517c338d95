//! The Apple-compiled corpus (../shared/oracles/isa/corpus, 294 programs): at least 90% of the
//! programs decode completely (every instruction a table form, tiling the program exactly),
//! every decoded instruction re-encodes byte-exactly and re-assembles from its disassembly.

mod common;

#[test]
fn corpus_decodes_and_round_trips() {
    let s = agx16_isa::check::check_dir(&common::oracles().join("isa/corpus")).expect("corpus dir");
    println!("{}", s.line());
    for (p, off, why) in &s.failures {
        println!("not decoded: {} @{off:#x}: {why}", p.display());
    }
    assert_eq!(s.programs, 294, "corpus changed");
    assert!(s.decoded * 10 >= s.programs * 9, "{}", s.line());
    assert_eq!(s.unknown, 0);
    assert_eq!(s.mismatches, 0, "{}", s.line());
}

#[test]
fn every_decoded_program_ends_with_stop() {
    // README check 1: the lengths tile each program and end on the final 0e000000.
    for p in agx16_isa::check::program_files(&common::oracles().join("isa/corpus")).unwrap() {
        let bytes = agx16_isa::check::read_program(&p).unwrap();
        if let Ok(v) = agx16_isa::decode_program(&bytes) {
            let (off, last) = v.last().expect("non-empty");
            assert_eq!(last.form.op, agx16_isa::Op::Stop, "{}", p.display());
            assert_eq!(off + 4, bytes.len(), "{}", p.display());
        }
    }
}

#[test]
fn disassembly_reassembles_whole_programs() {
    // asm(disasm(x)) == x through the tools' text format (offset and bytes columns included).
    let mut n = 0;
    for p in agx16_isa::check::program_files(&common::oracles().join("isa/corpus")).unwrap() {
        let bytes = agx16_isa::check::read_program(&p).unwrap();
        let Ok(v) = agx16_isa::decode_program(&bytes) else {
            continue;
        };
        let text: String = v
            .iter()
            .map(|(off, i)| {
                let hex: String = bytes[*off..*off + i.form.len as usize]
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                format!("{off:04x}: {hex} {i}  ; comment\n")
            })
            .collect();
        let back =
            agx16_isa::parse_program(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(agx16_isa::encode_program(&back), bytes, "{}", p.display());
        n += 1;
    }
    assert!(n > 250);
}

//! The exception tables of functions with landing pads (`vliw_elf::lsda`,
//! `vliw_machine::eh_frame`): `tests/ir/calls/invoke.ir` compiled under several
//! configurations, linked with `--gc-sections`, and read back from the executable
//! the way an unwinder and Rust's personality routine read them: the FDE of each
//! function with landing pads names the personality routine and its language-specific
//! data area; each call with an unwind edge has a call-site entry covering its bundle
//! whose landing pad is a bundle of the same function, a catch where the IR's pad is
//! `catch_landing_pad`; the other functions have no personality.

mod common;

use gimli::{BaseAddresses, CieOrFde, EhFrame, LittleEndian, UnwindSection};
use vliw_elf::{Executable, write_object};
use vliw_ir::{DataValue, Type, parse_module};
use vliw_isa::{MachineConfig, Opcode};
use vliw_link::{InputFile, LinkConfig};
use vliw_pipeline::{Options, compile_module};

/// Stubs of what the runtime provides, for linking only (nothing runs).
const RUNTIME_STUBS: &str = "
    .text
    .globl rust_eh_personality
rust_eh_personality:
    ret ;;
    .globl _Unwind_RaiseException
_Unwind_RaiseException:
    ret ;;
    .globl _Unwind_Resume
_Unwind_Resume:
    ret ;;
";

fn link(options: &str) -> Executable {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/ir/calls/invoke.ir"
    ))
    .unwrap();
    let module = parse_module(&text).unwrap();
    let opts = Options::parse(&format!("{options} verify=each")).unwrap();
    let object = compile_module(&common::exported(&module), &opts)
        .unwrap_or_else(|e| panic!("{options}: {e}"));
    let stubs = vliw_asm::assemble(RUNTIME_STUBS, "stubs.s", &MachineConfig::default()).unwrap();
    let driver = common::driver_asm("outer", &[DataValue::I64(1)], &[Type::I64]);
    let driver = vliw_asm::assemble(&driver, "driver.s", &MachineConfig::default()).unwrap();
    let files: Vec<InputFile> = [
        ("driver.o", driver),
        ("module.o", object),
        ("stubs.o", stubs),
    ]
    .into_iter()
    .map(|(name, o)| InputFile {
        name: name.into(),
        data: write_object(&o),
        whole_archive: false,
    })
    .collect();
    // every function is a root (the RVSDG inlines @cleanup into @through and
    // @through into @uncaught: nothing would call them)
    let config = LinkConfig {
        gc_sections: true,
        undefined: [
            "catch",
            "catch_indirect",
            "cleanup",
            "through",
            "outer",
            "maybe_raise",
            "uncaught",
        ]
        .map(String::from)
        .to_vec(),
        ..LinkConfig::default()
    };
    vliw_link::link(&files, &config)
        .unwrap_or_else(|e| panic!("{options}: {e}"))
        .executable
}

/// Per function: its personality routine's address and call sites, as read.
fn tables(exe: &Executable) -> Vec<(String, Option<u64>, Vec<vliw_elf::lsda::SiteRecord>)> {
    let section = exe.section(".eh_frame").expect("an .eh_frame section");
    let data = exe.bytes_at(section.addr, section.size).unwrap();
    let eh_frame = EhFrame::new(data, LittleEndian);
    let bases = BaseAddresses::default().set_eh_frame(section.addr);
    let mut out = Vec::new();
    let mut entries = eh_frame.entries(&bases);
    while let Some(entry) = entries.next().unwrap() {
        let CieOrFde::Fde(partial) = entry else {
            continue;
        };
        let fde = partial.parse(|s, b, o| s.cie_from_offset(b, o)).unwrap();
        let start = fde.initial_address();
        let name = exe
            .symbol_at(start)
            .map(|s| s.name.clone())
            .unwrap_or_default();
        let personality = fde.personality().map(|p| match p {
            gimli::Pointer::Direct(a) => a,
            gimli::Pointer::Indirect(_) => panic!("an indirect personality pointer"),
        });
        let sites = match fde.lsda() {
            None => Vec::new(),
            Some(gimli::Pointer::Direct(lsda)) => {
                // the area is in the read-only data: what is loaded from it on (the
                // reader stops where the area says it ends)
                let bytes = (1..=4096u64)
                    .rev()
                    .find_map(|n| exe.bytes_at(lsda, n))
                    .expect("the LSDA pointer points into the program");
                vliw_elf::lsda::parse(bytes)
                    .unwrap_or_else(|e| panic!("{name}: the LSDA does not read: {e}"))
                    .sites
            }
            Some(_) => panic!("an indirect LSDA pointer"),
        };
        // every call site's range must be a call bundle; every landing pad in the function
        for s in sites.iter().filter(|s| s.landing != 0) {
            let at = start + s.start;
            let words: Vec<u64> = exe
                .bytes_at(at, s.len)
                .unwrap()
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            let (bundle, len) = vliw_isa::decode_bundle(&words).unwrap();
            assert_eq!(len as u64 * 8, s.len, "{name}: the site is one bundle");
            assert!(
                bundle
                    .iter()
                    .any(|i| matches!(i.opcode, Opcode::Call | Opcode::Callr)),
                "{name}: the site at {:#x} is no call bundle",
                s.start
            );
            assert!(s.landing < fde.len(), "{name}: the landing pad is outside");
        }
        out.push((name, personality, sites));
    }
    out
}

fn check(options: &str) {
    let exe = link(options);
    let personality = exe.symbol("rust_eh_personality").unwrap().addr;
    let tables = tables(&exe);
    let find = |n: &str| {
        tables
            .iter()
            .find(|t| t.0 == n)
            .unwrap_or_else(|| panic!("{options}: no FDE for {n}"))
    };
    // (function, catches): each has one call with an unwind edge
    for (f, catches) in [
        ("catch", true),
        ("cleanup", false),
        ("outer", true),
        ("catch_indirect", true),
    ] {
        let (_, p, sites) = find(f);
        assert_eq!(*p, Some(personality), "{options}: {f}'s personality");
        let landing: Vec<_> = sites.iter().filter(|s| s.landing != 0).collect();
        assert_eq!(landing.len(), 1, "{options}: {f}: {sites:?}");
        let action = landing[0].action;
        assert_eq!(action.is_some_and(|a| a.catches), catches, "{options}: {f}");
        // the table covers the function, without gaps
        let mut at = 0;
        for s in sites {
            assert_eq!(s.start, at, "{options}: {f}: {sites:?}");
            at += s.len;
        }
    }
    // no invoke (the functions that call @cleanup get its landing pad when the
    // RVSDG inlines it)
    let (_, p, sites) = find("maybe_raise");
    assert_eq!(*p, None, "{options}: @maybe_raise has no landing pads");
    assert!(sites.is_empty());
}

#[test]
fn landing_pads_are_described_for_the_personality_routine() {
    check("");
}

/// `vliw-objdump --dwarf=frames` prints the personality routine and the call sites
/// of each FDE with a language-specific data area.
#[test]
fn objdump_prints_the_call_site_tables() {
    let exe = link("");
    let options = vliw_asm::DisasmOptions {
        frames: true,
        ..Default::default()
    };
    let text = vliw_asm::disassemble_executable(&exe, &options);
    let personality = exe.symbol("rust_eh_personality").unwrap().addr;
    assert!(
        text.contains(&format!("Personality routine: {personality:016x}")),
        "{text}"
    );
    let catch = exe.symbol("catch").unwrap().addr;
    let fde = text
        .split("\n\n")
        .position(|part| part.contains(&format!("pc={catch:016x}")))
        .expect("the FDE of @catch");
    let parts: Vec<&str> = text.split("\n\n").collect();
    let after = parts[fde..].join("\n\n");
    assert!(
        after.contains("Language-specific data area: 3 call sites"),
        "{after}"
    );
    assert!(after.contains("catch (type 1)"), "{after}");
    assert!(text.contains(" cleanup"), "{text}");
    assert!(text.contains("no landing pad"), "{text}");
}

#[test]
fn landing_pads_are_described_with_values_in_memory() {
    check("mem2reg=off rvsdg=off");
}

#[test]
fn landing_pads_are_described_with_the_naive_allocator() {
    check("regalloc=naive sched=off");
}

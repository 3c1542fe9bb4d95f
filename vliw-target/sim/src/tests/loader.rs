//! Loading: ELF executables, the memory map, the initial stack with argv and envp.

use super::*;
use crate::{LoadError, read_program};
use vliw_elf::{Binding, ExecSymbol, Executable, SegmentFlags, SymbolKind};
use vliw_isa::abi::{STACK_TOP, TEXT_BASE};

fn executable(bundles: &[&[&str]]) -> Executable {
    let words = assemble(bundles);
    let text: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let size = text.len() as u64;
    Executable {
        entry: TEXT_BASE,
        segments: vec![
            vliw_elf::Segment {
                vaddr: TEXT_BASE,
                mem_size: size,
                data: text,
                flags: SegmentFlags::RX,
            },
            vliw_elf::Segment {
                vaddr: 0x20000,
                mem_size: 0x2000,
                data: b"hi!\n".to_vec(),
                flags: SegmentFlags::RW,
            },
        ],
        symbols: vec![ExecSymbol {
            name: "_start".to_string(),
            addr: TEXT_BASE,
            size,
            kind: SymbolKind::Func,
            binding: Binding::Global,
        }],
        ..Executable::default()
    }
}

fn start(
    program: &Program,
    argv: &[&str],
    envp: &[&str],
) -> Result<(Simulator, CaptureIo), LoadError> {
    let io = CaptureIo::default();
    let argv: Vec<Vec<u8>> = argv.iter().map(|s| s.as_bytes().to_vec()).collect();
    let envp: Vec<Vec<u8>> = envp.iter().map(|s| s.as_bytes().to_vec()).collect();
    let options = Options {
        stack_size: 64 << 10,
        ..Options::default()
    };
    Simulator::new(program, &options, &argv, &envp, Box::new(io.clone())).map(|sim| (sim, io))
}

#[test]
fn an_elf_executable_runs() {
    let exe = executable(&[
        &["movi r3 = 1", "movi r4 = 0x20000", "movi r5 = 4"],
        &["syscall 1"],
        &["movi r3 = 0x2000"],
        &["ld.d r3 = [r3 + 0]"],
    ]);
    let bytes = vliw_elf::write_executable(&exe);
    let program = read_program(&bytes, "hi").unwrap();
    let (mut sim, io) = start(&program, &["hi"], &[]).unwrap();
    let outcome = sim.run();
    assert_eq!(io.stdout(), b"hi!\n");
    // The symbol table of the file names the function.
    assert_eq!(
        outcome.exit_status(),
        139,
        "{}",
        match &outcome {
            crate::Outcome::Fault(f) => f.to_string(),
            o => format!("{o:?}"),
        }
    );
    let crate::Outcome::Fault(fault) = outcome else {
        unreachable!()
    };
    assert_eq!(
        fault.to_string(),
        "fault: unmapped 8-byte load at 0x2000 in bundle 0x10028 (_start+0x28)"
    );
    assert_eq!(fault.function, Some(("_start".to_string(), 0x28)));
}

/// A `PT_TLS` header is not a loadable segment: the program loads and runs as without
/// it, and `tp` (r2) starts at 0 like every other register (the runtime sets it up).
#[test]
fn an_executable_with_a_tls_header_runs() {
    let mut exe = executable(&[
        // tp = the TLS image in place; write what the initialized part holds.
        &["movi r2 = 0x20000"],
        &["movi r3 = 1", "add r4 = r2, 0", "movi r5 = 4"],
        &["syscall 1"],
        // The .tbss part, past the file contents, is zero and writable.
        &["st.d [r2 + 8] = r5"],
        &["ld.d r3 = [r2 + 8]"],
        &["ld.d r6 = [r2 + 16]"],
        &["add r3 = r3, r6"],
        &["syscall 0"],
    ]);
    exe.tls = Some(vliw_elf::TlsTemplate {
        vaddr: 0x20000,
        file_size: 4,
        mem_size: 24,
        align: 8,
    });
    let bytes = vliw_elf::write_executable(&exe);
    assert_eq!(
        vliw_elf::read_executable(&bytes, "tls").unwrap().tls,
        exe.tls
    );
    let program = read_program(&bytes, "tls").unwrap();
    let (mut sim, io) = start(&program, &["tls"], &[]).unwrap();
    let outcome = sim.run();
    assert_eq!(io.stdout(), b"hi!\n");
    assert_eq!(outcome.exit_status(), 4, "{outcome:?}");
}

#[test]
fn malformed_files_are_errors_not_panics() {
    let bytes = vliw_elf::write_executable(&executable(&[&["syscall 0"]]));
    for len in [0, 4, 16, 63, 64, 100, bytes.len() / 2, bytes.len() - 1] {
        if let Err(e) = read_program(&bytes[..len], "cut") {
            assert!(e.to_string().starts_with("cut: "), "{e}");
        }
    }
    let e = read_program(b"#!/bin/sh\n", "script").unwrap_err();
    assert_eq!(e.to_string(), "script: not an ELF file (bad magic)");
}

#[test]
fn programs_that_cannot_be_loaded() {
    let ok = executable(&[&["syscall 0"]]);
    let program = |f: &dyn Fn(&mut Executable)| {
        let mut exe = ok.clone();
        f(&mut exe);
        Program::from_executable(&exe)
    };
    let err = |p: Program| {
        start(&p, &["x"], &[])
            .err()
            .expect("a load error")
            .to_string()
    };
    assert!(
        err(program(&|e| e.entry = 0x10004))
            .contains("entry point 0x10004 is not the start of a bundle")
    );
    assert!(err(program(&|e| e.entry = 0x40000)).contains("entry point 0x40000"));
    assert!(err(program(&|e| e.segments[0].flags = SegmentFlags::R)).contains("no text"));
    assert!(err(program(&|e| e.segments[1].vaddr = 0x8000)).contains("below 0x10000"));
    assert!(err(program(&|e| e.segments[1].mem_size = STACK_TOP)).contains("overlaps the stack"));
    let huge_args = ["x".repeat(100 << 10)];
    let e = start(
        &Program::from_executable(&ok),
        &huge_args.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        &[],
    )
    .err()
    .unwrap();
    assert!(e.to_string().contains("do not fit in the stack"), "{e}");
}

#[test]
fn the_initial_stack_holds_argv_and_envp() {
    let program = Program::from_executable(&executable(&[&["syscall 0"]]));
    let (sim, _) = start(&program, &["prog", "arg one", ""], &["HOME=/root", "X=1"]).unwrap();
    let mem = sim.memory();
    let read_string = |addr: u64| {
        let mut s = Vec::new();
        for a in addr.. {
            let b = mem.read(a, 1).unwrap() as u8;
            if b == 0 {
                break;
            }
            s.push(b);
        }
        String::from_utf8(s).unwrap()
    };
    let (sp, argc, argv, envp) = (sim.reg(1), sim.reg(3), sim.reg(4), sim.reg(5));
    assert_eq!(argc, 3);
    assert_eq!(sp % 16, 0);
    assert_eq!(argv, sp);
    assert_eq!(envp, argv + 8 * 4);
    let strings: Vec<String> = (0..3)
        .map(|i| read_string(mem.read(argv + 8 * i, 8).unwrap()))
        .collect();
    assert_eq!(strings, ["prog", "arg one", ""]);
    assert_eq!(mem.read(argv + 24, 8), Some(0));
    let env: Vec<String> = (0..2)
        .map(|i| read_string(mem.read(envp + 8 * i, 8).unwrap()))
        .collect();
    assert_eq!(env, ["HOME=/root", "X=1"]);
    assert_eq!(mem.read(envp + 16, 8), Some(0));
    // The strings are at the top of the stack, above the arrays.
    let first = mem.read(argv, 8).unwrap();
    assert!(first > envp + 16 && first < STACK_TOP);
    let total: u64 = ["prog", "arg one", "", "HOME=/root", "X=1"]
        .iter()
        .map(|s| s.len() as u64 + 1)
        .sum();
    assert_eq!(first, STACK_TOP - total);
    // Other registers start at zero, p0 alone is true.
    assert_eq!((sim.reg(2), sim.reg(6), sim.reg(63)), (0, 0, 0));
    assert!(sim.pred(0));
    assert!((1..16).all(|p| !sim.pred(p)));
    assert_eq!(sim.pc(), TEXT_BASE);
}

#[test]
fn a_program_reads_its_arguments() {
    // write(1, argv[1], 3); write(1, envp[0], 5); exit(argc)
    let exe = executable(&[
        &["mov r20 = r3", "ld.d r6 = [r4 + 8]", "ld.d r7 = [r5]"],
        &["nop"],
        &["nop"],
        &["movi r3 = 1", "mov r4 = r6", "movi r5 = 3"],
        &["syscall 1"],
        &["movi r3 = 1", "mov r4 = r7", "movi r5 = 5"],
        &["syscall 1"],
        &["mov r3 = r20"],
        &["syscall 0"],
    ]);
    let program = Program::from_executable(&exe);
    let (mut sim, io) = start(&program, &["prog", "abc", "d"], &["K=VAL"]).unwrap();
    assert_eq!(sim.run(), crate::Outcome::Exit(3));
    assert_eq!(io.stdout(), b"abcK=VAL");
}

#[test]
fn several_text_segments_and_a_read_only_segment() {
    // Text at 0x10000 jumps to text at 0x40000, which reads rodata at 0x30000.
    let first = assemble(&[&["movi r10 = 0x40000"], &["jr r10"]]);
    let second = assemble(&[
        &["movi r10 = 0x30000"],
        &["ld.w r3 = [r10]"],
        &["syscall 0"],
    ]);
    let program = Program {
        entry: TEXT_BASE,
        segments: vec![
            Segment::text(TEXT_BASE, &first),
            Segment::read_only(0x30000, vec![42, 0, 0, 0]),
            Segment::text(0x40000, &second),
        ],
        symbols: vec![],
        lines: Default::default(),
        frames: None,
    };
    let (mut sim, _) = start(&program, &["p"], &[]).unwrap();
    assert_eq!(sim.run(), crate::Outcome::Exit(42));
    assert_eq!(sim.memory().layout().heap_start, 0x41000);
}

#[test]
fn line_tables_are_loaded_and_bad_ones_ignored() {
    let mut exe = executable(&[&["ld.d r3 = [r0 + 8]"], &["syscall 0"]]);
    let table = |data: Vec<u8>| vliw_elf::NonAllocSection {
        name: ".debug_line".to_string(),
        kind: vliw_elf::SectionKind::Other,
        data,
    };
    let dwarf = super::dwarf::write_dwarf(
        4,
        &[super::dwarf::Seq {
            start: super::dwarf::Address::Constant(TEXT_BASE),
            size: 16,
            rows: vec![(0, "src/main.rs", 4, 13)],
        }],
    );
    exe.non_alloc_sections
        .push(table(dwarf[".debug_line"].0.clone()));
    let bytes = vliw_elf::write_executable(&exe);
    let program = read_program(&bytes, "p").unwrap();
    assert_eq!(
        program.lines.lookup(TEXT_BASE).map(|l| l.to_string()),
        Some("src/main.rs:4:13".to_string())
    );
    let (mut sim, _) = start(&program, &["p"], &[]).unwrap();
    match sim.run() {
        crate::Outcome::Fault(f) => assert_eq!(
            f.to_string(),
            "fault: unmapped 8-byte load at 0x8 in bundle 0x10000 (_start, src/main.rs:4:13)"
        ),
        other => panic!("{other:?}"),
    }
    // garbage in .debug_line: the program loads and runs, without lines
    exe.non_alloc_sections[0] = table(vec![0x55; 40]);
    let program = read_program(&vliw_elf::write_executable(&exe), "p").unwrap();
    assert!(program.lines.is_empty());
    let (mut sim, _) = start(&program, &["p"], &[]).unwrap();
    match sim.run() {
        crate::Outcome::Fault(f) => assert_eq!(
            f.to_string(),
            "fault: unmapped 8-byte load at 0x8 in bundle 0x10000 (_start)"
        ),
        other => panic!("{other:?}"),
    }
}

//! Every kind of fault: its one-line message and its exit status.

use super::*;
use vliw_isa::abi::STACK_TOP;

/// Runs `bundles` with a symbol `main` over the whole text.
fn fault_of(bundles: &[&[&str]]) -> (String, i32) {
    let words = assemble(bundles);
    let size = 8 * words.len() as u64;
    let r = Test::from_words(words)
        .symbol("main", TEXT, size)
        .max_cycles(1000)
        .run();
    (r.fault(), r.outcome.exit_status())
}

#[test]
fn misaligned_accesses() {
    let (m, s) = fault_of(&[&["movi r10 = 0x20000"], &["ld.d r4 = [r10 + 4]"]]);
    assert_eq!(
        m,
        "fault: misaligned 8-byte load at 0x20004 in bundle 0x10008 (main+0x8)"
    );
    assert_eq!(s, 135);
    let (m, _) = fault_of(&[&["movi r10 = 0x20001"], &["st.h [r10] = r0"]]);
    assert_eq!(
        m,
        "fault: misaligned 2-byte store at 0x20001 in bundle 0x10008 (main+0x8)"
    );
    let (m, _) = fault_of(&[&["movi r10 = 0x20002"], &["amoadd.w r4 = [r10], r0"]]);
    assert_eq!(
        m,
        "fault: misaligned 4-byte atomic at 0x20002 in bundle 0x10008 (main+0x8)"
    );
    let (m, _) = fault_of(&[&["movi r10 = 0x20004"], &["cas.d r4 = [r10], r0, r0"]]);
    assert_eq!(
        m,
        "fault: misaligned 8-byte atomic at 0x20004 in bundle 0x10008 (main+0x8)"
    );
}

#[test]
fn unmapped_and_read_only_memory() {
    let (m, s) = fault_of(&[&["ld.d r4 = [r0 + 16]"]]);
    assert_eq!(
        m,
        "fault: unmapped 8-byte load at 0x10 in bundle 0x10000 (main)"
    );
    assert_eq!(s, 139);
    let (m, _) = fault_of(&[&["movi r10 = 0x21000"], &["ld.bu r4 = [r10]"]]);
    assert_eq!(
        m, "fault: unmapped 1-byte load at 0x21000 in bundle 0x10008 (main+0x8)",
        "past the data segment"
    );
    let (m, s) = fault_of(&[&["movi r10 = 0x10000"], &["st.w [r10] = r0"]]);
    assert_eq!(
        m,
        "fault: write to read-only memory: 4-byte store at 0x10000 in bundle 0x10008 (main+0x8)"
    );
    assert_eq!(s, 139);
    let (m, _) = fault_of(&[&["movi r10 = 0x10008"], &["amoswap.d r4 = [r10], r0"]]);
    assert_eq!(
        m,
        "fault: write to read-only memory: 8-byte atomic at 0x10008 in bundle 0x10008 (main+0x8)"
    );
    let r = Test::new(&[
        &["movi r10 = 0x30000"],
        &["ld.d r4 = [r10]"],
        &["st.d [r10] = r4"],
    ])
    .data(&[1])
    .max_cycles(100);
    let r = Test {
        rodata: vec![1, 2, 3, 4, 5, 6, 7, 8],
        ..r
    }
    .run();
    assert_eq!(
        r.fault(),
        "fault: write to read-only memory: 8-byte store at 0x30000 in bundle 0x10010"
    );
    assert_eq!(
        r.reg(4),
        0x0807_0605_0403_0201,
        "read-only data is readable"
    );
    let (m, _) = fault_of(&[&["movi r10 = long 0x7fff00000000"], &["ld.d r4 = [r10]"]]);
    assert_eq!(
        m, "fault: unmapped 8-byte load at 0x7fff00000000 in bundle 0x10010 (main+0x10)",
        "above the stack"
    );
}

#[test]
fn the_first_faulting_operation_in_slot_order_is_reported() {
    let (m, _) = fault_of(&[&["ld.d r4 = [r0 + 8]", "ld.d r5 = [r0 + 16]"]]);
    assert!(m.contains("at 0x8 "), "{m}");
    let (m, _) = fault_of(&[&[
        "add r6 = r6, 1",
        "ld.d r5 = [r0 + 16]",
        "ld.d r4 = [r6 + 8]",
    ]]);
    assert!(m.contains("at 0x10 "), "{m}");
}

#[test]
fn stack_overflow() {
    // The tests' stack is 64 KiB.
    let below = STACK_TOP - (64 << 10) - 8;
    let set = format!("movi r10 = long {below:#x}");
    let (m, s) = fault_of(&[&[&set], &["st.d [r10] = r0"]]);
    assert_eq!(
        m,
        format!(
            "fault: stack overflow: 8-byte store at {below:#x} below the stack limit in bundle 0x10010 (main+0x10)"
        )
    );
    assert_eq!(s, 142);
    // A runaway recursion: each call pushes 16 bytes.
    let r = Test::new(&[&["add r1 = r1, -16"], &["st.d [r1] = r63", "call .-16"]])
        .max_cycles(100_000)
        .run();
    assert!(
        r.fault()
            .starts_with("fault: stack overflow: 8-byte store at 0x7ffefffef"),
        "{}",
        r.fault()
    );
    assert_eq!(r.outcome.exit_status(), 142);
}

#[test]
fn jumps_outside_text() {
    let (m, s) = fault_of(&[&["jr r0"]]);
    assert_eq!(
        m,
        "fault: jump outside text to 0x0 from bundle 0x10000 (main)"
    );
    assert_eq!(s, 141);
    // Returning from the entry point: lr is 0.
    let (m, _) = fault_of(&[&["nop"], &["ret"]]);
    assert_eq!(
        m,
        "fault: jump outside text to 0x0 from bundle 0x10008 (main+0x8)"
    );
    let (m, _) = fault_of(&[&["br .+0x1000"]]);
    assert_eq!(
        m,
        "fault: jump outside text to 0x11000 from bundle 0x10000 (main)"
    );
    let (m, _) = fault_of(&[&["call .-0x10000"]]);
    assert_eq!(
        m,
        "fault: jump outside text to 0x0 from bundle 0x10000 (main)"
    );
    // Running past the last bundle.
    let (m, s) = fault_of(&[&["nop"], &["movi r3 = 1"]]);
    assert_eq!(
        m,
        "fault: jump outside text to 0x10010 (ran off the end of text) from bundle 0x10008 (main+0x8)"
    );
    assert_eq!(s, 141);
}

#[test]
fn jumping_into_a_bundle_is_a_fault() {
    // jr to the second syllable of a two-syllable bundle.
    let (m, _) = fault_of(&[
        &["addpc r10 = .+32"],
        &["movi r3 = 1", "jr r10"],
        &["nop", "nop"],
    ]);
    assert_eq!(
        m,
        "fault: jump outside text to 0x10020 from bundle 0x10008 (main+0x8)"
    );
}

#[test]
fn traps() {
    let (m, s) = fault_of(&[&["nop"], &["trap 3"]]);
    assert_eq!(m, "fault: trap 3 in bundle 0x10008 (main+0x8)");
    assert_eq!(s, 134);
    let (m, _) = fault_of(&[&["trap -1"]]);
    assert_eq!(m, "fault: trap -1 in bundle 0x10000 (main)");
}

#[test]
fn cycle_limit() {
    let (m, s) = fault_of(&[&["br .+0"]]);
    assert_eq!(
        m,
        "fault: cycle limit of 1000 cycles reached in bundle 0x10000 (main)"
    );
    assert_eq!(s, 143);
    let r = Test::new(&[&["br .+0"]]).max_cycles(1000).run();
    let st = r.stats();
    assert_eq!((st.cycles, st.bundles, st.branches), (1000, 500, 500));
    // A program that needs exactly the limit completes.
    let r = Test::new(&[&["nop"], &["nop"], &["syscall 0"]])
        .max_cycles(3)
        .run();
    assert_eq!(r.exit_code(), 1, "r3 is still argc");
    let r = Test::new(&[&["nop"], &["nop"], &["syscall 0"]])
        .max_cycles(2)
        .run();
    assert!(
        r.fault()
            .starts_with("fault: cycle limit of 2 cycles reached in bundle 0x10010")
    );
}

#[test]
fn illegal_bundles_fault_only_when_executed() {
    // A zero syllable (opcode 0) after a branch over it.
    let mut words = assemble(&[&["br .+16"]]);
    words.push(0);
    words.extend(assemble(&[&["movi r3 = 4"], &["syscall 0"]]));
    let r = Test::from_words(words.clone()).run();
    assert_eq!(r.exit_code(), 4);
    // Executed: a fault naming the reason.
    words[0] = assemble(&[&["nop"]])[0];
    let r = Test::from_words(words).symbol("main", TEXT, 0x20).run();
    assert_eq!(
        r.fault(),
        "fault: illegal bundle (illegal opcode 0x0) at 0x10008 (main+0x8)"
    );
    assert_eq!(r.outcome.exit_status(), 132);
}

#[test]
fn bundles_the_machine_cannot_issue_are_illegal() {
    let (m, s) = fault_of(&[&["nop", "nop", "nop", "nop", "nop"]]);
    assert_eq!(
        m,
        "fault: illegal bundle (bundle has 5 syllables but the issue width is 4) at 0x10000 (main)"
    );
    assert_eq!(s, 132);
    let (m, _) = fault_of(&[&["mul r1 = r2, r3", "mul r1 = r2, r3", "mul r1 = r2, r3"]]);
    assert_eq!(
        m,
        "fault: illegal bundle (bundle uses 3 mul units but the machine has 2) at 0x10000 (main)"
    );
    // The same bundle is legal on a wider machine.
    let r = Test::new(&[&["nop", "nop", "nop", "nop", "nop"], &["syscall 0"]])
        .machine("width=8,alu=8")
        .run();
    assert_eq!(r.exit_code(), 1, "r3 is still argc");
    // An extension the configuration switches off.
    let r = Test::new(&[&["sh2add r3 = r4, r5"], &["syscall 0"]])
        .machine("shift-add=0")
        .run();
    assert_eq!(
        r.fault(),
        "fault: illegal bundle (`sh2add` needs the `shift-add` extension, off in this machine configuration) at 0x10000"
    );
    assert_eq!(r.outcome.exit_status(), 132);
    // Reserved bits and a limm at the end of a bundle.
    let nop = assemble(&[&["nop"]])[0];
    let r = Test::from_words(vec![nop | 1]).run();
    assert_eq!(
        r.fault(),
        "fault: illegal bundle (reserved bits 0x1 set in `nop`) at 0x10000"
    );
    let limm = assemble(&[&["limm 5"]])[0];
    let r = Test::from_words(vec![limm]).run();
    assert_eq!(
        r.fault(),
        "fault: illegal bundle (`limm` at the end of a bundle) at 0x10000"
    );
}

#[test]
fn faults_name_the_nearest_symbol() {
    let words = assemble(&[&["nop"], &["nop"], &["trap 0"]]);
    let r = Test::from_words(words)
        .symbol("_start", TEXT, 8)
        .symbol("helper", TEXT + 8, 0)
        .run();
    assert_eq!(r.fault(), "fault: trap 0 in bundle 0x10010 (helper+0x8)");
}

#[test]
fn messages_name_the_source_line() {
    let words = assemble(&[
        &["movi r10 = 0x20000"],
        &["ld.d r4 = [r10 + 4]"],
        &["trap 3"],
    ]);
    let size = 8 * words.len() as u64;
    let lines = line_table(
        TEXT,
        size,
        vec![(0, "src/main.rs", 11, 9), (8, "src/main.rs", 12, 5)],
    );
    let r = Test::from_words(words.clone())
        .symbol("main", TEXT, size)
        .lines(lines.clone())
        .max_cycles(1000)
        .run();
    assert_eq!(
        r.fault(),
        "fault: misaligned 8-byte load at 0x20004 in bundle 0x10008 (main+0x8, src/main.rs:12:5)"
    );
    match &r.outcome {
        Outcome::Fault(f) => {
            let s = f.source.as_ref().unwrap();
            assert_eq!((s.file.as_str(), s.line, s.column), ("src/main.rs", 12, 5));
        }
        other => panic!("{other:?}"),
    }
    // Without a symbol; and a bundle the table does not cover has no line.
    let r = Test::from_words(words)
        .lines(line_table(TEXT + 8, 8, vec![(0, "/abs/lib.rs", 40, 0)]))
        .run();
    assert_eq!(
        r.fault(),
        "fault: misaligned 8-byte load at 0x20004 in bundle 0x10008 (/abs/lib.rs:40)"
    );
    let r = run(&[&["trap 3"]]);
    assert_eq!(r.fault(), "fault: trap 3 in bundle 0x10000");
}

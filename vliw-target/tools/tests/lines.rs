//! Source lines through the binaries: an assembled program given DWARF line tables
//! (written with gimli, relocated against its sections as the back end writes them),
//! linked by `vliw-ld`, faults under `vliw-run` with the line in its one-line message
//! and in `--trace`; `vliw-objdump` lists the lines in the object and the executable,
//! and not with `--no-line-numbers`; `vliw-ld -S` drops them.

#[path = "../../elf/tests/support/dwarf.rs"]
mod dwarf;

mod support;

use std::process::Output;

use support::{AS, LD, OBJDUMP, RUN, run};

/// `main` reads through a null pointer in its third bundle.
const PROGRAM: &str = "
    .section .text._start, \"ax\"
    .globl _start
_start:
    call main ;;
    syscall 0 ;;
    .section .text.main, \"ax\"
    .globl main
    .type main, @function
main:
    movi r3 = 0 ;;
    movi r4 = 1 ;;
    ld.d r3 = [r3] ;;
    ret ;;
    .size main, . - main
";

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

#[test]
fn lines_through_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).display().to_string();
    std::fs::write(path("p.s"), PROGRAM).unwrap();
    stdout(&run(AS, &[&path("p.s"), "-o", &path("bare.o")]));
    let mut object =
        vliw_elf::read_object(&std::fs::read(path("bare.o")).unwrap(), "bare.o").unwrap();
    let main = object.section_by_name(".text.main").unwrap();
    dwarf::add_line_tables(
        &mut object,
        4,
        &[(
            main,
            32,
            vec![
                (0, "src/main.rs", 11, 13),
                (16, "src/main.rs", 12, 5),
                (24, "src/main.rs", 13, 1),
            ],
        )],
    );
    std::fs::write(path("p.o"), vliw_elf::write_object(&object)).unwrap();
    stdout(&run(LD, &[&path("p.o"), "-o", &path("p"), "--gc-sections"]));

    // vliw-run: the fault names the line, on one line
    let out = run(RUN, &[&path("p")]);
    assert_eq!(out.status.code(), Some(139));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let fault = stderr
        .lines()
        .find(|l| l.starts_with("vliw-run: fault:"))
        .expect(&stderr);
    assert!(
        fault.starts_with("vliw-run: fault: unmapped 8-byte load at 0x0 in bundle 0x"),
        "{stderr}"
    );
    assert!(
        fault.ends_with(" (main+0x10, src/main.rs:12:5)"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");

    // --trace: the located bundles show their line
    let out = run(RUN, &["--trace", &path("p")]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    let trace: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("vliw-run:"))
        .collect();
    assert!(trace[0].contains(" <_start>  call "), "{stderr}");
    assert!(
        trace[1].contains(" <main> src/main.rs:11:13  movi r3 = 0"),
        "{stderr}"
    );
    assert!(
        trace[2].contains(" <main+0x8> src/main.rs:11:13  movi r4 = 1"),
        "{stderr}"
    );
    assert!(
        trace[3].contains(" <main+0x10> src/main.rs:12:5  ld.d r3 = [r3]"),
        "{stderr}"
    );
    assert_eq!(trace.len(), 4, "{stderr}");

    // vliw-objdump: the lines in the object and in the executable, on by default
    for file in ["p.o", "p"] {
        for args in [&[][..], &["-d"], &["-l"], &["-dl"], &["--line-numbers"]] {
            let mut all = args.to_vec();
            let p = path(file);
            all.push(&p);
            let listing = stdout(&run(OBJDUMP, &all));
            let code: Vec<&str> = listing
                .lines()
                .skip_while(|l| !l.ends_with("<main>:"))
                .skip(1)
                .take(7)
                .collect();
            assert_eq!(code.len(), 7, "{args:?} {file}:\n{listing}");
            let lines: Vec<&str> = code
                .iter()
                .map(|l| l.trim_start())
                .filter(|l| l.starts_with('#'))
                .collect();
            assert_eq!(
                lines,
                ["# src/main.rs:11", "# src/main.rs:12", "# src/main.rs:13"],
                "{args:?} {file}:\n{listing}"
            );
            assert!(
                code[4].ends_with("ld.d r3 = [r3] ;;"),
                "{args:?} {file}:\n{listing}"
            );
        }
        let listing = stdout(&run(OBJDUMP, &["--no-line-numbers", &path(file)]));
        assert!(!listing.contains("src/main.rs"), "{listing}");
    }

    // stripped (-S): no lines left
    stdout(&run(
        LD,
        &[&path("p.o"), "-o", &path("stripped"), "--gc-sections", "-S"],
    ));
    let out = run(RUN, &[&path("stripped")]);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.trim_end().ends_with(" (main+0x10)"), "{stderr}");
    assert!(!stdout(&run(OBJDUMP, &[&path("stripped")])).contains("src/main.rs"));
}

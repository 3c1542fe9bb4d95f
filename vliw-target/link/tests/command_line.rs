//! The `vliw-ld` command line end to end: files on disk, libraries, response files,
//! map files, and the errors a user sees.

mod common;

use std::path::Path;

use common::*;
use vliw_elf::*;
use vliw_link::main_with_args;

fn run(args: &[&str]) -> Result<(), String> {
    main_with_args(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        .map_err(|e| e.to_string())
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_string_lossy().into_owned()
}

fn p(dir: &Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

#[test]
fn links_objects_and_libraries_from_disk() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let main = write(d, "main.o", &write_object(&start_calling(&["helper"]).o));
    let mut helper = Obj::new();
    helper.func("helper", 1);
    std::fs::create_dir(d.join("lib")).unwrap();
    write(
        &d.join("lib"),
        "libhelp.a",
        &archive("x", &[("helper.o", &helper)]).data,
    );
    let out = p(d, "a.out");
    let map = p(d, "a.map");
    let lib_dir = p(d, "lib");
    run(&[
        "-static",
        "-nostdlib",
        main.as_str(),
        "-L",
        lib_dir.as_str(),
        "-lhelp",
        "-o",
        out.as_str(),
        &format!("-Map={map}"),
        "--gc-sections",
    ])
    .unwrap();
    let exe = read_executable(&std::fs::read(&out).unwrap(), &out).unwrap();
    assert_eq!(exe.entry, 0x10000);
    assert!(exe.symbol("helper").is_some());
    let map_text = std::fs::read_to_string(&map).unwrap();
    assert!(
        map_text.contains("libhelp.a(helper.o):(.text.helper)"),
        "{map_text}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&out).unwrap().permissions().mode() & 0o777,
            0o755
        );
    }
}

#[test]
fn response_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("with space")).unwrap();
    let main = write(
        &d.join("with space"),
        "main.o",
        &write_object(&start_calling(&[]).o),
    );
    let out = p(d, "out");
    // rustc escapes spaces and backslashes with a backslash, one argument per line.
    let escaped = main.replace('\\', "\\\\").replace(' ', "\\ ");
    let inner = write(d, "inner.rsp", format!("-o\n{out}\n").as_bytes());
    let outer = write(
        d,
        "outer.rsp",
        format!("{escaped}\n--entry=_start\n@{inner}\n").as_bytes(),
    );
    run(&[&format!("@{outer}")]).unwrap();
    assert!(read_executable(&std::fs::read(&out).unwrap(), "out").is_ok());

    let message = run(&[&format!("@{}", p(d, "missing.rsp"))]).unwrap_err();
    assert!(
        message.starts_with(&format!(
            "cannot read response file {}: ",
            p(d, "missing.rsp")
        )),
        "{message}"
    );
    let looping = p(d, "loop.rsp");
    std::fs::write(&looping, format!("@{looping}\n")).unwrap();
    assert!(
        run(&[&format!("@{looping}")])
            .unwrap_err()
            .contains("nests too deeply")
    );
}

#[test]
fn user_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let main = write(d, "main.o", &write_object(&start_calling(&["nowhere"]).o));
    let out = p(d, "out");

    assert_eq!(
        run(&[main.as_str()]).unwrap_err(),
        "no output file given (use -o FILE)"
    );
    assert_eq!(run(&["-o", out.as_str()]).unwrap_err(), "no input files");
    std::fs::write(&out, b"stale").unwrap();
    assert_eq!(
        run(&["--bogus", main.as_str()]).unwrap_err(),
        "unknown option: --bogus"
    );
    let missing = p(d, "missing.o");
    let message = run(&[missing.as_str(), "-o", out.as_str()]).unwrap_err();
    assert!(
        message.starts_with(&format!("cannot open {missing}: ")),
        "{message}"
    );
    assert!(message.contains("No such file"), "{message}");
    assert_eq!(
        run(&[main.as_str(), "-o", out.as_str()]).unwrap_err(),
        format!("undefined symbol: nowhere\n>>> referenced by {main} (section .text._start+0x0)")
    );
    assert!(
        !Path::new(&out).exists(),
        "a failed link removes a stale output"
    );
    let lib_dir = d.to_string_lossy().into_owned();
    assert_eq!(
        run(&[
            main.as_str(),
            "-L",
            lib_dir.as_str(),
            "-lnothere",
            "-o",
            out.as_str()
        ])
        .unwrap_err(),
        format!("unable to find library -lnothere (searched {lib_dir})")
    );
    write(d, "libdyn.so", b"\x7fELF");
    write(d, "libdyn.a", &archive("x", &[]).data);
    let message = run(&[
        main.as_str(),
        "-L",
        lib_dir.as_str(),
        "-Bdynamic",
        "-ldyn",
        "-o",
        out.as_str(),
    ])
    .unwrap_err();
    assert!(
        message.starts_with("-ldyn: found the dynamic library"),
        "{message}"
    );
    // With -Bstatic (the default) the archive is used.
    let message = run(&[
        main.as_str(),
        "-L",
        lib_dir.as_str(),
        "-Bstatic",
        "-ldyn",
        "-o",
        out.as_str(),
    ])
    .unwrap_err();
    assert!(
        message.starts_with("undefined symbol: nowhere"),
        "{message}"
    );
    assert!(
        run(&["-pie", main.as_str(), "-o", out.as_str()])
            .unwrap_err()
            .contains("not supported")
    );
}

#[test]
fn version_and_help_succeed() {
    run(&["--version"]).unwrap();
    run(&["--help"]).unwrap();
}

// A build script runs on the host (built by LLVM) even when the crate is built for
// VLIW-64: it generates a table the program includes.
use std::{env, fs, path::Path};

fn main() {
    let squares: Vec<String> = (0..10u32).map(|i| (i * i).to_string()).collect();
    let out = Path::new(&env::var("OUT_DIR").unwrap()).join("squares.rs");
    fs::write(out, format!("pub const SQUARES: [u32; 10] = [{}];\n", squares.join(", "))).unwrap();
    println!("cargo::rerun-if-changed=build.rs");
    assemble_for_vliw();
}

/// For VLIW-64, the hand-written functions of `asm/` assembled with the `vliw-as`
/// next to the linker that cargo-vliw passes (`-Clinker=.../vliw-ld`), each linked
/// into its binary: `no_cfi.s` into `--bin nocfi`, `bad_cfi.s` into `--bin badcfi`.
fn assemble_for_vliw() {
    if !env::var("TARGET").unwrap_or_default().contains("vliw64") {
        return;
    }
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let linker = flags
        .split('\x1f')
        .find_map(|f| f.strip_prefix("-Clinker="))
        .expect("cargo-vliw passes -Clinker=.../vliw-ld");
    let assembler = Path::new(linker).with_file_name("vliw-as");
    for (source, bin) in [("no_cfi", "nocfi"), ("bad_cfi", "badcfi")] {
        let input = format!("asm/{source}.s");
        println!("cargo::rerun-if-changed={input}");
        let object = Path::new(&env::var("OUT_DIR").unwrap()).join(format!("{source}.o"));
        let status = std::process::Command::new(&assembler)
            .arg(&input)
            .arg("-o")
            .arg(&object)
            .status()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", assembler.display()));
        assert!(status.success(), "vliw-as failed on {input}");
        println!("cargo::rustc-link-arg-bin={bin}={}", object.display());
    }
}

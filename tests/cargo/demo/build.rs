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

/// For VLIW-64, `asm/no_cfi.s` assembled with the `vliw-as` next to the linker that
/// cargo-vliw passes (`-Clinker=.../vliw-ld`), linked into `--bin nocfi`.
fn assemble_for_vliw() {
    if !env::var("TARGET").unwrap_or_default().contains("vliw64") {
        return;
    }
    println!("cargo::rerun-if-changed=asm/no_cfi.s");
    let flags = env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let linker = flags
        .split('\x1f')
        .find_map(|f| f.strip_prefix("-Clinker="))
        .expect("cargo-vliw passes -Clinker=.../vliw-ld");
    let assembler = Path::new(linker).with_file_name("vliw-as");
    let object = Path::new(&env::var("OUT_DIR").unwrap()).join("no_cfi.o");
    let status = std::process::Command::new(&assembler)
        .arg("asm/no_cfi.s")
        .arg("-o")
        .arg(&object)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", assembler.display()));
    assert!(status.success(), "vliw-as failed on asm/no_cfi.s");
    println!("cargo::rustc-link-arg-bin=nocfi={}", object.display());
}

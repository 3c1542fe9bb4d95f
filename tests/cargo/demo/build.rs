// A build script runs on the host (built by LLVM) even when the crate is built for
// VLIW-64: it generates a table the program includes.
use std::{env, fs, path::Path};

fn main() {
    let squares: Vec<String> = (0..10u32).map(|i| (i * i).to_string()).collect();
    let out = Path::new(&env::var("OUT_DIR").unwrap()).join("squares.rs");
    fs::write(out, format!("pub const SQUARES: [u32; 10] = [{}];\n", squares.join(", "))).unwrap();
    println!("cargo::rerun-if-changed=build.rs");
}

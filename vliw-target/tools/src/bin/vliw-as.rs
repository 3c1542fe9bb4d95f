//! `vliw-as`: the assembler. See `vliw_asm::cli::as_main` and docs/assembly.md.
fn main() {
    std::process::exit(vliw_asm::cli::as_main(&vliw_asm::cli::args()));
}

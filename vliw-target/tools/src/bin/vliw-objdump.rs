//! `vliw-objdump`: the disassembler. See `vliw_asm::cli::objdump_main`.
fn main() {
    std::process::exit(vliw_asm::cli::objdump_main(&vliw_asm::cli::args()));
}

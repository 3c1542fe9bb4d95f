//! Assembles a file and prints its disassembly and reassembly (a development aid):
//! `cargo run -p vliw-asm --example show FILE.s`.
fn main() {
    let path = std::env::args().nth(1).expect("usage: show FILE.s");
    let text = std::fs::read_to_string(&path).expect("readable file");
    match vliw_asm::assemble(&text, &path, &vliw_isa::MachineConfig::default()) {
        Ok(object) => {
            let all = vliw_asm::DisasmOptions { disassemble: true, relocs: true, syms: true, headers: true, full_contents: true, ..Default::default() };
            print!("{}", vliw_asm::disassemble_object(&object, &all));
            print!("{}", vliw_asm::reassemble(&object, &vliw_isa::MachineConfig::default()));
        }
        Err(errors) => {
            for e in errors {
                eprintln!("{e}");
            }
            std::process::exit(1);
        }
    }
}

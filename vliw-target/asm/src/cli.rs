//! The command lines of `vliw-as` and `vliw-objdump` (the binaries in `vliw-tools`
//! only call these), so that they can be tested without spawning processes.

use crate::assemble::assemble;
use crate::disasm::DisasmOptions;
use crate::objdump::objdump_file;
use std::io::{Read, Write};
use vliw_isa::MachineConfig;

const AS_HELP: &str = "\
usage: vliw-as [OPTIONS] FILE.s [-o FILE.o]

Assembles FILE.s (`-` reads standard input) into a relocatable object.

options:
  -o FILE                     write the object to FILE (default: a.out)
  --machine KEY=VALUE,...     the machine the bundles are checked against, e.g.
                              width=8,alu=8 (keys: docs/isa.md section 8)
  --help                      print this help
  --version                   print the version

Errors are printed as FILE:LINE:COL: error: MESSAGE, all of them; the exit status is
then 1 and no object is written. The syntax is described in docs/assembly.md.
";

const OBJDUMP_HELP: &str = "\
usage: vliw-objdump [OPTIONS] FILE...

Prints relocatable objects, executables and archives of the VLIW target.

options:
  -d, --disassemble           code, one bundle per line (the default)
  -r, --reloc                 relocations of each section
  -t, --syms                  the symbol table
  -h, --section-headers       section headers (and segments of an executable)
  -s, --full-contents         hex dump of every section with contents
  --show-raw-insn             the syllables of each bundle in hex
  -l, --line-numbers          `# FILE:LINE` before the first bundle of each source
                              line, from the DWARF line tables (the default when
                              the file has .debug_line)
  --no-line-numbers           no source lines
  --dwarf=frames              the call-frame information (.eh_frame): each CIE
                              and FDE with its instructions
  --reassemble                source that vliw-as turns back into the same object
  --machine KEY=VALUE,...     the machine for --reassemble: bundles it rejects are
                              printed as raw words
  -H, --help                  print this help
  --version                   print the version
Short options combine: -drt.
";

fn version(tool: &str) -> String {
    format!("{tool} {}\n", env!("CARGO_PKG_VERSION"))
}

/// Writes to stdout, ignoring a closed pipe (`vliw-objdump -d x | head`).
fn print_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// `vliw-as`: `args` without the program name. Returns the exit status.
pub fn as_main(args: &[String]) -> i32 {
    let mut input = None;
    let mut output = "a.out".to_string();
    let mut config = MachineConfig::default();
    let mut i = 0;
    let usage = |message: String| {
        eprintln!("vliw-as: {message}");
        eprintln!("usage: vliw-as [--machine KEY=VALUE,...] FILE.s -o FILE.o (see vliw-as --help)");
        2
    };
    while i < args.len() {
        let arg = &args[i];
        match arg.as_str() {
            "--help" | "-h" => {
                print_stdout(AS_HELP);
                return 0;
            }
            "--version" => {
                print_stdout(&version("vliw-as"));
                return 0;
            }
            "-o" | "--machine" => {
                let Some(value) = args.get(i + 1) else {
                    return usage(format!("`{arg}` needs a value"));
                };
                if arg == "-o" {
                    output = value.clone();
                } else if let Err(e) = config.apply_overrides(value) {
                    return usage(e);
                }
                i += 1;
            }
            "-" => {
                if input.replace(arg.clone()).is_some() {
                    return usage("more than one input file".to_string());
                }
            }
            a if a.starts_with("--machine=") => {
                if let Err(e) = config.apply_overrides(&a["--machine=".len()..]) {
                    return usage(e);
                }
            }
            a if a.starts_with("-o") && a.len() > 2 => output = a[2..].to_string(),
            a if a.starts_with('-') => return usage(format!("unknown option `{a}`")),
            _ => {
                if input.replace(arg.clone()).is_some() {
                    return usage(
                        "more than one input file (vliw-as assembles one file)".to_string(),
                    );
                }
            }
        }
        i += 1;
    }
    let Some(input) = input else {
        return usage("no input file".to_string());
    };
    let (name, bytes) = if input == "-" {
        let mut bytes = Vec::new();
        if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
            eprintln!("vliw-as: cannot read standard input: {e}");
            return 1;
        }
        ("<stdin>".to_string(), bytes)
    } else {
        match std::fs::read(&input) {
            Ok(bytes) => (input.clone(), bytes),
            Err(e) => {
                eprintln!("vliw-as: {input}: cannot read: {e}");
                return 1;
            }
        }
    };
    let source = String::from_utf8_lossy(&bytes);
    match assemble(&source, &name, &config) {
        Ok(object) => {
            let bytes = vliw_elf::write_object(&object);
            if let Err(e) = std::fs::write(&output, bytes) {
                eprintln!("vliw-as: {output}: cannot write: {e}");
                return 1;
            }
            0
        }
        Err(errors) => {
            let mut err = std::io::stderr().lock();
            for e in &errors {
                let _ = writeln!(err, "{e}");
            }
            let _ = writeln!(
                err,
                "vliw-as: {} error{} in {name}",
                errors.len(),
                if errors.len() == 1 { "" } else { "s" }
            );
            // As GNU as does: no object that a build could mistake for the result.
            let _ = std::fs::remove_file(&output);
            1
        }
    }
}

/// `vliw-objdump`: `args` without the program name. Returns the exit status.
pub fn objdump_main(args: &[String]) -> i32 {
    let mut options = DisasmOptions::default();
    let mut files = Vec::new();
    let mut i = 0;
    let usage = |message: String| {
        eprintln!("vliw-objdump: {message}");
        eprintln!(
            "usage: vliw-objdump [-d] [-r] [-t] [-h] [-s] [--reassemble] FILE... (see vliw-objdump --help)"
        );
        2
    };
    while i < args.len() {
        let arg = args[i].as_str();
        match arg {
            "--help" | "-H" => {
                print_stdout(OBJDUMP_HELP);
                return 0;
            }
            "--version" => {
                print_stdout(&version("vliw-objdump"));
                return 0;
            }
            "--disassemble" => options.disassemble = true,
            "--reloc" => options.relocs = true,
            "--syms" => options.syms = true,
            "--section-headers" | "--headers" => options.headers = true,
            "--full-contents" => options.full_contents = true,
            "--show-raw-insn" => options.show_raw = true,
            "--line-numbers" => options.no_line_numbers = false,
            "--no-line-numbers" => options.no_line_numbers = true,
            "--reassemble" => options.reassemble = true,
            "--dwarf=frames" => options.frames = true,
            a if a.starts_with("--dwarf") => {
                return usage(format!("`{a}`: only --dwarf=frames is supported"));
            }
            "--machine" => {
                let Some(value) = args.get(i + 1) else {
                    return usage("`--machine` needs a value".to_string());
                };
                if let Err(e) = options.machine.apply_overrides(value) {
                    return usage(e);
                }
                i += 1;
            }
            a if a.starts_with("--machine=") => {
                if let Err(e) = options.machine.apply_overrides(&a["--machine=".len()..]) {
                    return usage(e);
                }
            }
            a if a.starts_with("--") => return usage(format!("unknown option `{a}`")),
            a if a.starts_with('-') && a.len() > 1 => {
                for c in a[1..].chars() {
                    match c {
                        'd' => options.disassemble = true,
                        'r' => options.relocs = true,
                        't' => options.syms = true,
                        'h' => options.headers = true,
                        's' => options.full_contents = true,
                        'l' => options.no_line_numbers = false,
                        other => return usage(format!("unknown option `-{other}`")),
                    }
                }
            }
            _ => files.push(args[i].clone()),
        }
        i += 1;
    }
    if files.is_empty() {
        return usage("no input files".to_string());
    }
    if !(options.disassemble
        || options.relocs
        || options.syms
        || options.headers
        || options.full_contents
        || options.frames)
    {
        options.disassemble = true;
    }
    let mut status = 0;
    for file in &files {
        let bytes = match std::fs::read(file) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("vliw-objdump: {file}: cannot read: {e}");
                status = 1;
                continue;
            }
        };
        match objdump_file(&bytes, file, &options) {
            Ok(text) => print_stdout(&text),
            Err(message) => {
                eprintln!("vliw-objdump: {message}");
                status = 1;
            }
        }
    }
    status
}

/// The process's arguments without the program name; arguments that are not UTF-8
/// are converted lossily rather than panicking.
pub fn args() -> Vec<String> {
    std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

//! A whole input file of `vliw-objdump`: an object, an executable or an archive of
//! objects, told apart by their headers.

use crate::disasm::{DisasmOptions, disassemble_executable, disassemble_object};
use vliw_elf::{
    ElfError, ElfErrorKind, is_archive, is_elf, read_archive, read_executable, read_object,
};

/// `e_type` of an executable.
const ET_EXEC: u16 = 2;

/// Prints `bytes` (the contents of `file_name`) as `vliw-objdump` does. Errors say
/// what is wrong with the file: `FILE: message`.
pub fn objdump_file(
    bytes: &[u8],
    file_name: &str,
    options: &DisasmOptions,
) -> Result<String, String> {
    if is_archive(bytes) {
        let archive = read_archive(bytes, file_name).map_err(|e| e.to_string())?;
        let mut out = String::new();
        if !options.reassemble {
            out.push_str(&format!("In archive {file_name}:\n"));
        }
        for member in &archive.members {
            let name = format!("{file_name}({})", member.name);
            if !is_elf(&member.data) {
                out.push_str(&format!("\n# {name}: not an object file, skipped\n"));
                continue;
            }
            let object = read_object(&member.data, &name).map_err(|e| e.to_string())?;
            if options.reassemble {
                out.push_str(&format!("\n# ---- member {}\n", member.name));
            } else {
                out.push_str(&format!("\n{name}:     file format elf64-vliw\n\n"));
            }
            out.push_str(&disassemble_object(&object, options));
        }
        return Ok(out);
    }
    if !is_elf(bytes) {
        return Err(ElfError::new(file_name, ElfErrorKind::NotElf).to_string());
    }
    match read_object(bytes, file_name) {
        Ok(object) => {
            let mut out = String::new();
            if !options.reassemble {
                out.push_str(&format!("\n{file_name}:     file format elf64-vliw\n\n"));
            }
            out.push_str(&disassemble_object(&object, options));
            Ok(out)
        }
        Err(ElfError {
            kind: ElfErrorKind::WrongFileType { found: ET_EXEC, .. },
            ..
        }) => {
            if options.reassemble {
                return Err(format!(
                    "{file_name}: --reassemble needs a relocatable object, not an executable"
                ));
            }
            let exe = read_executable(bytes, file_name).map_err(|e| e.to_string())?;
            let mut out = format!("\n{file_name}:     file format elf64-vliw (executable)\n\n");
            out.push_str(&disassemble_executable(&exe, options));
            Ok(out)
        }
        Err(e) => Err(e.to_string()),
    }
}

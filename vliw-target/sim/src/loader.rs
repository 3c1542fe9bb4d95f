//! Loading: reading an ELF executable into a `Program`, and the process's initial
//! stack (argument and environment strings, their pointer arrays).

use crate::memory::Memory;
use crate::program::Program;
use std::fmt;
use std::path::Path;
use vliw_isa::abi::{STACK_ALIGN, STACK_TOP};

/// A program that cannot be loaded (`vliw-run` exits with status 126).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError(pub String);

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LoadError {}

/// Reads an executable from ELF bytes; `file_name` names it in messages. Never
/// panics on malformed input.
pub fn read_program(bytes: &[u8], file_name: &str) -> Result<Program, LoadError> {
    let exe = vliw_elf::read_executable(bytes, file_name).map_err(|e| LoadError(e.to_string()))?;
    Ok(Program::from_executable(&exe))
}

/// Reads an executable file. Messages start with the file name.
pub fn load_file(path: &Path) -> Result<Program, LoadError> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| LoadError(format!("{name}: cannot read: {e}")))?;
    read_program(&bytes, &name)
}

/// Where the startup values point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StackSetup {
    pub sp: u64,
    pub argv: u64,
    pub envp: u64,
}

/// Copies the strings of `argv` and `envp` (NUL-terminated, in that order) to the
/// top of the stack, below them the pointer arrays `argv[0..argc], NULL,
/// envp[0..], NULL` starting at a 16-byte aligned address, which is the initial
/// stack pointer.
pub(crate) fn setup_stack(
    mem: &mut Memory,
    argv: &[Vec<u8>],
    envp: &[Vec<u8>],
) -> Result<StackSetup, LoadError> {
    let strings_len: u64 = argv.iter().chain(envp).map(|s| s.len() as u64 + 1).sum();
    let pointers = (argv.len() + envp.len() + 2) as u64 * 8;
    let stack_base = mem.layout().stack_base;
    let too_big = || {
        LoadError(format!(
            "the arguments and environment ({} bytes) do not fit in the stack ({} bytes)",
            strings_len + pointers,
            STACK_TOP - stack_base
        ))
    };
    let strings_start = STACK_TOP
        .checked_sub(strings_len)
        .filter(|&a| a >= stack_base)
        .ok_or_else(too_big)?;
    let arrays = strings_start
        .checked_sub(pointers)
        .map(|a| a / STACK_ALIGN * STACK_ALIGN)
        .filter(|&a| a >= stack_base)
        .ok_or_else(too_big)?;
    let mut at = strings_start;
    let mut slot = arrays;
    let mut put = |mem: &mut Memory, strings: &[Vec<u8>]| {
        for s in strings {
            let mut bytes = s.clone();
            bytes.push(0);
            assert!(mem.write_bytes(at, &bytes), "checked to fit in the stack");
            assert!(
                mem.write_bytes(slot, &at.to_le_bytes()),
                "checked to fit in the stack"
            );
            at += bytes.len() as u64;
            slot += 8;
        }
        assert!(
            mem.write_bytes(slot, &0u64.to_le_bytes()),
            "checked to fit in the stack"
        );
        slot += 8;
    };
    put(mem, argv);
    put(mem, envp);
    Ok(StackSetup {
        sp: arrays,
        argv: arrays,
        envp: arrays + 8 * (argv.len() as u64 + 1),
    })
}

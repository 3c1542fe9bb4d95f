//! The binaries under test and running them.
#![allow(dead_code)]

use std::process::{Command, Output};

pub const AS: &str = env!("CARGO_BIN_EXE_vliw-as");
pub const OBJDUMP: &str = env!("CARGO_BIN_EXE_vliw-objdump");
pub const LD: &str = env!("CARGO_BIN_EXE_vliw-ld");
pub const RUN: &str = env!("CARGO_BIN_EXE_vliw-run");

pub fn run(tool: &str, args: &[&str]) -> Output {
    Command::new(tool)
        .args(args)
        .output()
        .expect("the tool runs")
}

//! The execution trace: one line per executed bundle, e.g.
//!
//! ```text
//!       12 0x10048 <main+0x8> src/main.rs:12:5  add r4 = r4, 1 ; ~(p1) br .-16
//! ```
//!
//! with the issue cycle, the bundle address, the enclosing symbol, the source line
//! (when the executable has line tables), and the operations in slot order; `~`
//! marks an operation nullified by its false guard.

use crate::predecode::{Bundle, Code, PRED_BASE, REG_FILE};
use crate::program::SymbolTable;
use std::fmt::Write as _;
use std::io::{self, Write};
use vliw_elf::LineTable;
use vliw_isa::{CmpType, FieldKind, format_inst};

/// Formats the trace line of bundle `b`, about to execute with registers `regs`.
pub(crate) fn bundle_line(
    code: &Code,
    b: &Bundle,
    regs: &[u64; REG_FILE],
    cycle: u64,
    symbols: &SymbolTable,
    lines: &LineTable,
) -> String {
    let mut line = String::with_capacity(96);
    let _ = write!(line, "{cycle:>8} {:#x}", b.addr);
    match symbols.lookup(b.addr) {
        Some((name, 0)) => {
            let _ = write!(line, " <{name}>");
        }
        Some((name, offset)) => {
            let _ = write!(line, " <{name}+{offset:#x}>");
        }
        None => {}
    }
    if let Some(source) = lines.lookup(b.addr) {
        let _ = write!(line, " {source}");
    }
    line.push(' ');
    for (k, inst) in code.insts(b).iter().enumerate() {
        line.push_str(if k == 0 { " " } else { " ; " });
        let guard = regs[(PRED_BASE + inst.guard.pred.num()) as usize] != 0;
        let enabled = guard != inst.guard.negated;
        let unc = inst.format().has(FieldKind::CmpType) && inst.ctype == CmpType::Unc;
        if !enabled && !unc {
            line.push('~');
        }
        line.push_str(&format_inst(inst, None));
    }
    line
}

pub(crate) fn write_bundle(
    out: &mut dyn Write,
    code: &Code,
    b: &Bundle,
    regs: &[u64; REG_FILE],
    cycle: u64,
    symbols: &SymbolTable,
    lines: &LineTable,
) -> io::Result<()> {
    let line = bundle_line(code, b, regs, cycle, symbols, lines);
    out.write_all(line.as_bytes())?;
    out.write_all(b"\n")
}

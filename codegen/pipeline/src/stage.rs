//! A function at some stage of the pipeline: running a pass on it, verifying it,
//! and writing it as text or Graphviz.

use std::borrow::Cow;
use std::fmt::Write;

use vliw_ir::{Function, Module};
use vliw_machine::emit::{Bundles, FunctionCode};
use vliw_machine::{CompileError, MachFunction, Reg};

use crate::Options;
use crate::dot;
use crate::options::DumpFormat;
use crate::passes::{Pass, Run, Stage};

/// Allocated machine code cut into bundles.
#[derive(Clone, Debug)]
pub struct Bundled {
    pub func: MachFunction,
    pub bundles: Bundles,
}

/// The function as a pass sees it.
pub enum Unit<'a> {
    /// The SSA IR; borrowed from the module until an IR pass changes it.
    Ir(Cow<'a, Function>),
    Machine(MachFunction),
    Bundled(Bundled),
    /// Encoded, with the function's name.
    Code(String, FunctionCode),
}

impl Unit<'_> {
    /// The function's name, for errors.
    pub fn name(&self) -> &str {
        match self {
            Unit::Ir(f) => &f.name,
            Unit::Machine(mf) => &mf.name,
            Unit::Bundled(b) => &b.func.name,
            Unit::Code(name, _) => name,
        }
    }

    fn mismatch(&self, pass: &Pass) -> CompileError {
        CompileError::new(
            self.name(),
            format!(
                "pipeline error: `{}` got the function at the wrong stage",
                pass.name
            ),
        )
    }
}

/// Runs `pass` on `unit`.
pub fn apply<'a>(
    pass: &Pass,
    module: &Module,
    unit: Unit<'a>,
    options: &Options,
) -> Result<Unit<'a>, CompileError> {
    Ok(match (pass.run, unit) {
        (Run::Ir(f), Unit::Ir(mut func)) => {
            f(func.to_mut(), options);
            Unit::Ir(func)
        }
        (Run::Lower(f), Unit::Ir(func)) => Unit::Machine(f(module, &func, options)?),
        (Run::Machine(f), Unit::Machine(mut mf)) => {
            f(&mut mf, options)?;
            Unit::Machine(mf)
        }
        (Run::Bundle(f), Unit::Machine(mf)) => Unit::Bundled(f(mf, options)),
        (Run::Emit(f), Unit::Bundled(b)) => Unit::Code(b.func.name.clone(), f(&b, options)?),
        (_, unit) => return Err(unit.mismatch(pass)),
    })
}

/// Checks the invariants of `stage` on `unit`; the error names the pass after which
/// they broke.
pub fn verify(unit: &Unit<'_>, stage: Stage, after: &str) -> Result<(), CompileError> {
    let broke = |name: &str, what: String| {
        CompileError::new(
            name,
            format!("the IR does not verify after `{after}`:\n{what}"),
        )
    };
    match unit {
        Unit::Ir(f) => vliw_ir::verify_function(f).map_err(|e| broke(&f.name, e.to_string())),
        Unit::Machine(mf) => match stage {
            Stage::MachineSsa => mf.check(true).map_err(|e| broke(&mf.name, e)),
            Stage::MachineVirtual => mf.check(false).map_err(|e| broke(&mf.name, e)),
            _ => check_allocated(mf).map_err(|e| broke(&mf.name, e)),
        },
        Unit::Bundled(b) => check_allocated(&b.func)
            .and_then(|()| check_bundles(b))
            .map_err(|e| broke(&b.func.name, e)),
        Unit::Code(..) => Ok(()),
    }
}

/// No virtual register is left, and no pseudo operation but those the encoder takes.
fn check_allocated(mf: &MachFunction) -> Result<(), String> {
    for &b in &mf.layout {
        if !mf.blocks[b].params.is_empty() {
            return Err(format!("{b} has block parameters after allocation"));
        }
        for inst in &mf.blocks[b].insts {
            if inst
                .all_uses()
                .chain(inst.all_defs())
                .any(|r| matches!(r, Reg::Virtual(_)))
            {
                return Err(format!(
                    "{b}: `{}` uses a virtual register after allocation",
                    mf.display_inst(inst)
                ));
            }
        }
    }
    Ok(())
}

/// The bundles cover every operation of every block of the layout, none empty.
fn check_bundles(b: &Bundled) -> Result<(), String> {
    if b.bundles.blocks.len() != b.func.layout.len() {
        return Err("the bundles do not match the block layout".into());
    }
    for (&block, lens) in b.func.layout.iter().zip(&b.bundles.blocks) {
        if lens.contains(&0) || lens.iter().sum::<usize>() != b.func.blocks[block].insts.len() {
            return Err(format!(
                "the bundles of {block} do not cover its operations"
            ));
        }
    }
    Ok(())
}

/// The dump of `unit` at `point` (`after:isel`, ...), in `format`; graph-shaped
/// stages as a Graphviz `digraph`, the others as text in either format.
pub fn dump(unit: &Unit<'_>, point: &str, format: DumpFormat) -> String {
    let mut s = String::new();
    match (format, unit) {
        (DumpFormat::Dot, Unit::Ir(f)) => dot::ir_cfg(&mut s, f, point),
        (DumpFormat::Dot, Unit::Machine(mf)) => dot::machine_cfg(&mut s, mf, None, point),
        (DumpFormat::Dot, Unit::Bundled(b)) => {
            dot::machine_cfg(&mut s, &b.func, Some(&b.bundles), point)
        }
        (_, unit) => {
            let comment = if format == DumpFormat::Dot { "//" } else { ";" };
            let _ = writeln!(s, "{comment} dump={point} function={}", unit.name());
            match unit {
                Unit::Ir(f) => {
                    let _ = vliw_ir::write::write_function(&mut s, f);
                }
                Unit::Machine(mf) => {
                    let _ = write!(s, "{mf}");
                }
                Unit::Bundled(b) => s.push_str(&vliw_machine::sched::display(&b.func, &b.bundles)),
                Unit::Code(_, code) => code_text(&mut s, code, comment),
            }
        }
    }
    s
}

/// Encoded code: its size and relocations (the disassembly is `vliw-objdump`'s job).
fn code_text(s: &mut String, code: &FunctionCode, comment: &str) {
    let _ = writeln!(
        s,
        "{comment} {} bundles, {} bytes, {} relocations, {} line entries",
        code.bundles,
        8 * code.words.len(),
        code.relocs.len(),
        code.lines.len()
    );
    for r in &code.relocs {
        let _ = writeln!(
            s,
            "{comment}   {:#06x} {:?} {:?}{:+}",
            r.offset, r.kind, r.target, r.addend
        );
    }
}

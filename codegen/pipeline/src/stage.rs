//! A function at some stage of the pipeline: running a pass on it, verifying it,
//! and writing it as text or Graphviz.

use std::borrow::Cow;
use std::fmt::Write;

use vliw_ir::{Function, Module};
use vliw_machine::emit::FunctionCode;
use vliw_machine::{CompileError, MachFunction};

use crate::Options;
use crate::dot;
use crate::options::DumpFormat;
use crate::passes::{Pass, Run, Stage};

/// The function as a pass sees it.
pub enum Unit<'a> {
    /// The SSA IR; borrowed from the module until an IR pass changes it.
    Ir(Cow<'a, Function>),
    /// Machine code at any of its stages (machine SSA to bundled).
    Machine(MachFunction),
    /// Encoded, with the function's name.
    Code(String, FunctionCode),
}

impl Unit<'_> {
    /// The function's name, for errors.
    pub fn name(&self) -> &str {
        match self {
            Unit::Ir(f) => &f.name,
            Unit::Machine(mf) => &mf.name,
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
        (Run::Emit(f), Unit::Machine(mf)) => Unit::Code(mf.name.clone(), f(&mf, options)?),
        // the middle end's passes see the whole module: `optimize_module`
        (Run::Build(_) | Run::Rvsdg(_) | Run::Sequentialize(_), unit) => {
            return Err(CompileError::new(
                unit.name(),
                format!(
                    "pipeline error: `{}` works on the whole module (optimize_module)",
                    pass.name
                ),
            ));
        }
        (_, unit) => return Err(unit.mismatch(pass)),
    })
}

/// Checks the invariants of `stage` on `unit` (bundles against the machine of
/// `options`); the error names the pass after which they broke.
pub fn verify(
    unit: &Unit<'_>,
    stage: Stage,
    after: &str,
    options: &Options,
) -> Result<(), CompileError> {
    let broke = |name: &str, what: String| {
        CompileError::new(
            name,
            format!("the IR does not verify after `{after}`:\n{what}"),
        )
    };
    match (unit, stage.machine_phase()) {
        (Unit::Ir(f), _) => vliw_ir::verify_function(f).map_err(|e| broke(&f.name, e.to_string())),
        (Unit::Machine(mf), Some(phase)) => mf
            .verify_for(phase, &options.backend.machine)
            .map_err(|e| broke(&mf.name, e.to_string())),
        (Unit::Machine(mf), None) => Err(broke(
            &mf.name,
            "machine code at a non-machine stage".into(),
        )),
        (Unit::Code(..), _) => Ok(()),
    }
}

/// The dump of `unit` at `point` (`after:isel`, ...), in `format`; graph-shaped
/// stages as a Graphviz `digraph`, the others as text in either format.
pub fn dump(unit: &Unit<'_>, point: &str, format: DumpFormat) -> String {
    let mut s = String::new();
    match (format, unit) {
        // the analysis of the `ppg` pass, not the function
        (_, Unit::Machine(mf)) if point == "after:ppg" => dot::ppg(&mut s, mf, point, format),
        (DumpFormat::Dot, Unit::Ir(f)) => dot::ir_cfg(&mut s, f, point),
        (DumpFormat::Dot, Unit::Machine(mf)) => dot::machine_cfg(&mut s, mf, point),
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

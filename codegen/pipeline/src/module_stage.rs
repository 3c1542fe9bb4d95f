//! The middle end's part of the pipeline: the passes of the module-wide stages (the
//! SSA IR, function by function, and the RVSDG of the whole codegen unit), with the
//! dumps, timings and verification that the options ask for around each.

use std::borrow::Cow;

use vliw_ir::Module;
use vliw_machine::CompileError;
use vliw_rvsdg::RvsdgModule;

use crate::options::{DumpFormat, When};
use crate::passes::{Pass, Run, Stage};
use crate::stage::{self, Unit};
use crate::{Options, VerifyLevel};

/// The codegen unit between passes: the SSA IR module, plus its RVSDG while it is
/// in the RVSDG stage (its functions are then the ones the graph replaces).
struct State<'m> {
    ir: Cow<'m, Module>,
    rvsdg: Option<RvsdgModule>,
}

/// Runs `passes` (all of module-wide stages, in pipeline order) on `module`.
pub fn run<'m>(
    module: &'m Module,
    passes: &[&Pass],
    options: &Options,
) -> Result<Cow<'m, Module>, CompileError> {
    let mut state = State {
        ir: Cow::Borrowed(module),
        rvsdg: None,
    };
    // the SSA IR changed since its input was verified
    let mut ir_changed = false;
    for (k, &pass) in passes.iter().enumerate() {
        if options.dumps_at(When::Before, pass) {
            dump(&state, pass, When::Before, options);
        }
        options.time(pass.name, || apply(pass, &mut state, options))?;
        ir_changed |= pass.to == Stage::Ir;
        let ends_stage = passes.get(k + 1).is_none_or(|next| next.from != next.to);
        let at_boundary =
            pass.from != pass.to || (ends_stage && (pass.to != Stage::Ir || ir_changed));
        let verify = match options.verify {
            VerifyLevel::None => None,
            // between the boundaries, what the pass changed in the RVSDG
            VerifyLevel::Each => Some(if at_boundary {
                Scope::All
            } else {
                Scope::Changed
            }),
            VerifyLevel::Boundaries => at_boundary.then_some(Scope::All),
        };
        if let Some(scope) = verify {
            options.time("verify", || check(&mut state, pass, scope, options))?;
        }
        if options.dumps_at(When::After, pass) {
            dump(&state, pass, When::After, options);
        }
    }
    Ok(state.ir)
}

fn mismatch(pass: &Pass) -> CompileError {
    CompileError::new(
        "",
        format!(
            "pipeline error: `{}` got the module at the wrong stage",
            pass.name
        ),
    )
}

fn apply(pass: &Pass, state: &mut State<'_>, options: &Options) -> Result<(), CompileError> {
    match (pass.run, state.rvsdg.as_mut()) {
        (Run::Ir(f), None) => {
            for func in &mut state.ir.to_mut().functions {
                f(func, options);
            }
        }
        (Run::Build(f), None) => state.rvsdg = Some(f(&state.ir, options)),
        (Run::Rvsdg(f), Some(rm)) => f(rm, options),
        (Run::Sequentialize(f), Some(_)) => {
            let rm = state.rvsdg.take().expect("in the RVSDG stage");
            f(&rm, state.ir.to_mut(), options);
        }
        _ => return Err(mismatch(pass)),
    }
    Ok(())
}

/// How much of the RVSDG to verify.
#[derive(Copy, Clone)]
enum Scope {
    All,
    /// What changed since it was last verified ([`vliw_rvsdg::Graph::take_changes`]).
    Changed,
}

/// Verifies the stage `pass` left the unit in.
fn check(
    state: &mut State<'_>,
    pass: &Pass,
    scope: Scope,
    options: &Options,
) -> Result<(), CompileError> {
    match &mut state.rvsdg {
        None => {
            for func in &state.ir.functions {
                stage::verify(
                    &Unit::Ir(Cow::Borrowed(func)),
                    Stage::Ir,
                    pass.name,
                    options,
                )?;
            }
            Ok(())
        }
        Some(rm) => {
            let changes = rm.graph.take_changes();
            match scope {
                Scope::All => vliw_rvsdg::verify(&rm.graph),
                Scope::Changed => vliw_rvsdg::verify_changed(&rm.graph, &changes),
            }
        }
        .map_err(|errors| {
            let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            CompileError::new(
                "",
                format!(
                    "the RVSDG does not verify after `{}`:\n{}",
                    pass.name,
                    text.join("\n")
                ),
            )
        }),
    }
}

fn dump(state: &State<'_>, pass: &Pass, when: When, options: &Options) {
    let point = format!("{}:{}", when.name(), pass.name);
    options.time("dump", || match &state.rvsdg {
        None => {
            for func in &state.ir.functions {
                let unit = Unit::Ir(Cow::Borrowed(func));
                options.write_dump(&stage::dump(&unit, &point, options.dump_format));
            }
        }
        Some(rm) => {
            let mut s = String::new();
            match options.dump_format {
                DumpFormat::Text => {
                    s.push_str(&format!("; dump={point} rvsdg\n"));
                    vliw_rvsdg::text::write_graph(&mut s, &rm.graph);
                }
                DumpFormat::Dot => vliw_rvsdg::dot::write_dot(&mut s, &rm.graph, &point),
            }
            options.write_dump(&s);
        }
    });
}

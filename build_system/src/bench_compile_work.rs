//! The work of each phase of our backend by function size, in instructions executed
//! (counted by valgrind's callgrind): the growth of an algorithm without the machine's
//! memory hierarchy in it.
//!
//! Wall-clock growth mixes two things: how much work a phase does, and how long each
//! memory access takes. Once a function's graph outgrows the caches (the 16 000-statement
//! one has over 200 000 RVSDG nodes), every access costs more, and even a linear scan of
//! the graph shows a growth exponent near 1.3 on this machine. Instructions executed
//! count the work alone and are deterministic, so they show an algorithm's complexity
//! in one run, noise-free. Each program of the growth family up to `WORK_SIZES` is
//! compiled once under `valgrind --tool=callgrind`; `callgrind_annotate --inclusive=yes`
//! gives each phase's entry function's instructions, callees included.

use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use super::{Bench, Program, TOLERANCE, exponent, nlogn_exponent, run_within};

/// Sizes measured (statements of the one function): callgrind runs the compiler about
/// 50 times slower, so the family stops at 8000 (some minutes in all).
const WORK_SIZES: [usize; 3] = [2000, 4000, 8000];

/// The time limit of one compile under callgrind: the largest of the family took
/// 4 to 5 s natively on 2026-12-04, about 300 s under callgrind.
const CALLGRIND_TIMEOUT: Duration = Duration::from_secs(1200);

/// The phases measured: label, and the function the phase's time is (its entry point
/// in the pipeline, whose inclusive count covers everything it calls).
const PHASES: [(&str, &str); 27] = [
    (
        "lower (vliw-pipeline::compile_module)",
        "vliw_pipeline::compile_module",
    ),
    ("rvsdg-build", "vliw_rvsdg::module::build_module"),
    ("rvsdg-inline", "vliw_rvsdg::opt::inline::inline_calls"),
    ("rvsdg-invert", "vliw_rvsdg::opt::invert::invert_loops"),
    (
        "rvsdg-ivr",
        "vliw_rvsdg::opt::ivr::invariant_value_redirection",
    ),
    ("rvsdg-fold", "vliw_rvsdg::opt::fold::fold"),
    (
        "rvsdg-strength",
        "vliw_rvsdg::opt::strength::strength_reduction",
    ),
    (
        "rvsdg-gamma",
        "vliw_rvsdg::opt::gamma::gamma_simplification",
    ),
    ("rvsdg-cne", "vliw_rvsdg::opt::cne::common_node_elimination"),
    (
        "rvsdg-licm",
        "vliw_rvsdg::opt::licm::loop_invariant_code_motion",
    ),
    ("rvsdg-idiom", "vliw_rvsdg::opt::idiom::recognize_idioms"),
    ("rvsdg-fuse", "vliw_rvsdg::opt::fuse::fuse_loops"),
    ("rvsdg-unroll", "vliw_rvsdg::opt::unroll::unroll_loops"),
    (
        "rvsdg-memory",
        "vliw_rvsdg::opt::memory::memory_optimization",
    ),
    (
        "rvsdg-induction",
        "vliw_rvsdg::opt::induction::reduce_induction_addresses",
    ),
    (
        "dead node elimination (every run)",
        "vliw_rvsdg::opt::dne::dead_node_elimination",
    ),
    ("sequentialize", "vliw_rvsdg::module::sequentialize_module"),
    ("isel", "vliw_machine::lower::lower_function"),
    ("if-convert", "vliw_machine::ifconv::if_convert"),
    ("pcp", "vliw_machine::pcp::propagate_constants"),
    (
        "pre-sched-region",
        "vliw_machine::sched::hoist::hoist_into_predecessors",
    ),
    (
        "pre-sched",
        "vliw_machine::sched::pre_ra::schedule_before_allocation",
    ),
    ("modulo", "vliw_machine::sched::modulo::pipeline_loops"),
    ("ssa-regalloc", "vliw_machine::ssa_regalloc::allocate"),
    ("sched", "vliw_machine::sched::schedule_function"),
    ("emit", "vliw_machine::emit::encode_bundles"),
    ("verifiers of the RVSDG", "vliw_rvsdg::verify::verify"),
];

/// Rows summed into the RVSDG's total: building, every pass on it, and the way back.
fn in_rvsdg(label: &str) -> bool {
    label.starts_with("rvsdg-") || label == "sequentialize"
}

/// The section, or a line saying why there is none (no valgrind, `--quick`).
pub(super) fn section(bench: &Bench, programs: &[Program], quick: bool) -> Result<String, String> {
    let mut r = String::from("#### Work by function size (instructions executed)\n\n");
    if quick {
        r.push_str("Not measured with `--quick`.\n\n");
        return Ok(r);
    }
    if !tool_runs("valgrind") || !tool_runs("callgrind_annotate") {
        r.push_str(
            "Not measured: `valgrind` (with `callgrind_annotate`) is not installed. It \
             counts the instructions each phase executes, which show the growth of the \
             work apart from the memory hierarchy.\n\n",
        );
        return Ok(r);
    }
    let family: Vec<&Program> = WORK_SIZES
        .iter()
        .map(|&n| {
            programs
                .iter()
                .find(|p| p.statements == Some(n))
                .ok_or_else(|| format!("no program of {n} statements in the growth family"))
        })
        .collect::<Result<_, _>>()?;
    let mut counts: Vec<Vec<Option<u64>>> = Vec::new();
    for program in &family {
        eprintln!(
            "[bench] compile: instructions of {} (callgrind)",
            program.name
        );
        let out = bench.work.join(format!("callgrind.{}.out", program.name));
        let start = Instant::now();
        let object = bench
            .work
            .join("vliw")
            .join(format!("{}.cg.o", program.name));
        let cmd = bench.command(program, true, &object);
        let mut grind = Command::new("valgrind");
        grind
            .arg("--tool=callgrind")
            .arg(format!("--callgrind-out-file={}", out.display()))
            .arg(cmd.get_program())
            .args(cmd.get_args());
        let mut grind = crate::process::with_context_of(&cmd, grind);
        run_within(
            &mut grind,
            "valgrind --tool=callgrind rustc",
            CALLGRIND_TIMEOUT,
        )?;
        let _ = fs::remove_file(&object);
        eprintln!(
            "[bench] compile: {} under callgrind in {:.0} s",
            program.name,
            start.elapsed().as_secs_f64()
        );
        counts.push(inclusive_counts(&out)?);
    }
    let (first, last) = (WORK_SIZES[0], WORK_SIZES[WORK_SIZES.len() - 1]);
    let reference = nlogn_exponent(first, last);
    r.push_str(&format!(
        "Each program of one function of {} statements compiled once by our backend under \
         `valgrind --tool=callgrind` (as above, without `time-passes`); millions of \
         instructions each phase's entry function executes, callees included \
         (`callgrind_annotate --inclusive=yes`). Deterministic, and free of the memory \
         hierarchy: the growth of the work itself. Exponent from {first} to {last}; n log n \
         shows there as {reference:.2}, and the verdict allows {TOLERANCE} over it, as the \
         wall-clock table does.\n\n",
        WORK_SIZES
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    ));
    let mut header = String::from("| phase |");
    let mut rule = String::from("|---|");
    for n in WORK_SIZES {
        header.push_str(&format!(" {n} |"));
        rule.push_str("---:|");
    }
    r.push_str(&format!(
        "{header} exponent {first}→{last} | verdict |\n{rule}---:|---|\n"
    ));
    let mut rows: Vec<(String, Vec<Option<u64>>)> = PHASES
        .iter()
        .enumerate()
        .map(|(i, (label, _))| (label.to_string(), counts.iter().map(|c| c[i]).collect()))
        .collect();
    let total: Vec<Option<u64>> = (0..WORK_SIZES.len())
        .map(|s| {
            Some(
                PHASES
                    .iter()
                    .enumerate()
                    .filter(|(_, (label, _))| in_rvsdg(label))
                    .map(|(i, _)| counts[s][i].unwrap_or(0))
                    .sum(),
            )
        })
        .collect();
    rows.insert(
        1,
        (
            "the RVSDG (rvsdg-build, its passes, sequentialize)".into(),
            total,
        ),
    );
    for (label, row) in rows {
        let mut line = format!("| {label} |");
        for c in &row {
            match c {
                Some(c) => line.push_str(&format!(" {:.1} |", *c as f64 / 1e6)),
                None => line.push_str(" — |"),
            }
        }
        match (row[0], row[row.len() - 1]) {
            (Some(a), Some(b)) if a > 0 && b > 0 => {
                let e = exponent(first, a as f64, last, b as f64);
                let verdict = if e <= reference + TOLERANCE {
                    "≤ n log n"
                } else {
                    "**faster than n log n**"
                };
                line.push_str(&format!(" {e:.2} | {verdict} |\n"));
            }
            _ => line.push_str(" — | not found (inlined, or the phase did not run) |\n"),
        }
        r.push_str(&line);
    }
    r.push('\n');
    Ok(r)
}

/// Whether `tool --version` runs and names itself (`callgrind_annotate --version` exits
/// with 255 after printing its version).
fn tool_runs(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| {
        String::from_utf8_lossy(&o.stdout).contains(tool)
            || String::from_utf8_lossy(&o.stderr).contains(tool)
    })
}

/// The inclusive instruction counts of `PHASES`' functions in a callgrind profile
/// (`None` for a function that is not in it).
fn inclusive_counts(profile: &Path) -> Result<Vec<Option<u64>>, String> {
    let out = Command::new("callgrind_annotate")
        .args(["--inclusive=yes", "--threshold=100"])
        .arg(profile)
        .output()
        .map_err(|e| format!("cannot run callgrind_annotate: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "callgrind_annotate {} failed: {}",
            profile.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let _ = fs::remove_file(profile);
    Ok(parse_inclusive(&String::from_utf8_lossy(&out.stdout)))
}

/// Parses `callgrind_annotate --inclusive=yes` lines (`  1,234 (12.3%)  file:function
/// [object]`); a function listed more than once (under different files, through
/// inlining) counts with its largest figure.
fn parse_inclusive(text: &str) -> Vec<Option<u64>> {
    let mut found: Vec<Option<u64>> = vec![None; PHASES.len()];
    for line in text.lines() {
        let Some((count, rest)) = line.trim_start().split_once(' ') else {
            continue;
        };
        let Ok(count) = count.replace(',', "").parse::<u64>() else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix('(') else {
            continue;
        };
        let Some((_, location)) = rest.split_once(')') else {
            continue;
        };
        let location = location.trim();
        let location = match location.rfind(" [") {
            Some(i) => &location[..i],
            None => location,
        };
        let Some((_, function)) = location.split_once(':') else {
            continue;
        };
        for (i, (_, name)) in PHASES.iter().enumerate() {
            if function == *name {
                found[i] = Some(found[i].map_or(count, |c: u64| c.max(count)));
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_inclusive_counts() {
        let text = "\
--------------------------------------------------------------------------------
Ir                     file:function
--------------------------------------------------------------------------------
3,252,026,398 (85.00%)  /w/codegen/pipeline/src/lib.rs:vliw_pipeline::compile_module [/w/passes]
  68,698,046 ( 1.80%)  /w/codegen/machine/src/lower/mod.rs:vliw_machine::lower::lower_function
  63,474,123 ( 1.66%)  codegen/machine/src/lower/mod.rs:vliw_machine::lower::lower_function [/w/x.so]
     123,456 ( 0.01%)  ???:vliw_rvsdg::opt::fold::fold_something [/w/x.so]
";
        let found = parse_inclusive(text);
        let at = |label: &str| found[PHASES.iter().position(|p| p.0 == label).unwrap()];
        assert_eq!(
            at("lower (vliw-pipeline::compile_module)"),
            Some(3_252_026_398)
        );
        assert_eq!(at("isel"), Some(68_698_046));
        assert_eq!(at("rvsdg-fold"), None);
    }
}

//! The SSA destruction part of the programs benchmark: the thesis's evaluation
//! (Boissinot, chapter 5) on our benchmark programs. Each program is compiled once per
//! method with the naive allocator, which leaves SSA before allocating
//! (`-Cllvm-args=regalloc=naive ssa-destruction=METHOD stats`, object only), and the
//! copies each phase leaves are summed from the `destruct.METHOD.*` counters.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::{Counters, STATS_PREFIX, checked, mkdir_parent, ratio};
use crate::bench_report::table;
use crate::differential;
use crate::paths::Paths;

/// The methods of `ssa-destruction`, in the order of the table: the baseline first.
pub const METHODS: [&str; 4] = ["copies", "sreedhar3", "boissinot", "virtual"];

/// The phases counted per method: the counter's suffix and the column's heading.
const PHASES: [(&str, &str); 5] = [
    ("phis", "φs"),
    ("inserted", "inserted"),
    ("coalesced", "after coalescing"),
    ("sequential", "sequentialized"),
    ("temporaries", "temporaries"),
];

/// Compiles every program once per method (two at a time); `counts[p][m]` are the
/// counters of program `p` with method `METHODS[m]`.
pub fn measure(
    paths: &Paths,
    programs: &[(String, PathBuf)],
    work: &Path,
) -> Result<Vec<Vec<Counters>>, String> {
    let jobs: Vec<(usize, usize)> = (0..programs.len())
        .flat_map(|p| (0..METHODS.len()).map(move |m| (p, m)))
        .collect();
    let mut results: Vec<Vec<Option<Result<Counters, String>>>> =
        vec![vec![None; METHODS.len()]; programs.len()];
    differential::run_parallel(
        &jobs,
        2,
        |&(p, m)| {
            eprintln!(
                "[bench] programs: {} (ssa-destruction={})",
                programs[p].0, METHODS[m]
            );
            ((p, m), compile(paths, &programs[p], METHODS[m], work))
        },
        |((p, m), result)| results[p][m] = Some(result),
    );
    results
        .into_iter()
        .map(|row| {
            row.into_iter()
                .map(|r| r.expect("every job reports"))
                .collect()
        })
        .collect()
}

fn compile(
    paths: &Paths,
    program: &(String, PathBuf),
    method: &str,
    work: &Path,
) -> Result<Counters, String> {
    let object = work
        .join(format!("destruct-{method}"))
        .join(format!("{}.o", program.0));
    mkdir_parent(&object)?;
    let mut cmd = Command::new(paths.dist.join("rustc-vliw"));
    cmd.args(["--edition", "2024", "-Copt-level=3", "--emit=obj", "-o"])
        .arg(&object)
        .arg(format!(
            "-Cllvm-args=regalloc=naive ssa-destruction={method} stats"
        ))
        .arg(&program.1);
    let stderr = checked(&mut cmd, "rustc-vliw")?;
    let counters = Counters::parse(&stderr)
        .map_err(|e| format!("{} (ssa-destruction={method}): {e}", program.0))?;
    if counters.lines == 0 {
        return Err(format!(
            "{} (ssa-destruction={method}): no `{STATS_PREFIX}` line",
            program.0
        ));
    }
    Ok(counters)
}

/// The section's table (a `###` subsection) and its summary line.
pub fn table_of(names: &[String], counts: &[Vec<Counters>]) -> (String, String) {
    let get = |c: &Counters, m: &str, phase: &str| c.get(&format!("destruct.{m}.{phase}"));
    let total = |m: usize, phase: &str| -> u64 {
        counts
            .iter()
            .map(|row| get(&row[m], METHODS[m], phase))
            .sum()
    };
    let mut md = String::from("\n### Leaving SSA: copies per phase and method\n\n");
    md.push_str(
        "The thesis's evaluation (Boissinot, chapter 5) on the same programs: each built \
         once per `ssa-destruction` method with the naive allocator, which leaves SSA \
         before allocating (`-Cllvm-args=regalloc=naive ssa-destruction=METHOD stats`, \
         the program's own crate). *φs*: block parameters; *inserted*: copies after \
         insertion (every argument for `copies`, Method I's for `boissinot`, Method \
         III's for `sreedhar3`, those created because coalescing failed for `virtual`); *after coalescing*: copies left after coalescing and \
         renaming; *sequentialized*: copies emitted, temporaries included.\n\n",
    );
    let mut header = vec!["method"];
    header.extend(PHASES.iter().map(|(_, h)| *h));
    let rows: Vec<Vec<String>> = (0..METHODS.len())
        .map(|m| {
            let mut row = vec![format!("`{}`", METHODS[m])];
            row.extend(PHASES.iter().map(|(p, _)| total(m, p).to_string()));
            row
        })
        .collect();
    md.push_str(&table(&header, &rows));

    // per program: the copies each method emits
    let sreedhar = METHODS.iter().position(|&m| m == "sreedhar3");
    let boissinot = METHODS.iter().position(|&m| m == "boissinot");
    let virtualized = METHODS.iter().position(|&m| m == "virtual");
    let mut header = vec!["program"];
    header.extend(METHODS.iter().copied());
    let mut rows = Vec::new();
    let mut above = Vec::new();
    for (name, row) in names.iter().zip(counts) {
        let seq: Vec<u64> = (0..METHODS.len())
            .map(|m| get(&row[m], METHODS[m], "sequential"))
            .collect();
        if let (Some(s), Some(b), Some(v)) = (sreedhar, boissinot, virtualized)
            && (seq[b] > seq[s] || seq[v] > seq[s])
        {
            above.push(name.as_str());
        }
        let mut cells = vec![name.clone()];
        cells.extend(seq.iter().map(u64::to_string));
        rows.push(cells);
    }
    md.push_str("\nCopies emitted (sequentialized) per program:\n\n");
    md.push_str(&table(&header, &rows));
    let verdict = if above.is_empty() {
        "`boissinot` and `virtual` leave no more copies than `sreedhar3` on every program"
            .to_string()
    } else {
        format!(
            "`boissinot` or `virtual` leaves more copies than `sreedhar3` on {}",
            above.join(", ")
        )
    };
    md.push_str(&format!("\n{verdict}.\n"));
    let per_method: Vec<String> = (0..METHODS.len())
        .map(|m| format!("{} {}", METHODS[m], total(m, "sequential")))
        .collect();
    let summary = format!(
        "leaving SSA (naive allocator), copies emitted: {} ({} of boissinot to sreedhar3); {verdict}",
        per_method.join(", "),
        match (sreedhar, boissinot) {
            (Some(s), Some(b)) =>
                ratio(total(b, "sequential") as f64, total(s, "sequential") as f64),
            _ => "-".into(),
        }
    );
    (md, summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counters(line: &str) -> Counters {
        Counters::parse(line.as_bytes()).unwrap()
    }

    #[test]
    fn tabulates_copies_per_method_and_checks_boissinot_against_sreedhar() {
        let row = |c: u64, s: u64, b: u64| {
            vec![
                counters(&format!(
                    "vliw-stats: destruct.copies.phis=4 destruct.copies.sequential={c}"
                )),
                counters(&format!("vliw-stats: destruct.sreedhar3.sequential={s}")),
                counters(&format!("vliw-stats: destruct.boissinot.sequential={b}")),
                counters(&format!("vliw-stats: destruct.virtual.sequential={b}")),
            ]
        };
        let (md, summary) = table_of(&["a".into(), "b".into()], &[row(9, 5, 4), row(7, 3, 3)]);
        assert!(md.contains("| `copies` | 8 | 0 | 0 | 16 | 0 |"), "{md}");
        assert!(md.contains("| a | 9 | 5 | 4 |"), "{md}");
        assert!(
            summary.contains("copies 16, sreedhar3 8, boissinot 7"),
            "{summary}"
        );
        assert!(summary.contains("no more copies"), "{summary}");
        let (_, summary) = table_of(&["a".into()], &[row(9, 5, 6)]);
        assert!(
            summary.contains("more copies than `sreedhar3` on a"),
            "{summary}"
        );
    }
}

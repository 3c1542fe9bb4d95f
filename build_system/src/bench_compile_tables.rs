//! The report of `bench compile`'s whole builds (`bench_compile_builds.rs`): a table
//! per workload (seconds, ratios, rustc's backend share), the table of our backend's
//! phases, the plots and the summary lines.

use super::builds::{
    COMPILERS, CRANELIFT, CRANELIFT_COMPONENT, Cell, LLVM_O0, LLVM_O3, OURS, Outcome, Workload,
};
use crate::bench_report::{Plot, Scale, Series, number, table};
use crate::sysroot;
use crate::test_no_sysroot::Rustc;

pub(super) fn report(
    workloads: &[Workload],
    cells: &[Vec<Cell>],
    runs: usize,
    rustc: &Rustc,
) -> Outcome {
    let mut md = format!(
        "Each workload built by `cargo build --release` from clean (a fresh target \
         directory), timed as the whole cargo process, {runs} run(s), interleaved (run 1 \
         builds every workload with every compiler in turn, then run 2...), with cargo's \
         default number of jobs ({} threads here). Ours: `dist/cargo-vliw` (the \
         sysroot: as `./y.sh build` builds it) for `{}`; LLVM and Cranelift \
         (`-Zcodegen-backend=cranelift`, component `{CRANELIFT_COMPONENT}`) for `{}`; \
         all with `rustc +{}`. The optimization level is \
         `CARGO_PROFILE_RELEASE_OPT_LEVEL` (0 or 3; Cranelift at 3, its `speed` \
         setting), the rest of the release profile is the same in every column. \
         Outputs are libraries (rlibs): nothing is linked.\n\n\
         **Included**: the whole build, dependencies too. Build scripts and proc macros \
         (serde_derive with syn...) are built by LLVM for the host at `-Copt-level=0` \
         and run, in every column alike (RUSTFLAGS reach the target's crates only). \
         `-Ztime-passes` (and `-Cllvm-args=time-passes` for ours) is on in every column, \
         for the figures of the phase tables.\n\n",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        sysroot::TARGET,
        rustc.host,
        rustc.channel,
    );
    for w in workloads {
        md.push_str(&format!("- **{}**: {}\n", w.name, w.what));
    }
    md.push('\n');

    let mut summary = Vec::new();
    let mut errors = Vec::new();
    for (w, workload) in workloads.iter().enumerate() {
        let row = &cells[w];
        md.push_str(&format!("#### {}\n\n", workload.name));
        let reference = |c: usize| row[c].median_seconds();
        let ratio = |mine: Option<f64>, c: usize| match (mine, reference(c)) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
            _ => "n/a".into(),
        };
        let mut rows = Vec::new();
        for c in workload.compilers() {
            let cell = &row[c];
            let mine = cell.median_seconds();
            let (lo, mid, hi) = match cell.seconds() {
                Some((lo, mid, hi)) => (
                    format!("{lo:.1}"),
                    format!("**{mid:.1}**"),
                    format!("{hi:.1}"),
                ),
                None => ("n/a".into(), "n/a".into(), "n/a".into()),
            };
            let total = cell.median_time("rustc:total");
            let backend = cell.median_time("rustc:codegen_crate")
                + cell.median_time("rustc:finish_ongoing_codegen");
            let share = if cell.builds.is_empty() || total <= 0.0 {
                "n/a".into()
            } else {
                format!("{:.1} ({:.0}%)", total / 1e3, 100.0 * backend / total)
            };
            rows.push(vec![
                COMPILERS[c].label.to_string(),
                lo,
                mid,
                hi,
                ratio(mine, LLVM_O0),
                ratio(mine, LLVM_O3),
                ratio(mine, CRANELIFT),
                share,
            ]);
            if let Some(e) = &cell.error {
                errors.push(format!(
                    "- {} with {}: {}",
                    workload.name,
                    COMPILERS[c].label,
                    e.replace('\n', "\n  ")
                ));
            }
        }
        md.push_str(&table(
            &[
                "compiler",
                "min (s)",
                "median (s)",
                "max (s)",
                "÷ LLVM -O0",
                "÷ LLVM -O3",
                "÷ Cranelift",
                "rustc time, s (backend share)",
            ],
            &rows,
        ));
        md.push('\n');
        let mine = row[OURS].median_seconds();
        if let Some(s) = mine {
            let against: Vec<String> = [LLVM_O0, LLVM_O3, CRANELIFT]
                .iter()
                .map(|&c| match ratio(mine, c).as_str() {
                    "n/a" => format!("{} n/a", COMPILERS[c].label),
                    r => format!("{r}x {}", COMPILERS[c].label),
                })
                .collect();
            summary.push(format!(
                "{}: ours -O3 {} s = {}",
                workload.name,
                number(s),
                against.join(", ")
            ));
        } else {
            summary.push(format!("{}: our build failed", workload.name));
        }
    }
    md.push_str(
        "Ratios: of the medians. *rustc time*: `-Ztime-passes`' `total` summed over the \
         target's crates (they build in parallel, so the sum may exceed the wall time); \
         *backend share*: its `codegen_crate` + `finish_ongoing_codegen`, what the \
         codegen backend does (the rest is rustc's front end, the same work in every \
         column).\n\n",
    );
    if !errors.is_empty() {
        md.push_str("Not measured:\n\n");
        md.push_str(&errors.join("\n"));
        md.push_str("\n\n");
    }
    let (phases, phase_summary) = phase_table(workloads, cells);
    md.push_str(&phases);
    summary.extend(phase_summary);
    Outcome {
        markdown: md,
        plots: plots(workloads, cells),
        summary,
    }
}

/// Our backend's phases (ours -O3), summed over the crates and codegen units of each
/// build; the table and a summary line.
fn phase_table(workloads: &[Workload], cells: &[Vec<Cell>]) -> (String, Vec<String>) {
    const TOP: [&str; 5] = ["build-ir", "verify", "dump", "lower", "write-object"];
    let ours: Vec<&Cell> = cells.iter().map(|row| &row[OURS]).collect();
    let mut keys: Vec<String> = Vec::new();
    for cell in &ours {
        for build in &cell.builds {
            for key in build.times.0.keys() {
                if !key.starts_with("rustc:") && !keys.contains(key) {
                    keys.push(key.clone());
                }
            }
        }
    }
    let total_of = |key: &str| ours.iter().map(|c| c.median_time(key)).sum::<f64>();
    let mut top: Vec<String> = TOP
        .iter()
        .filter(|k| keys.iter().any(|x| x == *k))
        .map(|k| k.to_string())
        .collect();
    let mut extra: Vec<String> = keys
        .iter()
        .filter(|k| !k.contains('/') && !TOP.contains(&k.as_str()))
        .cloned()
        .collect();
    extra.sort();
    top.extend(extra);
    let mut sub: Vec<String> = keys.iter().filter(|k| k.contains('/')).cloned().collect();
    sub.sort_by(|a, b| total_of(b).total_cmp(&total_of(a)).then(a.cmp(b)));

    let sums: Vec<f64> = ours
        .iter()
        .map(|c| top.iter().map(|k| c.median_time(k)).sum())
        .collect();
    let mut rows = Vec::new();
    let mut row = |label: String, key: &str| {
        let mut cells_text = vec![label];
        for (cell, sum) in ours.iter().zip(&sums) {
            if cell.builds.is_empty() {
                cells_text.push("n/a".into());
            } else {
                let ms = cell.median_time(key);
                cells_text.push(format!(
                    "{} ({:.1}%)",
                    number(ms),
                    100.0 * ms / sum.max(1e-9)
                ));
            }
        }
        rows.push(cells_text);
    };
    for key in &top {
        row(key.clone(), key);
        if key == "lower" {
            for s in &sub {
                let name = s.split_once('/').map_or(s.as_str(), |x| x.1);
                row(format!("&nbsp;&nbsp;{name}"), s);
            }
        }
    }
    let mut label_row = vec!["all phases".to_string()];
    for (cell, sum) in ours.iter().zip(&sums) {
        label_row.push(if cell.builds.is_empty() {
            "n/a".into()
        } else {
            format!("{} (100%)", number(*sum))
        });
    }
    rows.push(label_row);

    let mut header = vec!["phase (ms, share)"];
    header.extend(workloads.iter().map(|w| w.name));
    let mut md = String::from("#### Where our backend's time goes\n\n");
    md.push_str(
        "Ours -O3, from `-Cllvm-args=time-passes`: each phase's time summed over the \
         target's crates and codegen units (median of the runs), in ms and as a share of \
         all phases. Phases of different codegen units run in parallel on rustc's worker \
         threads, so these are CPU times; `lower` (IR to object: the passes of \
         `vliw-pipeline`) is split into its passes, indented.\n\n",
    );
    md.push_str(&table(&header, &rows));
    md.push('\n');

    // Summary: the shares over all workloads together.
    let grand: f64 = sums.iter().sum();
    let mut summary = Vec::new();
    if grand > 0.0 {
        let share = |k: &str| format!("{k} {:.0}%", 100.0 * total_of(k) / grand);
        let mut parts: Vec<&String> = top.iter().filter(|k| total_of(k) > 0.0).collect();
        parts.sort_by(|a, b| total_of(b).total_cmp(&total_of(a)));
        let text: Vec<String> = parts
            .iter()
            .map(|k| {
                let inner: Vec<String> = sub
                    .iter()
                    .filter(|s| s.starts_with(&format!("{k}/")))
                    .take(4)
                    .map(|s| share(s).replacen(&format!("{k}/"), "", 1))
                    .collect();
                if inner.is_empty() {
                    share(k)
                } else {
                    format!("{} ({})", share(k), inner.join(", "))
                }
            })
            .collect();
        summary.push(format!(
            "our phases (ours -O3, all workloads): {}",
            text.join(", ")
        ));
    }
    (md, summary)
}

fn plots(workloads: &[Workload], cells: &[Vec<Cell>]) -> Vec<Plot> {
    let categories: Vec<String> = workloads.iter().map(|w| w.name.to_string()).collect();
    let seconds: Vec<Series> = COMPILERS
        .iter()
        .enumerate()
        .map(|(c, compiler)| Series {
            name: compiler.label.to_string(),
            values: cells.iter().map(|row| row[c].median_seconds()).collect(),
        })
        .collect();
    let relative: Vec<Series> = COMPILERS
        .iter()
        .enumerate()
        .map(|(c, compiler)| Series {
            name: compiler.label.to_string(),
            values: cells
                .iter()
                .map(
                    |row| match (row[c].median_seconds(), row[LLVM_O0].median_seconds()) {
                        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
                        _ => None,
                    },
                )
                .collect(),
        })
        .collect();
    vec![
        Plot {
            file: "compile.svg".into(),
            title: "Build time from clean (median)".into(),
            unit: "seconds".into(),
            categories: categories.clone(),
            series: seconds,
            scale: Scale::Linear,
        },
        Plot {
            file: "compile_ratio.svg".into(),
            title: "Build time relative to LLVM -O0 (median)".into(),
            unit: "time / LLVM -O0 time".into(),
            categories,
            series: relative,
            scale: Scale::Linear,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench_compile::Sample;
    use crate::bench_compile::builds::{Build, Source};

    fn cell(seconds: &[f64], times: &[(&str, f64)]) -> Cell {
        Cell {
            builds: seconds
                .iter()
                .map(|&s| {
                    let mut sample = Sample::default();
                    for (k, v) in times {
                        sample.add(k, *v);
                    }
                    Build {
                        seconds: s,
                        times: sample,
                    }
                })
                .collect(),
            error: None,
        }
    }

    #[test]
    fn report_tables_ratios_and_phases() {
        let workloads = vec![Workload {
            name: "w",
            what: "a workload".into(),
            source: Source::Sysroot,
            ours_o0: false,
        }];
        let ours = [
            ("rustc:total", 1000.0),
            ("rustc:codegen_crate", 300.0),
            ("build-ir", 100.0),
            ("lower", 300.0),
            ("lower/isel", 200.0),
            ("lower/ssa-regalloc", 50.0),
        ];
        let mut row: Vec<Cell> = COMPILERS.iter().map(|_| Cell::default()).collect();
        row[OURS] = cell(&[3.0, 2.0, 4.0], &ours);
        row[LLVM_O0] = cell(&[4.0, 4.0, 4.0], &[("rustc:total", 1.0)]);
        row[LLVM_O3] = cell(&[6.0, 8.0, 7.0], &[("rustc:total", 1.0)]);
        row[CRANELIFT].error = Some("unavailable: no component".into());
        let (md, summary) = phase_table(&workloads, std::slice::from_ref(&row));
        assert_eq!(
            summary,
            [
                "our phases (ours -O3, all workloads): lower 75% (isel 50%, ssa-regalloc 12%), \
              build-ir 25%"
            ]
        );
        assert!(md.contains("| lower | 300 (75.0%) |"), "{md}");
        assert!(md.contains("| &nbsp;&nbsp;isel | 200 (50.0%) |"), "{md}");
        assert!(md.contains("| all phases | 400 (100%) |"), "{md}");
        let plots = plots(&workloads, std::slice::from_ref(&row));
        assert_eq!(plots[0].series[OURS].values, [Some(3.0)]);
        assert_eq!(plots[1].series[LLVM_O3].values, [Some(1.75)]);
        assert_eq!(plots[0].series[CRANELIFT].values, [None]);
        let rustc = Rustc {
            path: "rustc".into(),
            channel: "nightly-x".into(),
            host: "x86_64-unknown-linux-gnu".into(),
        };
        let out = report(&workloads, std::slice::from_ref(&row), 3, &rustc);
        assert!(
            out.markdown
                .contains("| ours -O3 | 2.0 | **3.0** | 4.0 | 0.75 | 0.43 | n/a | 1.0 (30%) |"),
            "{}",
            out.markdown
        );
        assert!(
            out.markdown
                .contains("- w with Cranelift: unavailable: no component")
        );
        assert_eq!(
            out.summary[0],
            "w: ours -O3 3 s = 0.75x LLVM -O0, 0.43x LLVM -O3, Cranelift n/a"
        );
    }
}

//! `bench analyses`: how the SSA analyses and SSA destruction of the back end grow with
//! the size of a function, on the functions of the sysroot, and how the two-pass
//! liveness compares with iterative data flow on the largest of them.
//!
//! The sysroot is built from clean with our backend as `bench compile` builds it
//! (`bench_compile::builds::sysroot_command`: the sources `./y.sh build` prepared,
//! `--release`, so `-Copt-level=3` as in `sysroot.rs`), with
//! `-Cllvm-args=analysis-timing=on`: the backend then times, on every function's
//! machine SSA after instruction selection, the two-pass live sets, the iterative
//! data-flow live sets, the liveness checker and SSA destruction with `boissinot` and
//! `sreedhar3` (on clones), and prints one `vliw-analysis-timing:` line per function
//! (`codegen/machine/src/analysis_timing.rs`). Cargo passes them on to its stderr,
//! which goes to a log file (it is too large to capture in memory). `--quick` changes
//! nothing: the build takes well under a minute, little more than `core` alone (the
//! longest crate of the build, which the others overlap).
//!
//! The report: per size class (instructions, powers of two) the number of functions
//! and the median nanoseconds per instruction of each figure; a growth exponent per
//! figure, the slope of the least-squares line of log time against log instructions
//! over the functions of at least `MIN_FIT_INSTS` instructions (1 is linear); the
//! `LARGEST` largest functions with their times and the ratio data flow / two-pass,
//! and its geometric mean over them.

use std::fs;
use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::bench::BenchOptions;
use crate::bench_compile::builds;
use crate::bench_report::{Plot, Scale, Section, Series, geomean, number, table};
use crate::paths::Paths;
use crate::process;
use crate::sysroot::Layout;
use crate::toolchain::Toolchain;

/// The prefix of the backend's lines.
const PREFIX: &str = "vliw-analysis-timing:";
/// Functions below this size are left out of the exponent fits: their times are a few
/// microseconds, dominated by constant costs (allocations, the CFG of one block).
const MIN_FIT_INSTS: u64 = 64;
/// A second fit over the large functions only, where asymptotic behaviour shows.
const MIN_LARGE_FIT_INSTS: u64 = 1024;
/// Fewer functions than this make no fit.
const MIN_FIT_FUNCTIONS: usize = 10;
/// How many of the largest functions are listed.
const LARGEST: usize = 20;
/// The build with every function measured takes a minute or two; this only stops a
/// runaway.
const BUILD_TIMEOUT: Duration = Duration::from_secs(3600);
/// The optimization level of the sysroot build (`sysroot.rs`: cargo's release profile).
const OPT_LEVEL: u8 = 3;

/// A figure of the lines: its key and its label in the report.
pub(crate) struct Analysis {
    pub(crate) key: &'static str,
    pub(crate) label: &'static str,
}

/// The figures of a line, in their order there.
pub(crate) const ANALYSES: [Analysis; 6] = [
    Analysis {
        key: "two_pass_ns",
        label: "two-pass live sets",
    },
    Analysis {
        key: "dataflow_ns",
        label: "data-flow live sets",
    },
    Analysis {
        key: "checker_ns",
        label: "liveness checker",
    },
    Analysis {
        key: "boissinot_ns",
        label: "destruction: boissinot",
    },
    Analysis {
        key: "virtual_ns",
        label: "destruction: virtual",
    },
    Analysis {
        key: "sreedhar3_ns",
        label: "destruction: sreedhar3",
    },
];
const TWO_PASS: usize = 0;
const DATAFLOW: usize = 1;

/// One `vliw-analysis-timing:` line: a function's sizes and nanoseconds per run of each
/// figure of [`ANALYSES`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FunctionTiming {
    pub(crate) name: String,
    pub(crate) blocks: u64,
    pub(crate) insts: u64,
    pub(crate) vregs: u64,
    pub(crate) ns: [f64; ANALYSES.len()],
}

/// Parses one line: `None` when it is not a `vliw-analysis-timing:` line, an error when
/// it is one but malformed. The name is the rest of the line after ` name=`.
pub(crate) fn parse_line(line: &str) -> Option<Result<FunctionTiming, String>> {
    let rest = line.trim_start().strip_prefix(PREFIX)?;
    Some(parse_fields(rest).map_err(|e| format!("{e} in `{}`", line.trim_end())))
}

fn parse_fields(rest: &str) -> Result<FunctionTiming, String> {
    let (fields, name) = rest
        .split_once(" name=")
        .ok_or("no `name=` field".to_string())?;
    let name = name.trim_end();
    if name.is_empty() {
        return Err("an empty name".into());
    }
    let mut sizes: [Option<u64>; 3] = [None; 3];
    let mut ns: [Option<f64>; ANALYSES.len()] = [None; ANALYSES.len()];
    for field in fields.split_whitespace() {
        let (key, value) = field
            .split_once('=')
            .ok_or_else(|| format!("bad field `{field}`"))?;
        let bad = || format!("bad value in `{field}`");
        if let Some(i) = ["blocks", "insts", "vregs"].iter().position(|k| *k == key) {
            sizes[i] = Some(value.parse().map_err(|_| bad())?);
        } else if let Some(i) = ANALYSES.iter().position(|a| a.key == key) {
            let v: f64 = value.parse().map_err(|_| bad())?;
            if !v.is_finite() || v < 0.0 {
                return Err(bad());
            }
            ns[i] = Some(v);
        }
        // Other keys: figures a later backend may add.
    }
    let missing = |what: &str| format!("no `{what}=` field");
    let [blocks, insts, vregs] = [0, 1, 2].map(|i| sizes[i]);
    let mut times = [0.0; ANALYSES.len()];
    for (i, t) in times.iter_mut().enumerate() {
        *t = ns[i].ok_or_else(|| missing(ANALYSES[i].key))?;
    }
    Ok(FunctionTiming {
        name: name.to_string(),
        blocks: blocks.ok_or_else(|| missing("blocks"))?,
        insts: insts.ok_or_else(|| missing("insts"))?,
        vregs: vregs.ok_or_else(|| missing("vregs"))?,
        ns: times,
    })
}

/// Every `vliw-analysis-timing:` line of a build log.
pub(crate) fn parse_log(text: &str) -> Result<Vec<FunctionTiming>, String> {
    text.lines().filter_map(parse_line).collect()
}

/// The slope of the least-squares line through `(ln x, ln y)`: the growth exponent of
/// y in x. `None` with fewer than two distinct positive x (or no positive y).
pub(crate) fn fit_exponent(points: impl IntoIterator<Item = (f64, f64)>) -> Option<f64> {
    let logs: Vec<(f64, f64)> = points
        .into_iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    let n = logs.len() as f64;
    if logs.len() < 2 {
        return None;
    }
    let mx = logs.iter().map(|p| p.0).sum::<f64>() / n;
    let my = logs.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = logs.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = logs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 1e-12).then(|| sxy / sxx)
}

/// The size class of a function: `k` for `2^k <= insts < 2^(k+1)` (0 for 0 and 1).
pub(crate) fn size_class(insts: u64) -> u32 {
    insts.max(1).ilog2()
}

fn class_label(k: u32) -> String {
    let (lo, hi) = (1u64 << k, (1u64 << (k + 1)) - 1);
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}–{hi}")
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    match values.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => values[n / 2],
        n => (values[n / 2 - 1] + values[n / 2]) / 2.0,
    }
}

/// The symbols as a reader would write them: demangled by `c++filt` (GNU binutils
/// decodes Rust's v0 and legacy manglings) when it is installed, without the crate
/// disambiguators (`core[1958670e922af214]::...`); as they are otherwise.
pub(crate) fn readable_names(symbols: &[&str]) -> Vec<String> {
    let demangled = Command::new("c++filt")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()
        .and_then(|mut child| {
            let mut input = symbols.join("\n");
            input.push('\n');
            // A handful of names: the pipe takes them without blocking.
            child.stdin.take()?.write_all(input.as_bytes()).ok()?;
            let out = child.wait_with_output().ok()?;
            let text = String::from_utf8(out.stdout).ok()?;
            let lines: Vec<String> = text.lines().map(str::to_string).collect();
            (out.status.success() && lines.len() == symbols.len()).then_some(lines)
        });
    match demangled {
        Some(lines) => lines.iter().map(|l| without_crate_hashes(l)).collect(),
        None => symbols.iter().map(|s| s.to_string()).collect(),
    }
}

/// `text` without the `[0123456789abcdef]` crate disambiguators of demangled v0 symbols.
pub(crate) fn without_crate_hashes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('[') {
        let after = &rest[i + 1..];
        let hex = after.len()
            - after
                .trim_start_matches(|c: char| c.is_ascii_hexdigit())
                .len();
        out.push_str(&rest[..i]);
        if hex > 0 && after[hex..].starts_with(']') {
            rest = &after[hex + 1..];
        } else {
            out.push('[');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// At most `max` characters, with an ellipsis in the middle when cut.
fn shorten(text: &str, max: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= max {
        return text.to_string();
    }
    let head = max / 2;
    let tail = max - head - 1;
    let mut s: String = chars[..head].iter().collect();
    s.push('…');
    s.extend(&chars[chars.len() - tail..]);
    s
}

/// Runs the benchmark: the build, then the report.
pub fn run(paths: &Paths, toolchain: &Toolchain, _: BenchOptions) -> Result<Section, String> {
    let start = Instant::now();
    let layout = Layout::new(paths);
    if !layout.is_installed() {
        return Err("the sysroot is not built: run ./y.sh build".into());
    }
    builds::check_sysroot_sources(paths)?;
    let work = paths.build.join("bench").join("analyses");
    fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let target_dir = work.join("target");
    let log = work.join("build.log");
    let (mut cmd, mut flags) = builds::sysroot_command(paths, toolchain, None);
    flags.push("-Cllvm-args=analysis-timing=on".into());
    builds::set_build_environment(&mut cmd, &flags, OPT_LEVEL, &target_dir, &work);
    builds::remove_dir(&target_dir)?;
    let what = "the sysroot";
    eprintln!(
        "[bench] analyses: building {what} with -Cllvm-args=analysis-timing=on (log: {})",
        paths.show(&log)
    );
    let build_start = Instant::now();
    let status = process::run_logged(&mut cmd, &log, build_start + BUILD_TIMEOUT)?;
    let build_seconds = build_start.elapsed().as_secs_f64();
    let text = fs::read(&log).map_err(|e| format!("cannot read {}: {e}", log.display()))?;
    let text = String::from_utf8_lossy(&text);
    match status {
        Some(s) if s.success() => {}
        _ => {
            return Err(format!(
                "building {what} with analysis-timing=on failed ({}):\n{}",
                status.map_or("killed at the timeout".into(), process::describe_status),
                crate::report::tail(text.as_bytes(), 20).join("\n")
            ));
        }
    }
    builds::remove_dir(&target_dir)?;
    let functions = parse_log(&text)?;
    if functions.is_empty() {
        return Err(format!(
            "the backend printed no `{PREFIX}` lines through cargo (log: {})",
            paths.show(&log)
        ));
    }
    eprintln!(
        "[bench] analyses: {} functions measured in {build_seconds:.1} s",
        functions.len()
    );
    let mut section = report(
        &functions,
        "The sysroot (core, compiler_builtins, alloc, std, panic_abort, test and their \
         dependencies)",
        build_seconds,
    );
    let total = start.elapsed().as_secs_f64();
    section.markdown.push_str(&format!(
        "\nThis part took {total:.0} s, {build_seconds:.0} s of it the build (the \
         measurement slows it down: every function is analysed several more times).\n"
    ));
    section.summary.push(format!(
        "sysroot build with analysis-timing=on: {build_seconds:.0} s"
    ));
    Ok(section)
}

/// The growth exponents of each figure over the functions of at least `min_insts`
/// instructions, and how many functions that is.
fn exponents(
    functions: &[FunctionTiming],
    min_insts: u64,
) -> ([Option<f64>; ANALYSES.len()], usize) {
    let fitted: Vec<&FunctionTiming> = functions.iter().filter(|f| f.insts >= min_insts).collect();
    let exps = std::array::from_fn(|a| {
        if fitted.len() < MIN_FIT_FUNCTIONS {
            return None;
        }
        fit_exponent(fitted.iter().map(|f| (f.insts as f64, f.ns[a])))
    });
    (exps, fitted.len())
}

/// The largest functions, one per name (a function compiled in several codegen units
/// or crates appears once), by instructions.
fn largest(functions: &[FunctionTiming], n: usize) -> Vec<&FunctionTiming> {
    let mut sorted: Vec<&FunctionTiming> = functions.iter().collect();
    sorted.sort_by(|a, b| b.insts.cmp(&a.insts).then_with(|| a.name.cmp(&b.name)));
    let mut seen = std::collections::BTreeSet::new();
    sorted
        .into_iter()
        .filter(|f| seen.insert(f.name.as_str()))
        .take(n)
        .collect()
}

fn exponent_text(e: Option<f64>) -> String {
    e.map_or("n/a".into(), |e| format!("{e:.2}"))
}

/// The section of the report from the parsed lines.
pub(crate) fn report(functions: &[FunctionTiming], crates: &str, build_seconds: f64) -> Section {
    let mut md = format!(
        "{crates} built from clean with our backend as `./y.sh build` builds it \
         (`cargo build --release`, `-Copt-level={OPT_LEVEL}`, `-Cpanic=abort`) and \
         `-Cllvm-args=analysis-timing=on`: for every function, on its machine SSA after \
         instruction selection, the backend times the two-pass live sets (CFG, loop \
         forest, `LiveSets::compute`), the iterative data-flow live sets (CFG, \
         `DataflowLiveness::compute`), the liveness checker (CFG, `LivenessChecker::new`) \
         and SSA destruction with `boissinot` and `sreedhar3` (each on a clone), each \
         the fastest of 3 rounds of runs adding up to at least 20 µs, and prints one line \
         (`codegen/machine/src/analysis_timing.rs`). {} functions measured ({} distinct \
         symbols); the build took {build_seconds:.0} s. Wall-clock times on a shared \
         machine: single functions are noisy, medians and fits over many are not.\n\n",
        functions.len(),
        functions
            .iter()
            .map(|f| f.name.as_str())
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    );

    // Time per instruction by size class.
    let max_class = functions
        .iter()
        .map(|f| size_class(f.insts))
        .max()
        .unwrap_or(0);
    let classes: Vec<u32> = (0..=max_class)
        .filter(|k| functions.iter().any(|f| size_class(f.insts) == *k))
        .collect();
    let per_inst = |k: u32, a: usize| -> f64 {
        let mut v: Vec<f64> = functions
            .iter()
            .filter(|f| size_class(f.insts) == k)
            .map(|f| f.ns[a] / f.insts.max(1) as f64)
            .collect();
        median(&mut v)
    };
    md.push_str("### Time per instruction by function size\n\n");
    md.push_str(
        "Median nanoseconds per instruction (instructions of the machine SSA after \
         instruction selection) of the functions of each size class; constant per-inst \
         figures down a column mean linear growth.\n\n",
    );
    let mut header = vec!["instructions", "functions"];
    header.extend(ANALYSES.iter().map(|a| a.label));
    let mut rows: Vec<Vec<String>> = classes
        .iter()
        .map(|&k| {
            let mut row = vec![
                class_label(k),
                functions
                    .iter()
                    .filter(|f| size_class(f.insts) == k)
                    .count()
                    .to_string(),
            ];
            row.extend((0..ANALYSES.len()).map(|a| format!("{:.1}", per_inst(k, a))));
            row
        })
        .collect();
    let total_insts: u64 = functions.iter().map(|f| f.insts).sum();
    let totals: [f64; ANALYSES.len()] =
        std::array::from_fn(|a| functions.iter().map(|f| f.ns[a]).sum());
    let mut all = vec![
        "all (total time / total instructions)".to_string(),
        functions.len().to_string(),
    ];
    all.extend(
        totals
            .iter()
            .map(|t| format!("{:.1}", t / total_insts.max(1) as f64)),
    );
    rows.push(all);
    md.push_str(&table(&header, &rows));

    // Growth exponents.
    let (small, n_small) = exponents(functions, MIN_FIT_INSTS);
    let (large, n_large) = exponents(functions, MIN_LARGE_FIT_INSTS);
    md.push_str("\n### Growth with function size\n\n");
    md.push_str(&format!(
        "Exponent of the least-squares line through (log instructions, log time) of the \
         functions of at least {MIN_FIT_INSTS} instructions ({n_small} functions) and of \
         at least {MIN_LARGE_FIT_INSTS} ({n_large}; no fit below {MIN_FIT_FUNCTIONS}): 1 \
         is linear growth, 2 quadratic. The liveness checker depends on the CFG only, so \
         it grows with blocks, which grow more slowly than instructions. Total: the time \
         summed over all {} functions.\n\n",
        functions.len()
    ));
    let rows: Vec<Vec<String>> = ANALYSES
        .iter()
        .enumerate()
        .map(|(a, analysis)| {
            vec![
                analysis.label.to_string(),
                exponent_text(small[a]),
                exponent_text(large[a]),
                format!("{:.1}", totals[a] / 1e6),
                format!("{:.2}", totals[a] / totals[TWO_PASS].max(1e-9)),
            ]
        })
        .collect();
    let small_head = format!("exponent, ≥ {MIN_FIT_INSTS} insts");
    let large_head = format!("exponent, ≥ {MIN_LARGE_FIT_INSTS} insts");
    md.push_str(&table(
        &[
            "figure",
            &small_head,
            &large_head,
            "total (ms)",
            "total / two-pass",
        ],
        &rows,
    ));

    // The largest functions.
    let top = largest(functions, LARGEST);
    let ratios: Vec<f64> = top
        .iter()
        .map(|f| f.ns[DATAFLOW] / f.ns[TWO_PASS].max(1e-9))
        .collect();
    let ratio_geomean = geomean(ratios.iter().copied());
    md.push_str(&format!("\n### The {} largest functions\n\n", top.len()));
    md.push_str(
        "By instructions, one row per symbol (demangled by `c++filt` when it is there, \
         without crate hashes); times in µs per run; *ratio*: data flow / two-pass (above 1: the two-pass \
         sets are faster).\n\n",
    );
    let us = |ns: f64| format!("{:.0}", ns / 1e3);
    let names = readable_names(&top.iter().map(|f| f.name.as_str()).collect::<Vec<_>>());
    let rows: Vec<Vec<String>> = top
        .iter()
        .zip(&ratios)
        .zip(&names)
        .enumerate()
        .map(|(i, ((f, ratio), name))| {
            vec![
                (i + 1).to_string(),
                format!("`{}`", shorten(name, 90).replace('`', "'")),
                f.insts.to_string(),
                f.blocks.to_string(),
                f.vregs.to_string(),
                us(f.ns[TWO_PASS]),
                us(f.ns[DATAFLOW]),
                format!("**{ratio:.2}**"),
                us(f.ns[2]),
                us(f.ns[3]),
                us(f.ns[4]),
            ]
        })
        .collect();
    md.push_str(&table(
        &[
            "#",
            "function",
            "insts",
            "blocks",
            "vregs",
            "two-pass",
            "data flow",
            "ratio",
            "checker",
            "boissinot",
            "sreedhar3",
        ],
        &rows,
    ));
    let (lo, hi) = ratios.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), r| {
        (lo.min(*r), hi.max(*r))
    });
    let ratio_text = match ratio_geomean {
        Some(g) => format!("{g:.2}x (from {lo:.2} to {hi:.2})"),
        None => "n/a".into(),
    };
    md.push_str(&format!(
        "\n**Data flow / two-pass over these {} functions: geometric mean {ratio_text}.**\n",
        top.len()
    ));

    let plots = vec![
        Plot {
            file: "analyses-per-inst.svg".into(),
            title: "Median time per instruction by function size".into(),
            unit: "ns per instruction".into(),
            categories: classes
                .iter()
                .map(|&k| format!("{} insts", class_label(k)))
                .collect(),
            series: ANALYSES
                .iter()
                .enumerate()
                .map(|(a, analysis)| Series {
                    name: analysis.label.into(),
                    values: classes
                        .iter()
                        .map(|&k| Some(per_inst(k, a)).filter(|v| v.is_finite()))
                        .collect(),
                })
                .collect(),
            scale: Scale::Log,
        },
        Plot {
            file: "analyses-largest.svg".into(),
            title: format!("Liveness on the {} largest functions", top.len()),
            unit: "µs per run".into(),
            categories: top
                .iter()
                .map(|f| format!("{} insts", number(f.insts as f64)))
                .collect(),
            series: [
                (TWO_PASS, "two-pass live sets"),
                (DATAFLOW, "data-flow live sets"),
                (2, "liveness checker"),
            ]
            .iter()
            .map(|&(a, name)| Series {
                name: name.into(),
                values: top.iter().map(|f| Some(f.ns[a] / 1e3)).collect(),
            })
            .collect(),
            scale: Scale::Log,
        },
    ];
    let summary = vec![
        format!(
            "{} functions; growth exponents (≥ {MIN_FIT_INSTS} insts): {}",
            functions.len(),
            ANALYSES
                .iter()
                .zip(&small)
                .map(|(a, e)| format!("{} {}", a.label, exponent_text(*e)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        format!(
            "{} largest functions ({}–{} insts): data flow / two-pass live sets {ratio_text}",
            top.len(),
            top.last().map_or(0, |f| f.insts),
            top.first().map_or(0, |f| f.insts),
        ),
    ];
    Section {
        title: "SSA analyses and destruction by function size".into(),
        markdown: md,
        plots,
        summary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "vliw-analysis-timing: blocks=4 insts=9 vregs=4 two_pass_ns=1234 \
                        dataflow_ns=2000 checker_ns=801 boissinot_ns=5000 virtual_ns=4000 sreedhar3_ns=7000 \
                        name=_ZN4core3fmt5write17h0123456789abcdefE";

    fn timing(insts: u64, ns: [f64; ANALYSES.len()], name: &str) -> FunctionTiming {
        FunctionTiming {
            name: name.into(),
            blocks: insts / 4 + 1,
            insts,
            vregs: insts,
            ns,
        }
    }

    #[test]
    fn parses_lines_and_rejects_malformed_ones() {
        let t = parse_line(LINE).unwrap().unwrap();
        assert_eq!(
            t,
            FunctionTiming {
                name: "_ZN4core3fmt5write17h0123456789abcdefE".into(),
                blocks: 4,
                insts: 9,
                vregs: 4,
                ns: [1234.0, 2000.0, 801.0, 5000.0, 4000.0, 7000.0],
            }
        );
        assert!(parse_line("time:   0.1ms  lower").is_none());
        assert!(parse_line("   Compiling core v0.0.0").is_none());
        // Unknown fields are ignored; the name is the rest of the line.
        let (fields, _) = LINE.split_once(" name=").unwrap();
        let t = parse_line(&format!("{fields} passes=3 name=a b"))
            .unwrap()
            .unwrap();
        assert_eq!(t.name, "a b");
        for bad in [
            LINE.replace("insts=9", "insts=x"),
            LINE.replace(" checker_ns=801", ""),
            LINE.replace(" name=", " nom="),
            LINE.replace("dataflow_ns=2000", "dataflow_ns=-1"),
            format!("{PREFIX} blocks=1 name="),
        ] {
            assert!(parse_line(&bad).unwrap().is_err(), "{bad}");
        }
        let log = format!("   Compiling core\n{LINE}\nwarning: x\n{LINE}\n");
        assert_eq!(parse_log(&log).unwrap().len(), 2);
        assert!(parse_log(&format!("{LINE}\n{PREFIX} blocks=1\n")).is_err());
    }

    #[test]
    fn fits_exponents() {
        let linear = (1..20).map(|i| (i as f64 * 100.0, 3.0 * i as f64 * 100.0));
        assert!((fit_exponent(linear).unwrap() - 1.0).abs() < 1e-9);
        let quadratic = (1..20).map(|i| (i as f64, 0.5 * (i * i) as f64));
        assert!((fit_exponent(quadratic).unwrap() - 2.0).abs() < 1e-9);
        // Noise around n^1.5, symmetric in log space.
        let noisy = (1..200).map(|i| {
            let n = i as f64 * 10.0;
            let noise = if i % 2 == 0 { 1.2 } else { 1.0 / 1.2 };
            (n, n.powf(1.5) * noise)
        });
        assert!((fit_exponent(noisy).unwrap() - 1.5).abs() < 0.02);
        assert_eq!(fit_exponent([(10.0, 1.0)]), None);
        assert_eq!(fit_exponent([(10.0, 1.0), (10.0, 5.0)]), None);
        assert_eq!(fit_exponent([(10.0, 0.0), (20.0, 0.0)]), None);
    }

    #[test]
    fn size_classes_and_names() {
        assert_eq!(
            [0, 1, 2, 3, 4, 63, 64, 1000].map(size_class),
            [0, 0, 1, 1, 2, 5, 6, 9]
        );
        assert_eq!(class_label(0), "1");
        assert_eq!(class_label(6), "64–127");
        assert_eq!(
            without_crate_hashes("<core[1958670e922af214]::a::B<u64>>::f::<[u64]>"),
            "<core::a::B<u64>>::f::<[u64]>"
        );
        assert_eq!(without_crate_hashes("[x] [12"), "[x] [12");
        assert_eq!(shorten("abcdefghij", 5), "ab…ij");
        assert_eq!(shorten("abc", 5), "abc");
    }

    #[test]
    fn report_buckets_fits_and_ranks() {
        let mut functions = Vec::new();
        for i in 0..200u64 {
            let n = 8 + i * 37;
            let nf = n as f64;
            // Two-pass linear, data flow quadratic, the rest linear.
            functions.push(timing(
                n,
                [
                    10.0 * nf,
                    0.01 * nf * nf + 10.0 * nf,
                    5.0 * nf,
                    50.0 * nf,
                    40.0 * nf,
                    80.0 * nf,
                ],
                &format!("f{i}"),
            ));
        }
        // A duplicate of the largest symbol is listed once.
        functions.push(functions[199].clone());
        let section = report(&functions, "test crates", 12.0);
        let md = &section.markdown;
        assert!(md.contains("| 8–15 | 1 |"), "{md}");
        assert!(md.contains("| two-pass live sets | 1.00 |"), "{md}");
        assert!(md.contains("### The 20 largest functions"));
        assert_eq!(md.matches("`f199`").count(), 1);
        assert!(md.contains("`f180`") && !md.contains("`f179`"));
        assert!(section.summary[0].contains("two-pass live sets 1.00"));
        assert!(section.summary[1].contains("data flow / two-pass live sets"));
        assert_eq!(section.plots.len(), 2);
        let ratio = |f: &FunctionTiming| f.ns[DATAFLOW] / f.ns[TWO_PASS];
        let expected = geomean(functions[180..200].iter().map(ratio)).unwrap();
        assert!(
            md.contains(&format!("geometric mean {expected:.2}x")),
            "{md}"
        );
        for plot in &section.plots {
            assert!(!plot.to_svg().contains("NaN"));
        }
    }
}

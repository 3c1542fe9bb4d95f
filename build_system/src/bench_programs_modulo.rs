//! The modulo-scheduling part of the programs benchmark (issue 18): per program, from
//! the default build's counters (`modulo.*`, the program's own crate), the
//! single-block inner loops modulo scheduling looked at, those it pipelined, how many
//! of those reached MinII, and the sums of their II and MinII; then every pipelined
//! loop one by one (`modulo-report=on`). The kernels' loops are listed one by one in
//! the Hexagon section (`bench_hexagon`).

use super::{Counters, Figures};
use crate::bench_analyses::readable_names;
use crate::bench_modulo_loops::{self, Loop};
use crate::bench_report::table;

/// The reasons the model gives for not taking a loop (`modulo.rejected-*`).
const REJECTED: [&str; 5] = ["shape", "operation", "carried", "live-out", "compare"];

/// The table (a `###` subsection).
pub fn table_of(names: &[String], counters: &[Counters]) -> String {
    let columns = [
        ("loops", "single-block loops"),
        ("pipelined", "pipelined"),
        ("at-min-ii", "at MinII"),
        ("ii", "Σ II"),
        ("min-ii", "Σ MinII"),
        ("trip-at-ii", "trips in II cycles (bundled)"),
        ("trip-cycles", "Σ cycles per trip (bundled)"),
        ("not-faster", "not faster"),
        ("declined-pressure", "declined (registers)"),
        ("rejected", "not taken (shape, operations)"),
    ];
    // `rejected`: the loops the model does not take, whatever the reason
    let get = |c: &Counters, name: &str| -> u64 {
        if name == "rejected" {
            REJECTED
                .iter()
                .map(|r| c.get(&format!("modulo.rejected-{r}")))
                .sum()
        } else {
            c.get(&format!("modulo.{name}"))
        }
    };
    let mut header = vec!["program"];
    header.extend(columns.iter().map(|c| c.1));
    let mut rows = Vec::new();
    for (name, c) in names.iter().zip(counters) {
        let mut row = vec![name.clone()];
        row.extend(columns.iter().map(|(k, _)| get(c, k).to_string()));
        rows.push(row);
    }
    let mut total = vec!["**total**".to_string()];
    total.extend(
        columns
            .iter()
            .map(|(k, _)| counters.iter().map(|c| get(c, k)).sum::<u64>().to_string()),
    );
    rows.push(total);
    format!(
        "\n### Software-pipelined loops per program (all passes)\n\nModulo scheduling's \
         counters in the default build (`-Cllvm-args=stats`, the program's own crate \
         only, as above): the single-block inner loops it looked at, those it \
         pipelined, those whose II is MinII = max(ResMII, RecMII), the sums of II and \
         MinII over the pipelined ones, the kernels whose trip takes II cycles in the \
         bundled code and the sum of their cycles per trip (rounded up; after \
         allocation and bundling, averaged over the copies of modulo variable \
         expansion), the loops where II would not be below the \
         block's own schedule, kernels dropped for needing more registers than the \
         allocator has, and loops the model does not take (calls, traps, guarded \
         stores, a predicate or parameter read after the loop...: `docs/machine.md` §6c; `-Cllvm-args=modulo-report=on` lists each \
         loop).\n\n{}",
        table(&header, &rows)
    )
}

/// Every pipelined loop of the default build (`default`: its figures, in the order of
/// `names`), one row each (a `###` subsection).
pub fn loops_of(names: &[String], default: &[Figures]) -> String {
    let loops: Vec<Loop> = names
        .iter()
        .zip(default)
        .flat_map(|(name, f)| {
            f.pipelined.iter().map(|line| Loop {
                program: name.clone(),
                line: line.clone(),
            })
        })
        .collect();
    format!(
        "\n### Software-pipelined loops one by one (all passes)\n\nEach loop the default \
         build pipelined in the program's own crate (`-Cllvm-args=modulo-report=on`), \
         with the names demangled: {}",
        bench_modulo_loops::table(&loops, readable_names)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_become_rows_and_a_total() {
        let a = Counters::parse(
            b"vliw-stats: modulo.loops=3 modulo.pipelined=2 modulo.at-min-ii=1 modulo.ii=9 modulo.min-ii=8 modulo.trip-at-ii=1 modulo.trip-cycles=10\n",
        )
        .unwrap();
        let b = Counters::parse(
            b"vliw-stats: modulo.loops=3 modulo.not-faster=1 modulo.rejected-shape=1 modulo.rejected-operation=1\n",
        )
        .unwrap();
        let md = table_of(&["a".into(), "b".into()], &[a, b]);
        assert!(
            md.contains("| a | 3 | 2 | 1 | 9 | 8 | 1 | 10 | 0 | 0 | 0 |"),
            "{md}"
        );
        assert!(
            md.contains("| b | 3 | 0 | 0 | 0 | 0 | 0 | 0 | 1 | 0 | 2 |"),
            "{md}"
        );
        assert!(
            md.contains("| **total** | 6 | 2 | 1 | 9 | 8 | 1 | 10 | 1 | 0 | 2 |"),
            "{md}"
        );
    }

    #[test]
    fn every_programs_loops_are_rows_under_its_name() {
        let figures = |lines: &[&str]| Figures {
            cycles: 1,
            bundles: 1,
            ops: 1,
            nullified: 0,
            stalls: 0,
            branches: 0,
            own_code: 1,
            text: 1,
            sim_time: std::time::Duration::ZERO,
            counters: None,
            pipelined: lines.iter().map(|l| l.to_string()).collect(),
        };
        let md = loops_of(
            &["a".into(), "b".into()],
            &[
                figures(&[
                    "f block1: 8 ops, ResMII 3, RecMII 1, MinII 3, II 3, 2 stages, block schedule 7 cycles",
                ]),
                figures(&[
                    "g block2: 9 ops, ResMII 3, RecMII 1, MinII 3, II 4, 2 stages, block schedule 7 cycles",
                    "h block5: 9 ops, ResMII 2, RecMII 1, MinII 2, II 2, 3 stages, block schedule 6 cycles",
                ]),
            ],
        );
        assert!(
            md.contains("3 inner loops software-pipelined, 2 at MinII"),
            "{md}"
        );
        assert!(md.contains("| a | `f` | block1 | 8 |"), "{md}");
        assert!(
            md.contains("| b | `g` | block2 | 9 | 3 | 1 | 3 | 4 |"),
            "{md}"
        );
        assert!(md.contains("| b | `h` | block5 |"), "{md}");
    }
}

//! The out-of-Psi-SSA part of the programs benchmark (issue 16): de Ferrière's
//! Figs. 9 and 10 on our programs. For each build whose counters are kept (the
//! default, the ablation's columns without if-conversion and with the other
//! `psi-lowering=`, and builds of their own without promotion and without folding),
//! summed over the programs' own code: the ψs that
//! left Psi-SSA, the `sel`s they became (`psi-lowering=sel`) or the predicated copies
//! of each phase (ψ-normalize, ψ-congruence; the copies folded into definitions
//! beside them), the moves left after allocation (φ-congruence: block arguments
//! between colours, and the copies that stay, predicated ones included), and the
//! cycles against the default build.

use super::{Config, Counters, Figures, ratio};
use crate::bench_report::table;

/// Builds of their own for this table (options of `if-convert` and `psi-lower`, not
/// switches of the ablation): copies for every ψ (the paper's algorithm: no `sel`
/// where cheaper) with and without promotion (Figs. 10 and 9) and without folding
/// copies into definitions, the default without promotion, and the default with ψ
/// inlining and projection (off by default).
pub const EXTRA: &[&[&str]] = &[
    &["promotion=off"],
    &["psi-sel-where-cheaper=off"],
    &["psi-sel-where-cheaper=off", "promotion=off"],
    &["psi-sel-where-cheaper=off", "psi-fold=off"],
    &["psi-inline=on", "psi-project=on"],
];

/// The ablation columns whose counters this table needs (beside the default's).
pub fn wants_counters(flip: &str) -> bool {
    flip == "if-convert=off" || flip.starts_with("psi-lowering=")
}

/// The table, or nothing when no build kept counters.
pub fn table_of(configs: &[Config], figures: &[Vec<Figures>]) -> Option<String> {
    let mut rows = Vec::new();
    let base: u64 = figures.first()?.iter().map(|f| f.cycles).sum();
    for (config, column) in configs.iter().zip(figures) {
        if !config.counters || column.iter().all(|f| f.counters.is_none()) {
            continue;
        }
        let sum = |key: &str| -> u64 {
            column
                .iter()
                .filter_map(|f| f.counters.as_ref())
                .map(|c: &Counters| c.get(key))
                .sum()
        };
        let cycles: u64 = column.iter().map(|f| f.cycles).sum();
        let build = if config.llvm_args.is_empty() {
            "default".to_string()
        } else {
            format!("`{}`", config.llvm_args.join(" "))
        };
        rows.push(vec![
            build,
            sum("ifconv.psis").to_string(),
            sum("psi.sels").to_string(),
            sum("psi.normalize-copies").to_string(),
            sum("psi.congruence-copies").to_string(),
            sum("psi.folded").to_string(),
            sum("regalloc.ssa.copies-before").to_string(),
            sum("regalloc.ssa.copies-after").to_string(),
            ratio(cycles as f64, base as f64),
        ]);
    }
    if rows.is_empty() {
        return None;
    }
    let mut md = String::from(
        "\n### Out of Psi-SSA: copies per phase (de Ferrière's Figs. 9 and 10)\n\n\
         Summed over the programs' own code (`-Cllvm-args=stats`). ψs: made by \
         if-conversion; `sel`s: what `psi-lowering=sel` made of them; normalize and \
         ψ-congruence: the predicated copies of `psi-lowering=predicated-copies` by \
         phase, folded: arguments whose definition keeps the class's register instead \
         of a copy; copies before: copies and block arguments the allocator receives; \
         moves after: the moves it emits (φ-congruence and the copies that stay). \
         Cycles: all programs' sum over the default build's.\n\n",
    );
    md.push_str(&table(
        &[
            "build",
            "ψs",
            "sels",
            "normalize",
            "ψ-congruence",
            "folded",
            "copies before",
            "moves after",
            "cycles ×",
        ],
        &rows,
    ));
    Some(md)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(cycles: u64, counters: &[(&str, u64)]) -> Figures {
        let mut c = Counters::default();
        for &(k, v) in counters {
            c.sums.insert(k.into(), v);
        }
        Figures {
            cycles,
            bundles: cycles,
            ops: cycles,
            nullified: 0,
            stalls: 0,
            branches: 0,
            own_code: 800,
            text: 8000,
            sim_time: std::time::Duration::ZERO,
            counters: (!counters.is_empty()).then_some(c),
            pipelined: Vec::new(),
        }
    }

    fn config(args: &[&str], counters: bool) -> Config {
        Config {
            label: args.join(" "),
            slug: String::new(),
            llvm_args: args.iter().map(|s| s.to_string()).collect(),
            counters,
        }
    }

    #[test]
    fn one_row_per_build_with_counters_summed_over_the_programs() {
        let configs = [
            config(&[], true),
            config(&["dce=off"], false),
            config(&["psi-lowering=predicated-copies"], true),
        ];
        let sel = [
            ("ifconv.psis", 3),
            ("psi.sels", 4),
            ("regalloc.ssa.copies-after", 5),
        ];
        let copies = [
            ("ifconv.psis", 3),
            ("psi.normalize-copies", 1),
            ("psi.congruence-copies", 2),
            ("psi.folded", 1),
            ("regalloc.ssa.copies-after", 6),
        ];
        let figures = vec![
            vec![figures(100, &sel), figures(100, &sel)],
            vec![figures(1, &[]), figures(1, &[])],
            vec![figures(90, &copies), figures(80, &copies)],
        ];
        let md = table_of(&configs, &figures).expect("builds with counters");
        assert!(
            md.contains("| default | 6 | 8 | 0 | 0 | 0 | 0 | 10 | 1.000 |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| `psi-lowering=predicated-copies` | 6 | 0 | 2 | 4 | 2 | 0 | 12 | 0.850 |"
            ),
            "{md}"
        );
        assert!(!md.contains("dce=off"), "{md}");
        assert!(wants_counters("psi-lowering=sel") && !wants_counters("dce=off"));
    }
}

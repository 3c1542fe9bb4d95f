//! The sequentialization part of the programs benchmark: Lawrence's method (by
//! demand, the default) against the structural destruction, per program, from the
//! ablation's `sequentialize=structural` column (issue 15's measurements). Both
//! builds pass `-Cllvm-args=stats`, so the backend's counters give the static
//! figures: the SSA IR instructions the sequentialization writes
//! (`sequentialize.insts`) and the moves left after register allocation
//! (`regalloc.ssa.copies-after`: the moves at joins, where block arguments meet, and
//! the few around calls).

use super::{Config, Counters, Figures, ratio};
use crate::bench_report::{geomean, table};

/// The option of the ablation column this section compares with.
pub const STRUCTURAL: &str = "sequentialize=structural";

/// Whether `config` is the structural destruction's column (its counters are kept).
pub fn is_structural(config: &Config) -> bool {
    config.llvm_args.len() == 1 && config.llvm_args[0] == STRUCTURAL
}

/// The table and its summary line, or nothing when the ablation has no structural
/// column (the backend's default is not Lawrence's method).
pub fn table_of(
    names: &[String],
    configs: &[Config],
    figures: &[Vec<Figures>],
) -> Option<(String, String)> {
    let s = configs.iter().position(is_structural)?;
    let (demand, structural) = (&figures[0], &figures[s]);
    let counter = |f: &Figures, key: &str| f.counters.as_ref().map_or(0, |c: &Counters| c.get(key));
    // (heading, the figure of a program in one build)
    type Get = fn(&Figures, &dyn Fn(&Figures, &str) -> u64) -> u64;
    let columns: [(&str, Get); 6] = [
        ("cycles", |f, _| f.cycles),
        ("ops", |f, _| f.ops),
        ("taken branches", |f, _| f.branches),
        ("own code (bytes)", |f, _| f.own_code),
        ("IR instructions", |f, c| c(f, "sequentialize.insts")),
        ("moves after allocation", |f, c| {
            c(f, "regalloc.ssa.copies-after")
        }),
    ];
    let mut header = vec!["program".to_string()];
    for (name, _) in &columns {
        header.push(format!("{name}: structural → by demand"));
        header.push("×".into());
    }
    let mut rows = Vec::new();
    for (p, name) in names.iter().enumerate() {
        let mut row = vec![name.clone()];
        for (_, get) in &columns {
            let (a, b) = (get(&structural[p], &counter), get(&demand[p], &counter));
            row.push(format!("{a} → {b}"));
            row.push(ratio(b as f64, a as f64));
        }
        rows.push(row);
    }
    let mut geo = vec!["**geomean ×**".to_string()];
    let mut means = Vec::new();
    for (_, get) in &columns {
        let r = geomean((0..names.len()).filter_map(|p| {
            let (a, b) = (get(&structural[p], &counter), get(&demand[p], &counter));
            (a > 0 && b > 0).then(|| b as f64 / a as f64)
        }))
        .unwrap_or(0.0);
        geo.push(String::new());
        geo.push(format!("{r:.3}"));
        means.push(r);
    }
    rows.push(geo);
    let mut md = String::from(
        "\n### Sequentialization: Lawrence's method against the structural destruction\n\n\
         The default build (by demand, `sequentialize=lawrence`) beside the ablation's \
         `sequentialize=structural` build of the same programs (the sysroot as built: \
         only the program's own crate changes). IR instructions are those the \
         sequentialization writes (`sequentialize.insts`, the program's own code); moves \
         are the register moves left after allocation (`regalloc.ssa.copies-after`: \
         moves at joins and around calls). × is by demand over structural.\n\n",
    );
    let heads: Vec<&str> = header.iter().map(String::as_str).collect();
    md.push_str(&table(&heads, &rows));
    let summary = format!(
        "by demand against structural (geomean ×): cycles {:.3}, ops {:.3}, taken \
         branches {:.3}, own code {:.3}, IR instructions {:.3}, moves {:.3}",
        means[0], means[1], means[2], means[3], means[4], means[5]
    );
    Some((md, summary))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(cycles: u64, insts: u64) -> Figures {
        let mut counters = Counters::default();
        counters.sums.insert("sequentialize.insts".into(), insts);
        counters
            .sums
            .insert("regalloc.ssa.copies-after".into(), insts / 10);
        Figures {
            cycles,
            bundles: cycles,
            ops: cycles * 2,
            nullified: 0,
            stalls: 0,
            branches: cycles / 4,
            own_code: insts * 8,
            text: insts * 8,
            sim_time: std::time::Duration::ZERO,
            counters: Some(counters),
            pipelined: Vec::new(),
        }
    }

    fn config(args: &[&str]) -> Config {
        Config {
            label: args.join(" "),
            slug: String::new(),
            llvm_args: args.iter().map(|s| s.to_string()).collect(),
            counters: true,
        }
    }

    #[test]
    fn compares_the_default_with_the_structural_column() {
        let names = vec!["a".to_string(), "b".to_string()];
        let configs = [config(&[]), config(&["dce=off"]), config(&[STRUCTURAL])];
        let figures = vec![
            vec![figures(90, 110), figures(200, 100)],
            vec![figures(1, 1), figures(1, 1)],
            vec![figures(100, 100), figures(200, 100)],
        ];
        let (md, summary) = table_of(&names, &configs, &figures).expect("a structural column");
        assert!(md.contains("| a | 100 → 90 | 0.900 |"), "{md}");
        assert!(md.contains("| b | 200 → 200 | 1.000 |"), "{md}");
        // geomean of 0.9 and 1.0
        assert!(
            summary.starts_with("by demand against structural (geomean ×): cycles 0.949"),
            "{summary}"
        );
        assert!(summary.contains("IR instructions 1.049"), "{summary}");
        assert!(table_of(&names, &configs[..2], &figures[..2]).is_none());
    }
}

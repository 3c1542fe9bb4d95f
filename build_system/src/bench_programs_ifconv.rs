//! The predication part of the programs benchmark: the default build (if-conversion
//! on) against the ablation's `if-convert=off` column, per program (issue 16's
//! measurements): cycles, IPC (operations per cycle, nullified ones included, as the
//! machine issues them), taken branches, nullified operations and code size, and from
//! the backend's counters (both builds pass `-Cllvm-args=stats`) the regions
//! converted and the `sel`s their ψs became.

use super::{Config, Counters, Figures, ratio};
use crate::bench_report::{geomean, table};

/// The option of the ablation column this section compares with.
pub const OFF: &str = "if-convert=off";

/// Whether `config` is the column without if-conversion (its counters are kept).
pub fn is_off(config: &Config) -> bool {
    config.llvm_args.len() == 1 && config.llvm_args[0] == OFF
}

fn ipc(f: &Figures) -> f64 {
    if f.cycles == 0 {
        0.0
    } else {
        f.ops as f64 / f.cycles as f64
    }
}

/// The table and its summary line, or nothing when the ablation has no
/// `if-convert=off` column (if-conversion is not the backend's default).
pub fn table_of(
    names: &[String],
    configs: &[Config],
    figures: &[Vec<Figures>],
) -> Option<(String, String)> {
    let s = configs.iter().position(is_off)?;
    let (on, off) = (&figures[0], &figures[s]);
    let counter = |f: &Figures, key: &str| f.counters.as_ref().map_or(0, |c: &Counters| c.get(key));
    let mut rows = Vec::new();
    let (mut cycles, mut branches, mut code, mut ipcs) = (vec![], vec![], vec![], vec![]);
    for (p, name) in names.iter().enumerate() {
        let (a, b) = (&off[p], &on[p]);
        rows.push(vec![
            name.clone(),
            format!("{} → {}", a.cycles, b.cycles),
            ratio(b.cycles as f64, a.cycles as f64),
            format!("{:.2} → {:.2}", ipc(a), ipc(b)),
            format!("{} → {}", a.branches, b.branches),
            ratio(b.branches as f64, a.branches as f64),
            format!("{} → {}", a.nullified, b.nullified),
            format!("{} → {}", a.own_code, b.own_code),
            ratio(b.own_code as f64, a.own_code as f64),
            counter(b, "ifconv.regions").to_string(),
            counter(b, "psi.sels").to_string(),
        ]);
        if a.cycles > 0 && b.cycles > 0 {
            cycles.push(b.cycles as f64 / a.cycles as f64);
        }
        if a.branches > 0 && b.branches > 0 {
            branches.push(b.branches as f64 / a.branches as f64);
        }
        if a.own_code > 0 && b.own_code > 0 {
            code.push(b.own_code as f64 / a.own_code as f64);
        }
        ipcs.push((ipc(a), ipc(b)));
    }
    let g = |v: &[f64]| geomean(v.iter().copied()).unwrap_or(0.0);
    let (ipc_off, ipc_on) = (
        g(&ipcs
            .iter()
            .map(|x| x.0)
            .filter(|&x| x > 0.0)
            .collect::<Vec<_>>()),
        g(&ipcs
            .iter()
            .map(|x| x.1)
            .filter(|&x| x > 0.0)
            .collect::<Vec<_>>()),
    );
    rows.push(vec![
        "**geomean**".into(),
        String::new(),
        format!("{:.3}", g(&cycles)),
        format!("{ipc_off:.2} → {ipc_on:.2}"),
        String::new(),
        format!("{:.3}", g(&branches)),
        String::new(),
        String::new(),
        format!("{:.3}", g(&code)),
        String::new(),
        String::new(),
    ]);
    let mut md = String::from(
        "\n### Predication: with if-conversion against without\n\n\
         The default build (if-conversion into Psi-SSA, `docs/predication.md`) beside the \
         ablation's `if-convert=off` build of the same programs (the sysroot as built: \
         only the program's own crate changes). IPC counts the operations the machine \
         issues, nullified ones included. Regions and `sel`s are the backend's counters \
         for the program's own code. × is with over without.\n\n",
    );
    md.push_str(&table(
        &[
            "program",
            "cycles: off → on",
            "×",
            "IPC",
            "taken branches",
            "×",
            "nullified ops",
            "own code (bytes)",
            "×",
            "regions",
            "sels",
        ],
        &rows,
    ));
    let summary = format!(
        "if-conversion on against off (geomean): cycles ×{:.3}, taken branches ×{:.3}, \
         own code ×{:.3}, IPC {ipc_off:.2} → {ipc_on:.2}",
        g(&cycles),
        g(&branches),
        g(&code)
    );
    Some((md, summary))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(cycles: u64, ops: u64, branches: u64, regions: u64) -> Figures {
        let mut counters = Counters::default();
        counters.sums.insert("ifconv.regions".into(), regions);
        counters.sums.insert("psi.sels".into(), regions * 2);
        Figures {
            cycles,
            bundles: cycles,
            ops,
            nullified: regions,
            stalls: 0,
            branches,
            own_code: 800,
            text: 8000,
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
    fn compares_the_default_with_the_column_without_if_conversion() {
        let names = vec!["a".to_string(), "b".to_string()];
        let configs = [config(&[]), config(&["dce=off"]), config(&[OFF])];
        let figures = vec![
            vec![figures(80, 160, 10, 3), figures(100, 100, 20, 0)],
            vec![figures(1, 1, 1, 0), figures(1, 1, 1, 0)],
            vec![figures(100, 120, 20, 0), figures(100, 100, 20, 0)],
        ];
        let (md, summary) = table_of(&names, &configs, &figures).expect("an if-convert=off column");
        assert!(
            md.contains("| a | 100 → 80 | 0.800 | 1.20 → 2.00 | 20 → 10 | 0.500 |"),
            "{md}"
        );
        assert!(md.contains("| 3 | 6 |"), "{md}");
        // geomean of 0.8 and 1.0
        assert!(summary.contains("cycles ×0.894"), "{summary}");
        assert!(table_of(&names, &configs[..2], &figures[..2]).is_none());
    }
}

//! The software-pipelined loops one by one (issue 18: "the report lists every loop"),
//! for the kernels (`bench_hexagon`) and the programs (`bench_programs`): the
//! backend's `modulo-report=on` lines read from rustc's stderr and made a table.

/// The backend's report of each pipelined loop (`vliw-modulo: FUNCTION BLOCK: N ops,
/// ResMII a, RecMII b, MinII c, II d, S stages, block schedule L cycles`), each
/// followed by what the bundler made of its kernel (`vliw-modulo-kernel: FUNCTION
/// BLOCK: II d, K copies, C cycles per trip`) as `REPORT; KERNEL` when the backend
/// reported that too. Other lines are not looked at.
pub fn report_lines(stderr: &str) -> Vec<String> {
    let kernels: Vec<&str> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("vliw-modulo-kernel: "))
        .collect();
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("vliw-modulo: "))
        .map(|l| {
            let key = l.split(':').next().unwrap_or("");
            match kernels.iter().find(|k| k.split(':').next() == Some(key)) {
                Some(k) => format!("{l}; {}", k[key.len() + 1..].trim()),
                None => l.to_string(),
            }
        })
        .collect()
}

/// One pipelined loop: the program it is in (empty for the kernels' library, which is
/// one crate) and its `report_lines` line.
pub struct Loop {
    pub program: String,
    pub line: String,
}

/// The table of `loops` with a sentence that counts them; a `program` column when
/// any loop names its program. Function names are shown as `readable` makes them.
pub fn table(loops: &[Loop], readable: impl Fn(&[&str]) -> Vec<String>) -> String {
    if loops.is_empty() {
        return "No inner loop was software-pipelined in this build (modulo scheduling: \
                `modulo=on`, docs/machine.md §6c).\n\n"
            .into();
    }
    let with_program = loops.iter().any(|l| !l.program.is_empty());
    let mut rows = String::new();
    if with_program {
        rows += "| program ";
    }
    rows += "| function | block | ops | ResMII | RecMII | MinII | II | stages | block schedule (cycles) | kernel copies | cycles per trip (bundled) |\n";
    if with_program {
        rows += "|---";
    }
    rows += "|---|---|---|---|---|---|---|---|---|---|---|\n";
    let functions: Vec<&str> = loops
        .iter()
        .map(|l| l.line.split_whitespace().next().unwrap_or("?"))
        .collect();
    let names = readable(&functions);
    let (mut at_min, mut trips_at_ii, mut counted) = (0, 0, 0);
    for (i, l) in loops.iter().enumerate() {
        let (report, kernel) = l.line.split_once("; ").unwrap_or((&l.line, ""));
        let block = report.split_whitespace().nth(1).unwrap_or("?");
        let block = block.trim_end_matches(':');
        // the numbers after the function and block: ops, ResMII, RecMII, MinII, II,
        // stages, length
        let after = report.split_once(": ").map_or("", |(_, rest)| rest);
        let f: Vec<&str> = after
            .split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .collect();
        if f.len() != 7 {
            continue;
        }
        counted += 1;
        if f[3] == f[4] {
            at_min += 1;
        }
        // `II d, K copies, C cycles per trip`
        let k: Vec<&str> = kernel
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|w| !w.is_empty() && *w != ".")
            .collect();
        let (copies, per_trip) = match k[..] {
            [_, copies, per_trip, ..] => (copies, per_trip),
            _ => ("–", "–"),
        };
        if per_trip
            .parse::<f64>()
            .is_ok_and(|c| f[4].parse::<f64>().is_ok_and(|ii| c <= ii))
        {
            trips_at_ii += 1;
        }
        if with_program {
            rows += &format!("| {} ", l.program);
        }
        let function = names.get(i).map_or(functions[i], String::as_str);
        rows += &format!(
            "| `{function}` | {block} | {} | {} | {} | {} | {} | {} | {} | {copies} | {per_trip} |\n",
            f[0], f[1], f[2], f[3], f[4], f[5], f[6]
        );
    }
    format!(
        "{counted} inner loops software-pipelined, {at_min} at MinII (MinII = max(ResMII, \
         RecMII); the block schedule is one iteration's length without pipelining); in \
         the bundled code {trips_at_ii} of them run a trip in II cycles (cycles per trip: \
         the kernel's bundles after allocation and bundling, averaged over its copies \
         with modulo variable expansion, `modulo-expand`):\n\n{rows}\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn as_is(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn report_lines_join_each_loop_with_its_kernel() {
        let stderr = "vliw-modulo: f block3: 8 ops, ResMII 3, RecMII 1, MinII 3, II 3, 2 stages, block schedule 7 cycles\n\
                      vliw-modulo-declined: f block9: not taken\n\
                      vliw-stats: modulo.loops=2\n\
                      vliw-modulo: g block2: 9 ops, ResMII 3, RecMII 1, MinII 3, II 4, 2 stages, block schedule 7 cycles\n\
                      vliw-modulo-kernel: f block3: II 3, 2 copies, 3.00 cycles per trip\n";
        assert_eq!(
            report_lines(stderr),
            vec![
                "f block3: 8 ops, ResMII 3, RecMII 1, MinII 3, II 3, 2 stages, block schedule 7 cycles; II 3, 2 copies, 3.00 cycles per trip",
                "g block2: 9 ops, ResMII 3, RecMII 1, MinII 3, II 4, 2 stages, block schedule 7 cycles",
            ]
        );
    }

    #[test]
    fn pipelined_loops_become_a_table() {
        let loops: Vec<Loop> = [
            "dot_i32 block3: 22 ops, ResMII 6, RecMII 5, MinII 6, II 6, 2 stages, block schedule 10 cycles",
            "fnv1a64 block6: 8 ops, ResMII 3, RecMII 5, MinII 5, II 6, 3 stages, block schedule 7 cycles; II 6, 4 copies, 6.25 cycles per trip",
            "sum block2: 8 ops, ResMII 3, RecMII 1, MinII 3, II 3, 2 stages, block schedule 7 cycles; II 3, 2 copies, 3.00 cycles per trip",
        ]
        .iter()
        .map(|l| Loop {
            program: String::new(),
            line: l.to_string(),
        })
        .collect();
        let t = table(&loops, as_is);
        assert!(
            t.starts_with("3 inner loops software-pipelined, 2 at MinII"),
            "{t}"
        );
        assert!(
            t.contains("in the bundled code 1 of them run a trip in II cycles"),
            "{t}"
        );
        assert!(
            t.contains("| `dot_i32` | block3 | 22 | 6 | 5 | 6 | 6 | 2 | 10 | – | – |"),
            "{t}"
        );
        assert!(
            t.contains("| `fnv1a64` | block6 | 8 | 3 | 5 | 5 | 6 | 3 | 7 | 4 | 6.25 |"),
            "{t}"
        );
        assert!(!t.contains("| program"), "{t}");
        assert!(table(&[], as_is).starts_with("No inner loop"));
    }

    #[test]
    fn a_program_column_and_digits_in_names_do_not_shift_the_numbers() {
        let loops = vec![Loop {
            program: "sha256".into(),
            line: "_RNvCs1a2_6sha2563run block12: 40 ops, ResMII 10, RecMII 26, MinII 26, II 27, 2 stages, block schedule 30 cycles".into(),
        }];
        let t = table(&loops, |n| vec![format!("demangled {}", n[0].len())]);
        assert!(
            t.starts_with("1 inner loops software-pipelined, 0 at MinII"),
            "{t}"
        );
        assert!(
            t.contains(
                "| sha256 | `demangled 21` | block12 | 40 | 10 | 26 | 26 | 27 | 2 | 30 | – | – |"
            ),
            "{t}"
        );
    }
}

//! Compile time against function size (not run by default: `cargo test --release -p
//! vliw-machine --test scaling -- --ignored --nocapture`): every phase should grow
//! linearly (at most n log n) with the number of instructions.

use vliw_ir::*;
use vliw_pipeline::{Options, Timings, compile_module};

/// A function of `n` blocks, each with a few operations, a call, loads and stores, a
/// conditional branch passing arguments and a switch every so often.
fn big_function(n: usize) -> Module {
    let mut text = String::from(
        "function @big(i64, i64) -> i64 export {\n    ss0 = stack_slot 64, align 8\n    fn0 = @big(i64, i64) -> i64\nblock0(v0: i64, v1: i64):\n    jump block1(v0, v1)\n",
    );
    let mut v = 10;
    for b in 1..=n {
        let (x, y) = (v, v + 1);
        text += &format!("block{b}(v{x}: i64, v{y}: i64):\n");
        text += &format!(
            "    v{} = iadd v{x}, v{y}\n    v{} = imul v{}, v{x}\n",
            v + 2,
            v + 3,
            v + 2
        );
        text += &format!(
            "    v{} = stack_addr ss0\n    store v{}, v{}+8\n    v{} = load.i64 v{}+8\n",
            v + 4,
            v + 3,
            v + 4,
            v + 5,
            v + 4
        );
        text += &format!("    v{} = call fn0(v{}, v{x})\n", v + 6, v + 5);
        text += &format!("    v{} = icmp slt v{}, v{y}\n", v + 7, v + 6);
        let next = b + 1;
        if b == n {
            text += &format!("    return v{}\n", v + 6);
        } else if b % 10 == 0 {
            text += &format!(
                "    v{} = ireduce.i32 v{}\n    switch v{}, block{next}(v{}, v{x}), [0 -> block{next}(v{x}, v{y}), 1 -> block{next}(v{y}, v{x}), 2 -> block{next}(v{}, v{}), 3 -> block{next}(v{x}, v{x})]\n",
                v + 8,
                v + 6,
                v + 8,
                v + 6,
                v + 5,
                v + 3
            );
        } else {
            text += &format!(
                "    brif v{}, block{next}(v{y}, v{x}), block{next}(v{}, v{})\n",
                v + 7,
                v + 5,
                v + 6
            );
        }
        v += 10;
    }
    text += "}\n";
    parse_module(&text).unwrap()
}

#[test]
#[ignore]
fn phases_grow_linearly() {
    for n in [1000, 2000, 4000, 8000] {
        let m = big_function(n);
        let t = Timings::new();
        let o = Options {
            timings: Some(t.clone()),
            ..Options::default()
        };
        let start = std::time::Instant::now();
        compile_module(&m, &o).unwrap();
        let insts = m.functions[0].dfg.num_insts();
        println!(
            "{n} blocks, {insts} IR instructions: {:.1} ms",
            start.elapsed().as_secs_f64() * 1e3
        );
        print!("{}", t.to_text());
    }
}

/// The `sequentialize` phase by both methods, against function size (opt-in as
/// above): Lawrence's method must not grow worse than n log n.
#[test]
#[ignore]
fn sequentialization_grows_alike_by_both_methods() {
    for n in [1000, 2000, 4000, 8000] {
        let m = big_function(n);
        let mut line = format!("{n} blocks:");
        for how in ["structural", "lawrence"] {
            let t = Timings::new();
            let o = Options {
                timings: Some(t.clone()),
                ..Options::parse(&format!("sequentialize={how}")).unwrap()
            };
            compile_module(&m, &o).unwrap();
            let phase = (t.to_text().lines())
                .find(|l| l.contains("sequentialize"))
                .unwrap_or("")
                .trim()
                .to_string();
            line += &format!("  {how}: {phase}");
        }
        println!("{line}");
    }
}

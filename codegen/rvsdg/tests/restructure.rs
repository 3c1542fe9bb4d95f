//! The control-flow restructuring (`vliw_rvsdg::restructure`) by differential
//! interpretation: every function of every IR filetest of the repository, hand-written
//! shapes (irreducible loops, several exits, breaks out of nested loops, endless
//! loops, huge switches, short-circuit conditions...) and random CFGs are
//! restructured; the result must verify, be accepted by `structure_tree`, and give the
//! interpreter the same results, traps and output as the original.

mod common;

use common::differential::*;
use common::random_cfg::*;
use vliw_ir::filetest::{Expect, directives};
use vliw_ir::{
    DataValue, Function, Interpreter, Module, TrapKind, parse_module, verify_function,
    verify_module,
};
use vliw_rvsdg::restructure::{RestructureStats, Tree, restructure, structure_tree};

/// Restructures `f` (a copy), checks the result, and returns it with the stats and
/// whether a second restructuring changed anything.
fn restructure_checked(f: &Function) -> Result<(Function, RestructureStats, bool), String> {
    let mut g = f.clone();
    let stats = restructure(&mut g);
    verify_function(&g).map_err(|e| format!("@{}: does not verify:\n{e}\n{g}", f.name))?;
    structure_tree(&g).map_err(|e| format!("not structured: {e}\n{g}"))?;
    let mut h = g.clone();
    let again = restructure(&mut h);
    verify_function(&h).map_err(|e| format!("@{}: second pass does not verify:\n{e}", f.name))?;
    structure_tree(&h).map_err(|e| format!("second pass not structured: {e}\n{h}"))?;
    let changed = again.changed() || h.to_string() != g.to_string();
    Ok((g, stats, changed))
}

/// Restructures every function of `module`.
fn restructure_module(module: &Module) -> Result<(Module, RestructureStats, usize), String> {
    let mut new = module.clone();
    let mut total = RestructureStats::default();
    let mut not_idempotent = 0;
    for f in &mut new.functions {
        let (g, stats, changed) = restructure_checked(f)?;
        total.add(&stats);
        not_idempotent += usize::from(changed);
        *f = g;
    }
    verify_module(&new).map_err(|e| e.to_string())?;
    Ok((new, total, not_idempotent))
}

// ---- the repository's filetests --------------------------------------------------

#[test]
fn every_filetest_function_restructures_and_runs_the_same() {
    let (root, files) = filetests();

    let mut failures = Vec::new();
    let mut tally = Compared::default();
    let mut total = RestructureStats::default();
    let (mut modules, mut functions, mut blocks_before, mut params_before) = (0, 0, 0, 0);
    let (mut not_idempotent, mut skipped, mut unstructured_before) = (0, 0, 0);
    let (mut blocks_after, mut params_after) = (0, 0);
    for path in &files {
        let name = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(path).expect("read");
        let Ok(module) = parse_module(&text) else {
            continue;
        };
        if verify_module(&module).is_err() {
            continue;
        }
        // unwind edges are not restructured: the RVSDG does not take such functions
        // yet (issue 17)
        if module
            .functions
            .iter()
            .any(|f| f.unwinding_opcode().is_some())
        {
            skipped += 1;
            continue;
        }
        let (new, stats, ni) = match restructure_module(&module) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        modules += 1;
        for f in &module.functions {
            functions += 1;
            blocks_before += f.layout.blocks().count();
            params_before += f
                .layout
                .blocks()
                .map(|b| f.dfg.block_params(b).len())
                .sum::<usize>();
            unstructured_before += usize::from(structure_tree(f).is_err());
        }
        for f in &new.functions {
            blocks_after += f.layout.blocks().count();
            params_after += f
                .layout
                .blocks()
                .map(|b| f.dfg.block_params(b).len())
                .sum::<usize>();
        }
        total.add(&stats);
        not_idempotent += ni;
        let Ok((runs, _)) = directives(&text) else {
            continue;
        };
        for r in &runs {
            let Some(args) = parse_args(&module, &r.func, &r.args) else {
                skipped += 1;
                continue;
            };
            if matches!(
                r.expect,
                Expect::Trap(_) | Expect::Values(_) | Expect::Nothing
            ) && let Err(e) = compare(&module, &new, &r.func, &args, &mut tally)
            {
                failures.push(format!("{name}: line {}: {e}", r.line));
            }
        }
    }
    println!(
        "filetests: {modules} modules, {functions} functions ({unstructured_before} not \
         structured before), {} runs compared ({} reached unreachable, {} step limit), \
         {skipped} runs skipped (arguments not readable)",
        tally.runs, tally.undefined, tally.step_limit
    );
    println!(
        "growth: blocks {blocks_before} -> {blocks_after} (+{}), block parameters \
         {params_before} -> {params_after} (+{}); {total:?}",
        blocks_after - blocks_before,
        params_after - params_before
    );
    println!("idempotence: {not_idempotent} functions changed by a second restructuring");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(tally.runs >= 400, "only {} runs compared", tally.runs);
    assert_eq!(not_idempotent, 0, "restructuring is not idempotent");
}

// ---- hand-written shapes ---------------------------------------------------------

/// Restructures every function of the module text `src`, checks the result, compares
/// the `; run:` lines, and returns the restructured module with the total stats.
fn check_source(src: &str) -> (Module, RestructureStats) {
    let module = parse_module(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    verify_module(&module).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let (new, stats, not_idempotent) =
        restructure_module(&module).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(not_idempotent, 0, "not idempotent:\n{new}");
    let (runs, _) = directives(src).expect("directives");
    assert!(!runs.is_empty(), "no run lines");
    let mut tally = Compared::default();
    for r in &runs {
        let args = parse_args(&module, &r.func, &r.args).expect("run arguments");
        compare(&module, &new, &r.func, &args, &mut tally)
            .unwrap_or_else(|e| panic!("line {}: {e}\n{new}", r.line));
        // The run line's expectation holds too.
        if let Expect::Values(vals) = &r.expect {
            let got = run(&module, &r.func, &args, STEPS).result.expect("returns");
            let want: Vec<DataValue> = vals
                .iter()
                .zip(&got)
                .map(|(s, v)| DataValue::parse(v.ty(), s).expect("expected value"))
                .collect();
            assert_eq!(got, want, "line {}: the test's expectation", r.line);
        }
    }
    (new, stats)
}

fn tree_of(module: &Module, name: &str) -> Tree {
    structure_tree(module.function(name).expect("function")).expect("structured")
}

#[test]
fn irreducible_loop_with_two_entries_gets_a_mux_header() {
    let src = "
function @irr(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = iconst.i32 0
    v3 = icmp ne v1, v2
    brif v3, block1(v0), block2(v0)
block1(v4: i32):
    v5 = iconst.i32 3
    v6 = iadd v4, v5
    v7 = iconst.i32 100
    v8 = icmp sgt v6, v7
    brif v8, block3(v6), block2(v6)
block2(v9: i32):
    v10 = iconst.i32 2
    v11 = imul v9, v10
    v12 = iconst.i32 90
    v13 = icmp sgt v11, v12
    brif v13, block4(v11), block1(v11)
block3(v14: i32):
    return v14
block4(v15: i32):
    v16 = ineg v15
    return v16
}
; run: @irr(1, 0) == -122
; run: @irr(1, 1) == -106
; run: @irr(5, 1) == -170
; run: @irr(60, 0) == -120
; run: @irr(95, 1) == -196
";
    let (new, stats) = check_source(src);
    assert_eq!(stats.loops, 1);
    assert_eq!(stats.loop_entry_muxes, 1);
    assert_eq!(stats.loop_exit_muxes, 1);
    let tree = tree_of(&new, "irr");
    assert_eq!(tree.counts().0, 1, "{tree:?}");
}

#[test]
fn loop_with_several_exits_to_different_targets() {
    let src = "
function @multi_exit(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    jump block1(v1)
block1(v2: i32):
    v3 = icmp eq v2, v0
    brif v3, block4(v2), block2
block2:
    v4 = iconst.i32 7
    v5 = icmp eq v2, v4
    brif v5, block5, block3
block3:
    v6 = iconst.i32 1
    v7 = iadd v2, v6
    v8 = iconst.i32 50
    v9 = icmp sgt v7, v8
    brif v9, block6(v7), block1(v7)
block4(v10: i32):
    v20 = imul v10, v2
    return v20
block5:
    trap 3
block6(v11: i32):
    v12 = iconst.i32 1000
    v13 = iadd v11, v12
    return v13
}
; run: @multi_exit(3) == 9
; run: @multi_exit(0) == 0
; run: @multi_exit(10) trap: trap 3
; run: @multi_exit(-5) trap: trap 3
";
    let (new, stats) = check_source(src);
    assert_eq!(stats.loops, 1);
    assert_eq!(stats.loop_exit_muxes, 1);
    assert_eq!(stats.exit_muxes, 1, "return and trap 3");
    let f = new.function("multi_exit").unwrap();
    let returns = f
        .layout
        .blocks()
        .filter(|&b| f.dfg.opcode(f.layout.last_inst(b).unwrap()) == vliw_ir::Opcode::Return)
        .count();
    assert_eq!(returns, 1);
}

#[test]
fn break_out_of_two_nested_loops() {
    let src = "
function @nested_break(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = iconst.i32 0
    jump block1(v2, v2)
block1(v3: i32, v4: i32):
    v5 = icmp slt v3, v0
    brif v5, block2(v2, v4), block6(v4)
block2(v6: i32, v7: i32):
    v8 = icmp slt v6, v3
    brif v8, block3, block4(v7)
block3:
    v9 = imul v3, v6
    v10 = iadd v7, v9
    v11 = icmp sgt v10, v1
    brif v11, block7(v10), block8
block8:
    v12 = iconst.i32 1
    v13 = iadd v6, v12
    jump block2(v13, v10)
block4(v14: i32):
    v15 = iconst.i32 1
    v16 = iadd v3, v15
    jump block1(v16, v14)
block6(v17: i32):
    return v17
block7(v18: i32):
    v19 = iconst.i32 -1
    v20 = imul v18, v19
    v21 = iadd v20, v3
    return v21
}
; run: @nested_break(5, 1000) == 35
; run: @nested_break(10, 20) == -19
; run: @nested_break(0, 0) == 0
; run: @nested_break(6, 5) == -8
";
    let (new, stats) = check_source(src);
    assert_eq!(stats.loops, 2);
    let tree = tree_of(&new, "nested_break");
    assert_eq!(tree.counts().0, 2);
}

#[test]
fn endless_loops_get_a_never_taken_exit() {
    let src = "
function @spin(i32) -> i32 {
block0(v0: i32):
    jump block1(v0)
block1(v1: i32):
    v2 = iconst.i32 1
    v3 = iadd v1, v2
    jump block1(v3)
}

function @spin_nothing() {
block0:
    jump block1
block1:
    jump block2
block2:
    jump block1
}

function @maybe_spin(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    v2 = icmp eq v0, v1
    brif v2, block1, block2
block1:
    jump block1
block2:
    return v0
}
; run: @spin(1) trap: step
; run: @spin_nothing() trap: step
; run: @maybe_spin(0) trap: step
; run: @maybe_spin(4) == 4
";
    let (new, stats) = check_source(src);
    assert_eq!(stats.endless_loops, 3);
    for f in &new.functions {
        let mut interp = Interpreter::new(&new);
        interp.set_step_limit(10_000);
        let args: Vec<DataValue> = f
            .signature
            .params
            .iter()
            .map(|_| DataValue::I32(0))
            .collect();
        let r = interp.call(&f.name, &args);
        assert!(
            matches!(&r, Err(t) if t.kind == TrapKind::StepLimit),
            "@{}: {r:?}",
            f.name
        );
    }
}

#[test]
fn switch_with_300_cases() {
    let mut src = String::from(
        "function @big(i32) -> i32 {\nblock0(v0: i32):\n    v1 = iconst.i32 1\n    switch v0, block1000(v1), [",
    );
    let mut cases = Vec::new();
    let mut blocks = String::new();
    // Every fifth case goes straight to the join with `v0`; a multiple of seven
    // (unless the previous case went to the join) shares the previous case's block;
    // the others get a block of their own.
    let target_of = |i: i64| -> Option<i64> {
        if i % 5 == 0 {
            None
        } else if i % 7 == 0 && (i - 1) % 5 != 0 {
            Some(i - 1)
        } else {
            Some(i)
        }
    };
    let mut arms = 1; // the default
    let mut to_join = false;
    for i in 0..300i64 {
        let Some(target) = target_of(i) else {
            cases.push(format!("{i} -> block1000(v0)"));
            to_join = true;
            continue;
        };
        cases.push(format!("{i} -> block{}", target + 1));
        if target == i {
            arms += 1;
            blocks.push_str(&format!(
                "block{b}:\n    v{c} = iconst.i32 {k}\n    v{d} = imul v0, v{c}\n    jump block1000(v{d})\n",
                b = i + 1,
                c = 10 + 2 * i,
                d = 11 + 2 * i,
                k = i * 3 + 1
            ));
        }
    }
    arms += usize::from(to_join);
    src.push_str(&cases.join(", "));
    src.push_str("]\n");
    src.push_str(&blocks);
    src.push_str("block1000(v5: i32):\n    v6 = iadd v5, v0\n    return v6\n}\n");
    for x in [
        -1i64, 0, 1, 5, 6, 7, 8, 13, 14, 21, 22, 150, 298, 299, 300, 1000,
    ] {
        let y = match (0..300).contains(&x).then(|| target_of(x)) {
            None => 1 + x,
            Some(None) => 2 * x,
            Some(Some(t)) => x * (t * 3 + 1) + x,
        };
        src.push_str(&format!("; run: @big({x}) == {y}\n"));
    }
    let (new, stats) = check_source(&src);
    assert_eq!(stats.blocks_added, 0, "{stats:?}");
    let tree = tree_of(&new, "big");
    let Tree::Seq(items) = &tree else { panic!() };
    let Tree::Branch {
        arms: tree_arms,
        join,
        ..
    } = &items[0]
    else {
        panic!("{tree:?}")
    };
    assert_eq!(join.map(|b| b.to_string()), Some("block1000".to_string()));
    // One arm per logical edge: the default (to the join with v1), the cases to the
    // join with v0 (empty, one edge), one per case block.
    assert_eq!(tree_arms.len(), arms, "{tree_arms:?}");
    assert_eq!(
        tree_arms
            .iter()
            .filter(|(_, a)| a.items().is_empty())
            .count(),
        2
    );
}

#[test]
fn unreachable_blocks_are_removed() {
    let src = "
function @dead(i32) -> i32 {
block0(v0: i32):
    return v0
block1:
    v1 = iconst.i32 5
    jump block2(v1)
block2(v2: i32):
    v3 = iconst.i32 0
    v4 = icmp ne v2, v3
    brif v4, block1, block3
block3:
    return v2
}
; run: @dead(3) == 3
";
    let module = parse_module(src).unwrap();
    let mut f = module.functions[0].clone();
    let stats = restructure(&mut f);
    assert_eq!(stats.unreachable_removed, 3);
    assert_eq!(f.layout.blocks().count(), 1);
    check_source(src);
}

/// A bounds check's panic in a loop (a call that does not return, then `unreachable`)
/// is a dead end: it jumps on to the check's other target, so that it is an arm of a
/// branch inside the loop, not a second way out of the loop and a second kind of exit.
#[test]
fn a_dead_end_in_a_loop_is_detached() {
    let src = r#"
declare function @panic(i64)

function @sum(i64, i64) -> i64 {
    fn0 = @panic(i64)
block0(v0: i64, v1: i64):
    v2 = iconst.i64 0
    jump block1(v2, v2)
block1(v3: i64, v4: i64):
    v5 = icmp slt v3, v0
    brif v5, block2, block4(v4)
block2:
    v6 = icmp ult v3, v1
    brif v6, block3, block5
block3:
    v7 = iadd v4, v3
    v8 = iconst.i64 1
    v9 = iadd v3, v8
    jump block1(v9, v7)
block5:
    call fn0(v3)
    unreachable
block4(v10: i64):
    return v10
}
; run: @sum(4, 10) == 6
; run: @sum(0, 0) == 0
"#;
    let (new, stats) = check_source(src);
    assert_eq!(stats.dead_ends_detached, 1, "{new}");
    assert_eq!(stats.exit_muxes, 0, "one kind of exit left: {new}");
    assert_eq!(stats.loop_exit_muxes, 0, "one way out of the loop: {new}");
}

#[test]
fn return_two_traps_and_unreachable_share_one_exit() {
    let src = r#"
declare function @write(i64, ptr, i64) -> i64
data @msg: rodata align 1 = "oops\n"

function @exits(i32) -> i32 {
    gv0 = symbol @msg
    fn0 = @write(i64, ptr, i64) -> i64
block0(v0: i32):
    switch v0, block4, [0 -> block1, 1 -> block2, 2 -> block3, 3 -> block5]
block1:
    v10 = iconst.i64 1
    v11 = symbol_addr gv0
    v12 = iconst.i64 5
    v13 = call fn0(v10, v11, v12)
    trap 7
block2:
    trap 9
block3:
    unreachable
block5:
    trap 7
block4:
    v1 = iconst.i32 1
    v2 = iadd v0, v1
    return v2
}
; run: @exits(0) trap: trap 7
; run: @exits(1) trap: trap 9
; run: @exits(2) trap: unreachable
; run: @exits(3) trap: trap 7
; run: @exits(5) == 6
"#;
    let (new, stats) = check_source(src);
    assert_eq!(stats.exit_muxes, 1);
    // a switch among terminal blocks is already the end: no dead end is detached
    assert_eq!(stats.dead_ends_detached, 0);
    let tree = tree_of(&new, "exits");
    let Tree::Seq(items) = &tree else { panic!() };
    let Some(Tree::Branch {
        arms, join: None, ..
    }) = items.last()
    else {
        panic!("{tree:?}")
    };
    assert_eq!(
        arms.len(),
        4,
        "return, trap 7, trap 9, unreachable: {tree:?}"
    );
}

#[test]
fn diamond_inside_loops() {
    let src = "
function @do_while(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    jump block1(v1, v1)
block1(v2: i32, v3: i32):
    v4 = iconst.i32 1
    v30 = band v2, v4
    v5 = icmp eq v30, v4
    brif v5, block2, block3
block2:
    v6 = iadd v3, v2
    jump block4(v6)
block3:
    v7 = isub v3, v2
    jump block4(v7)
block4(v8: i32):
    v9 = iadd v2, v4
    v10 = icmp slt v9, v0
    brif v10, block1(v9, v8), block5
block5:
    return v8
}

function @while(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    jump block1(v1, v1)
block1(v2: i32, v3: i32):
    v10 = icmp slt v2, v0
    brif v10, block6, block5
block6:
    v4 = iconst.i32 1
    v30 = band v2, v4
    v5 = icmp eq v30, v4
    brif v5, block3, block2
block2:
    v6 = iadd v3, v2
    jump block4(v6)
block3:
    v7 = isub v3, v2
    jump block4(v7)
block4(v8: i32):
    v9 = iadd v2, v4
    jump block1(v9, v8)
block5:
    return v3
}
; run: @do_while(10) == 5
; run: @do_while(0) == 0
; run: @do_while(7) == -3
; run: @while(10) == -5
; run: @while(0) == 0
; run: @while(7) == 3
";
    let (new, stats) = check_source(src);
    assert_eq!(stats.loops, 2);
    assert_eq!(
        stats.loops_rebuilt, 1,
        "the do-while loop is already tail-controlled"
    );
    assert_eq!(stats.blocks_added, 1, "the while loop's tail");
    for name in ["do_while", "while"] {
        assert_eq!(tree_of(&new, name).counts().0, 1);
    }
}

#[test]
fn short_circuit_arms_need_a_mux() {
    let src = "
function @sc(i32, i32, i32) -> i32 {
block0(v0: i32, v1: i32, v2: i32):
    v3 = iconst.i32 0
    v4 = icmp ne v0, v3
    brif v4, block1, block2
block1:
    v5 = icmp ne v1, v3
    v20 = iadd v0, v1
    brif v5, block3(v20), block2
block2:
    v6 = icmp ne v2, v3
    brif v6, block3(v2), block4
block3(v7: i32):
    v8 = iconst.i32 10
    v21 = iadd v7, v8
    jump block5(v21)
block4:
    v9 = iconst.i32 20
    jump block5(v9)
block5(v10: i32):
    return v10
}
";
    let mut src = src.to_string();
    for a in 0..2 {
        for b in 0..2 {
            for c in 0..3 {
                let want = if a != 0 && b != 0 {
                    a + b + 10
                } else if c != 0 {
                    c + 10
                } else {
                    20
                };
                src.push_str(&format!("; run: @sc({a}, {b}, {c}) == {want}\n"));
            }
        }
    }
    let (_, stats) = check_source(&src);
    // The head's arms continue at block3 and block2 (mux 1); the mux's arm
    // {block2, block4} continues at block3 and block5 (mux 2).
    assert_eq!(stats.branch_muxes, 2);
}

#[test]
fn values_defined_in_an_arm_are_used_after_joins_and_exits() {
    let src = "
function @arm_values(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    v2 = iconst.i32 0
    v3 = icmp sgt v0, v2
    brif v3, block1, block2
block1:
    v4 = imul v0, v1
    v5 = icmp sgt v1, v2
    brif v5, block3, block4
block3:
    v6 = iadd v4, v0
    jump block5
block4:
    v7 = isub v4, v0
    jump block5
block5:
    v8 = iadd v4, v1
    jump block6
block2:
    v9 = iconst.i32 -1
    v10 = icmp eq v0, v9
    brif v10, block7, block8
block7:
    trap 5
block8:
    jump block6
block6:
    v11 = iadd v0, v1
    return v11
}

function @loop_value(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 1
    jump block1(v1)
block1(v2: i32):
    v3 = imul v2, v0
    v4 = iconst.i32 1000
    v5 = icmp sgt v3, v4
    brif v5, block3, block2
block2:
    v6 = iconst.i32 500
    v7 = icmp sgt v3, v6
    brif v7, block4, block5
block5:
    v8 = iadd v2, v1
    jump block1(v8)
block3:
    v9 = iadd v3, v2
    return v9
block4:
    v10 = isub v3, v2
    return v10
}
; run: @arm_values(3, 4) == 7
; run: @arm_values(3, -4) == -1
; run: @arm_values(-1, 2) trap: trap 5
; run: @arm_values(-2, 2) == 0
; run: @loop_value(7) == 432
; run: @loop_value(100) == 594
; run: @loop_value(300) == 598
";
    check_source(src);
}

// ---- random CFGs (the generator is tests/common/random_cfg.rs) -------------------

#[test]
fn random_cfgs_restructure_and_run_the_same() {
    use vliw_ir::{Signature, Type};
    let (count, seed) = count_and_seed(1000);
    let mut failures = Vec::new();
    let mut tally = Compared::default();
    let mut total = RestructureStats::default();
    let (mut not_idempotent, mut unstructured_before) = (0, 0);
    for k in 0..count {
        let s = seed + k as u64;
        let mut rng = Rng(s.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        // Mostly up to 15 blocks, one in eight up to 40.
        let max_blocks = if k % 8 == 7 { 40 } else { 15 };
        let f = random_function(&mut rng, "f", max_blocks);
        if std::env::var("RESTRUCTURE_TRACE").is_ok() {
            eprintln!("seed {s}\n{f}");
        }
        let mut module = Module::new();
        module.declare_function("trace", Signature::new(&[Type::I32], &[]));
        module.functions.push(f);
        if let Err(e) = verify_module(&module) {
            panic!("seed {s}: the generator made invalid IR: {e}\n{module}");
        }
        unstructured_before += usize::from(structure_tree(&module.functions[0]).is_err());
        let (new, stats, ni) = match restructure_module(&module) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("seed {s}: {e}\noriginal:\n{module}"));
                continue;
            }
        };
        total.add(&stats);
        not_idempotent += ni;
        let mut args = vec![(0, 0), (1, -1), (7, 3), (-100, 55), (3, 3)];
        args.push((rng.next() as i32, rng.next() as i32));
        for (a, b) in args {
            let a = [DataValue::I32(a), DataValue::I32(b)];
            if let Err(e) = compare_steps(&module, &new, "f", &a, 20_000, &mut tally) {
                failures.push(format!(
                    "seed {s}: {e}\noriginal:\n{module}\nrestructured:\n{new}"
                ));
                break;
            }
        }
    }
    println!(
        "random CFGs: {count} functions ({unstructured_before} not structured before), {} \
         runs compared ({} reached unreachable, {} step limit); {not_idempotent} changed by \
         a second restructuring; {total:?}",
        tally.runs, tally.undefined, tally.step_limit
    );
    assert!(
        failures.is_empty(),
        "{} failures, the first:\n{}",
        failures.len(),
        failures[0]
    );
    assert_eq!(not_idempotent, 0);
}

// ---- big functions -----------------------------------------------------------------

/// A switch on `v0` with `n` cases, case `i` to its own block, which jumps to `join1`
/// (odd `i`) or `join2` (even `i`); `join1` jumps to `join2`, so the arms continue
/// at two points and get a mux with `n` incoming edges.
fn big_switch(n: usize) -> String {
    let mut s = String::from(
        "function @big_switch(i32) -> i32 {\nblock0(v0: i32):\n    v1 = iconst.i32 3\n    switch v0, block1(v1), [",
    );
    s.push_str(
        &(0..n)
            .map(|i| format!("{i} -> block{}", i + 10))
            .collect::<Vec<_>>()
            .join(", "),
    );
    s.push_str("]\n");
    for i in 0..n {
        let join = if i % 2 == 1 { 1 } else { 2 };
        s.push_str(&format!(
            "block{b}:\n    v{c} = iconst.i32 {i}\n    v{d} = iadd v0, v{c}\n    jump block{join}(v{d})\n",
            b = i + 10,
            c = 10 + 2 * i,
            d = 11 + 2 * i
        ));
    }
    s.push_str("block1(v2: i32):\n    v3 = imul v2, v1\n    jump block2(v3)\nblock2(v4: i32):\n    v5 = iadd v4, v0\n    return v5\n}\n");
    s
}

/// `n` if-else diamonds in sequence, each on the running value, then `n` ifs nested
/// in each other (each arm the next if), then a short-circuit chain of `n`
/// conditions (`c1 && c2 && ...`), all using the arguments (live through all).
fn big_nesting(n: usize) -> String {
    let mut s = String::from(
        "function @big_nesting(i32, i32) -> i32 {\nblock0(v0: i32, v1: i32):\n    v2 = iconst.i32 1\n    jump block1(v0)\n",
    );
    let mut v = 10;
    let mut b = 1;
    // Diamonds: block b(x) -> b+1 | b+2 -> b+3(y)
    for _ in 0..n {
        s.push_str(&format!(
            "block{b}(v{x}: i32):\n    v{c} = icmp slt v{x}, v1\n    brif v{c}, block{t}, block{e}\nblock{t}:\n    v{y} = iadd v{x}, v2\n    jump block{j}(v{y})\nblock{e}:\n    v{z} = isub v{x}, v2\n    jump block{j}(v{z})\n",
            x = v,
            c = v + 1,
            y = v + 2,
            z = v + 3,
            t = b + 1,
            e = b + 2,
            j = b + 3,
        ));
        v += 4;
        b += 3;
    }
    // Nested ifs: block b(x): if x > k then b+1 (next level) else the common exit E.
    let exit_nested = b + 2 * n + 1;
    for k in 0..n {
        s.push_str(&format!(
            "block{b}(v{x}: i32):\n    v{kk} = iconst.i32 {k}\n    v{c} = icmp sgt v{x}, v{kk}\n    v{y} = iadd v{x}, v0\n    brif v{c}, block{t}(v{y}), block{e}(v{x})\n",
            x = v,
            kk = v + 1,
            c = v + 2,
            y = v + 3,
            t = b + 1,
            e = exit_nested,
        ));
        v += 4;
        b += 1;
    }
    // The innermost level falls into the exit.
    s.push_str(&format!(
        "block{b}(v{x}: i32):\n    jump block{e}(v{x})\n",
        x = v,
        e = exit_nested
    ));
    v += 1;
    b = exit_nested;
    s.push_str(&format!(
        "block{b}(v{x}: i32):\n    jump block{t}(v{x})\n",
        x = v,
        t = b + 1
    ));
    v += 1;
    b += 1;
    // Short-circuit chain: block b(x): if x != k then b+1 else F; the last: T.
    let (tb, fb) = (b + n, b + n + 1);
    for k in 0..n {
        s.push_str(&format!(
            "block{b}(v{x}: i32):\n    v{kk} = iconst.i32 {k}\n    v{c} = icmp ne v{x}, v{kk}\n    brif v{c}, block{t}(v{x}), block{f}\n",
            x = v,
            kk = v + 1,
            c = v + 2,
            t = if k + 1 == n { tb } else { b + 1 },
            f = fb,
        ));
        v += 3;
        b += 1;
    }
    s.push_str(&format!(
        "block{tb}(v{x}: i32):\n    return v{x}\nblock{fb}:\n    v{y} = iconst.i32 -1\n    return v{y}\n}}\n",
        x = v,
        y = v + 1
    ));
    s
}

/// `depth` while loops nested in each other, each counting to the argument, the
/// innermost adding to a sum carried through all of them; then `seq` loops in
/// sequence.
fn big_loops(depth: usize, seq: usize) -> String {
    let mut s = String::from(
        "function @big_loops(i32) -> i32 {\nblock0(v0: i32):\n    v1 = iconst.i32 0\n    v2 = iconst.i32 1\n    jump block1(v1, v1)\n",
    );
    // Level k: header block(2k+1)(i, sum): if i < v0 then block(2k+2) else exit.
    // block(2k+2) enters level k+1 with (0, sum); level k+1's exit comes back to
    // level k's latch, block L_k.
    let latch = |k: usize| 2 * depth + 1 + k;
    let after = 3 * depth + 1;
    let mut v = 10;
    for k in 0..depth {
        let exit = if k == 0 { after } else { latch(k - 1) };
        s.push_str(&format!(
            "block{h}(v{i}: i32, v{sum}: i32):\n    v{c} = icmp slt v{i}, v0\n    brif v{c}, block{body}(v{i}, v{sum}), block{exit}(v{sum})\n",
            h = 2 * k + 1,
            i = v,
            sum = v + 1,
            c = v + 2,
            body = 2 * k + 2,
        ));
        // The body of level k: enter level k+1 (or, innermost, add i and loop).
        if k + 1 < depth {
            s.push_str(&format!(
                "block{b}(v{i}: i32, v{sum}: i32):\n    jump block{inner}(v1, v{sum})\n",
                b = 2 * k + 2,
                i = v + 3,
                sum = v + 4,
                inner = 2 * k + 3,
            ));
        } else {
            s.push_str(&format!(
                "block{b}(v{i}: i32, v{sum}: i32):\n    v{n} = iadd v{sum}, v{i}\n    v{m} = iadd v{i}, v2\n    jump block{h}(v{m}, v{n})\n",
                b = 2 * k + 2,
                i = v + 3,
                sum = v + 4,
                n = v + 5,
                m = v + 6,
                h = 2 * k + 1,
            ));
        }
        v += 7;
    }
    // Latches: level k's latch takes the sum from level k+1 and increments i, which
    // it gets... the header's i is not live here, so loop with the sum only: each
    // level runs once per entry of its parent (i restarts from 1).
    for k in 0..depth.saturating_sub(1) {
        s.push_str(&format!(
            "block{l}(v{sum}: i32):\n    v{n} = iadd v{sum}, v2\n    v{lim} = iconst.i32 1000000\n    v{c} = icmp sgt v{n}, v{lim}\n    brif v{c}, block{h}(v0, v{n}), block{h}(v{n}, v{n})\n",
            l = latch(k),
            sum = v,
            n = v + 1,
            lim = v + 2,
            c = v + 3,
            h = 2 * k + 1,
        ));
        v += 4;
    }
    // Loops in sequence: block(after + j)(x): a self loop counting x up to v0 + j.
    for j in 0..seq {
        s.push_str(&format!(
            "block{b}(v{x}: i32):\n    v{y} = iadd v{x}, v2\n    v{c} = icmp slt v{y}, v0\n    brif v{c}, block{b}(v{y}), block{next}(v{y})\n",
            b = after + j,
            x = v,
            y = v + 1,
            c = v + 2,
            next = after + j + 1,
        ));
        v += 3;
    }
    s.push_str(&format!(
        "block{b}(v{x}: i32):\n    return v{x}\n}}\n",
        b = after + seq,
        x = v
    ));
    s
}

/// A chain of `n` blocks with `live` values defined in the first and all used in the
/// last (each passed through every block), with a side branch per block.
fn big_liveness(n: usize, live: usize) -> String {
    let mut s = String::from("function @big_liveness(i32) -> i32 {\nblock0(v0: i32):\n");
    for k in 0..live {
        s.push_str(&format!("    v{} = iadd v0, v0\n", 10 + k));
    }
    let mut v = 10 + live;
    s.push_str("    jump block1\n");
    for b in 1..n {
        s.push_str(&format!(
            "block{b}:\n    v{c} = icmp sgt v0, v{k}\n    brif v{c}, block{next}, block{next}\n",
            c = v,
            k = 10 + b % live,
            next = b + 1
        ));
        v += 1;
    }
    s.push_str(&format!("block{n}:\n    v{v} = iadd v10, v11\n"));
    for k in 2..live {
        s.push_str(&format!(
            "    v{} = iadd v{}, v{}\n",
            v + k - 1,
            v + k - 2,
            10 + k
        ));
    }
    s.push_str(&format!("    return v{}\n}}\n", v + live - 2));
    s
}

#[test]
fn big_functions_go_through_in_near_linear_time() {
    let cases: Vec<(String, Vec<Vec<i32>>)> = vec![
        (
            big_switch(20000),
            vec![vec![-1], vec![0], vec![1], vec![4999], vec![2500]],
        ),
        (
            big_nesting(2000),
            vec![vec![0, 0], vec![5, 10], vec![-3, 7], vec![3000, 1]],
        ),
        (big_loops(40, 1000), vec![vec![0], vec![2], vec![3]]),
        (big_liveness(2000, 100), vec![vec![1], vec![50]]),
    ];
    for (src, runs) in &cases {
        let module = parse_module(src).unwrap_or_else(|e| panic!("{e}"));
        verify_module(&module).unwrap_or_else(|e| panic!("{e}"));
        let f = &module.functions[0];
        let blocks = f.layout.blocks().count();
        let mut g = f.clone();
        let t0 = std::time::Instant::now();
        let stats = restructure(&mut g);
        let t_restructure = t0.elapsed();
        let t1 = std::time::Instant::now();
        let tree = structure_tree(&g);
        let t_tree = t1.elapsed();
        verify_function(&g).unwrap_or_else(|e| panic!("{e}"));
        let tree = tree.unwrap_or_else(|e| panic!("{e}"));
        let mut again = g.clone();
        let second = restructure(&mut again);
        assert!(!second.changed(), "@{}: {second:?}", f.name);
        println!(
            "@{}: {blocks} blocks: restructure {t_restructure:?}, structure_tree {t_tree:?}; \
             (loops, branches, block items) {:?}; {stats:?}",
            f.name,
            tree.counts()
        );
        assert!(
            t_restructure.as_secs_f64() < 10.0 && t_tree.as_secs_f64() < 10.0,
            "too slow"
        );
        let mut new = module.clone();
        new.functions[0] = g;
        let mut tally = Compared::default();
        for args in runs {
            let args: Vec<DataValue> = args.iter().map(|&a| DataValue::I32(a)).collect();
            compare(&module, &new, &f.name, &args, &mut tally).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

// ---- structure_tree ------------------------------------------------------------------

/// `structure_tree` of the only function of `src`: its error, or `Ok` as a string.
fn tree_error(src: &str) -> String {
    let m = parse_module(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    verify_module(&m).unwrap_or_else(|e| panic!("{e}\n{src}"));
    match structure_tree(&m.functions[0]) {
        Ok(t) => format!("Ok({t:?})"),
        Err(e) => e,
    }
}

#[test]
fn structure_tree_rejects_what_is_not_structured() {
    let cases: &[(&str, &str)] = &[
        (
            "function @f(i32) -> i32 {
block0(v0: i32):
    jump block1
block1:
    return v0
}",
            "block1 uses v0",
        ),
        (
            "function @f(i32) -> i32 {
block0(v0: i32):
    return v0
block1(v1: i32):
    return v1
}",
            "block1 is not part of the structure",
        ),
        (
            "function @f(i1) {
block0(v0: i1):
    brif v0, block1, block2
block1:
    return
block2:
    return
}",
            "block2 is a second block ending in return",
        ),
        (
            "function @f(i1) {
block0(v0: i1):
    brif v0, block1, block1
block1:
    return
}",
            "block0 ends in a brif whose destinations are all equal",
        ),
        (
            // A head-controlled (while) loop: the header exits.
            "function @f(i32) -> i32 {
block0(v0: i32):
    jump block1(v0)
block1(v1: i32):
    v2 = iconst.i32 0
    v3 = icmp sgt v1, v2
    brif v3, block2(v1), block3(v1)
block2(v4: i32):
    v5 = iconst.i32 1
    v6 = isub v4, v5
    jump block1(v6)
block3(v7: i32):
    return v7
}",
            "block2, the back edge of the loop headed by block1, does not end in `brif r, block1(..), exit(..)`",
        ),
        (
            // Two latches.
            "function @f(i32, i1) -> i32 {
block0(v0: i32, v9: i1):
    jump block1(v0, v9)
block1(v1: i32, v8: i1):
    brif v8, block2(v1, v8), block3(v1, v8)
block2(v2: i32, v10: i1):
    brif v10, block1(v2, v10), block4(v2)
block3(v3: i32, v11: i1):
    brif v11, block1(v3, v11), block4(v3)
block4(v4: i32):
    return v4
}",
            "block1 heads a loop with two back edges",
        ),
        (
            // An irreducible loop: two entries.
            "function @f(i32, i1) -> i32 {
block0(v0: i32, v9: i1):
    brif v9, block1(v0, v9), block2(v0, v9)
block1(v1: i32, v8: i1):
    brif v8, block2(v1, v8), block3(v1)
block2(v2: i32, v10: i1):
    brif v10, block1(v2, v10), block3(v2)
block3(v4: i32):
    return v4
}",
            "block1, the first block of an arm of the branch at block0, has other predecessors",
        ),
        (
            // Arms that continue at two points.
            "function @f(i1, i1) {
block0(v0: i1, v1: i1):
    brif v0, block1(v1), block2
block1(v2: i1):
    brif v2, block2, block3
block2:
    jump block3
block3:
    return
}",
            "block2, the first block of an arm of the branch at block0, has other predecessors",
        ),
        (
            // A trap inside an arm.
            "function @f(i1) {
block0(v0: i1):
    brif v0, block1, block2
block1:
    trap 3
block2:
    jump block3
block3:
    return
}",
            "block0 ends the function: block2 must end in return or trap",
        ),
    ];
    for (src, want) in cases {
        let got = tree_error(src);
        assert!(
            got.contains(want),
            "expected {want:?}, got {got:?} for\n{src}"
        );
        // And restructuring fixes it.
        let m = parse_module(src).unwrap();
        let (new, _, _) = restructure_module(&m).unwrap_or_else(|e| panic!("{e}"));
        structure_tree(&new.functions[0]).unwrap_or_else(|e| panic!("{e}\n{new}"));
    }
}

#[test]
fn structure_tree_of_a_structured_function() {
    // A do-while loop containing an if, then a final branch to a return and a trap.
    let src = "function @f(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    jump block1(v1, v0)
block1(v2: i32, v3: i32):
    v4 = iconst.i32 1
    v5 = icmp eq v2, v4
    brif v5, block2(v2, v3), block3(v2, v3)
block2(v6: i32, v7: i32):
    v8 = iadd v6, v7
    jump block3(v8, v7)
block3(v9: i32, v10: i32):
    v11 = iconst.i32 1
    v12 = iadd v9, v11
    v13 = icmp slt v12, v10
    brif v13, block1(v12, v10), block4(v12)
block4(v14: i32):
    v15 = iconst.i32 100
    v16 = icmp sgt v14, v15
    brif v16, block5, block6(v14)
block5:
    trap 1
block6(v17: i32):
    return v17
}";
    let m = parse_module(src).unwrap();
    let tree = structure_tree(&m.functions[0]).unwrap();
    let b = |n: u32| vliw_ir::Block::from_u32(n);
    let want = Tree::Seq(vec![
        Tree::Block(b(0)),
        Tree::Loop {
            header: b(1),
            body: Box::new(Tree::Seq(vec![Tree::Branch {
                head: b(1),
                arms: vec![
                    (0, Tree::Seq(vec![Tree::Block(b(2))])),
                    (1, Tree::Seq(vec![])),
                ],
                join: Some(b(3)),
            }])),
            tail: b(3),
            exit: b(4),
        },
        Tree::Branch {
            head: b(4),
            arms: vec![
                (0, Tree::Seq(vec![Tree::Block(b(5))])),
                (1, Tree::Seq(vec![Tree::Block(b(6))])),
            ],
            join: None,
        },
    ]);
    assert_eq!(tree, want);
    // Already structured: restructuring changes nothing.
    let mut f = m.functions[0].clone();
    let stats = restructure(&mut f);
    assert!(!stats.changed(), "{stats:?}");
    assert_eq!(f.to_string(), m.functions[0].to_string());
}

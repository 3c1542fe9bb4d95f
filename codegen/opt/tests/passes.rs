//! mem2reg, DCE, jump threading, implied conditions, branch folding and state threading against the interpreter: every IR filetest of the repository with
//! run lines, and hand-written cases for what is promoted and what is not. A pass must
//! keep the module verifiable and every run's results, traps and output.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use vliw_ir::filetest::{Run, directives};
use vliw_ir::{
    DataValue, Interpreter, Module, Opcode, Trap, TrapKind, parse_module, verify_module,
};
use vliw_opt::{
    FoldStats, ImpliedStats, Mem2RegStats, StateThreadStats, ThreadStats, branch_fold, dce,
    fold_range_tests, implied_conditions, jump_threading, mem2reg, state_threading,
};

fn optimized(module: &Module) -> (Module, Mem2RegStats) {
    let mut out = module.clone();
    let mut stats = Mem2RegStats::default();
    for func in &mut out.functions {
        stats += mem2reg(func);
        dce(func);
        jump_threading(func);
        implied_conditions(func);
        fold_range_tests(func);
        branch_fold(func);
        state_threading(func);
    }
    if let Err(e) = verify_module(&out) {
        panic!("the optimized module does not verify:\n{e}\n{out}");
    }
    (out, stats)
}

/// The outcome of a run as text: results or the trap's kind, and what it wrote.
fn outcome(module: &Module, run: &Run) -> String {
    let mut interp = Interpreter::new(module);
    interp.set_step_limit(1_000_000);
    let written: Rc<RefCell<Vec<u8>>> = Rc::default();
    let out = written.clone();
    interp.add_host("write", move |mem, args| {
        let (DataValue::I64(_), DataValue::Ptr(p), DataValue::I64(n)) = (args[0], args[1], args[2])
        else {
            return Err(Trap::new(TrapKind::Host, "write(i64, ptr, i64)"));
        };
        out.borrow_mut().extend_from_slice(mem.read(p, n as u64)?);
        Ok(vec![DataValue::I64(n)])
    });
    let sig = module
        .function(&run.func)
        .expect("the run's function")
        .signature
        .clone();
    let args: Vec<DataValue> = run
        .args
        .iter()
        .zip(&sig.params)
        .map(|(a, &t)| DataValue::parse(t, a).expect("argument"))
        .collect();
    let result = match interp.call(&run.func, &args) {
        Ok(values) => format!("{values:?}"),
        Err(trap) => format!("trap {:?}", trap.kind),
    };
    format!("{result} / {:?}", written.borrow())
}

fn filetests(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("tests/ir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            filetests(&path, out);
        } else if path.extension().is_some_and(|e| e == "ir") {
            out.push(path);
        }
    }
}

#[test]
fn every_filetest_runs_the_same_after_the_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/ir");
    let mut files = Vec::new();
    filetests(&root, &mut files);
    files.sort();
    assert!(files.len() > 40, "found only {} filetests", files.len());
    let (mut runs_checked, mut total) = (0, Mem2RegStats::default());
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read");
        let Ok(module) = parse_module(&text) else {
            continue;
        };
        if verify_module(&module).is_err() {
            continue;
        }
        let Ok((runs, _)) = directives(&text) else {
            continue;
        };
        let (after, stats) = optimized(&module);
        total += stats;
        for run in &runs {
            if module.function(&run.func).is_none() {
                continue;
            }
            assert_eq!(
                outcome(&module, run),
                outcome(&after, run),
                "{}:{}: @{} differs after mem2reg and dce:\n{}",
                file.display(),
                run.line,
                run.func,
                after.function(&run.func).unwrap()
            );
            runs_checked += 1;
        }
    }
    assert!(runs_checked > 500, "only {runs_checked} runs");
    // The filetests have slots that can be promoted; the pass must find them.
    assert!(total.promoted >= 5, "{total:?}");
}

/// Parses, checks the runs before and after, and returns the optimized module.
fn check(text: &str) -> (Module, Mem2RegStats) {
    let module = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    verify_module(&module).unwrap_or_else(|e| panic!("{e}"));
    let (after, stats) = optimized(&module);
    let (runs, _) = directives(text).unwrap();
    assert!(!runs.is_empty());
    for run in &runs {
        let expected = outcome(&module, run);
        assert_eq!(
            expected,
            outcome(&after, run),
            "line {}:\n{after}",
            run.line
        );
    }
    (after, stats)
}

fn count(module: &Module, op: Opcode) -> usize {
    module
        .functions
        .iter()
        .map(|f| {
            f.layout
                .blocks()
                .flat_map(|b| f.layout.block_insts(b))
                .filter(|&i| f.dfg.opcode(i) == op)
                .count()
        })
        .sum()
}

#[test]
fn a_loop_counter_becomes_a_block_parameter() {
    // sum = 0; i = 0; while i < n { sum += i; i += 1 }: both in slots, as the shim emits.
    let (after, stats) = check(
        "function @sum(i64) -> i64 {
    ss0 = stack_slot 8, align 8
    ss1 = stack_slot 8, align 8
block0(v0: i64):
    v1 = stack_addr ss0
    v2 = stack_addr ss1
    v3 = iconst.i64 0
    store align 8 v3, v1
    store align 8 v3, v2
    jump block1
block1:
    v4 = load.i64 align 8 v2
    v5 = icmp slt v4, v0
    brif v5, block2, block3
block2:
    v6 = load.i64 align 8 v1
    v7 = iadd v6, v4
    store align 8 v7, v1
    v8 = iconst.i64 1
    v9 = iadd v4, v8
    store align 8 v9, v2
    jump block1
block3:
    v10 = load.i64 align 8 v1
    return v10
}
; run: @sum(0) == 0
; run: @sum(10) == 45
; run: @sum(1000) == 499500
",
    );
    assert_eq!(stats.promoted, 2);
    assert_eq!(
        stats.params, 2,
        "one parameter per variable at the loop header"
    );
    assert_eq!(
        count(&after, Opcode::Load) + count(&after, Opcode::Store),
        0
    );
    assert_eq!(count(&after, Opcode::StackAddr), 0);
    let f = &after.functions[0];
    assert!(f.stack_slots.values().all(|s| s.size == 0));
}

#[test]
fn an_aggregate_is_split_into_its_fields() {
    // A slice iterator: two pointers at offsets 0 and 8 of one slot, the second reached
    // through ptradd.
    let (after, stats) = check(
        "function @len(ptr, i64) -> i64 {
    ss0 = stack_slot 16, align 8
block0(v0: ptr, v1: i64):
    v2 = stack_addr ss0
    store align 8 v0, v2
    v3 = iconst.i64 8
    v4 = ptradd v2, v3
    v5 = ptradd v0, v1
    store align 8 v5, v4
    v6 = load.ptr align 8 v2
    v7 = load.ptr align 8 v2+8
    v8 = bitcast.i64 v6
    v9 = bitcast.i64 v7
    v10 = isub v9, v8
    return v10
}
; run: @len(0x1000, 24) == 24
",
    );
    assert_eq!((stats.promoted, stats.fields), (1, 2));
    assert_eq!(
        count(&after, Opcode::Load) + count(&after, Opcode::Store),
        0
    );
}

#[test]
fn escaping_and_overlapping_slots_stay_in_memory() {
    let (after, stats) = check(
        "function @escape(i32) -> i32 {
    ss0 = stack_slot 4, align 4
    fn0 = @observe(ptr)
block0(v0: i32):
    v1 = stack_addr ss0
    store align 4 v0, v1
    call fn0(v1)
    v2 = load.i32 align 4 v1
    return v2
}

function @overlap(i64) -> i32 {
    ss0 = stack_slot 8, align 8
block0(v0: i64):
    v1 = stack_addr ss0
    store align 8 v0, v1
    v2 = load.i32 align 4 v1+4
    return v2
}

function @observe(ptr) {
block0(v0: ptr):
    return
}
; run: @escape(7) == 7
; run: @overlap(0x1122334455667788) == 0x11223344
",
    );
    assert_eq!(stats.promoted, 0);
    assert_eq!(count(&after, Opcode::Store), 2);
}

#[test]
fn a_field_read_with_another_type_is_a_bitcast_and_an_unset_field_is_undef() {
    let (after, stats) = check(
        "function @pun(f64) -> i64 {
    ss0 = stack_slot 8, align 8
block0(v0: f64):
    v1 = stack_addr ss0
    store align 8 v0, v1
    v2 = load.i64 align 8 v1
    return v2
}

function @maybe(i8) -> i32 {
    ss0 = stack_slot 4, align 4
block0(v0: i8):
    v1 = stack_addr ss0
    v9 = iconst.i8 0
    v10 = icmp ne v0, v9
    brif v10, block1, block2
block1:
    v2 = iconst.i32 5
    store align 4 v2, v1
    jump block2
block2:
    v3 = iconst.i32 0
    brif v10, block3, block4
block3:
    v4 = load.i32 align 4 v1
    return v4
block4:
    return v3
}
; run: @pun(1.0) == 0x3ff0000000000000
; run: @maybe(1) == 5
; run: @maybe(0) == 0
",
    );
    assert_eq!(stats.promoted, 2);
    assert_eq!(count(&after, Opcode::Bitcast), 1);
    // the unset field is `undef` on the edge that skips the store; passed beside the
    // stored constant, jump threading's constant parameters make it that constant
    assert_eq!(count(&after, Opcode::Undef), 0, "{after}");
    assert_eq!(count(&after, Opcode::Load), 0, "{after}");
}

#[test]
fn dce_removes_unused_pure_code_but_keeps_effects() {
    let module = parse_module(
        "function @f(i64, i64) -> i64 {
block0(v0: i64, v1: i64):
    v2 = iadd v0, v1
    v3 = imul v2, v2
    v4 = udiv v0, v1
    v5 = iconst.i64 1
    return v5
}
",
    )
    .unwrap();
    let mut f = module.functions[0].clone();
    let stats = dce(&mut f);
    assert_eq!(
        stats.removed, 2,
        "iadd and imul go; udiv can trap; the constant is used"
    );
}

/// One pass alone over every function of `text`, checked like the others: the
/// module verifies after it and every run line gives what it gave before; what the
/// pass did, summed.
fn checked<S: Default + std::ops::AddAssign>(
    text: &str,
    pass: fn(&mut vliw_ir::Function) -> S,
) -> (Module, S) {
    let module = parse_module(text).unwrap_or_else(|e| panic!("{e}"));
    verify_module(&module).unwrap_or_else(|e| panic!("{e}"));
    let mut after = module.clone();
    let mut stats = S::default();
    for func in &mut after.functions {
        stats += pass(func);
    }
    verify_module(&after).unwrap_or_else(|e| panic!("{e}\n{after}"));
    let (runs, _) = directives(text).unwrap();
    assert!(!runs.is_empty());
    for run in &runs {
        assert_eq!(
            outcome(&module, run),
            outcome(&after, run),
            "line {}:\n{after}",
            run.line
        );
    }
    (after, stats)
}

/// Jump threading alone; what it did.
fn threaded(text: &str) -> (Module, ThreadStats) {
    checked(text, jump_threading)
}

fn blocks(module: &Module) -> usize {
    module
        .functions
        .iter()
        .map(|f| f.layout.blocks().count())
        .sum()
}

#[test]
fn a_constant_predicate_at_a_join_is_threaded_to_its_target() {
    // the shape structural destruction gives a `while` loop: the header tests, the
    // arms pass a constant predicate to a join that tests it again
    let text = "
function @count(i64) -> i64 export {
block0(v0: i64):
    v1 = iconst.i64 0
    jump block1(v1)
block1(v2: i64):
    v3 = icmp slt v2, v0
    v4 = iconst.i1 0
    brif v3, block2, block3(v4, v2)
block2:
    v5 = iconst.i64 1
    v6 = iadd v2, v5
    v7 = iconst.i1 1
    jump block3(v7, v6)
block3(v8: i1, v9: i64):
    brif v8, block1(v9), block4(v9)
block4(v10: i64):
    return v10
}
; run: @count(0) == 0
; run: @count(5) == 5
; run: @count(-2) == 0
";
    let (after, stats) = threaded(text);
    assert_eq!(stats.threaded, 2, "{after}");
    assert_eq!(stats.removed_blocks, 1, "{after}");
    assert_eq!(blocks(&after), 4, "{after}");
    assert_eq!(
        count(&after, Opcode::Brif),
        1,
        "the predicate is tested once:\n{after}"
    );
}

/// A join that tests a flag its arms set to constants, whose own arms only jump on
/// (the exit of a search loop as the sequentialization by demand gives it): the
/// first round threads the arms into the join's branch, the next threads the
/// constant flags through the join.
#[test]
fn a_join_made_forwarding_by_threading_is_threaded_in_the_next_round() {
    let text = "
function @find(i64, i64) -> i64 export {
block0(v0: i64, v1: i64):
    v2 = icmp eq v0, v1
    brif v2, block1, block2
block1:
    v3 = iconst.i1 1
    jump block3(v3, v0)
block2:
    v4 = iconst.i1 0
    jump block3(v4, v1)
block3(v5: i1, v6: i64):
    brif v5, block4, block5
block4:
    jump block6(v6)
block5:
    jump block6(v1)
block6(v7: i64):
    return v7
}
; run: @find(3, 3) == 3
; run: @find(3, 4) == 4
";
    let (after, stats) = threaded(text);
    assert_eq!(
        count(&after, Opcode::Brif),
        1,
        "the flag is not tested:\n{after}"
    );
    assert_eq!(blocks(&after), 2, "{after}");
    assert!(stats.threaded >= 4, "{after}");
}

/// `classify`'s shape: both edges into the block that updates a counter pass the
/// flag `1` (two `iconst`s), and the block, which also stores, tests it: the flag
/// becomes one constant of the block, its test a jump the threading then takes. A
/// parameter given two different constants, or a constant and a value, stays; an
/// `undef` counts as the other edges' constant (no run reads it: the interpreter's
/// `undef` is one value, the folded code's another).
#[test]
fn a_parameter_every_edge_passes_one_constant_is_that_constant() {
    let text = "
function @f(i64) -> i64 export {
    ss0 = stack_slot 8, align 8
block0(v0: i64):
    v1 = stack_addr ss0
    v2 = iconst.i64 0
    v3 = icmp eq v0, v2
    v4 = iconst.i1 1
    v5 = iconst.i64 3
    v20 = iconst.i64 7
    brif v3, block1(v4, v5, v5), block2
block2:
    v6 = iconst.i64 100
    v7 = icmp slt v0, v6
    v8 = iconst.i1 1
    v9 = iconst.i64 4
    v21 = undef.i64
    brif v7, block1(v8, v9, v21), block3
block3:
    v10 = iconst.i64 9
    return v10
block1(v11: i1, v12: i64, v13: i64):
    store align 8 v12, v1
    brif v11, block4, block3
block4:
    v14 = load.i64 align 8 v1
    v15 = iadd v14, v13
    return v15
}
; run: @f(0) == 6
; run: @f(500) == 9
";
    let (after, stats) = threaded(text);
    // the flag and the third parameter (3, or undef); not the second (3 or 4)
    assert_eq!(stats.constant_params, 2, "{after}");
    let f = &after.functions[0];
    let join = f
        .layout
        .blocks()
        .find(|&b| {
            f.layout
                .block_insts(b)
                .any(|i| f.dfg.opcode(i) == Opcode::Store)
        })
        .unwrap();
    assert_eq!(f.dfg.block_params(join).len(), 1, "{after}");
}

#[test]
fn a_join_whose_parameter_is_read_further_on_passes_it_and_is_threaded() {
    // block3's parameter v9 is read by block4, which block3 dominates: threading the
    // edges past block3 as it is would leave block4 reading a value that no longer
    // dominates it, so v9 is first passed to block4 as an argument of its own
    let text = "
function @f(i64) -> i64 export {
block0(v0: i64):
    v1 = iconst.i64 0
    v2 = icmp slt v0, v1
    v3 = iconst.i1 1
    brif v2, block1, block3(v3, v0)
block1:
    v4 = iconst.i1 0
    v5 = ineg v0
    jump block3(v4, v5)
block3(v8: i1, v9: i64):
    v10 = iconst.i64 5
    brif v8, block4, block5
block4:
    v11 = iadd v9, v10
    return v11
block5:
    return v10
}
; run: @f(3) == 8
; run: @f(-3) == 5
";
    let (after, stats) = threaded(text);
    assert_eq!(stats.localized, 1, "{after}");
    assert!(stats.threaded >= 2, "{after}");
    assert_eq!(blocks(&after), 3, "block1 and block3 are gone:\n{after}");
    assert_eq!(count(&after, Opcode::Brif), 1, "{after}");
}

#[test]
fn an_edge_passes_a_join_whose_values_only_the_other_side_reads() {
    // block3 joins a path that sets its flag to 0 (and its value to undef) with one
    // that sets 1 and a value that block4 and block6 read, as the invoke of a call
    // that never returns joins its landing pad: the flag-0 edge goes straight to
    // block5, which reads nothing of block3's; the flag-1 edge stays (v9 is not
    // passed on as an argument: its readers lie past an invoke). (A join whose
    // chosen successor leads back to it stays: `@h` below.)
    let text = "
function @f(i64) -> i64 export personality @rust_eh_personality {
    fn0 = @five(i64) -> i64
block0(v0: i64):
    v1 = iconst.i64 0
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    v4 = iconst.i1 0
    v5 = undef.i64
    jump block3(v4, v5)
block2:
    v6 = iconst.i1 1
    v7 = ineg v0
    jump block3(v6, v7)
block3(v8: i1, v9: i64):
    brif v8, block4, block5
block4:
    v10 = invoke fn0(v9), block6, block7
block6:
    v11 = iadd v9, v10
    return v11
block7:
    v13, v14 = landing_pad
    resume v13
block5:
    v12 = iconst.i64 7
    return v12
}
; run: @f(3) == 2
; run: @f(-3) == 7

function @five(i64) -> i64 {
block0(v0: i64):
    v1 = iconst.i64 5
    return v1
}
";
    let (after, stats) = threaded(text);
    assert!(stats.threaded >= 1, "{after}");
    let out = after.to_string();
    assert!(
        out.contains("brif v2, block5, block2"),
        "the flag-0 edge goes to block5:\n{after}"
    );
}

#[test]
fn a_join_that_tests_no_constant_or_heads_a_loop_stays() {
    // @g: the branch into block1 passes a parameter, not a constant. @h: block1
    // heads a loop; threading the entry edge past it would enter the loop in its
    // middle, so its parameter read by block2 is not passed on and nothing moves.
    let text = "
function @g(i64, i1) -> i64 export {
block0(v0: i64, v1: i1):
    jump block1(v1)
block1(v2: i1):
    brif v2, block2, block3
block2:
    return v0
block3:
    v3 = iconst.i64 7
    return v3
}
; run: @g(1, 1) == 1
; run: @g(1, 0) == 7

function @h(i64) -> i64 export {
block0(v0: i64):
    v1 = iconst.i1 1
    v2 = iconst.i64 0
    jump block1(v1, v2)
block1(v3: i1, v4: i64):
    brif v3, block2, block3
block2:
    v5 = iconst.i64 1
    v6 = iadd v4, v5
    v7 = icmp slt v6, v0
    jump block1(v7, v6)
block3:
    return v4
}
; run: @h(5) == 5
; run: @h(0) == 1
";
    let (after, stats) = threaded(text);
    assert_eq!(stats.threaded, 0, "{after}");
    assert_eq!(stats.localized, 0, "{after}");
}

#[test]
fn switches_jumps_and_forwarding_cycles() {
    // a switch on a constant passed in; a chain of plain jumps; `loop {}` (a block
    // that jumps to itself) must not make threading loop
    let text = "
function @s(i64) -> i64 export {
block0(v0: i64):
    v1 = iconst.i32 2
    v2 = iconst.i64 0
    v3 = icmp eq v0, v2
    brif v3, block1(v1), block4
block1(v4: i32):
    switch v4, block2, [1 -> block2, 2 -> block3(v0)]
block2:
    return v2
block3(v5: i64):
    jump block5(v5)
block5(v6: i64):
    v7 = iconst.i64 9
    v8 = iadd v6, v7
    return v8
block4:
    jump block4
}
; run: @s(0) == 9
";
    let (after, stats) = threaded(text);
    assert!(stats.threaded >= 2, "{stats:?}\n{after}");
    assert_eq!(count(&after, Opcode::Switch), 0, "{after}");
}

/// Branch folding alone; what it did.
fn folded(text: &str) -> (Module, FoldStats) {
    checked(text, branch_fold)
}

/// `c == 32 || c == 44 || c == 10` to one join: three tests become one `brif` of the
/// three compares or'ed, in every arrangement of the shared destination (the
/// second block's `then` or `else` side, the first block's `then` or `else` side).
#[test]
fn tests_in_a_row_to_one_place_are_one_test() {
    let text = "
function @space(i64) -> i64 export {
block0(v0: i64):
    v1 = iconst.i64 32
    v2 = icmp eq v0, v1
    v3 = iconst.i64 1
    brif v2, block4(v3), block1
block1:
    v4 = iconst.i64 44
    v5 = icmp eq v0, v4
    v6 = iconst.i64 1
    brif v5, block4(v6), block2
block2:
    v7 = iconst.i64 10
    v8 = icmp ne v0, v7
    v9 = iconst.i64 1
    brif v8, block3, block4(v9)
block3:
    v10 = iconst.i64 0
    jump block4(v10)
block4(v11: i64):
    return v11
}
; run: @space(32) == 1
; run: @space(44) == 1
; run: @space(10) == 1
; run: @space(11) == 0
; run: @space(0) == 0

function @inner(i64, i64) -> i64 export {
block0(v0: i64, v1: i64):
    v2 = iconst.i64 0
    v3 = icmp slt v0, v2
    brif v3, block1, block3
block1:
    v4 = icmp slt v1, v2
    brif v4, block2, block3
block2:
    v5 = iconst.i64 7
    return v5
block3:
    v6 = iconst.i64 9
    return v6
}
; run: @inner(-1, -1) == 7
; run: @inner(-1, 1) == 9
; run: @inner(1, -1) == 9
; run: @inner(1, 1) == 9

function @keeps(i64, i64) -> i64 export {
block0(v0: i64, v1: i64):
    v2 = iconst.i64 0
    v3 = icmp eq v0, v2
    brif v3, block3, block1
block1:
    v4 = udiv v1, v0
    v5 = icmp eq v4, v2
    brif v5, block3, block2
block2:
    return v4
block3:
    return v2
}
; run: @keeps(0, 5) == 0
; run: @keeps(2, 1) == 0
; run: @keeps(2, 9) == 4
";
    let (after, stats) = folded(text);
    // @space: two folds into block0 (and block2's negated side); @inner: one (both
    // `then` sides in a row: `band`); @keeps: none (a division may trap)
    assert_eq!(stats.folded, 3, "{after}");
    let space = after.function("space").unwrap();
    assert_eq!(space.layout.blocks().count(), 3, "{after}");
    let inner = after.function("inner").unwrap();
    assert_eq!(inner.layout.blocks().count(), 3, "{after}");
    let keeps = after.function("keeps").unwrap();
    assert_eq!(keeps.layout.blocks().count(), 4, "{after}");
    assert_eq!(count(&after, Opcode::Udiv), 1);
}

fn implied(text: &str) -> (Module, ImpliedStats) {
    checked(text, implied_conditions)
}

/// A merge loop's checks: `i < mid` with `mid = n >> 1` decides `i < n` (a chain of
/// two bounds), the loop test decides a second compare of the same relation and a
/// branch on the same condition; the check's failing block goes.
#[test]
fn checks_that_the_loop_test_implies_are_folded() {
    let text = "
function @sum_half(i64) -> i64 export {
block0(v0: i64):
    v1 = iconst.i64 1
    v2 = ushr v0, v1
    v3 = iconst.i64 0
    jump block1(v3, v3)
block1(v4: i64, v5: i64):
    v6 = icmp ult v4, v2
    brif v6, block2, block6(v5)
block2:
    v7 = icmp ult v4, v0
    brif v7, block3, block5
block3:
    v8 = icmp uge v4, v2
    brif v8, block5, block4
block4:
    v9 = iadd v5, v4
    v10 = iadd v4, v1
    brif v6, block1(v10, v9), block5
block5:
    trap 7
block6(v11: i64):
    return v11
}
; run: @sum_half(0) == 0
; run: @sum_half(1) == 0
; run: @sum_half(7) == 3
; run: @sum_half(10) == 10
";
    let (after, stats) = implied(text);
    // `i < n` and `i >= mid` folded; their branches and the latch's test of `v6`
    assert_eq!(stats.compares, 2, "{after}");
    assert_eq!(stats.branches, 3, "{after}");
    assert_eq!(stats.removed_blocks, 1, "{after}");
    assert_eq!(count(&after, Opcode::Trap), 0, "{after}");
    assert_eq!(count(&after, Opcode::Brif), 1, "{after}");
}

/// Facts about constants, equalities and what a true `band` or a false `bor` is made
/// of; a remainder by a constant is below it without any branch.
#[test]
fn constants_equalities_and_logic_decide_compares() {
    let text = "
function @small(i64, i64) -> i64 export {
block0(v0: i64, v1: i64):
    v2 = iconst.i64 8
    v3 = icmp ult v0, v2
    v4 = iconst.i64 5
    v5 = icmp eq v1, v4
    v6 = band v3, v5
    brif v6, block1, block4
block1:
    v7 = iconst.i64 10
    v8 = icmp ult v0, v7
    v9 = iconst.i64 9
    v10 = icmp eq v0, v9
    v11 = icmp ule v1, v7
    v12 = bnot v10
    v13 = band v8, v12
    v14 = band v13, v11
    brif v14, block2, block3
block2:
    v15 = urem v0, v2
    v16 = icmp ult v15, v2
    brif v16, block4, block3
block3:
    trap 1
block4:
    return v0
}
; run: @small(3, 5) == 3
; run: @small(3, 6) == 3
; run: @small(9, 5) == 9
; run: @small(0, 5) == 0
";
    let (after, stats) = implied(text);
    // v8, v10, v11 from the facts, v16 from the remainder; block1's and block2's
    // branches
    assert_eq!(stats.compares, 4, "{after}");
    assert_eq!(stats.branches, 2, "{after}");
    assert_eq!(count(&after, Opcode::Trap), 0, "{after}");
}

/// What must stay: an unsigned fact says nothing about the signed order; `i ≤ mid`
/// (not `<`) with `mid = n >> 1` does not give `i < n` (n = 0); a join entered from
/// two sides knows neither edge's condition; a loop header's compare of its own
/// parameter is not known from the edge that leaves the loop's previous iteration.
#[test]
fn what_the_facts_do_not_imply_stays() {
    let text = "
function @mixed(i64, i64) -> i64 export {
block0(v0: i64, v1: i64):
    v2 = icmp ult v0, v1
    brif v2, block1, block3
block1:
    v3 = icmp slt v0, v1
    brif v3, block2, block3
block2:
    v4 = iconst.i64 1
    return v4
block3:
    v5 = iconst.i64 0
    return v5
}
; run: @mixed(1, -1) == 0
; run: @mixed(1, 2) == 1
; run: @mixed(-1, 1) == 0

function @not_strict(i64, i64) -> i64 export {
block0(v0: i64, v1: i64):
    v2 = iconst.i64 1
    v3 = ushr v0, v2
    v4 = icmp ule v1, v3
    brif v4, block1, block3
block1:
    v5 = icmp ult v1, v0
    brif v5, block2, block3
block2:
    return v2
block3:
    v6 = iconst.i64 0
    return v6
}
; run: @not_strict(0, 0) == 0
; run: @not_strict(4, 1) == 1

function @join(i64, i64) -> i64 export {
block0(v0: i64, v1: i64):
    v2 = icmp slt v0, v1
    brif v2, block1, block2
block1:
    jump block3
block2:
    jump block3
block3:
    v3 = icmp slt v0, v1
    brif v3, block4, block5
block4:
    return v0
block5:
    return v1
}
; run: @join(1, 2) == 1
; run: @join(3, 2) == 2

function @countdown(i64) -> i64 export {
block0(v0: i64):
    v1 = iconst.i64 0
    jump block1(v0, v1)
block1(v2: i64, v3: i64):
    v4 = icmp sgt v2, v1
    brif v4, block2, block3
block2:
    v5 = iconst.i64 1
    v6 = isub v2, v5
    v7 = iadd v3, v5
    jump block1(v6, v7)
block3:
    return v3
}
; run: @countdown(4) == 4
; run: @countdown(-1) == 0
";
    let (after, stats) = implied(text);
    assert_eq!(stats, ImpliedStats::default(), "{after}");
}

/// Range tests: `b'a' <= x && x <= b'z'` on a byte (an interval in signed order too:
/// the register as it is, one compare), `100 <= x <= 200` on a byte (crossing the
/// sign, so its complement is tested, sign-extended, the destinations swapped),
/// `x < 10 || x > 20` on an `i64` (a range that wraps, at the value's width), and a
/// flag that only the test chooses (`brif` to one block with `1` and `0`, which
/// becomes a jump passing the compare), and a range whose second test's block takes
/// the first block's values as parameters (as MIR passes them); two compares of
/// different values stay.
#[test]
fn two_compares_of_a_range_are_one() {
    let text = "
function @lower(i8) -> i64 export {
block0(v0: i8):
    v1 = iconst.i8 97
    v2 = icmp uge v0, v1
    brif v2, block1, block3
block1:
    v3 = iconst.i8 122
    v4 = icmp ule v0, v3
    brif v4, block2, block3
block2:
    v5 = iconst.i64 1
    return v5
block3:
    v6 = iconst.i64 2
    return v6
}

function @high(i8) -> i64 export {
block0(v0: i8):
    v1 = iconst.i8 100
    v2 = icmp ult v0, v1
    brif v2, block3, block1
block1:
    v3 = iconst.i8 200
    v4 = icmp ugt v0, v3
    brif v4, block3, block2
block2:
    v5 = iconst.i64 1
    return v5
block3:
    v6 = iconst.i64 2
    return v6
}

function @outside(i64) -> i64 export {
block0(v0: i64):
    v1 = iconst.i64 10
    v2 = icmp slt v0, v1
    brif v2, block2, block1
block1:
    v3 = iconst.i64 20
    v4 = icmp sgt v0, v3
    brif v4, block2, block3
block2:
    v5 = iconst.i64 1
    return v5
block3:
    v6 = iconst.i64 2
    return v6
}

function @flag(i8, i64) -> i64 export {
block0(v0: i8, v1: i64):
    v2 = iconst.i8 48
    v3 = icmp uge v0, v2
    v4 = iconst.i1 1
    brif v3, block1, block2(v4, v1)
block1:
    v5 = iconst.i8 57
    v6 = icmp ule v0, v5
    v7 = iconst.i1 0
    v8 = iconst.i1 1
    brif v6, block2(v7, v1), block2(v8, v1)
block2(v9: i1, v10: i64):
    v11 = iconst.i64 100
    v12 = iadd v10, v11
    brif v9, block3(v10), block3(v12)
block3(v13: i64):
    return v13
}

function @passed(i8, i64) -> i64 export {
block0(v0: i8, v1: i64):
    v2 = iconst.i8 65
    v3 = icmp uge v0, v2
    brif v3, block1(v0, v1), block3(v1)
block1(v4: i8, v5: i64):
    v6 = iconst.i8 90
    v7 = icmp ule v4, v6
    v8 = undef.i64
    brif v7, block2(v8), block3(v5)
block2(v9: i64):
    v10 = iconst.i64 1
    return v10
block3(v11: i64):
    return v11
}

function @two(i64, i64) -> i64 export {
block0(v0: i64, v1: i64):
    v2 = iconst.i64 3
    v3 = icmp sge v0, v2
    brif v3, block1, block3
block1:
    v4 = iconst.i64 9
    v5 = icmp sle v1, v4
    brif v5, block2, block3
block2:
    v6 = iconst.i64 1
    return v6
block3:
    v7 = iconst.i64 2
    return v7
}
; run: @lower(96) == 2
; run: @lower(97) == 1
; run: @lower(122) == 1
; run: @lower(123) == 2
; run: @lower(-1) == 2
; run: @lower(0) == 2
; run: @high(99) == 2
; run: @high(100) == 1
; run: @high(127) == 1
; run: @high(-128) == 1
; run: @high(-56) == 1
; run: @high(-55) == 2
; run: @high(0) == 2
; run: @outside(9) == 1
; run: @outside(10) == 2
; run: @outside(20) == 2
; run: @outside(21) == 1
; run: @outside(-9223372036854775808) == 1
; run: @flag(47, 5) == 5
; run: @flag(48, 5) == 105
; run: @flag(57, 5) == 105
; run: @flag(58, 5) == 5
; run: @passed(64, 5) == 5
; run: @passed(65, 5) == 1
; run: @passed(90, 5) == 1
; run: @passed(91, 5) == 5
; run: @two(3, 9) == 1
; run: @two(2, 9) == 2
; run: @two(3, 10) == 2
";
    let (after, stats) = checked(text, fold_range_tests);
    assert_eq!(stats.ranges, 5, "{after}");
    // `@passed`'s second block took its values as parameters: they are the first
    // block's, so the two branches to the join pass the same
    assert!(stats.forwarded >= 2, "{after}");
    let func = |name: &str| after.function(name).unwrap();
    for name in ["lower", "high", "outside", "flag", "passed"] {
        let compares = func(name)
            .layout
            .blocks()
            .flat_map(|b| func(name).layout.block_insts(b))
            .filter(|&i| func(name).dfg.opcode(i) == Opcode::Icmp)
            .count();
        assert_eq!(compares, 1, "@{name}:\n{after}");
    }
    // the flag's test is a jump passing the compare, and the join merged into it
    assert_eq!(func("flag").layout.blocks().count(), 2, "{after}");
    assert_eq!(func("two").layout.blocks().count(), 4, "{after}");
}

/// Random pairs of compares of one value with constants, in every arrangement of
/// the shared destination, on `i8`, `i16` and `i64`: after the range fold every
/// function returns what it did before, on edge values and random ones.
#[test]
fn random_range_pairs_keep_their_answers() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    const CCS: [&str; 10] = [
        "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
    ];
    let mut folded = 0;
    for case in 0..300 {
        let (ty, bits) = [("i8", 8u32), ("i16", 16), ("i64", 64)][case % 3];
        let constant = |n: u64| -> i64 {
            let small = [0i64, 1, -1, 2, 100, 127, -128, 10, -10, 57][(n % 10) as usize];
            if n % 3 == 0 {
                ((n >> 8) as i64) << (64 - bits) >> (64 - bits)
            } else {
                small
            }
        };
        let (k1, k2) = (constant(next()), constant(next()));
        let (cc1, cc2) = (CCS[(next() % 10) as usize], CCS[(next() % 10) as usize]);
        let p_then_shared = next() % 2 == 0;
        let b_then_shared = next() % 2 == 0;
        let (p_then, p_else) = if p_then_shared {
            ("block2", "block1")
        } else {
            ("block1", "block2")
        };
        let (b_then, b_else) = if b_then_shared {
            ("block2", "block3")
        } else {
            ("block3", "block2")
        };
        let mut text = format!(
            "function @f({ty}) -> i64 export {{
block0(v0: {ty}):
    v1 = iconst.{ty} {k1}
    v2 = icmp {cc1} v0, v1
    brif v2, {p_then}, {p_else}
block1:
    v3 = iconst.{ty} {k2}
    v4 = icmp {cc2} v0, v3
    brif v4, {b_then}, {b_else}
block2:
    v5 = iconst.i64 1
    return v5
block3:
    v6 = iconst.i64 2
    return v6
}}
"
        );
        for x in [
            k1,
            k1 - 1,
            k1 + 1,
            k2,
            k2 - 1,
            k2 + 1,
            0,
            -1,
            i64::MIN,
            i64::MAX,
        ] {
            let x = x << (64 - bits) >> (64 - bits);
            text += &format!("; run: @f({x})\n");
        }
        for _ in 0..6 {
            let x = (next() as i64) << (64 - bits) >> (64 - bits);
            text += &format!("; run: @f({x})\n");
        }
        let (_, stats) = checked(&text, fold_range_tests);
        folded += stats.ranges;
    }
    assert!(folded > 60, "only {folded} of 300 pairs were ranges");
}

/// Random decision trees over compares of a few related values (parameters, a
/// shift, a mask, a remainder, constants), each compare repeated with some chance
/// along the way: after the pass, every function gives the leaf it gave before on
/// edge-case and random arguments, and the pass decided something in most of them.
#[test]
fn random_decision_trees_keep_their_leaves() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    const CCS: [&str; 10] = [
        "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
    ];
    let edge: [i64; 8] = [0, 1, -1, 2, 7, i64::MIN, i64::MAX, -8];
    let mut decided = 0;
    for _ in 0..200 {
        let mut text = String::from(
            "function @f(i64, i64, i64) -> i64 export {\nblock0(v0: i64, v1: i64, v2: i64):\n",
        );
        text += "    v3 = iconst.i64 1\n    v4 = ushr v0, v3\n    v5 = iconst.i64 12\n";
        text += "    v6 = band v1, v5\n    v7 = urem v2, v5\n    v8 = iconst.i64 -3\n";
        text += "    v9 = ushr v4, v3\n";
        let pool = 10u64;
        let mut next_value = 10;
        let mut conds: Vec<String> = Vec::new();
        let mut body = String::new();
        // blocks 1..=15 form a complete binary tree below block0, 16..=31 are leaves
        text += "    jump block1\n";
        for b in 1..16 {
            body += &format!("block{b}:\n");
            // a compare of an ancestor block (its definition dominates this one)
            let ancestors: Vec<usize> = std::iter::successors(Some(b / 2), |a| Some(a / 2))
                .take_while(|&a| a >= 1)
                .collect();
            let cond = if !ancestors.is_empty() && next() % 3 == 0 {
                conds[ancestors[(next() % ancestors.len() as u64) as usize] - 1].clone()
            } else {
                let cc = CCS[(next() % 10) as usize];
                let (x, y) = (next() % pool, next() % pool);
                if x == y {
                    continue_same(&mut body, &mut next_value, cc, x, (x + 1) % pool)
                } else {
                    continue_same(&mut body, &mut next_value, cc, x, y)
                }
            };
            conds.push(cond.clone());
            body += &format!("    brif {cond}, block{}, block{}\n", 2 * b, 2 * b + 1);
        }
        for leaf in 16..32 {
            body += &format!(
                "block{leaf}:\n    v{next_value} = iconst.i64 {leaf}\n    return v{next_value}\n"
            );
            next_value += 1;
        }
        text += &body;
        text += "}\n";
        for _ in 0..12 {
            let arg = |n: u64| -> i64 {
                if n % 2 == 0 {
                    edge[(n / 2 % 8) as usize]
                } else {
                    (n as i64) >> (n % 60)
                }
            };
            text += &format!(
                "; run: @f({}, {}, {})\n",
                arg(next()),
                arg(next()),
                arg(next())
            );
        }
        let module = parse_module(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        verify_module(&module).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let mut after = module.clone();
        let mut stats = ImpliedStats::default();
        for func in &mut after.functions {
            stats += implied_conditions(func);
        }
        verify_module(&after).unwrap_or_else(|e| panic!("{e}\n{after}"));
        let (runs, _) = directives(&text).unwrap();
        for run in &runs {
            assert_eq!(
                outcome(&module, run),
                outcome(&after, run),
                "line {}:\n{text}\nafter:\n{after}",
                run.line
            );
        }
        if stats.compares + stats.branches > 0 {
            decided += 1;
        }
    }
    assert!(
        decided > 100,
        "the pass decided something in only {decided} of 200"
    );
}

/// Appends `vN = icmp cc vX, vY` to `body`; the compare's name.
fn continue_same(body: &mut String, next_value: &mut usize, cc: &str, x: u64, y: u64) -> String {
    let v = format!("v{next_value}");
    *next_value += 1;
    *body += &format!("    {v} = icmp {cc} v{x}, v{y}\n");
    v
}

/// State threading alone; what it did.
fn state_threaded(text: &str) -> (Module, StateThreadStats) {
    checked(text, state_threading)
}

/// Counts the runs of one bits of `x` with a two-state machine: the loop's header
/// dispatches on the state every path of the body sets to a constant, and the latch
/// that tests the end is between them.
const RUNS: &str = "
function @runs(i64) -> i64 export {
block0(v0: i64):
    v1 = iconst.i8 0
    v2 = iconst.i64 0
    v3 = iconst.i64 0
    jump block1(v2, v1, v3)
block1(v4: i64, v5: i8, v6: i64):
    v7 = uextend.i64 v5
    switch v7, block4, [0 -> block2, 1 -> block3]
block2:
    v8 = ushr v0, v4
    v9 = iconst.i64 1
    v10 = band v8, v9
    v11 = icmp eq v10, v9
    v12 = iadd v6, v9
    v13 = iconst.i8 1
    v14 = iconst.i8 0
    brif v11, block5(v13, v12), block5(v14, v6)
block3:
    v15 = ushr v0, v4
    v16 = iconst.i64 1
    v17 = band v15, v16
    v18 = icmp eq v17, v16
    v19 = iconst.i8 1
    v20 = iconst.i8 0
    brif v18, block5(v19, v6), block5(v20, v6)
block4:
    unreachable
block5(v21: i8, v22: i64):
    v23 = iconst.i64 1
    v24 = iadd v4, v23
    v25 = iconst.i64 64
    v26 = icmp ult v24, v25
    brif v26, block1(v24, v21, v22), block6(v22)
block6(v27: i64):
    return v27
}
; run: @runs(0) == 0
; run: @runs(1) == 1
; run: @runs(11) == 2
; run: @runs(-1) == 1
; run: @runs(6148914691236517205) == 32
; run: @runs(-9223372036854775807) == 2
";

#[test]
fn a_state_machine_goes_straight_to_the_state_its_path_set() {
    let (after, stats) = state_threaded(RUNS);
    assert_eq!(stats.dispatches, 1, "{after}");
    assert_eq!(stats.irreducible, 0, "{after}");
    // the latch copied into each of the four edges that set a state
    assert_eq!(stats.copied, 4, "{after}");
    // the entry and the four copies of the latch go to their state's case
    assert_eq!(stats.threaded, 5, "{after}");
    assert_eq!(
        count(&after, Opcode::Switch),
        0,
        "no dispatch is left:\n{after}"
    );
}

#[test]
fn a_dispatch_whose_first_state_is_unknown_stays() {
    // the first state is the function's argument: threading the latches past the
    // dispatch would make each case a second way into the loop
    let text = RUNS
        .replace("function @runs(i64) -> i64", "function @runs(i64, i8) -> i64")
        .replace("block0(v0: i64):", "block0(v0: i64, v100: i8):")
        .replace("jump block1(v2, v1, v3)", "jump block1(v2, v100, v3)")
        .replace("; run: @runs(0) == 0", "; run: @runs(0, 0) == 0\n; run: @runs(1, 1) == 0\n; run: @runs(3, 1) == 0\n; run: @runs(6, 1) == 1\n; run: @runs(5, 3) trap: unreachable")
        .lines()
        .filter(|l| !l.starts_with("; run: @runs(") || l.contains(", "))
        .collect::<Vec<_>>()
        .join("\n");
    let (after, stats) = state_threaded(&text);
    assert_eq!(stats.dispatches, 0, "{after}");
    assert_eq!(stats.irreducible, 1, "{after}");
    assert_eq!(count(&after, Opcode::Switch), 1, "{after}");
}

#[test]
fn a_state_passed_through_a_join_before_the_latch_is_threaded() {
    // the cases join (block7) before the latch: the state reaches the dispatch
    // through two blocks, both copied into the paths that set it
    let text = RUNS
        .replace("brif v11, block5(v13, v12), block5(v14, v6)", "brif v11, block7(v13, v12), block7(v14, v6)")
        .replace("brif v18, block5(v19, v6), block5(v20, v6)", "brif v18, block7(v19, v6), block7(v20, v6)")
        .replace(
            "block5(v21: i8, v22: i64):",
            "block7(v30: i8, v31: i64):\n    v32 = iconst.i64 0\n    v33 = iadd v31, v32\n    jump block5(v30, v33)\nblock5(v21: i8, v22: i64):",
        );
    let (after, stats) = state_threaded(&text);
    assert_eq!(stats.dispatches, 1, "{after}");
    assert_eq!(count(&after, Opcode::Switch), 0, "{after}");
}

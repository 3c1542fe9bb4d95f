//! Evaluation counts (thesis Table 3.1): over every input of small random programs,
//! the code sequentialized by demand evaluates each node exactly when the result
//! needs it (0-1 times, never on a path that does not need it) and tests each γ's
//! predicate at most once, beside the counts of the structural destruction (which
//! evaluates every node of the λ's region on every path: call-by-value).
//!
//! A program is `@f(p0, p1, p2: i1, x, y: i32) -> i32`: some pure arithmetic nodes
//! computed up front (in the entry block, so in the λ's region of the RVSDG), then one
//! or more decision trees in sequence, each testing the predicates and choosing, at
//! each leaf, one of the nodes (or an operation on two of them, in the leaf); the
//! result combines the trees' results. One tree whose leaves share a node is the
//! exclusive redundancy of Fig. 3.1; two trees that both use a node are the
//! independent redundancy of Fig. 3.2. Every instruction of the original gets its own
//! source line, which the sequentialized code keeps, so the interpreter's profile
//! counts the evaluations of each node.

mod common;

use rustc_hash::FxHashMap as HashMap;
use std::fmt::Write;

use common::random_cfg::Rng;
use vliw_ir::{DataValue, Interpreter};
use vliw_ir::{Function, Module, Opcode, SourceLoc, parse_module, verify_module};
use vliw_rvsdg::lawrence::emit::{EmitOptions, sequentialize_lambda};
use vliw_rvsdg::{Report, Sequentializer, build_module, sequentialize_module};

const OPS: [&str; 4] = ["iadd", "isub", "imul", "bxor"];

/// What a leaf gives: node `k`, or `op(node a, node b)` computed in the leaf.
#[derive(Clone, Debug)]
enum Leaf {
    Node(usize),
    Op(&'static str, usize, usize),
}

#[derive(Clone, Debug)]
enum Tree {
    Leaf(Leaf),
    Test(usize, Box<Tree>, Box<Tree>),
}

struct Program {
    /// The up-front nodes: `op(a, b)` over the values `x`, `y` and earlier nodes
    /// (operand `0` is x, `1` is y, `k + 2` is node `k`).
    nodes: Vec<(&'static str, usize, usize)>,
    trees: Vec<Tree>,
}

fn random_tree(rng: &mut Rng, nodes: usize, depth: u32) -> Tree {
    if depth == 0 || rng.chance(25) {
        let k = rng.below(nodes);
        return Tree::Leaf(if rng.chance(30) {
            Leaf::Op(OPS[rng.below(4)], k, rng.below(nodes))
        } else {
            Leaf::Node(k)
        });
    }
    Tree::Test(
        rng.below(3),
        Box::new(random_tree(rng, nodes, depth - 1)),
        Box::new(random_tree(rng, nodes, depth - 1)),
    )
}

fn random_program(rng: &mut Rng) -> Program {
    let n = 2 + rng.below(5);
    let nodes = (0..n)
        .map(|k| (OPS[rng.below(4)], rng.below(k + 2), rng.below(k + 2)))
        .collect();
    let trees = (0..1 + rng.below(2))
        .map(|_| random_tree(rng, n, 3))
        .collect();
    Program { nodes, trees }
}

/// The IR text: node `k` is value `v{5 + k}`; each tree's blocks end in a join
/// block whose parameter is its result; the last block returns the sum of the
/// results.
fn to_ir(p: &Program) -> String {
    let mut s = String::from(
        "function @f(i1, i1, i1, i32, i32) -> i32 {\n\
         block0(v0: i1, v1: i1, v2: i1, v3: i32, v4: i32):\n",
    );
    let operand = |k: usize| if k < 2 { 3 + k } else { 5 + k - 2 };
    for (k, &(op, a, b)) in p.nodes.iter().enumerate() {
        let _ = writeln!(s, "    v{} = {op} v{}, v{}", 5 + k, operand(a), operand(b));
    }
    let mut next_value = 5 + p.nodes.len();
    let mut next_block = 1;
    let mut results = Vec::new();
    for tree in &p.trees {
        let join = next_block;
        next_block += 1;
        let mut blocks = Vec::new();
        emit_tree(
            tree,
            join,
            &mut next_block,
            &mut next_value,
            &mut blocks,
            &mut s,
        );
        for b in blocks {
            s.push_str(&b);
        }
        let r = next_value;
        next_value += 1;
        let _ = writeln!(s, "block{join}(v{r}: i32):");
        results.push(r);
    }
    let mut acc = results[0];
    for &r in &results[1..] {
        let _ = writeln!(s, "    v{next_value} = iadd v{acc}, v{r}");
        acc = next_value;
        next_value += 1;
    }
    let _ = writeln!(s, "    return v{acc}\n}}");
    s
}

/// Ends the current block with `tree` (its blocks go to `out`), each leaf jumping to
/// `join` with its value.
fn emit_tree(
    tree: &Tree,
    join: usize,
    next_block: &mut usize,
    next_value: &mut usize,
    out: &mut Vec<String>,
    s: &mut String,
) {
    match tree {
        Tree::Leaf(Leaf::Node(k)) => {
            let _ = writeln!(s, "    jump block{join}(v{})", 5 + k);
        }
        Tree::Leaf(Leaf::Op(op, a, b)) => {
            let v = *next_value;
            *next_value += 1;
            let _ = writeln!(s, "    v{v} = {op} v{}, v{}", 5 + a, 5 + b);
            let _ = writeln!(s, "    jump block{join}(v{v})");
        }
        Tree::Test(p, t, f) => {
            let (bt, bf) = (*next_block, *next_block + 1);
            *next_block += 2;
            let _ = writeln!(s, "    brif v{p}, block{bt}, block{bf}");
            for (b, sub) in [(bt, t), (bf, f)] {
                let mut text = format!("block{b}:\n");
                emit_tree(sub, join, next_block, next_value, out, &mut text);
                out.push(text);
            }
        }
    }
}

/// The up-front nodes a run needs with predicates `preds`: the closure of the
/// chosen leaves' operands.
fn needed(p: &Program, preds: [bool; 3]) -> Vec<bool> {
    let mut need = vec![false; p.nodes.len()];
    let mut stack = Vec::new();
    for tree in &p.trees {
        let mut t = tree;
        while let Tree::Test(k, a, b) = t {
            t = if preds[*k] { a } else { b };
        }
        match t {
            Tree::Leaf(Leaf::Node(k)) => stack.push(*k),
            Tree::Leaf(Leaf::Op(_, a, b)) => stack.extend([*a, *b]),
            Tree::Test(..) => unreachable!(),
        }
    }
    while let Some(k) = stack.pop() {
        if !std::mem::replace(&mut need[k], true) {
            let (_, a, b) = p.nodes[k];
            stack.extend([a, b].into_iter().filter(|&o| o >= 2).map(|o| o - 2));
        }
    }
    need
}

/// The module of `text` with every instruction on a line of its own (line = the
/// instruction's place in the function, from 1).
fn with_lines(text: &str) -> Module {
    let mut m = parse_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let f = &mut m.functions[0];
    f.files.push("random.rs".into());
    let blocks: Vec<_> = f.layout.blocks().collect();
    let mut line = 0;
    for b in blocks {
        let insts: Vec<_> = f.layout.block_insts(b).collect();
        for i in insts {
            line += 1;
            f.srclocs[i] = SourceLoc::new(0, line, 1);
        }
    }
    verify_module(&m).unwrap_or_else(|e| panic!("{e}\n{text}"));
    m
}

/// Runs `f` on `args` and counts the runs of the instructions of each source line:
/// (result, evaluations by line, branches run by line).
fn profile(
    f: &Function,
    args: &[DataValue],
) -> (Vec<DataValue>, HashMap<u32, u64>, HashMap<u32, u64>) {
    let mut m = Module::new();
    m.functions.push(f.clone());
    let mut it = Interpreter::new(&m);
    it.enable_profile();
    let out = it.call("f", args).unwrap_or_else(|e| panic!("{e}\n{f}"));
    let (mut evals, mut tests) = (HashMap::default(), HashMap::default());
    for (_, inst, n) in it.profile() {
        let line = f.srclocs[inst].line;
        if line == 0 {
            continue;
        }
        let map = match f.dfg.opcode(inst) {
            Opcode::Brif | Opcode::Switch => &mut tests,
            _ => &mut evals,
        };
        *map.entry(line).or_insert(0) += n;
    }
    (out, evals, tests)
}

#[test]
fn nodes_are_evaluated_exactly_when_needed_and_predicates_tested_once() {
    let (count, seed) = common::random_cfg::count_and_seed(400);
    let mut rng = Rng(seed.wrapping_mul(0x9e3779b97f4a7c15) | 1);
    let mut report = Report::default();
    let (mut runs, mut fallbacks) = (0u64, 0u64);
    let (mut lazy_evals, mut eager_evals, mut needed_evals) = (0u64, 0u64, 0u64);
    let mut failures = Vec::new();
    for s in 0..count {
        let p = random_program(&mut rng);
        let text = to_ir(&p);
        let module = with_lines(&text);
        let mut rm = build_module(&module, &mut report);
        assert!(rm.not_built.is_empty(), "{text}");
        rm.roots.insert("f".into());
        // the states that only pass through the γs, and the unused nodes, out (as the
        // pipeline's passes do before sequentializing; the others would move the
        // up-front nodes into the arms themselves)
        vliw_rvsdg::opt::invariant_value_redirection(&mut rm.graph, &mut report);
        vliw_rvsdg::opt::dead_node_elimination(&mut rm.graph, &rm.roots, &mut report);
        let l = rm.graph.lambdas()[0];
        let (lazy, _) = match sequentialize_lambda(&rm.graph, l, EmitOptions::default()) {
            Ok(x) => x,
            Err(e) => {
                if fallbacks == 0 {
                    println!("the first fallback: {e:?}\n{text}");
                }
                fallbacks += 1;
                continue;
            }
        };
        let mut eager = module.clone();
        sequentialize_module(
            &rm,
            &mut eager,
            Sequentializer::Structural,
            EmitOptions::default(),
            &mut report,
        );
        let eager = &eager.functions[0];
        for bits in 0..8u32 {
            let preds = [bits & 1 != 0, bits & 2 != 0, bits & 4 != 0];
            let args = [
                DataValue::I1(preds[0]),
                DataValue::I1(preds[1]),
                DataValue::I1(preds[2]),
                DataValue::I32(s as i32 * 7 - 11),
                DataValue::I32(13 - s as i32),
            ];
            runs += 1;
            let (want, _, _) = profile(&module.functions[0], &args);
            let (got, evals, tests) = profile(&lazy, &args);
            let (got_eager, eager_counts, _) = profile(eager, &args);
            let need = needed(&p, preds);
            let mut problems = Vec::new();
            if got != want || got_eager != want {
                problems.push(format!("results {got:?} / {got_eager:?}, want {want:?}"));
            }
            for (k, &needed) in need.iter().enumerate() {
                let line = k as u32 + 1; // the up-front nodes are the first lines
                let n = evals.get(&line).copied().unwrap_or(0);
                if n != u64::from(needed) {
                    problems.push(format!("node {k} (v{}) evaluated {n} times", 5 + k));
                }
                lazy_evals += n;
                needed_evals += u64::from(needed);
                eager_evals += eager_counts.get(&line).copied().unwrap_or(0);
            }
            if let Some((line, n)) = tests.iter().find(|&(_, &n)| n > 1) {
                problems.push(format!("the branch of line {line} ran {n} times"));
            }
            if !problems.is_empty() {
                failures.push(format!(
                    "program {s}, predicates {preds:?}: {}\n{text}\nby demand:\n{lazy}",
                    problems.join("; ")
                ));
                break;
            }
        }
    }
    println!(
        "{count} programs, {runs} runs ({fallbacks} programs fell back): up-front nodes \
         evaluated {lazy_evals} times by demand, {eager_evals} structurally, \
         {needed_evals} needed"
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    assert!(
        fallbacks * 100 <= count as u64,
        "{fallbacks} of {count} fell back"
    );
    assert!(
        eager_evals > lazy_evals,
        "the structural destruction speculates"
    );
}

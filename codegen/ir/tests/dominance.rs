//! The dominator tree against a brute-force oracle on random CFGs: `a` dominates `b`
//! iff `b` is reachable and no longer reachable from the entry once `a` is removed.

use proptest::prelude::*;
use rustc_hash::FxHashSet as HashSet;
use vliw_ir::cranelift_entity::EntityRef;
use vliw_ir::*;

/// Terminator shapes: 0 return, 1 jump, 2 brif, 3 switch (targets index into blocks).
#[derive(Clone, Debug)]
struct Term {
    kind: u8,
    targets: Vec<usize>,
}

fn build(terms: &[Term]) -> (Function, Vec<Block>) {
    let mut func = Function::new("f", Signature::new(&[Type::I32], &[]), Linkage::Local);
    let mut b = FunctionBuilder::new(&mut func);
    let blocks: Vec<Block> = terms.iter().map(|_| b.create_block()).collect();
    let x = b.append_block_param(blocks[0], Type::I32);
    for (i, t) in terms.iter().enumerate() {
        b.switch_to_block(blocks[i]);
        // non-entry blocks get the value as a parameter so every branch passes it
        let v = if i == 0 {
            x
        } else {
            b.append_block_param(blocks[i], Type::I32)
        };
        let tgt = |k: usize| blocks[t.targets[k]];
        match t.kind {
            0 => {
                b.ins().return_(&[]);
            }
            1 => {
                b.ins().jump(tgt(0), &[v]);
            }
            2 => {
                let c = b.ins().ireduce(Type::I1, v);
                b.ins().brif(c, tgt(0), &[v], tgt(1), &[v]);
            }
            _ => {
                let mut table = SwitchData::new(BlockCall::new(tgt(0), &[v]));
                for (k, _) in t.targets.iter().enumerate().skip(1) {
                    table.push_case(k as u128, BlockCall::new(tgt(k), &[v]));
                }
                b.ins().switch(v, table);
            }
        }
    }
    (func, blocks)
}

fn reachable(func: &Function, cfg: &ControlFlowGraph, removed: Option<Block>) -> HashSet<Block> {
    let mut seen = HashSet::default();
    let entry = func.layout.entry_block().unwrap();
    if Some(entry) == removed {
        return seen;
    }
    let mut stack = vec![entry];
    seen.insert(entry);
    while let Some(b) = stack.pop() {
        for &s in cfg.succs(b) {
            if Some(s) != removed && seen.insert(s) {
                stack.push(s);
            }
        }
    }
    seen
}

fn cfg_strategy() -> impl Strategy<Value = Vec<Term>> {
    (1usize..14).prop_flat_map(|n| {
        proptest::collection::vec(
            (0u8..4, proptest::collection::vec(1..n.max(2), 1..4)).prop_map(
                move |(kind, targets)| {
                    // targets never name the entry block (index 0); with one block, only return
                    let kind = if n == 1 { 0 } else { kind };
                    let need = match kind {
                        0 => 0,
                        1 => 1,
                        2 => 2,
                        _ => targets.len(),
                    };
                    let mut t: Vec<usize> =
                        targets.into_iter().map(|x| x.min(n - 1).max(1)).collect();
                    while t.len() < need {
                        t.push(1);
                    }
                    t.truncate(need.max(if kind == 3 { 1 } else { need }));
                    Term { kind, targets: t }
                },
            ),
            n,
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn dominators_match_brute_force(terms in cfg_strategy()) {
        let (func, blocks) = build(&terms);
        verify_function(&func).map_err(|e| TestCaseError::fail(format!("{e}\n{func}")))?;
        let cfg = ControlFlowGraph::compute(&func);
        let dt = DominatorTree::with_cfg(&func, &cfg);
        let reach = reachable(&func, &cfg, None);
        for &a in &blocks {
            let without_a = reachable(&func, &cfg, Some(a));
            for &b in &blocks {
                let expected = reach.contains(&b) && reach.contains(&a) && (a == b || !without_a.contains(&b));
                prop_assert_eq!(dt.dominates(a, b), expected, "dominates({}, {})\n{}", a, b, func);
            }
        }
        // idom: strictly dominates, and every other strict dominator dominates it
        for &b in &blocks {
            prop_assert_eq!(dt.is_reachable(b), reach.contains(&b));
            if let Some(d) = dt.idom(b) {
                prop_assert!(dt.strictly_dominates(d, b));
                for &a in &blocks {
                    if dt.strictly_dominates(a, b) {
                        prop_assert!(dt.dominates(a, d));
                    }
                }
            } else {
                prop_assert!(b == blocks[0] || !reach.contains(&b));
            }
        }
        // reverse postorder: entry first, every reachable block once; a block comes
        // after its idom
        let rpo = dt.rpo();
        prop_assert_eq!(rpo.first().copied(), Some(blocks[0]));
        prop_assert_eq!(rpo.len(), reach.len());
        for &b in rpo {
            if let Some(d) = dt.idom(b) {
                prop_assert!(dt.rpo_number(d) < dt.rpo_number(b));
            }
        }
        // preorder visits each reachable block once
        let pre = dt.preorder();
        prop_assert_eq!(pre.iter().collect::<HashSet<_>>().len(), reach.len());
        // the IR's CFG is a vliw_ssa::Graph: post-dominators and control dependence
        // on it equal those on the same graph as a vliw_ssa::Cfg (where they are
        // checked against their definitions, vliw-ssa's tests/dominance_oracle.rs)
        let ssa_block = |b: Block| vliw_ssa::Block::new(b.index());
        let ssa_cfg = vliw_ssa::Cfg::from_successors(
            ssa_block(blocks[0]),
            blocks.iter().map(|&b| cfg.succs(b).iter().map(|&s| ssa_block(s)).collect::<Vec<_>>()),
        );
        let pdt = PostDominatorTree::compute(&cfg);
        let expected = vliw_ssa::PostDomTree::compute(&ssa_cfg);
        let cd = vliw_ssa::ControlDependence::compute(&cfg, &pdt);
        let expected_cd = vliw_ssa::ControlDependence::compute(&ssa_cfg, &expected);
        for &a in &blocks {
            prop_assert_eq!(pdt.ipdom(a).map(ssa_block), expected.ipdom(ssa_block(a)));
            let deps: Vec<_> = cd.dependences(a).iter().map(|&(x, y)| (ssa_block(x), ssa_block(y))).collect();
            prop_assert_eq!(deps.as_slice(), expected_cd.dependences(ssa_block(a)));
            for &b in &blocks {
                prop_assert_eq!(
                    pdt.post_dominates(a, b),
                    expected.post_dominates(ssa_block(a), ssa_block(b))
                );
            }
        }
        // and the function round-trips through text
        let text = func.to_string();
        let back = parse_function(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back.to_string(), text);
    }
}

#[test]
fn diamond_and_loop() {
    let text = "function @f(i1) {
block0(v0: i1):
    brif v0, block1, block2
block1:
    jump block3
block2:
    jump block3
block3:
    brif v0, block3, block4
block4:
    return
block5:
    return
}
";
    let f = parse_function(text).unwrap();
    let dt = DominatorTree::compute(&f);
    let b = |n| Block::from_u32(n);
    assert_eq!(dt.idom(b(3)), Some(b(0)));
    assert_eq!(dt.idom(b(4)), Some(b(3)));
    assert!(dt.dominates(b(0), b(4)));
    assert!(!dt.dominates(b(1), b(3)));
    assert!(dt.dominates(b(3), b(3)));
    assert!(!dt.is_reachable(b(5)));
    assert!(!dt.dominates(b(0), b(5)));
    let cfg = ControlFlowGraph::compute(&f);
    assert_eq!(cfg.preds(b(3)), &[b(1), b(2), b(3)]);
    assert_eq!(cfg.succs(b(3)), &[b(3), b(4)]);
}

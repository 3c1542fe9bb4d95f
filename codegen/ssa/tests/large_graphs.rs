//! Large graphs: every algorithm is iterative, so functions with 10^5 blocks and deep
//! loop nests run on a test thread's small stack.

use vliw_ssa::cfg::{Block, Cfg};
use vliw_ssa::dataflow::DataflowLiveness;
use vliw_ssa::dominators::DomTree;
use vliw_ssa::livecheck::LivenessChecker;
use vliw_ssa::liveness::LiveSets;
use vliw_ssa::loops::LoopForest;
use vliw_ssa::program::{ExplicitProgram, Instruction, UseSite, Var};

/// A chain `0 -> 1 -> ... -> n-1` with `depth` nested loops (back edge from
/// `n-2-j` to `1+j`), and a jump from 0 into the middle of all of them, which makes
/// every loop irreducible.
fn nested_chain(n: usize, depth: usize) -> Cfg {
    let mut succs: Vec<Vec<Block>> = (0..n)
        .map(|i| {
            if i + 1 < n {
                vec![Block::new(i + 1)]
            } else {
                vec![]
            }
        })
        .collect();
    for j in 0..depth {
        succs[n - 2 - j].push(Block::new(1 + j));
    }
    succs[0].push(Block::new(n / 2));
    Cfg::from_successors(Block(0), succs)
}

/// `a` defined in 0 and used in the outermost header; `b` defined in the middle block
/// (which dominates every later block) and used near the end; both also used by the
/// last block.
fn program(cfg: &Cfg) -> (ExplicitProgram, [(Var, Block, Vec<UseSite>); 2]) {
    let n = cfg.num_blocks();
    let mut p = ExplicitProgram::new(n);
    for b in cfg.blocks() {
        p.blocks[b.index()].edge_args = vec![Vec::new(); cfg.succs(b).len()];
    }
    let a = p.new_var();
    let b = p.new_var();
    let (mid, late, last) = (n / 2, n - 3 - n / 10, n - 1);
    p.blocks[0].insts.push(Instruction {
        defs: vec![a],
        uses: vec![],
    });
    p.blocks[1].insts.push(Instruction {
        defs: vec![],
        uses: vec![a],
    });
    p.blocks[mid].insts.push(Instruction {
        defs: vec![b],
        uses: vec![],
    });
    p.blocks[late].insts.push(Instruction {
        defs: vec![],
        uses: vec![b],
    });
    p.blocks[last].insts.push(Instruction {
        defs: vec![],
        uses: vec![a, b],
    });
    let sites = [
        (
            a,
            Block(0),
            vec![
                UseSite::Instruction(Block(1)),
                UseSite::Instruction(Block::new(last)),
            ],
        ),
        (
            b,
            Block::new(mid),
            vec![
                UseSite::Instruction(Block::new(late)),
                UseSite::Instruction(Block::new(last)),
            ],
        ),
    ];
    (p, sites)
}

#[test]
fn hundred_thousand_blocks_with_forty_nested_irreducible_loops() {
    let cfg = nested_chain(100_000, 40);
    let dom = DomTree::compute(&cfg);
    let loops = LoopForest::compute(&cfg);
    assert_eq!(loops.num_loops(), 40);
    assert_eq!(loops.loop_depth(Block(50_000)), 40);
    let (p, _) = program(&cfg);
    // Back edges only go up to the first half, so the mid block dominates the rest.
    assert_eq!(p.check_strict_ssa(&cfg, &dom), Ok(()));
    let sets = LiveSets::compute(&cfg, &loops, &p);
    let reference = DataflowLiveness::compute(&cfg, &p);
    assert_eq!(sets, reference.sets);
    assert!(
        sets.is_live_in(Block(99_990), Var(0)),
        "a is live around every loop"
    );
}

#[test]
fn liveness_check_on_twenty_thousand_blocks() {
    let cfg = nested_chain(20_000, 30);
    let check = LivenessChecker::new(&cfg);
    let (p, sites) = program(&cfg);
    assert_eq!(p.check_strict_ssa(&cfg, check.dominators()), Ok(()));
    let reference = DataflowLiveness::compute(&cfg, &p);
    for (v, def, uses) in &sites {
        for q in cfg.blocks().step_by(7) {
            assert_eq!(
                check.is_live_in(*def, uses.iter().copied(), q),
                reference.sets.is_live_in(q, *v),
                "{v:?} live-in at {q:?}"
            );
            assert_eq!(
                check.is_live_out(*def, uses.iter().copied(), q),
                reference.sets.is_live_out(q, *v),
                "{v:?} live-out at {q:?}"
            );
        }
    }
}

//! Random CFGs and random strict-SSA programs for the property tests.
//!
//! Generation is driven by a seed through a small deterministic generator, so proptest
//! explores seeds and sizes; the shapes are built on purpose: reducible graphs (a
//! forward DAG plus back edges to dominators, which keeps dominance and so
//! reducibility), irreducible ones (back edges to arbitrary earlier blocks, plus a
//! cycle with two entries), and arbitrary ones (any successors: unreachable blocks,
//! an entry with predecessors).

#![allow(dead_code)]

use vliw_ssa::cfg::{Block, Cfg};
use vliw_ssa::dominators::DomTree;
use vliw_ssa::program::{ExplicitProgram, Instruction, Var};

/// SplitMix64.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next() % den < num
    }

    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> Option<T> {
        if xs.is_empty() {
            None
        } else {
            Some(xs[self.below(xs.len())])
        }
    }
}

#[derive(Copy, Clone, Debug)]
pub enum Shape {
    Reducible,
    Irreducible,
    Arbitrary,
}

fn build(succs: &[Vec<Block>]) -> Cfg {
    Cfg::from_successors(Block(0), succs.iter().cloned())
}

/// A random CFG of `n >= 1` blocks with entry 0.
pub fn random_cfg(shape: Shape, n: usize, rng: &mut Rng) -> Cfg {
    let mut succs: Vec<Vec<Block>> = vec![Vec::new(); n];
    if let Shape::Arbitrary = shape {
        for s in succs.iter_mut() {
            for _ in 0..rng.below(4) {
                s.push(Block::new(rng.below(n)));
            }
        }
        return build(&succs);
    }
    // A forward DAG in which every block is reachable.
    for i in 1..n {
        let p = rng.below(i);
        succs[p].push(Block::new(i));
    }
    for (i, s) in succs.iter_mut().enumerate().take(n.saturating_sub(1)) {
        if rng.chance(1, 2) {
            let j = i + 1 + rng.below(n - i - 1);
            s.push(Block::new(j));
        }
    }
    let dag = build(&succs);
    let dag_dom = DomTree::compute(&dag);
    let back_edges = rng.below(n / 2 + 2);
    for _ in 0..back_edges {
        let j = rng.below(n);
        let target = match shape {
            Shape::Reducible => {
                // A random dominator of j (itself included): dominance is unchanged,
                // so the graph stays reducible.
                let mut d = Block::new(j);
                while let Some(up) = dag_dom.idom(d) {
                    if rng.chance(1, 2) {
                        break;
                    }
                    d = up;
                }
                d
            }
            _ => Block::new(rng.below(j + 1)),
        };
        succs[j].push(target);
    }
    if let Shape::Irreducible = shape
        && n >= 4
    {
        // A cycle y <-> z entered from x at both y and z.
        let x = rng.below(n - 2);
        let y = x + 1 + rng.below(n - x - 2);
        let z = y + 1 + rng.below(n - y - 1);
        succs[x].push(Block::new(y));
        succs[x].push(Block::new(z));
        succs[y].push(Block::new(z));
        succs[z].push(Block::new(y));
    }
    build(&succs)
}

/// Where each variable of a generated program is defined: block and position (0 for a
/// parameter, i + 1 for instruction i).
pub struct Generated {
    pub program: ExplicitProgram,
    pub def_at: Vec<(Block, usize)>,
}

fn dominated_blocks(cfg: &Cfg, dom: &DomTree, d: Block) -> Vec<Block> {
    cfg.reachable_blocks()
        .filter(|&u| dom.dominates(d, u))
        .collect()
}

/// A random strict-SSA program on `cfg`: about `vars` variables, each defined in a
/// random reachable block (as a parameter or by an instruction) and used in blocks its
/// definition dominates (after it in its own block), plus arguments on every edge from
/// variables whose definition dominates the edge's source.
pub fn random_program(cfg: &Cfg, dom: &DomTree, vars: usize, rng: &mut Rng) -> Generated {
    let n = cfg.num_blocks();
    let mut p = ExplicitProgram::new(n);
    let mut def_at = Vec::new();
    let reachable: Vec<Block> = cfg.reachable_blocks().collect();
    for &b in &reachable {
        for _ in 0..rng.below(4) {
            p.blocks[b.index()].insts.push(Instruction::default());
        }
    }
    // The entry's parameters (the function's arguments) give every edge a candidate.
    for _ in 0..1 + rng.below(2) {
        let v = p.new_var();
        p.blocks[cfg.entry().index()].params.push(v);
        def_at.push((cfg.entry(), 0));
    }
    for _ in 0..vars {
        let d = rng.pick(&reachable).unwrap();
        let len = p.blocks[d.index()].insts.len();
        let v = p.new_var();
        if len == 0 || rng.chance(1, 3) {
            p.blocks[d.index()].params.push(v);
            def_at.push((d, 0));
        } else {
            let i = rng.below(len);
            p.blocks[d.index()].insts[i].defs.push(v);
            def_at.push((d, i + 1));
        }
    }
    for (v, &(d, pos)) in def_at.iter().enumerate() {
        let candidates = dominated_blocks(cfg, dom, d);
        for _ in 0..rng.below(4) {
            let u = rng.pick(&candidates).unwrap();
            let insts = &mut p.blocks[u.index()].insts;
            // Instruction j is at position j + 1; it must come after the definition.
            let first = if u == d { pos } else { 0 };
            if first >= insts.len() {
                continue;
            }
            let j = first + rng.below(insts.len() - first);
            insts[j].uses.push(Var::new(v));
        }
    }
    for b in cfg.blocks() {
        let succs = cfg.succs(b);
        if !cfg.is_reachable(b) {
            p.blocks[b.index()].edge_args = vec![Vec::new(); succs.len()];
            continue;
        }
        let available: Vec<Var> = (0..p.var_count)
            .filter(|&v| dom.dominates(def_at[v].0, b))
            .map(Var::new)
            .collect();
        let args = succs
            .iter()
            .map(|s| {
                (0..p.blocks[s.index()].params.len())
                    .map(|_| rng.pick(&available).unwrap())
                    .collect()
            })
            .collect();
        p.blocks[b.index()].edge_args = args;
    }
    Generated { program: p, def_at }
}

/// Edits a generated program without touching the CFG, like the passes that run while
/// the liveness check's data is kept: appends new uses of existing variables, and
/// inserts copies `w = x` at the end of blocks, then uses `w` below (including as a
/// replacement branch argument).
pub fn edit_program(g: &mut Generated, cfg: &Cfg, dom: &DomTree, edits: usize, rng: &mut Rng) {
    let reachable: Vec<Block> = cfg.reachable_blocks().collect();
    for _ in 0..edits {
        let x = rng.below(g.program.var_count);
        let (dx, _) = g.def_at[x];
        let below_def = dominated_blocks(cfg, dom, dx);
        let b = rng.pick(&below_def).unwrap();
        if rng.chance(1, 2) {
            // A new use of x at the end of b (after x's definition if b defines it).
            g.program.blocks[b.index()].insts.push(Instruction {
                defs: vec![],
                uses: vec![Var::new(x)],
            });
            continue;
        }
        let w = g.program.new_var();
        let blk = &mut g.program.blocks[b.index()];
        blk.insts.push(Instruction {
            defs: vec![w],
            uses: vec![Var::new(x)],
        });
        g.def_at.push((b, blk.insts.len()));
        for _ in 0..rng.below(3) {
            let u = rng.pick(&reachable).unwrap();
            if dom.strictly_dominates(b, u) {
                g.program.blocks[u.index()].insts.push(Instruction {
                    defs: vec![],
                    uses: vec![w],
                });
            } else if dom.dominates(b, u) {
                // b itself: replace one of its branch arguments.
                let args = &mut g.program.blocks[u.index()].edge_args;
                let slots: Vec<(usize, usize)> = args
                    .iter()
                    .enumerate()
                    .flat_map(|(e, a)| (0..a.len()).map(move |i| (e, i)))
                    .collect();
                if let Some((e, i)) = rng.pick(&slots) {
                    args[e][i] = w;
                }
            }
        }
    }
}

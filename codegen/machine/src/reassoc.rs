//! Reassociation of sums (machine SSA, before allocation): a tree of `add` and `sub`
//! operations of one block whose inner results are read once, by the tree, is rebuilt
//! so that its height follows when its leaves are ready, not the order the source
//! wrote them in. The classic case is an accumulator after unrolling and
//! if-conversion: `acc = acc + abs0 + lo0 - hi0 + abs1 + ...` is a chain as long as
//! the terms, every link waiting for the previous; rebuilt, the terms are summed in a
//! balanced tree while the accumulator (a block parameter: it arrives from the
//! previous iteration) is added last, once.
//!
//! Wrapping addition is associative and commutative, so any order gives the same
//! bits. A tree is of one width: 64-bit `add`/`sub`, or 32-bit `addw`/`subw` (their
//! results are the sign-extended low 32 bits, which only depend on the low 32 bits of
//! the operands: any order of `addw`/`subw` gives the same result). Only unguarded
//! operations that keep nothing are nodes; `r0` leaves are dropped.
//!
//! The rebuild is Huffman's: the two terms that are ready first are combined, the
//! sum ready one operation later, until one is left. A leaf is ready when its
//! definition in the block is, in a greedy in-order schedule of the block with the
//! machine description's latencies, units and width (terms that arrive one after the
//! other, as the products of `dot_i32` behind its loads, are best added in a chain,
//! which the rule keeps), at 0 when it comes from elsewhere. The blocks are scheduled
//! one at a time, iterations of a loop do not overlap, so an accumulator arriving
//! from the previous iteration is ready at 0 like the others (with software
//! pipelining it would be the one to add last). Signs ride on the terms: two
//! negative terms make a negative sum, a positive and a negative their difference; a
//! tree whose terms are all negative ends in `sub r0, x`. A tree is rebuilt only
//! when that lowers its height; it keeps its number of operations.

use rustc_hash::FxHashMap as HashMap;
use std::collections::BinaryHeap;

use vliw_isa::{MachineConfig, Opcode};

use crate::mir::{Imm, InstId, MBlock, MInst, MachFunction, Reg, RegClass};

/// What [`reassociate`] did.
#[derive(Copy, Clone, Default, Debug)]
pub struct ReassocStats {
    /// Trees rebuilt.
    pub trees: usize,
    /// Their leaves.
    pub leaves: usize,
}

/// The two widths of sums: (add, sub).
fn family(op: Opcode) -> Option<(Opcode, Opcode)> {
    match op {
        Opcode::Add | Opcode::Sub => Some((Opcode::Add, Opcode::Sub)),
        Opcode::Addw | Opcode::Subw => Some((Opcode::Addw, Opcode::Subw)),
        _ => None,
    }
}

fn is_node(inst: &MInst) -> bool {
    inst.guard.is_always()
        && inst.keep.is_none()
        && inst.opcode().and_then(family).is_some()
        && matches!(inst.imm, Imm::None)
        && inst.uses.len() == 2
        && matches!(inst.defs.first(), Some(Reg::Virtual(_)))
}

/// Rebuilds the sum trees of every block of `mf`.
pub fn reassociate(mf: &mut MachFunction, machine: &MachineConfig) -> ReassocStats {
    let reads = mf.read_counts();
    let mut stats = ReassocStats::default();
    for b in mf.layout.clone() {
        block(mf, b, machine, &reads, &mut stats);
    }
    stats
}

/// A term of a sum: its register, whether it is subtracted, when it is ready.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Term {
    ready: u32,
    /// The order terms were made in (ties of `ready` go to the older, for a
    /// deterministic result).
    seq: u32,
    reg: Reg,
    negative: bool,
}

impl Ord for Term {
    // the earliest first out of a max-heap; ties by register for determinism
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .ready
            .cmp(&self.ready)
            .then_with(|| other.seq.cmp(&self.seq))
    }
}

impl PartialOrd for Term {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

fn block(
    mf: &mut MachFunction,
    b: MBlock,
    machine: &MachineConfig,
    reads: &HashMap<Reg, usize>,
    stats: &mut ReassocStats,
) {
    let ids: Vec<InstId> = mf.block_inst_ids(b).to_vec();
    // where each value of the block is defined, and when it is ready in a greedy
    // in-order schedule of the block
    let mut def_at: HashMap<Reg, usize> = HashMap::default();
    let mut ready: HashMap<Reg, u32> = HashMap::default();
    let mut used: Vec<(u32, [u32; 5])> = Vec::new();
    for (i, &id) in ids.iter().enumerate() {
        let inst = mf.inst(id);
        let mut at = inst
            .all_uses()
            .map(|r| ready.get(&r).copied().unwrap_or(0))
            .max()
            .unwrap_or(0);
        let (latency, unit) = inst.opcode().map_or((1, None), |o| {
            (machine.latency(o.latency_class()), Some(o.unit()))
        });
        loop {
            if used.len() <= at as usize {
                used.resize(at as usize + 1, (0, [0; 5]));
            }
            let (width, units) = &mut used[at as usize];
            let unit_free = unit.is_none_or(|u| units[u as usize] < machine.unit_count(u));
            if (*width as usize) < machine.width && unit_free {
                *width += 1;
                if let Some(u) = unit {
                    units[u as usize] += 1;
                }
                break;
            }
            at += 1;
        }
        for &d in &inst.defs {
            def_at.insert(d, i);
            ready.insert(d, at + latency);
        }
    }
    let node_of = |mf: &MachFunction, r: Reg, fam: (Opcode, Opcode)| -> Option<usize> {
        let &i = def_at.get(&r)?;
        let inst = mf.inst(ids[i]);
        (is_node(inst) && family(inst.opcode()?) == Some(fam)).then_some(i)
    };
    // the nodes read once, by a node of their family in this block: inner nodes
    let mut inner = vec![false; ids.len()];
    for &id in &ids {
        let inst = mf.inst(id);
        if !is_node(inst) {
            continue;
        }
        let fam = family(inst.opcode().expect("a node")).expect("a sum");
        for &u in &inst.uses {
            if reads.get(&u) == Some(&1)
                && let Some(i) = node_of(mf, u, fam)
            {
                inner[i] = true;
            }
        }
    }
    let mut removed = vec![false; ids.len()];
    let mut inserted: Vec<(usize, Vec<MInst>)> = Vec::new();
    for (root_at, &root) in ids.iter().enumerate() {
        let inst = mf.inst(root);
        if !is_node(inst) || inner[root_at] {
            continue;
        }
        let fam = family(inst.opcode().expect("a node")).expect("a sum");
        // the leaves with their signs, and the tree's height as written
        let leaf_ready = |r: Reg| ready.get(&r).copied().unwrap_or(0);
        let mut leaves: Vec<Term> = Vec::new();
        let mut members: Vec<usize> = Vec::new();
        let tree = Tree {
            mf,
            ids: &ids,
            fam,
            inner: &inner,
            def_at: &def_at,
            leaf_ready: &leaf_ready,
        };
        let height = tree.collect(root_at, false, &mut leaves, &mut members);
        leaves.retain(|t| t.reg != Reg::ZERO);
        if leaves.len() < 3 {
            continue;
        }
        let (ops, new_height) = rebuild(mf, &leaves, fam, mf.inst(root).defs[0]);
        if new_height >= height {
            continue;
        }
        let loc = mf.inst(root).loc;
        let mut ops = ops;
        for op in &mut ops {
            op.loc = loc;
        }
        let last = ops.pop().expect("at least one operation");
        *mf.inst_mut(root) = last;
        for m in members {
            if m != root_at {
                removed[m] = true;
            }
        }
        inserted.push((root_at, ops));
        stats.trees += 1;
        stats.leaves += leaves.len();
    }
    if inserted.is_empty() {
        return;
    }
    let mut order = Vec::with_capacity(ids.len());
    let mut inserted = inserted.into_iter().peekable();
    for (i, &id) in ids.iter().enumerate() {
        if let Some((_, ops)) = inserted.next_if(|(at, _)| *at == i) {
            for op in ops {
                order.push(mf.make_inst(op));
            }
        }
        if !removed[i] {
            order.push(id);
        }
    }
    mf.set_block_insts(b, order);
}

/// A sum tree being read: the block's operations and what tells its nodes.
struct Tree<'a> {
    mf: &'a MachFunction,
    ids: &'a [InstId],
    fam: (Opcode, Opcode),
    inner: &'a [bool],
    def_at: &'a HashMap<Reg, usize>,
    leaf_ready: &'a dyn Fn(Reg) -> u32,
}

impl Tree<'_> {
    /// Gathers the leaves under operation `at` (negated when `negative`) into
    /// `leaves` and its operations into `members`; returns when its result is ready
    /// as written (one cycle per sum).
    fn collect(
        &self,
        at: usize,
        negative: bool,
        leaves: &mut Vec<Term>,
        members: &mut Vec<usize>,
    ) -> u32 {
        members.push(at);
        let inst = self.mf.inst(self.ids[at]);
        let subtracts = inst.opcode() == Some(self.fam.1);
        let mut height = 0;
        for (k, &u) in inst.uses.iter().enumerate() {
            let sign = negative != (subtracts && k == 1);
            let below = match self.def_at.get(&u) {
                Some(&i)
                    if self.inner[i]
                        && self.mf.inst(self.ids[i]).opcode().and_then(family)
                            == Some(self.fam) =>
                {
                    self.collect(i, sign, leaves, members)
                }
                _ => {
                    let ready = (self.leaf_ready)(u);
                    leaves.push(Term {
                        ready,
                        seq: leaves.len() as u32,
                        reg: u,
                        negative: sign,
                    });
                    ready
                }
            };
            height = height.max(below);
        }
        height + 1
    }
}

/// The operations of the rebuilt sum, the last defining `result`; and when it is
/// ready (one cycle per operation, as the sums are).
fn rebuild(
    mf: &mut MachFunction,
    leaves: &[Term],
    (add, sub): (Opcode, Opcode),
    result: Reg,
) -> (Vec<MInst>, u32) {
    let mut heap: BinaryHeap<Term> = leaves.iter().copied().collect();
    let mut ops = Vec::new();
    let fresh = |mf: &mut MachFunction| Reg::Virtual(mf.new_vreg(RegClass::Gpr));
    loop {
        let x = heap.pop().expect("a term");
        let Some(y) = heap.pop() else {
            // one term left: the result (negated if it is subtracted)
            let (op, uses) = if x.negative {
                (sub, [Reg::ZERO, x.reg])
            } else {
                (add, [x.reg, Reg::ZERO])
            };
            let last = ops.len();
            if x.negative || ops.is_empty() {
                ops.push(MInst::op(op, &[result], &uses, Imm::None));
            } else {
                // the last combination writes the result itself
                let op: &mut MInst = &mut ops[last - 1];
                op.defs[0] = result;
            }
            return (ops, x.ready + u32::from(x.negative));
        };
        let (op, a, b, negative) = match (x.negative, y.negative) {
            (false, false) => (add, x.reg, y.reg, false),
            (false, true) => (sub, x.reg, y.reg, false),
            (true, false) => (sub, y.reg, x.reg, false),
            (true, true) => (add, x.reg, y.reg, true),
        };
        let d = fresh(mf);
        ops.push(MInst::op(op, &[d], &[a, b], Imm::None));
        heap.push(Term {
            ready: x.ready.max(y.ready) + 1,
            seq: (leaves.len() + ops.len()) as u32,
            reg: d,
            negative,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::Interpreter;
    use crate::mir::Phase;

    fn run(mf: &MachFunction, args: &[u64]) -> Vec<u64> {
        Interpreter::new([mf]).call("f", args).unwrap()
    }

    /// An accumulator loop's chain `acc + a - b + c - d` whose terms are ready
    /// together becomes a lower tree of as many operations; the values stay.
    #[test]
    fn an_accumulator_is_added_once_after_its_terms() {
        for (add, sub) in [("add", "sub"), ("addw", "subw")] {
            let text = format!(
                "machine function @f export {{
block0:
    v0 = copy r3
    v1 = copy r4
    br block1(v0, r0)
block1(v2, v3):
    v4 = mul v2, 3
    v5 = xor v2, v1
    v6 = shl v2, 2
    v7 = {add} v3, v4
    v8 = {sub} v7, v5
    v9 = {add} v8, v6
    v10 = {sub} v9, v1
    v11 = add v2, -1
    pv12, p0 = cmp.gt v11, 0
    (pv12) br block3
    br block2
block3:
    br block1(v11, v10)
block2:
    r3 = copy v10
    ret uses[r3]
}}
"
            );
            let before = MachFunction::parse(&text).unwrap();
            let mut after = before.clone();
            let stats = reassociate(&mut after, &MachineConfig::default());
            after.verify(Phase::Ssa).unwrap();
            assert_eq!((stats.trees, stats.leaves), (1, 5), "{after}");
            let out = after.to_string();
            let sums = |t: &str| {
                t.lines()
                    .filter(|l| [add, sub].iter().any(|o| l.contains(&format!(" = {o} "))))
                    .count()
            };
            assert_eq!(sums(&out), sums(&text), "{out}");
            for args in [[5u64, 7], [1, 0], [9, u64::MAX - 4], [3, 1 << 40]] {
                assert_eq!(run(&after, &args), run(&before, &args), "{args:?}\n{out}");
            }
        }
    }

    /// Every term subtracted: the sum ends in a negation; a tree read twice inside,
    /// another width, a guarded operation, or fewer than three leaves: left alone.
    #[test]
    fn signs_and_what_stays() {
        let text = "machine function @f export {
block0:
    v0 = copy r3
    v1 = copy r4
    v2 = copy r5
    v3 = sub r0, v0
    v4 = sub v3, v1
    v5 = sub v4, v2
    v6 = add v0, v1
    v7 = add v6, v6
    v8 = addw v7, v2
    v9 = add v8, v0
    pv10, p0 = cmp.gt v0, 0
    (pv10) v11 = add v9, v1
    v12 = add v5, v11
    r3 = copy v5
    r4 = copy v12
    ret uses[r3 r4]
}
";
        let before = MachFunction::parse(text).unwrap();
        let mut after = before.clone();
        let stats = reassociate(&mut after, &MachineConfig::default());
        after.verify(Phase::Ssa).unwrap();
        // (v11 is defined where v0 > 0 only)
        for args in [[1u64, 2, 3], [5, u64::MAX, 1 << 33], [7, 0, 7]] {
            assert_eq!(run(&after, &args), run(&before, &args), "{args:?}\n{after}");
        }
        // v5 = -(v0 + v1 + v2) was a chain of three; rebuilt as two adds and a
        // negation it is no lower, so it stays
        assert_eq!(stats.trees, 0, "{after}");
    }
}

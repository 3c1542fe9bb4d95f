//! Branch folding: two tests in a row that lead to one place become one test of the
//! two conditions combined (LLVM's `FoldBranchToCommonDest`). A block `P` ending in
//! `brif c, T(a), B` whose other successor `B` only it enters, holds a few pure
//! operations and ends in `brif d, T(a), U(u)` (or with `T(a)` as `B`'s other
//! destination, or `P`'s `then` side the one into `B`) goes to `T(a)` on `c ∨ d`
//! (`c ∨ ¬d`, `¬c ∧ ...` for the other shapes): `B`'s operations move into `P`, a
//! `bor`/`band` (and a `bnot` where a polarity needs it) joins the two conditions, and
//! `B` goes.
//!
//! This is what `a || b` is when both sides send to one block: Rust's short-circuit
//! `||` and `&&` are branches in MIR, and `c == b' ' || c == b','` leaves two tests of
//! one byte, each a branch of its own to the same join. On the machine a branch takes
//! a bundle (one branch unit) and cuts the block; the `por` that replaces the second
//! one issues beside other work. The two destinations to `T` must carry the same
//! arguments (the same values, or `iconst`s of one type and value).
//!
//! `B`'s operations run where `P` used to branch away: only those that cannot trap or
//! write (no memory access, call or division) and at most [`MAX_SPECULATED`] of them
//! besides constants, so that the path to `T` does not pay for much of `B`'s work.
//! `B` has no parameters, is not the entry, and `P` is its only predecessor (then `P`
//! dominates everything `B` did, and `B`'s values keep their readers). Folding repeats
//! on `P` while its new `else` side is another such block (`a || b || c`).

use cranelift_entity::SecondaryMap;
use vliw_ir::{Block, BlockCall, Function, Inst, InstructionData, Opcode, Type, Value, ValueDef};

/// How many operations other than constants a folded block may hold.
pub const MAX_SPECULATED: usize = 2;

/// What [`branch_fold`] did to one function.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FoldStats {
    /// Blocks folded into their predecessor's branch.
    pub folded: usize,
    /// Operations moved from a folded block into its predecessor.
    pub speculated: usize,
}

impl std::ops::AddAssign for FoldStats {
    fn add_assign(&mut self, o: Self) {
        self.folded += o.folded;
        self.speculated += o.speculated;
    }
}

/// Folds every pair of tests in a row that share a destination (see the module
/// documentation).
pub fn branch_fold(func: &mut Function) -> FoldStats {
    let mut stats = FoldStats::default();
    let Some(entry) = func.entry_block() else {
        return stats;
    };
    let mut preds = predecessor_counts(func);
    let blocks: Vec<Block> = func.layout.blocks().collect();
    let mut gone: SecondaryMap<Block, bool> = SecondaryMap::new();
    for p in blocks {
        if gone[p] {
            continue;
        }
        // (a bounded number of folds into one block: each removes a block)
        for _ in 0..64 {
            match fold_one(func, entry, p, &preds) {
                Some((b, shared, moved)) => {
                    // `p` and `b` both entered `shared`, now only `p` does; `b`'s
                    // other destination is `p`'s now (one edge either way)
                    gone[b] = true;
                    preds[shared] -= 1;
                    stats.folded += 1;
                    stats.speculated += moved;
                }
                None => break,
            }
        }
    }
    stats
}

/// How many branch edges enter each block (an edge per destination, so a block both
/// destinations of one `brif` name counts twice).
fn predecessor_counts(func: &Function) -> SecondaryMap<Block, usize> {
    let mut n: SecondaryMap<Block, usize> = SecondaryMap::new();
    for b in func.layout.blocks() {
        if let Some(term) = func.layout.last_inst(b) {
            for dest in func.dfg.branch_destinations(term) {
                n[dest.block] += 1;
            }
        }
    }
    n
}

/// Folds one block into `p`'s branch when the shape allows; the folded block, the
/// destination the two shared and how many operations moved.
fn fold_one(
    func: &mut Function,
    entry: Block,
    p: Block,
    preds: &SecondaryMap<Block, usize>,
) -> Option<(Block, Block, usize)> {
    let term = func.layout.last_inst(p)?;
    let InstructionData::Brif {
        arg: c,
        blocks: [then_p, else_p],
        ..
    } = func.dfg.inst_data(term).clone()
    else {
        return None;
    };
    // which side enters the block to fold (`b_is_then`), and the side both share
    for (b_is_then, into_b, shared) in [(false, &else_p, &then_p), (true, &then_p, &else_p)] {
        let b = into_b.block;
        if b == p
            || b == entry
            || preds[b] != 1
            || !into_b.args.is_empty()
            || !func.dfg.block_params(b).is_empty()
            || shared.block == b
        {
            continue;
        }
        let Some(b_term) = func.layout.last_inst(b) else {
            continue;
        };
        let InstructionData::Brif {
            arg: d,
            blocks: [then_b, else_b],
            ..
        } = func.dfg.inst_data(b_term).clone()
        else {
            continue;
        };
        if then_b.block == b || else_b.block == b {
            continue;
        }
        let body: Vec<Inst> = func
            .layout
            .block_insts(b)
            .filter(|&i| i != b_term)
            .collect();
        let speculated = body
            .iter()
            .filter(|&&i| !is_constant(func.dfg.opcode(i)))
            .count();
        if speculated > MAX_SPECULATED || !body.iter().all(|&i| speculatable(func, i)) {
            continue;
        }
        // `d_to_shared`: B's `then` side is the shared destination
        let d_to_shared = if same_call(func, &then_b, shared) {
            true
        } else if same_call(func, &else_b, shared) {
            false
        } else {
            continue;
        };
        let other = if d_to_shared { else_b } else { then_b };
        // the condition under which the new branch goes to `shared`: P goes there
        // on `c` (or `¬c` when B is its then side), B on `d` (or `¬d`)
        let bool_ty = func.dfg.value_type(c);
        for &i in &body {
            func.layout.remove_inst(i);
            func.layout.insert_inst_before(i, term);
        }
        // to `shared` on `(c or ¬c) ∨ (d or ¬d)`: with both negated, to `other` on
        // `c ∧ d` instead; with one, one `bnot`
        let blocks = match (b_is_then, d_to_shared) {
            (false, true) => {
                let cond = binary(func, Opcode::Bor, c, d, bool_ty, term);
                (cond, [shared.clone(), other])
            }
            (true, false) => {
                let cond = binary(func, Opcode::Band, c, d, bool_ty, term);
                (cond, [other, shared.clone()])
            }
            (false, false) => {
                let nd = not(func, d, bool_ty, term);
                let cond = binary(func, Opcode::Bor, c, nd, bool_ty, term);
                (cond, [shared.clone(), other])
            }
            (true, true) => {
                let nc = not(func, c, bool_ty, term);
                let cond = binary(func, Opcode::Bor, nc, d, bool_ty, term);
                (cond, [shared.clone(), other])
            }
        };
        func.dfg.replace_inst(
            term,
            InstructionData::Brif {
                opcode: Opcode::Brif,
                arg: blocks.0,
                blocks: blocks.1,
            },
        );
        func.layout.remove_inst(b_term);
        func.layout.remove_block(b);
        return Some((b, shared.block, speculated));
    }
    None
}

/// Whether two destinations are one block with equal arguments.
fn same_call(func: &Function, x: &BlockCall, y: &BlockCall) -> bool {
    x.block == y.block
        && x.args.len() == y.args.len()
        && x.args.iter().zip(&y.args).all(|(&a, &b)| {
            a == b
                || matches!((constant(func, a), constant(func, b)),
                    (Some(p), Some(q)) if p == q && func.dfg.value_type(a) == func.dfg.value_type(b))
        })
}

/// The bits of an `iconst`.
fn constant(func: &Function, v: Value) -> Option<u128> {
    let ValueDef::Result(inst, _) = func.dfg.value_def(v) else {
        return None;
    };
    match func.dfg.inst_data(inst) {
        InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        } => Some(*imm),
        _ => None,
    }
}

fn is_constant(op: Opcode) -> bool {
    matches!(op, Opcode::Iconst | Opcode::F32const | Opcode::F64const)
}

/// Whether `inst` may run where it did not: no effect, no trap, no memory access.
fn speculatable(func: &Function, inst: Inst) -> bool {
    let op = func.dfg.opcode(inst);
    !op.has_side_effects()
        && !op.is_terminator()
        && !matches!(
            func.dfg.inst_data(inst),
            InstructionData::Load { .. }
                | InstructionData::Call { .. }
                | InstructionData::CallIndirect { .. }
                | InstructionData::AtomicRmw { .. }
                | InstructionData::AtomicCas { .. }
        )
}

/// `¬v`, made before `at`.
fn not(func: &mut Function, v: Value, ty: Type, at: Inst) -> Value {
    let inst = func.dfg.make_inst(InstructionData::Unary {
        opcode: Opcode::Bnot,
        arg: v,
    });
    let r = func.dfg.append_result(inst, ty);
    func.layout.insert_inst_before(inst, at);
    r
}

/// `a op b`, made before `at`.
fn binary(func: &mut Function, op: Opcode, a: Value, b: Value, ty: Type, at: Inst) -> Value {
    let inst = func.dfg.make_inst(InstructionData::Binary {
        opcode: op,
        args: [a, b],
    });
    let r = func.dfg.append_result(inst, ty);
    func.layout.insert_inst_before(inst, at);
    r
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_are_per_edge() {
        let text = "function @f(i64) -> i64 {\nblock0(v0: i64):\n    v1 = iconst.i64 0\n    v2 = icmp eq v0, v1\n    brif v2, block1, block1\nblock1:\n    return v0\n}\n";
        let m = vliw_ir::parse_module(text).unwrap();
        let n = super::predecessor_counts(&m.functions[0]);
        assert_eq!(n[m.functions[0].layout.blocks().nth(1).unwrap()], 2);
    }
}

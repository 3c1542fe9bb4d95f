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
//! `B` is not the entry and `P` is its only predecessor, by one edge (then `P`
//! dominates everything `B` did, and `B`'s values keep their readers); `B`'s
//! parameters are what that edge passes (MIR passes every live value to every block),
//! so `B`'s branches are compared as they read from `P`, and when `B` goes, what read
//! its parameters reads those arguments. Folding repeats
//! on `P` while its new `else` side is another such block (`a || b || c`).

use cranelift_entity::SecondaryMap;
use vliw_ir::{
    Block, BlockCall, Function, Inst, InstructionData, IntCC, Opcode, Type, Value, ValueDef,
};

use crate::int_ranges::IntSet;
use crate::jump_threading::{constant, is_constant, mask};

/// How many operations other than constants a folded block may hold.
pub const MAX_SPECULATED: usize = 2;

/// What [`branch_fold`] did to one function.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FoldStats {
    /// Blocks folded into their predecessor's branch.
    pub folded: usize,
    /// Operations moved from a folded block into its predecessor.
    pub speculated: usize,
    /// Folds whose combined condition became one compare of a value's range.
    pub ranges: usize,
    /// Blocks merged into the block that jumps to them after the folds.
    pub merged: usize,
    /// Parameters of folded blocks replaced by the arguments their one edge passed.
    pub forwarded: usize,
}

impl std::ops::AddAssign for FoldStats {
    fn add_assign(&mut self, o: Self) {
        self.folded += o.folded;
        self.speculated += o.speculated;
        self.ranges += o.ranges;
        self.merged += o.merged;
        self.forwarded += o.forwarded;
    }
}

/// Which pairs of tests [`branch_fold`] and [`fold_range_tests`] fold.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Mode {
    /// Every pair of the shape: a range as one compare, others joined by `bor`/`band`.
    Any,
    /// Only pairs whose combined condition is a range of one value, as one compare.
    Ranges,
}

/// Folds every pair of tests in a row that share a destination (see the module
/// documentation).
pub fn branch_fold(func: &mut Function) -> FoldStats {
    fold(func, Mode::Any)
}

/// Folds the pairs of tests in a row that share a destination whose combined
/// condition is one value in a range (`b'a' <= x && x <= b'z'`, `x < 10 || x > 20`):
/// one subtraction and one unsigned compare, `(x - lo) <u len`, instead of two
/// compares and two branches (`int_ranges`). Nothing is joined by logic, so the
/// path to either destination costs no more than before.
pub fn fold_range_tests(func: &mut Function) -> FoldStats {
    fold(func, Mode::Ranges)
}

fn fold(func: &mut Function, mode: Mode) -> FoldStats {
    let mut stats = fold_pairs(func, mode);
    if stats.ranges > 0 {
        // a flag's test collapsed to a jump leaves a block that jumps to one only
        // it enters
        stats.merged = crate::state_threading::merge_jump_chains(func);
    }
    stats
}

fn fold_pairs(func: &mut Function, mode: Mode) -> FoldStats {
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
            match fold_one(func, entry, p, &preds, mode) {
                Some((b, shared, moved, ranged, forwarded)) => {
                    // `p` and `b` both entered `shared`, now only `p` does; `b`'s
                    // other destination is `p`'s now (one edge either way)
                    gone[b] = true;
                    preds[shared] -= 1;
                    stats.folded += 1;
                    stats.speculated += moved;
                    stats.ranges += usize::from(ranged);
                    stats.forwarded += forwarded;
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
/// destination the two shared, how many operations moved and whether the condition
/// became a range test.
fn fold_one(
    func: &mut Function,
    entry: Block,
    p: Block,
    preds: &SecondaryMap<Block, usize>,
    mode: Mode,
) -> Option<(Block, Block, usize, bool, usize)> {
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
        if b == p || b == entry || preds[b] != 1 || shared.block == b {
            continue;
        }
        // B's parameters are what P's one edge passes (MIR passes every live value to
        // every block): B's branches are read through them
        let params: Vec<Value> = func.dfg.block_params(b).to_vec();
        let args = into_b.args.clone();
        if params.len() != args.len() {
            continue;
        }
        let through = |v: Value| params.iter().position(|&q| q == v).map_or(v, |k| args[k]);
        let seen_from_p = |call: &BlockCall| BlockCall {
            block: call.block,
            args: call.args.iter().map(|&v| through(v)).collect(),
        };
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
        let (then_b, else_b) = (seen_from_p(&then_b), seen_from_p(&else_b));
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
        let range = range_to_shared(func, c, d, !b_is_then, d_to_shared, &through);
        if mode == Mode::Ranges && range.is_none() {
            continue;
        }
        // the condition under which the new branch goes to `shared`: P goes there
        // on `c` (or `¬c` when B is its then side), B on `d` (or `¬d`)
        let bool_ty = func.dfg.value_type(c);
        // B goes: what read its parameters reads P's arguments (they dominate every
        // place B did)
        for (&q, &a) in params.iter().zip(&args) {
            func.dfg.replace_uses(q, a);
        }
        func.dfg.detach_block_params(b);
        let forwarded = params.len();
        for &i in &body {
            func.layout.remove_inst(i);
            func.layout.insert_inst_before(i, term);
        }
        if let Some((x, test)) = range {
            let blocks = if test.negated {
                [other, shared.clone()]
            } else {
                [shared.clone(), other]
            };
            let cond = range_test(func, x, test, bool_ty, term);
            func.dfg.replace_inst(
                term,
                InstructionData::Brif {
                    opcode: Opcode::Brif,
                    arg: cond,
                    blocks,
                },
            );
            func.layout.remove_inst(b_term);
            func.layout.remove_block(b);
            collapse_to_jump(func, term);
            remove_if_unused(func, d);
            remove_if_unused(func, c);
            return Some((b, shared.block, speculated, true, forwarded));
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
        return Some((b, shared.block, speculated, false, forwarded));
    }
    None
}

/// Whether two destinations are one block with equal arguments (the same value, equal
/// constants, or `undef` in both: any value will do).
fn same_call(func: &Function, x: &BlockCall, y: &BlockCall) -> bool {
    x.block == y.block
        && x.args.len() == y.args.len()
        && x.args
            .iter()
            .zip(&y.args)
            .all(|(&a, &b)| same_arg(func, a, b))
}

/// Whether two branch arguments pass the same: one value, equal constants of one type,
/// or `undef` of one type in both (any value will do).
fn same_arg(func: &Function, a: Value, b: Value) -> bool {
    a == b
        || func.dfg.value_type(a) == func.dfg.value_type(b)
            && (matches!((constant(func, a), constant(func, b)), (Some(p), Some(q)) if p == q)
                || is_undef(func, a) && is_undef(func, b))
}

/// Whether an `undef` defines `v`.
fn is_undef(func: &Function, v: Value) -> bool {
    matches!(func.dfg.value_def(v), ValueDef::Result(i, _) if func.dfg.opcode(i) == Opcode::Undef)
}

/// The values of `x` for which `v` holds, when an `icmp` of `x` with a constant
/// defines `v`.
fn compare_set(func: &Function, v: Value) -> Option<(Value, IntSet)> {
    let ValueDef::Result(inst, _) = func.dfg.value_def(v) else {
        return None;
    };
    let InstructionData::IntCompare {
        cond, args: [a, b], ..
    } = *func.dfg.inst_data(inst)
    else {
        return None;
    };
    let (x, k, cc) = match (constant(func, a), constant(func, b)) {
        (None, Some(k)) => (a, k, cond),
        (Some(k), None) => (b, k, cond.swap_args()),
        _ => return None,
    };
    let bits = func.dfg.value_type(x).bits();
    Some((x, IntSet::of_compare(cc, k, bits)?))
}

/// When `P`'s test `c` (to the shared destination when `c_to_shared`, else when it
/// fails) and `B`'s test `d` (likewise) compare one value `x` with constants and the
/// values of `x` that reach the shared destination form a range: `x`, and the range's
/// first value and size (`int_ranges`).
fn range_to_shared(
    func: &Function,
    c: Value,
    d: Value,
    c_to_shared: bool,
    d_to_shared: bool,
    through: &dyn Fn(Value) -> Value,
) -> Option<(Value, RangeTest)> {
    let (x, c_set) = compare_set(func, c)?;
    let (y, d_set) = compare_set(func, d)?;
    if x != through(y) {
        return None;
    }
    let p_shared = if c_to_shared {
        c_set
    } else {
        c_set.complement()
    };
    let b_shared = if d_to_shared {
        d_set
    } else {
        d_set.complement()
    };
    // to the shared destination from P directly, or through B
    let set = p_shared.union(&p_shared.complement().intersect(&b_shared));
    set.as_range()?;
    Some((x, RangeTest::choose(&set)))
}

/// How a range of an integer's values is tested: `(x' - lo) mod 2^w' <u len`, where
/// `x'` is `x` as it is (`w' = w`), or sign- or zero-extended to 64 bits; `negated`
/// when the test is of the values not in the range (then the destinations swap).
#[derive(Copy, Clone, Debug)]
struct RangeTest {
    extend: Option<Opcode>,
    lo: u128,
    len: u128,
    negated: bool,
}

impl RangeTest {
    /// The cheapest form for set `set` (a wrapped range): a narrow value lives in
    /// its register sign-extended (`docs/machine.md` §3), so a range that is one
    /// interval in signed order, or whose complement is, is tested on the register
    /// as it is (`sextend` costs nothing); else one that is an interval unsigned,
    /// zero-extended; else at the value's width.
    fn choose(set: &IntSet) -> Self {
        let bits = set.bits();
        if bits < 64 {
            let sign = 1u128 << (bits - 1);
            for (s, negated) in [(set.clone(), false), (set.complement(), true)] {
                if let Some((a, b)) = s.flip_sign().as_interval() {
                    // flipped `a` is the signed value `a - sign`, as 64 bits
                    let lo = (a as i128 - sign as i128) as u128 & mask(64);
                    return Self {
                        extend: Some(Opcode::Sextend),
                        lo,
                        len: b - a + 1,
                        negated,
                    };
                }
            }
            for (s, negated) in [(set.clone(), false), (set.complement(), true)] {
                if let Some((a, b)) = s.as_interval() {
                    return Self {
                        extend: Some(Opcode::Uextend),
                        lo: a,
                        len: b - a + 1,
                        negated,
                    };
                }
            }
        }
        let (lo, len) = set.as_range().expect("a wrapped range");
        Self {
            extend: None,
            lo,
            len,
            negated: false,
        }
    }
}

/// An argument of [`collapse_to_jump`]'s jump.
enum FlagArg {
    /// The value both sides passed.
    Same(Value),
    /// The branch's condition.
    Cond,
    /// Its negation.
    NotCond,
}

/// A `brif c` whose two destinations are one block becomes a `jump` there, the
/// arguments that differ being `c` (`1` on the `then` side, `0` on the other) or
/// `¬c`: a test that only chose a flag (`let f = !(b'a'..=b'z').contains(&x)` as
/// MIR writes it, two branches to one join) passes it instead. Left alone when some
/// other argument differs.
fn collapse_to_jump(func: &mut Function, term: Inst) {
    let InstructionData::Brif {
        arg: c,
        blocks: [t, e],
        ..
    } = func.dfg.inst_data(term).clone()
    else {
        return;
    };
    if t.block != e.block || t.args.len() != e.args.len() {
        return;
    }
    let bool_ty = func.dfg.value_type(c);
    // per argument: the same, `c`, or `¬c`
    let mut plan = Vec::with_capacity(t.args.len());
    for (&x, &y) in t.args.iter().zip(&e.args) {
        let same = same_arg(func, x, y);
        let flag = |v| func.dfg.value_type(v) == bool_ty && bool_ty.bits() == 1;
        plan.push(match (constant(func, x), constant(func, y)) {
            _ if same => FlagArg::Same(x),
            (Some(1), Some(0)) if flag(x) => FlagArg::Cond,
            (Some(0), Some(1)) if flag(x) => FlagArg::NotCond,
            _ => return,
        });
    }
    let mut not_c = None;
    let args: Vec<Value> = plan
        .into_iter()
        .map(|a| match a {
            FlagArg::Same(v) => v,
            FlagArg::Cond => c,
            FlagArg::NotCond => *not_c.get_or_insert_with(|| not(func, c, bool_ty, term)),
        })
        .collect();
    func.dfg.replace_inst(
        term,
        InstructionData::Jump {
            opcode: Opcode::Jump,
            dest: BlockCall::new(t.block, &args),
        },
    );
}

/// `(x' - lo) mod 2^w' <u len` for `test`, made before `at`.
fn range_test(func: &mut Function, x: Value, test: RangeTest, bool_ty: Type, at: Inst) -> Value {
    let (x, ty) = match test.extend {
        Some(op) => {
            let inst = func
                .dfg
                .make_inst(InstructionData::Unary { opcode: op, arg: x });
            let wide = func.dfg.append_result(inst, Type::I64);
            func.layout.insert_inst_before(inst, at);
            (wide, Type::I64)
        }
        None => (x, func.dfg.value_type(x)),
    };
    let bits = ty.bits();
    let shifted = if test.lo == 0 {
        x
    } else {
        let minus_lo = iconst(func, ty, test.lo.wrapping_neg() & mask(bits), at);
        binary(func, Opcode::Iadd, x, minus_lo, ty, at)
    };
    let bound = iconst(func, ty, test.len, at);
    let inst = func.dfg.make_inst(InstructionData::IntCompare {
        opcode: Opcode::Icmp,
        cond: IntCC::Ult,
        args: [shifted, bound],
    });
    let r = func.dfg.append_result(inst, bool_ty);
    func.layout.insert_inst_before(inst, at);
    r
}

/// An `iconst` of `ty`, made before `at`.
fn iconst(func: &mut Function, ty: Type, imm: u128, at: Inst) -> Value {
    let inst = func.dfg.make_inst(InstructionData::UnaryImm {
        opcode: Opcode::Iconst,
        imm,
    });
    let r = func.dfg.append_result(inst, ty);
    func.layout.insert_inst_before(inst, at);
    r
}

/// Removes the compare (or other pure instruction) that defines `v` when nothing
/// reads `v` any more.
fn remove_if_unused(func: &mut Function, v: Value) {
    let ValueDef::Result(inst, _) = func.dfg.value_def(v) else {
        return;
    };
    if !speculatable(func, inst) || func.layout.inst_block(inst).is_none() {
        return;
    }
    let read = func.layout.blocks().any(|b| {
        func.layout
            .block_insts(b)
            .any(|i| func.dfg.inst_values(i).any(|u| u == v))
    });
    if !read {
        func.layout.remove_inst(inst);
    }
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

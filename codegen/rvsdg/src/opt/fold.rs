//! Normal forms (Reissmann et al. §5; jlm's node normal forms, which it applies as it
//! creates nodes): constant folding, algebraic identities, safe divisions, and
//! constants carried into γ arms and θ bodies.
//!
//! - **Constant folding.** A simple node without states whose value operands are all
//!   constants (`iconst`, `f32const`, `f64const`) is computed with
//!   `vliw_ir::semantics::eval_pure`, the one definition of every operation that the
//!   interpreter and the evaluator use, and its outputs become constants. Not folded:
//!   what traps (a division by zero, a signed `MIN / -1`), and a float result that is
//!   a NaN (the IR leaves NaN payloads unspecified: the host's may differ from the
//!   machine's and from LLVM's folder), except from the operations that only move
//!   bits (`bitcast`, `fneg`, `fabs`, `fcopysign`, `select`). A `match` of a constant
//!   becomes a control constant.
//! - **Algebraic identities**, exact at every width (the list is in `docs/rvsdg.md`
//!   §5): `x+0`, `x-0`, `x-x`, `x*0`, `x*1`, `x*-1`, `x&0`, `x&-1`, `x&x`, `x|0`,
//!   `x|-1`, `x|x`, `x^0`, `x^-1`, `x^x`, shifts and rotations by a multiple of the
//!   width and of 0, `(x op c1) op c2` for `+ * & | ^`, `--x`, `!!x`, `abs(abs x)`,
//!   extension and reduction chains, `bitcast` back, min/max with themselves and the
//!   type's bounds, `umulhi` by 0 and 1, overflow operations by 0 and 1, divisions by
//!   1 and -1 once safe, `select` on a constant or between equal values, `icmp` of a
//!   value with itself and against the bounds of its type (`ult x, 0` is false),
//!   `icmp eq/ne (x % 2^k), 0` as a mask, float `x*1`, `x/1`, `x-(+0)`, `x+(-0)`
//!   (never `x+0`: `-0 + 0` is `+0`), `fneg (fneg x)`, `fabs` of `fabs` and `fneg`;
//!   a boolean `select` with one constant arm as `band`/`bor` (with `bnot`), `bnot`
//!   of a compare as the inverse compare, and two compares of one value that bound a
//!   range, joined by `band` (or their outside by `bor`), as one range test.
//!   The float ones give `x` itself where the arithmetic gives a NaN operand back
//!   quieted: they differ only on signalling NaNs, whose payload the IR leaves
//!   unspecified (as LLVM does, which applies the same identities); `x*-1` is not
//!   `fneg x` for that reason (the host's multiplication keeps a NaN's sign). Constants go to the right of commutative operations (and of
//!   `icmp`, whose condition is swapped), `x - c` becomes `x + -c`.
//! - **Safe divisions.** `udiv sdiv urem srem` carry the I/O state because they may
//!   trap; one whose divisor is a constant that cannot make it trap (not zero; for a
//!   signed one not -1 either, unless the dividend is known not to be the minimum)
//!   becomes `Op::SafeDiv` without it, the state chain going around it: it can then
//!   move, fold, and be strength-reduced (`strength.rs`).
//! - **Constants into regions.** A γ entry variable whose input is a constant (an
//!   integer, float or control constant), and an invariant θ loop variable (its next
//!   value is its own argument) whose input is one, get a copy of the constant inside
//!   each arm or the body, which the argument's users read instead (the region's
//!   results keep the argument, so invariant variables stay recognizable; dead node
//!   elimination removes what nothing reads any more). Folding then goes on inside.
//!
//! Each λ is rewritten to a fixpoint with a worklist: every node once, parents'
//! regions before their subregions, then the users of every value that changed and
//! every new node. What a rewrite leaves unused (a pure simple node) is removed at
//! once; everything else dead is left to dead node elimination. A bound on the number
//! of rewrites (far above what any graph needs) guarantees the end.
//!
//! - **Conditions known after a check** (`checks.rs`): a test of the condition that a
//!   bounds check before it decided (its failing arm ends in `unreachable`) becomes
//!   a constant, before the rest.
//!
//! Counters: `fold.constants` (nodes computed into constants), `fold.identities`
//! (nodes replaced by an algebraic identity), `fold.canonicalized` (operands swapped,
//! subtractions of a constant made additions), `fold.safe-divisions`,
//! `fold.propagated-into-regions` (region arguments whose users now read a constant
//! copy), `fold.known-after-check`, `fold.decided-by-range` (unsigned compares with a
//! constant that the range of the other operand decides, `known::unsigned_range`:
//! masks, scaled indices, loop variables).

use std::collections::VecDeque;

use rustc_hash::FxHashSet;
use vliw_ir::semantics::eval_pure;
use vliw_ir::{InstructionData, IntCC, Opcode, Type, Value};

use super::guards;
use super::known::{low_bits_nonzero, unsigned_range};
use super::rewrite::{
    Rewriter, const_of, ctl_of, division_cannot_trap, producer_op, sext, smin_bits, vty,
};
use crate::graph::{Node, NodeKind, Origin, User};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// Folds constants, applies the identities, makes divisions by safe constants safe and
/// carries constants into regions, in every λ of `g` (the `rvsdg-fold` pass, early in
/// the pipeline: without the rule of `undef` exits, see [`fold_lambdas`]).
pub fn fold(g: &mut Rvsdg, report: &mut Report) {
    let lambdas = g.lambdas();
    fold_lambdas_with(g, &lambdas, report, false);
}

/// [`fold`] on the λs `lambdas` of `g` only (what a later pass made constant: inlining,
/// versioning, unrolling and peeling a loop nest, jamming), where also a γ exit that
/// the arms give as one constant or as `undef` is that constant. A peeled loop's
/// counter is such an exit (`undef` where the copy stopped: `peel.rs`). The early
/// `rvsdg-fold` pass does not apply that rule: there, the `undef`s of the
/// restructured muxes made constants cost `classify` the shape that sinking and
/// if-converting its loop body whole need (1.30x its cycles, 2026-12-05).
pub(crate) fn fold_lambdas(g: &mut Rvsdg, lambdas: &[Node], report: &mut Report) {
    fold_lambdas_with(g, lambdas, report, true);
}

fn fold_lambdas_with(g: &mut Rvsdg, lambdas: &[Node], report: &mut Report, undef_exits: bool) {
    let mut counts = Counts::default();
    for &l in lambdas {
        let mut f = Folder {
            rw: Rewriter::new(g),
            queue: VecDeque::new(),
            queued: FxHashSet::default(),
            counts: &mut counts,
            undef_exits,
        };
        f.lambda(l);
    }
    report.count("fold.constants", counts.constants);
    report.count("fold.identities", counts.identities);
    report.count("fold.canonicalized", counts.canonicalized);
    report.count("fold.safe-divisions", counts.safe_divisions);
    report.count("fold.propagated-into-regions", counts.propagated);
    report.count("fold.address-offsets", counts.address_offsets);
    report.count("fold.known-after-check", counts.known_after_check);
    report.count("fold.decided-by-range", counts.decided_by_range);
    report.count("fold.overflow-excluded-by-guard", counts.known_by_guard);
    if counts.undef_exits > 0 {
        report.count("fold.undef-exits", counts.undef_exits);
    }
}

#[derive(Default)]
struct Counts {
    constants: u64,
    identities: u64,
    canonicalized: u64,
    safe_divisions: u64,
    propagated: u64,
    address_offsets: u64,
    known_after_check: u64,
    decided_by_range: u64,
    known_by_guard: u64,
    undef_exits: u64,
}

/// What a rule replaces a node's first output with.
enum Rewrite {
    /// An existing or new value.
    Value(Origin),
    /// A constant of the output's type.
    Const(u128),
    /// Each output by its value (the overflow operations).
    Outputs(Vec<Origin>),
    /// Nothing: the node was changed in place (its operands swapped).
    InPlace,
}

/// Whether a rule simplified a node or only put it in canonical form.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Why {
    Identity,
    Canonical,
    /// A compare that the range of its operand decides (`known::unsigned_range`).
    Range,
}

struct Folder<'a, 'c> {
    rw: Rewriter<'a>,
    queue: VecDeque<Node>,
    queued: FxHashSet<Node>,
    counts: &'c mut Counts,
    /// Whether an exit that the arms give as one constant or `undef` is that constant
    /// ([`fold_lambdas`]).
    undef_exits: bool,
}

impl Folder<'_, '_> {
    fn g(&self) -> &Rvsdg {
        self.rw.g
    }

    fn push(&mut self, n: Node) {
        if self.queued.insert(n) {
            self.queue.push_back(n);
        }
    }

    fn lambda(&mut self, l: Node) {
        let body = self.g().lambda_body(l);
        self.counts.known_after_check += super::checks::known_after_checks(&mut self.rw, body);
        self.rw.take_touched();
        for r in self.g().regions_below(body) {
            for n in self.g().topological_order(r) {
                self.push(n);
            }
        }
        // every rewrite removes or simplifies a node or moves a constant to the right;
        // far more than any graph needs, and the end whatever happens
        let mut fuel = 16 * self.queue.len() + 1024;
        while let Some(n) = self.queue.pop_front() {
            self.queued.remove(&n);
            if !self.g().is_alive(n) {
                continue;
            }
            if self.visit(n) {
                fuel -= 1;
                if fuel == 0 {
                    break;
                }
            }
            for m in self.rw.take_touched() {
                self.push(m);
            }
        }
    }

    /// Rewrites node `n` once; whether it changed anything.
    fn visit(&mut self, n: Node) -> bool {
        match self.g().kind(n) {
            NodeKind::Gamma { .. } => self.constants_into_gamma(n),
            NodeKind::Theta { .. } => self.constants_into_theta(n),
            NodeKind::Simple(op) => {
                let op = op.clone();
                self.simple(n, &op)
            }
            NodeKind::Lambda { .. } => false,
        }
    }

    fn simple(&mut self, n: Node, op: &Op) -> bool {
        match op {
            Op::Ctl { .. } | Op::MemSplit(_) | Op::MemJoin(_) => false,
            Op::Match {
                cases,
                default,
                alts,
            } => {
                let Some(v) = self
                    .g()
                    .inputs(n)
                    .first()
                    .and_then(|&o| const_of(self.g(), o))
                else {
                    return false;
                };
                if !self.g().is_used(n) {
                    return false;
                }
                let alt = cases
                    .iter()
                    .find(|&&(c, _)| c == v)
                    .map_or(*default, |&(_, a)| a);
                let c = self.rw.constant(n, Ty::Ctl(*alts), alt as u128);
                self.rw.replace(Origin::Out(n, 0), c);
                self.rw.remove_if_dead(n);
                self.counts.constants += 1;
                true
            }
            Op::SafeDiv(opcode) => {
                let data = InstructionData::Binary {
                    opcode: *opcode,
                    args: [Value::from_u32(0); 2],
                };
                self.g().is_used(n) && self.pure(n, &data)
            }
            Op::Inst(data) => {
                let opcode = data.opcode();
                if matches!(
                    opcode,
                    Opcode::Udiv | Opcode::Sdiv | Opcode::Urem | Opcode::Srem
                ) && op.states().io
                {
                    return self.make_safe(n, opcode);
                }
                if matches!(opcode, Opcode::Load | Opcode::Store) {
                    return self.address_offset(n, op);
                }
                if !op.is_pure() || data.arguments().is_empty() || !self.g().is_used(n) {
                    return false;
                }
                self.pure(n, data)
            }
        }
    }

    /// A load or store of `ptradd(p, c)` for a constant `c` reads `p` at its offset plus
    /// `c` (the machine's loads and stores add an immediate offset for free).
    fn address_offset(&mut self, n: Node, op: &Op) -> bool {
        let input = match op {
            Op::Inst(InstructionData::Store { .. }) => 1,
            _ => 0,
        };
        let Some(&address) = self.g().inputs(n).get(input) else {
            return false;
        };
        let Some(p) = self.g().producer(address) else {
            return false;
        };
        let is_ptradd = matches!(
            self.g().op(p),
            Some(Op::Inst(InstructionData::Binary {
                opcode: Opcode::Ptradd,
                ..
            }))
        );
        if !is_ptradd {
            return false;
        }
        let (base, by) = (self.g().input(p, 0), self.g().input(p, 1));
        let Some(d) = const_of(self.g(), by) else {
            return false;
        };
        let d = d as u64 as i64;
        let Some(new_op) = super::rewrite::with_offset(op, input, d) else {
            return false;
        };
        if let NodeKind::Simple(old) = self.rw.g.kind_mut(n) {
            *old = new_op;
        }
        self.rw.redirect(User::In(n, input as u32), base);
        self.rw.remove_if_dead(p);
        self.counts.address_offsets += 1;
        true
    }

    /// A division with the I/O state whose divisor cannot make it trap becomes a safe
    /// one; the state chain goes around it.
    fn make_safe(&mut self, n: Node, opcode: Opcode) -> bool {
        let g = self.g();
        if g.inputs(n).len() != 3 || g.num_outputs(n) != 2 {
            return false;
        }
        let (a, b) = (g.input(n, 0), g.input(n, 1));
        if !division_cannot_trap(self.g(), opcode, a, b) {
            return false;
        }
        let q = self.rw.safe_div(n, opcode, a, b);
        self.rw.replace(Origin::Out(n, 0), q);
        self.rw.bypass_state(n);
        self.rw.remove(n);
        if let Some(new) = self.g().producer(q) {
            self.rw.remove_if_dead(new);
        }
        self.counts.safe_divisions += 1;
        true
    }

    /// A node without states: folded if its operands are constants, else simplified.
    fn pure(&mut self, n: Node, data: &InstructionData) -> bool {
        // (the verifier's shape, which the rules below read: nothing to do otherwise)
        let g = self.g();
        if g.inputs(n).len() != data.arguments().len()
            || g.num_outputs(n) == 0
            || g.outputs(n).any(|o| g.ty(o).value().is_none())
        {
            return false;
        }
        match self.fold_constants(n, data) {
            Some(true) => {
                self.counts.constants += 1;
                return true;
            }
            // what is not folded on constants (a trap, a NaN) is not rewritten either
            Some(false) => return false,
            None => {}
        }
        let Some((rewrite, why)) = self.rule(n, data) else {
            return false;
        };
        match rewrite {
            Rewrite::Value(v) => self.rw.replace(Origin::Out(n, 0), v),
            Rewrite::Const(bits) => {
                let ty = self.g().ty(Origin::Out(n, 0));
                let c = self.rw.constant(n, ty, bits);
                self.rw.replace(Origin::Out(n, 0), c);
            }
            Rewrite::Outputs(vals) => {
                let outputs = self.g().num_outputs(n);
                for (i, v) in vals.into_iter().enumerate().take(outputs) {
                    self.rw.replace(Origin::Out(n, i as u32), v);
                }
            }
            Rewrite::InPlace => {}
        }
        self.rw.remove_if_dead(n);
        match why {
            Why::Identity => self.counts.identities += 1,
            Why::Canonical => self.counts.canonicalized += 1,
            Why::Range => self.counts.decided_by_range += 1,
        }
        true
    }

    /// Computes a node whose value operands are all constants: whether it did, `None`
    /// when some operand is not a constant.
    fn fold_constants(&mut self, n: Node, data: &InstructionData) -> Option<bool> {
        let g = self.g();
        let nargs = data.arguments().len();
        let inputs = &g.inputs(n)[..nargs];
        let mut args = Vec::with_capacity(nargs);
        let mut types = Vec::with_capacity(nargs);
        for &o in inputs {
            args.push(const_of(g, o)?);
            types.push(vty(g, o));
        }
        let rtypes: Vec<Type> = g.outputs(n).map_while(|o| g.ty(o).value()).collect();
        let Ok(results) = eval_pure(data, &types, &args, &rtypes) else {
            return Some(false); // it traps at run time: leave it there
        };
        let mut vals = Vec::with_capacity(rtypes.len());
        for (i, &ty) in rtypes.iter().enumerate() {
            let Some(bits) = results.get(i).copied().flatten() else {
                return Some(false);
            };
            if is_nan(ty, bits) && !moves_bits(data.opcode()) {
                return Some(false);
            }
            vals.push(bits & ty.mask());
        }
        for (i, (bits, ty)) in vals.into_iter().zip(rtypes).enumerate() {
            let c = self.rw.constant(n, Ty::Val(ty), bits);
            self.rw.replace(Origin::Out(n, i as u32), c);
        }
        self.rw.remove_if_dead(n);
        Some(true)
    }

    /// `opcode x, y` on constants of type `ty`, as the IR computes it.
    fn eval2(opcode: Opcode, ty: Type, x: u128, y: u128) -> Option<u128> {
        let data = InstructionData::Binary {
            opcode,
            args: [Value::from_u32(0); 2],
        };
        eval_pure(&data, &[ty, ty], &[x, y], &[ty]).ok()?[0]
    }

    /// The algebraic identity or canonical form that applies to `n`, made.
    fn rule(&mut self, n: Node, data: &InstructionData) -> Option<(Rewrite, Why)> {
        use Opcode::*;
        use Rewrite::{Const, Value as Val};
        let opcode = data.opcode();
        let inputs = self.g().inputs(n).to_vec();
        let a = inputs[0];
        let b = inputs.get(1).copied();
        let g = self.g();
        let (ca, cb) = (const_of(g, a), b.and_then(|b| const_of(g, b)));
        let ty = vty(g, a);
        let rty = vty(g, Origin::Out(n, 0));
        let (w, m) = (ty.bits(), ty.mask());
        let (smin, smax) = (smin_bits(ty), smin_bits(ty) - 1);
        let same = b == Some(a);
        let id = |r: Rewrite| Some((r, Why::Identity));

        // constants to the right
        if is_commutative(opcode)
            && let Some(b) = b
            && ca.is_some()
            && cb.is_none()
        {
            self.rw.g.set_input(n, 0, b);
            self.rw.g.set_input(n, 1, a);
            if let NodeKind::Simple(Op::Inst(InstructionData::IntCompare { cond, .. })) =
                self.rw.g.kind_mut(n)
            {
                *cond = cond.swap_args();
            }
            self.rw.touch(n);
            return Some((Rewrite::InPlace, Why::Canonical));
        }
        // `(x op c1) op c2` is `x op (c1 op c2)` for the associative and commutative ones
        if matches!(opcode, Iadd | Imul | Band | Bor | Bxor)
            && let Some(c2) = cb
            && let Some((p, pd)) = producer_op(g, a)
            && pd.opcode() == opcode
            && let Some(c1) = const_of(g, g.inputs(p)[1])
            && let Some(c) = Self::eval2(opcode, ty, c1, c2)
        {
            let x = g.input(p, 0);
            let c = self.rw.int(n, ty, c as i128);
            return id(Val(self.rw.binary(n, opcode, x, c)));
        }
        // the operation that made the first operand, and its first operand
        let inner = producer_op(g, a).and_then(|(p, d)| Some((d.opcode(), *g.inputs(p).first()?)));
        match opcode {
            Iadd if cb == Some(0) => id(Val(a)),
            Isub if cb == Some(0) => id(Val(a)),
            Isub if same => id(Const(0)),
            Isub if cb.is_some() => {
                let neg = self.rw.int(n, ty, (cb? as i128).wrapping_neg());
                Some((Val(self.rw.binary(n, Iadd, a, neg)), Why::Canonical))
            }
            Isub if ca == Some(0) => id(Val(self.rw.unary(n, Ineg, b?, ty))),
            Imul if cb == Some(0) => id(Const(0)),
            Imul if cb == Some(1) => id(Val(a)),
            Imul if cb == Some(m) => id(Val(self.rw.unary(n, Ineg, a, ty))),
            Band if cb == Some(0) => id(Const(0)),
            Band if cb == Some(m) || same => id(Val(a)),
            // a mask that keeps every bit the value may have set
            Band if cb.is_some_and(|k| {
                unsigned_max(g, a, 4).is_some_and(|max| {
                    let bits = u128::MAX.checked_shr(max.leading_zeros()).unwrap_or(0);
                    k & bits == bits
                })
            }) =>
            {
                id(Val(a))
            }
            Bor if cb == Some(0) || same => id(Val(a)),
            Bor if cb == Some(m) => id(Const(m)),
            Bxor if cb == Some(0) => id(Val(a)),
            Bxor if same => id(Const(0)),
            Bxor if cb == Some(m) => id(Val(self.rw.unary(n, Bnot, a, ty))),
            Ishl | Ushr | Sshr | Rotl | Rotr if ca == Some(0) => id(Const(0)),
            Sshr | Rotl | Rotr if ca == Some(m) => id(Const(m)),
            Ishl | Ushr | Sshr | Rotl | Rotr
                if b.is_some_and(|b| {
                    const_of(g, b).is_some_and(|k| (k & vty(g, b).mask()).is_multiple_of(w as u128))
                }) =>
            {
                id(Val(a))
            }
            // a safe division's divisor is a constant (`division_cannot_trap`)
            Udiv | Sdiv if cb == Some(1) => id(Val(a)),
            Urem | Srem if cb == Some(1) => id(Const(0)),
            Sdiv if cb.is_some_and(|d| sext(ty, d) == -1) => id(Val(self.rw.unary(n, Ineg, a, ty))),
            Srem if cb.is_some_and(|d| sext(ty, d) == -1) => id(Const(0)),
            Umulhi if cb == Some(0) || cb == Some(1) => id(Const(0)),
            Smulhi if cb == Some(0) => id(Const(0)),
            Umin | Umax | Smin | Smax if same => id(Val(a)),
            Umin if cb == Some(0) => id(Const(0)),
            Umin if cb == Some(m) => id(Val(a)),
            Umax if cb == Some(0) => id(Val(a)),
            Umax if cb == Some(m) => id(Const(m)),
            Smin if cb == Some(smin) => id(Const(smin)),
            Smin if cb == Some(smax) => id(Val(a)),
            Smax if cb == Some(smin) => id(Val(a)),
            Smax if cb == Some(smax) => id(Const(smax)),
            UaddOverflow | SaddOverflow | UsubOverflow | SsubOverflow if cb == Some(0) => {
                let no = self.rw.int(n, Type::I1, 0);
                id(Rewrite::Outputs(vec![a, no]))
            }
            // `i + 1` where an enclosing γ's test found `i` below something, `i - 1`
            // where it found it above (`guards.rs`)
            UaddOverflow | SaddOverflow | UsubOverflow | SsubOverflow
                if let Some(plain) = guards::excluded_overflow(g, n) =>
            {
                let value = self.rw.binary(n, plain, a, b?);
                let no = self.rw.int(n, Type::I1, 0);
                self.counts.known_by_guard += 1;
                id(Rewrite::Outputs(vec![value, no]))
            }
            // (in `i1`, 1 is -1 for the signed multiplication: `-1 * -1` overflows)
            UmulOverflow | SmulOverflow
                if cb == Some(1) && (opcode == UmulOverflow || ty != Type::I1) =>
            {
                let no = self.rw.int(n, Type::I1, 0);
                id(Rewrite::Outputs(vec![a, no]))
            }
            UmulOverflow | SmulOverflow if cb == Some(0) => {
                let zero = self.rw.int(n, ty, 0);
                let no = self.rw.int(n, Type::I1, 0);
                id(Rewrite::Outputs(vec![zero, no]))
            }
            Ineg | Bnot if inner.is_some_and(|(o, _)| o == opcode) => id(Val(inner?.1)),
            // the negation of a compare is the inverse compare
            Bnot if let Some((p, InstructionData::IntCompare { cond, .. })) = producer_op(g, a) => {
                let (cond, x, y) = (cond.inverse(), g.input(p, 0), g.input(p, 1));
                id(Val(self.rw.icmp(n, cond, x, y)))
            }
            // two tests of one value against constants that bound it: one range test
            Band | Bor if rty == Type::I1 && b.is_some() => {
                let v = self.range_test(n, opcode == Band, a, b?)?;
                id(Val(v))
            }
            Iabs if inner.is_some_and(|(o, _)| o == Iabs) => id(Val(a)),
            Uextend | Sextend | Ireduce if inner.is_some() => self.conversion(n, opcode, inner?),
            Bitcast if inner.is_some_and(|(o, x)| o == Bitcast && vty(g, x) == rty) => {
                id(Val(inner?.1))
            }
            Select => {
                let (x, y) = (inputs[1], inputs[2]);
                let (cx, cy) = (const_of(g, x), const_of(g, y));
                match ca {
                    Some(c) => id(Val(if c & 1 != 0 { x } else { y })),
                    None if x == y => id(Val(x)),
                    None if rty == Type::I1 && cx == Some(1) && cy == Some(0) => id(Val(a)),
                    None if rty == Type::I1 && cx == Some(0) && cy == Some(1) => {
                        id(Val(self.rw.unary(n, Bnot, a, Type::I1)))
                    }
                    // a boolean made an integer: the condition widened (`Option`'s
                    // discriminant from a null test, `bool as u8`)
                    None if rty != Type::I1 && rty.is_int() && cx == Some(1) && cy == Some(0) => {
                        id(Val(self.rw.unary(n, Uextend, a, rty)))
                    }
                    None if rty != Type::I1 && rty.is_int() && cx == Some(0) && cy == Some(1) => {
                        let not = self.rw.unary(n, Bnot, a, Type::I1);
                        id(Val(self.rw.unary(n, Uextend, not, rty)))
                    }
                    // a boolean chosen between a boolean and a constant is logic
                    // (what `rvsdg-select` makes of a short-circuit test)
                    None if rty == Type::I1 && cy == Some(0) => {
                        id(Val(self.rw.binary(n, Band, a, x)))
                    }
                    None if rty == Type::I1 && cx == Some(1) => {
                        id(Val(self.rw.binary(n, Bor, a, y)))
                    }
                    None if rty == Type::I1 && cy == Some(1) => {
                        let not = self.rw.unary(n, Bnot, a, Type::I1);
                        id(Val(self.rw.binary(n, Bor, not, x)))
                    }
                    None if rty == Type::I1 && cx == Some(0) => {
                        let not = self.rw.unary(n, Bnot, a, Type::I1);
                        id(Val(self.rw.binary(n, Band, not, y)))
                    }
                    None => None,
                }
            }
            Icmp => {
                let InstructionData::IntCompare { cond, .. } = data else {
                    return None;
                };
                self.icmp(n, *cond, a, b?)
            }
            Fadd if cb == Some(neg_zero(ty)) => id(Val(a)),
            Fadd if ca == Some(neg_zero(ty)) => id(Val(b?)),
            Fsub if cb == Some(0) => id(Val(a)),
            Fmul | Fdiv if cb == Some(one(ty)) => id(Val(a)),
            Fmul if ca == Some(one(ty)) => id(Val(b?)),
            Fneg if inner.is_some_and(|(o, _)| o == Fneg) => id(Val(inner?.1)),
            Fabs if inner.is_some_and(|(o, _)| o == Fabs) => id(Val(a)),
            Fabs if inner.is_some_and(|(o, _)| o == Fneg) => {
                id(Val(self.rw.unary(n, Fabs, inner?.1, ty)))
            }
            _ => None,
        }
    }

    /// `t1 & t2` (`and`) or `t1 | t2` of two compares of one value `x` with constants,
    /// as one range test: `L <= x && x <= U` is `(x - L) <=u (U - L)`, `x < L || x > U`
    /// its negation `(x - L) >u (U - L)`, for bounds of either signedness with
    /// `L <= U` in it (subtracting `L` modulo `2^w` maps `[L, U]` onto `[0, U - L]`
    /// whatever the signedness). Either bound may be strict (`x > L - 1`).
    fn range_test(&mut self, n: Node, and: bool, t1: Origin, t2: Origin) -> Option<Origin> {
        use IntCC::*;
        let g = self.g();
        let test = |t: Origin| -> Option<(IntCC, Origin, u128)> {
            let (p, d) = producer_op(g, t)?;
            let InstructionData::IntCompare { cond, .. } = d else {
                return None;
            };
            Some((*cond, g.input(p, 0), const_of(g, g.input(p, 1))?))
        };
        let (c1, x1, k1) = test(t1)?;
        let (c2, x2, k2) = test(t2)?;
        if x1 != x2 {
            return None;
        }
        let ty = vty(g, x1);
        let m = ty.mask();
        // each test as a bound: (signed, lower, inclusive bound) of what passes; for an
        // `or` of out-of-range tests, the bounds of what fails (the range's outside)
        let bound = |c: IntCC, k: u128| -> Option<(bool, bool, u128)> {
            let c = if and { c } else { c.inverse() };
            let (signed, lower, inclusive) = match c {
                Uge => (false, true, Some(k)),
                Ugt => (false, true, (k != m).then(|| k + 1)),
                Ule => (false, false, Some(k)),
                Ult => (false, false, k.checked_sub(1)),
                Sge => (true, true, Some(k)),
                Sgt => (true, true, (k != smin_bits(ty) - 1).then(|| (k + 1) & m)),
                Sle => (true, false, Some(k)),
                Slt => (
                    true,
                    false,
                    (k != smin_bits(ty)).then(|| k.wrapping_sub(1) & m),
                ),
                _ => return None,
            };
            Some((signed, lower, inclusive?))
        };
        let (s1, lower1, b1) = bound(c1, k1)?;
        let (s2, lower2, b2) = bound(c2, k2)?;
        if s1 != s2 || lower1 == lower2 {
            return None;
        }
        let (lo, hi) = if lower1 { (b1, b2) } else { (b2, b1) };
        let ordered = if s1 {
            sext(ty, lo) <= sext(ty, hi)
        } else {
            lo <= hi
        };
        if !ordered {
            return None; // an empty range: constant folding's, not this rule's
        }
        let x = x1;
        let neg = self.rw.int(n, ty, (lo as i128).wrapping_neg());
        let shifted = self.rw.binary(n, Opcode::Iadd, x, neg);
        let width = self.rw.int(n, ty, (hi.wrapping_sub(lo) & m) as i128);
        let cond = if and { Ule } else { Ugt };
        Some(self.rw.icmp(n, cond, shifted, width))
    }

    /// `uextend`, `sextend` or `ireduce` (to `n`'s type) of `inner = (op, x)`, the
    /// operation that made its operand.
    fn conversion(
        &mut self,
        n: Node,
        opcode: Opcode,
        (op, x): (Opcode, Origin),
    ) -> Option<(Rewrite, Why)> {
        use Opcode::*;
        let to = vty(self.g(), Origin::Out(n, 0));
        let from = vty(self.g(), x);
        let v = match (opcode, op) {
            // one extension does what two do; a sign extension of a zero-extended
            // value sees a clear sign bit
            (Uextend, Uextend) | (Sextend, Uextend) => self.rw.unary(n, Uextend, x, to),
            (Sextend, Sextend) => self.rw.unary(n, Sextend, x, to),
            (Ireduce, Uextend | Sextend) if from == to => x,
            (Ireduce, Uextend | Sextend) if from.bits() < to.bits() => self.rw.unary(n, op, x, to),
            (Ireduce, Uextend | Sextend | Ireduce) => self.rw.unary(n, Ireduce, x, to),
            _ => return None,
        };
        Some((Rewrite::Value(v), Why::Identity))
    }

    /// `icmp cond a, b` (a constant, if any, is `b`).
    fn icmp(&mut self, n: Node, cond: IntCC, a: Origin, b: Origin) -> Option<(Rewrite, Why)> {
        use IntCC::*;
        let g = self.g();
        let ty = vty(g, a);
        let (m, smin) = (ty.mask(), smin_bits(ty));
        let smax = smin - 1;
        let id = |r: Rewrite| Some((r, Why::Identity));
        if a == b {
            return id(Rewrite::Const(
                matches!(cond, Eq | Ule | Uge | Sle | Sge) as u128
            ));
        }
        let c = const_of(g, b)?;
        let always = match cond {
            Ult | Uge if c == 0 => Some(cond == Uge),
            Ugt | Ule if c == m => Some(cond == Ule),
            Slt | Sge if c == smin => Some(cond == Sge),
            Sgt | Sle if c == smax => Some(cond == Sle),
            _ => None,
        };
        if let Some(v) = always {
            return id(Rewrite::Const(v as u128));
        }
        // the unsigned range of `a` decides a compare with a constant outside it
        // (`table[(c ^ b) & 0xff]` in a table of 256: the bounds check always holds;
        // `x % (y as u64 + 10)` never divides by zero; `counts[class]` with a class
        // that a chain of `if`s picks from 0 to 7)
        if let Some(v) = unsigned_range(g, a, 8).and_then(|r| decide(cond, r, c, smin)) {
            return Some((Rewrite::Const(v as u128), Why::Range));
        }
        // a value whose low bits are known and not all zero is not zero
        // (`2 * scale + 1`, a divisor)
        if matches!(cond, Eq | Ne) && c == 0 && low_bits_nonzero(g, a) {
            return id(Rewrite::Const((cond == Ne) as u128));
        }
        if ty == Type::I1 && ((cond == Ne && c == 0) || (cond == Eq && c == 1)) {
            return id(Rewrite::Value(a));
        }
        // a boolean widened and compared again (`bool` as a byte and back, as `max`
        // and `Option` tests leave it): the boolean or its negation; a constant
        // neither extension can give makes the compare constant
        if matches!(cond, Eq | Ne)
            && let Some((p, pd)) = producer_op(g, a)
            && let ext @ (Opcode::Uextend | Opcode::Sextend) = pd.opcode()
            && let x = g.input(p, 0)
            && vty(g, x) == Type::I1
        {
            let true_bits = if ext == Opcode::Uextend { 1 } else { m };
            let holds_when_true = match c {
                0 => cond == Ne,
                _ if c == true_bits => cond == Eq,
                _ => return id(Rewrite::Const((cond == Ne) as u128)),
            };
            return id(Rewrite::Value(if holds_when_true {
                x
            } else {
                self.rw.unary(n, Opcode::Bnot, x, Type::I1)
            }));
        }
        // `x % 2^k == 0` (either signedness) is `x & (2^k - 1) == 0`
        if matches!(cond, Eq | Ne)
            && c == 0
            && let Some(p) = g.producer(a)
            && let Some(Op::SafeDiv(div @ (Opcode::Urem | Opcode::Srem))) = g.op(p)
            && let Some(d) = const_of(g, g.input(p, 1))
        {
            let magnitude = if *div == Opcode::Srem {
                sext(ty, d).unsigned_abs() & m
            } else {
                d
            };
            if magnitude.is_power_of_two() {
                let x = g.input(p, 0);
                let mask = self.rw.int(n, ty, (magnitude - 1) as i128);
                let low = self.rw.binary(n, Opcode::Band, x, mask);
                let zero = self.rw.int(n, ty, 0);
                return id(Rewrite::Value(self.rw.icmp(n, cond, low, zero)));
            }
        }
        None
    }

    /// Constants entering a γ: copied into the arms that read them.
    fn constants_into_gamma(&mut self, n: Node) -> bool {
        let arms = self.g().kind(n).subregions().to_vec();
        let mut changed = false;
        for k in 1..self.g().inputs(n).len() {
            let o = self.g().input(n, k);
            if let Some(bits) = constant_bits(self.g(), o) {
                for &arm in &arms {
                    changed |= self.constant_into(Origin::Arg(arm, k as u32 - 1), bits);
                }
            }
        }
        // an exit that every arm gives as the same constant or as `undef` (made by
        // the construction only where no path uses it: a peeled loop's counter after
        // the copy that stopped) is that constant (not in the early pass)
        if !self.undef_exits {
            return changed;
        }
        for k in 0..self.g().num_outputs(n) {
            let out = Origin::Out(n, k as u32);
            let ty = self.g().ty(out);
            if ty.is_state() || !self.g().has_users(out) {
                continue;
            }
            let mut agreed: Option<u128> = None;
            let (mut all_agree, mut undef) = (true, false);
            for &arm in &arms {
                let res = self.g().results(arm)[k];
                if is_undef(self.g(), res) {
                    undef = true;
                    continue;
                }
                match constant_bits(self.g(), res) {
                    Some(b) if agreed.is_none_or(|a| a == b) => agreed = Some(b),
                    _ => all_agree = false,
                }
            }
            if all_agree
                && undef
                && let Some(bits) = agreed
            {
                let c = self.rw.constant(n, ty, bits);
                self.rw.replace(out, c);
                self.counts.undef_exits += 1;
                changed = true;
            }
        }
        changed
    }

    /// Constants entering a θ as invariant loop variables (the next value is the
    /// argument itself, or the same constant again, as a counter that an inner loop
    /// restarts from 0 in every outer iteration): copied into the body; after the θ,
    /// such a variable is that constant too.
    fn constants_into_theta(&mut self, n: Node) -> bool {
        let body = self.g().theta_body(n);
        let mut changed = false;
        for k in 0..self.g().inputs(n).len() {
            let arg = Origin::Arg(body, k as u32);
            let Some(bits) = constant_bits(self.g(), self.g().input(n, k)) else {
                continue;
            };
            let next = self.g().results(body)[k + 1];
            if next == arg {
                changed |= self.constant_into(arg, bits);
            } else if constant_bits(self.g(), next) == Some(bits) {
                changed |= self.constant_into(arg, bits);
                let (out, init) = (Origin::Out(n, k as u32), self.g().input(n, k));
                let users: Vec<User> = self.g().users(out).to_vec();
                for u in users {
                    self.rw.redirect(u, init);
                    changed = true;
                }
            }
        }
        changed
    }

    /// The nodes that read argument `arg` (a constant of these bits) read a copy of
    /// the constant in its region instead.
    fn constant_into(&mut self, arg: Origin, bits: u128) -> bool {
        let users: Vec<User> = self
            .g()
            .users(arg)
            .iter()
            .copied()
            .filter(|u| matches!(u, User::In(..)))
            .collect();
        if users.is_empty() {
            return false;
        }
        let Origin::Arg(r, _) = arg else {
            return false;
        };
        let ty = self.g().ty(arg);
        if ty.is_state() {
            return false; // (an ill-typed graph: the verifier's to report)
        }
        let c = self.rw.constant_in(r, ty, bits);
        for u in users {
            self.rw.redirect(u, c);
        }
        self.counts.propagated += 1;
        true
    }
}

/// A bound on the unsigned value of `o` better than its type's (see
/// [`unsigned_range`]).
fn unsigned_max(g: &Rvsdg, o: Origin, depth: u32) -> Option<u128> {
    let (_, max) = unsigned_range(g, o, depth)?;
    (max < vty(g, o).mask()).then_some(max)
}

/// The value of `x cond c` for every `x` in the unsigned range `[lo, hi]`, if it is
/// the same for all (`smin` the type's sign bit: a range below it holds
/// non-negative values only, which the signed conditions order as the unsigned).
fn decide(cond: IntCC, (lo, hi): (u128, u128), c: u128, smin: u128) -> Option<bool> {
    use IntCC::*;
    let cond = match cond {
        Slt | Sle | Sgt | Sge if hi >= smin => return None,
        // every value non-negative, `c` negative
        Slt | Sle if c >= smin => return Some(false),
        Sgt | Sge if c >= smin => return Some(true),
        Slt => Ult,
        Sle => Ule,
        Sgt => Ugt,
        Sge => Uge,
        other => other,
    };
    match cond {
        Ult if hi < c => Some(true),
        Ult if lo >= c => Some(false),
        Ule if hi <= c => Some(true),
        Ule if lo > c => Some(false),
        Ugt if lo > c => Some(true),
        Ugt if hi <= c => Some(false),
        Uge if lo >= c => Some(true),
        Uge if hi < c => Some(false),
        Eq | Ne if c < lo || c > hi => Some(cond == Ne),
        Eq | Ne if lo == hi => Some(cond == Eq),
        _ => None,
    }
}

/// Whether `o` is an `undef` node's value.
fn is_undef(g: &Rvsdg, o: Origin) -> bool {
    matches!(
        g.producer(o).and_then(|p| g.op(p)),
        Some(Op::Inst(InstructionData::Nullary {
            opcode: Opcode::Undef,
        }))
    )
}

fn constant_bits(g: &Rvsdg, o: Origin) -> Option<u128> {
    const_of(g, o).or_else(|| ctl_of(g, o).map(u128::from))
}

/// Operations whose operands can swap.
fn is_commutative(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(
        opcode,
        Iadd | Imul
            | Band
            | Bor
            | Bxor
            | Smin
            | Smax
            | Umin
            | Umax
            | Umulhi
            | Smulhi
            | UaddOverflow
            | SaddOverflow
            | UmulOverflow
            | SmulOverflow
            | Icmp
    )
}

/// Operations that give a NaN operand's bits unchanged (or their sign changed).
fn moves_bits(opcode: Opcode) -> bool {
    use Opcode::*;
    matches!(opcode, Bitcast | Fneg | Fabs | Fcopysign | Select)
}

fn is_nan(ty: Type, bits: u128) -> bool {
    match ty {
        Type::F32 => f32::from_bits(bits as u32).is_nan(),
        Type::F64 => f64::from_bits(bits as u64).is_nan(),
        _ => false,
    }
}

/// The bits of `1.0` in float type `ty` (and of nothing else).
fn one(ty: Type) -> u128 {
    match ty {
        Type::F32 => 1f32.to_bits() as u128,
        Type::F64 => 1f64.to_bits() as u128,
        _ => u128::MAX,
    }
}

/// The bits of `-0.0` in float type `ty` (its sign bit).
fn neg_zero(ty: Type) -> u128 {
    match ty {
        Type::F32 | Type::F64 => 1u128 << (ty.bits() - 1),
        _ => u128::MAX,
    }
}

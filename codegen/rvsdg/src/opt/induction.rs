//! Strength reduction of induction addresses (LLVM's loop strength reduction, on θs):
//! an address `base + s·i + d` computed in every iteration of a loop from a counter
//! `i` that goes up by a constant `c` (a *basic induction variable*: its next value is
//! `i + c`) and a base the loop does not change becomes a pointer of its own, `p = base
//! + s·i`, carried by the θ and advanced by `s·c` per iteration, and the address is
//! `p + d`. Where a load or a store reads it, `d` goes into its offset. What it saves
//! per access and iteration is the shift or multiplication and the addition; after
//! unrolling, the k copies' addresses `base + s·(i + j·c)` all become `p` with offsets
//! `s·j·c`, one pointer for all of them.
//!
//! **Why it is the same program.** Everything is 64-bit wrapping arithmetic (`ptradd`
//! adds modulo 2^64, `iadd`, `imul` and `ishl` of `i64` too), where `s·(i + c) =
//! s·i + s·c` holds: in iteration t, `i = i0 + t·c` and `p = base + s·i0 + t·s·c =
//! base + s·i`. A load of `p + d` at offset `o` reads the same address as one of `p`
//! at offset `o + d`.
//!
//! **What is required:** the counter is an `i64` loop variable whose next value is
//! `iadd` of it and a constant; the address is a `ptradd` at the top level of the body
//! (not in a γ, whose arm may not run) of an invariant base (a loop variable passed
//! through unchanged) and an affine function of the counter built from `ishl` or
//! `imul` by a constant and `iadd` of a constant; the scale is not 0. (The base may
//! also be an address constant of the body, `symbol_addr` or `stack_addr`.) An address that
//! is the counter itself (`base + i`) alone gains nothing (one addition for another)
//! and stays. At most [`MAX_NEW_VARS`] pointers per loop (each is a register across
//! it). The offset is folded into a `load`/`store` (not atomic) that reads the address
//! as its address when the sum fits in 32 bits.
//!
//! Counters: `induction.pointers` (new loop variables), `induction.addresses`
//! (addresses replaced), `induction.offsets-folded`.

use rustc_hash::FxHashMap;
use vliw_ir::{InstructionData, Opcode, Type};

use super::rewrite::{Rewriter, with_offset};
use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// The most pointers strength reduction adds to one loop.
pub const MAX_NEW_VARS: usize = 6;

/// Reduces the induction addresses of every θ of `g` (innermost first).
pub fn reduce_induction_addresses(g: &mut Rvsdg, report: &mut Report) {
    let mut counts = Counts::default();
    for l in g.lambdas() {
        let body = g.lambda_body(l);
        region(g, body, &mut counts);
    }
    report.count("induction.pointers", counts.pointers as u64);
    report.count("induction.addresses", counts.addresses as u64);
    report.count("induction.offsets-folded", counts.offsets as u64);
}

#[derive(Default)]
struct Counts {
    pointers: usize,
    addresses: usize,
    offsets: usize,
}

fn region(g: &mut Rvsdg, r: Region, counts: &mut Counts) {
    for n in g.topological_order(r) {
        for s in g.kind(n).subregions().to_vec() {
            region(g, s, counts);
        }
        if matches!(g.kind(n), NodeKind::Theta { .. }) {
            theta(g, n, counts);
        }
    }
}

/// A sum `constant + Σ coefficient · value` of values that do not change in the loop
/// (loop variables passed through unchanged), wrapping at 64 bits; the terms sorted by
/// value, without zero coefficients, so that equal sums compare equal.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub(super) struct Linear {
    pub constant: u64,
    pub terms: Vec<(Origin, u64)>,
}

impl Linear {
    fn constant(c: u64) -> Linear {
        Linear {
            constant: c,
            terms: Vec::new(),
        }
    }

    pub(super) fn as_constant(&self) -> Option<u64> {
        self.terms.is_empty().then_some(self.constant)
    }

    fn add(&self, other: &Linear) -> Linear {
        let mut terms = self.terms.clone();
        for &(v, c) in &other.terms {
            match terms.iter_mut().find(|(w, _)| *w == v) {
                Some((_, d)) => *d = d.wrapping_add(c),
                None => terms.push((v, c)),
            }
        }
        terms.retain(|&(_, c)| c != 0);
        terms.sort();
        Linear {
            constant: self.constant.wrapping_add(other.constant),
            terms,
        }
    }

    fn times(&self, k: u64) -> Linear {
        let mut terms: Vec<(Origin, u64)> = self
            .terms
            .iter()
            .map(|&(v, c)| (v, c.wrapping_mul(k)))
            .filter(|&(_, c)| c != 0)
            .collect();
        terms.sort();
        Linear {
            constant: self.constant.wrapping_mul(k),
            terms,
        }
    }

    /// `self · v` for an invariant value `v`, when `self` is a constant.
    fn times_value(&self, v: Origin) -> Option<Linear> {
        let c = self.as_constant()?;
        Some(Linear {
            constant: 0,
            terms: if c == 0 { Vec::new() } else { vec![(v, c)] },
        })
    }

    fn is_zero(&self) -> bool {
        self.constant == 0 && self.terms.is_empty()
    }
}

/// `scale · counter + offset` (wrapping, 64 bits) for the loop variable `counter`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(super) struct Affine {
    pub counter: u32,
    pub scale: Linear,
    pub offset: Linear,
}

/// The instruction of node `n`, if it is a simple node of the SSA IR's.
fn inst(g: &Rvsdg, n: Node) -> Option<&InstructionData> {
    match g.op(n)? {
        Op::Inst(d) => Some(d),
        _ => None,
    }
}

/// The value of `o` if it is an integer constant.
fn constant(g: &Rvsdg, o: Origin) -> Option<u64> {
    let n = g.producer(o)?;
    match inst(g, n)? {
        InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        } => Some(*imm as u64),
        _ => None,
    }
}

fn is_i64(g: &Rvsdg, o: Origin) -> bool {
    g.ty(o) == Ty::Val(Type::I64)
}

/// The basic induction variables of θ body `body`: loop variable → step.
fn counters(g: &Rvsdg, body: Region) -> FxHashMap<u32, u64> {
    let mut found = FxHashMap::default();
    for (k, &next) in g.results(body)[1..].iter().enumerate() {
        let arg = Origin::Arg(body, k as u32);
        let Some(n) = g.producer(next) else { continue };
        if !is_i64(g, arg) || g.node(n).region != body {
            continue;
        }
        if let Some(InstructionData::Binary {
            opcode: Opcode::Iadd,
            ..
        }) = inst(g, n)
        {
            let (a, b) = (g.input(n, 0), g.input(n, 1));
            let step = match (a == arg, b == arg) {
                (true, _) => constant(g, b),
                (_, true) => constant(g, a),
                _ => None,
            };
            if let Some(step) = step {
                found.insert(k as u32, step);
            }
        }
    }
    found
}

/// `o` as a sum of invariant values of θ body `body`: a constant, or a loop variable
/// passed through unchanged.
fn invariant_sum(g: &Rvsdg, body: Region, o: Origin) -> Option<Linear> {
    if let Some(c) = constant(g, o) {
        return Some(Linear::constant(c));
    }
    match o {
        Origin::Arg(r, k) if r == body && g.results(body)[k as usize + 1] == o && is_i64(g, o) => {
            Some(Linear {
                constant: 0,
                terms: vec![(o, 1)],
            })
        }
        _ => None,
    }
}

/// `o` as an affine function of a counter of `counters`, computed in `body`'s top level
/// (`iadd`, `isub`, `imul`, `ishl` of the counter, invariant values and constants).
pub(super) fn affine(
    g: &Rvsdg,
    body: Region,
    counters: &FxHashMap<u32, u64>,
    o: Origin,
) -> Option<Affine> {
    if !is_i64(g, o) {
        return None;
    }
    match o {
        Origin::Arg(r, k) if r == body && counters.contains_key(&k) => Some(Affine {
            counter: k,
            scale: Linear::constant(1),
            offset: Linear::default(),
        }),
        Origin::Arg(..) => None,
        Origin::Out(n, _) => {
            if g.node(n).region != body {
                return None;
            }
            let InstructionData::Binary { opcode, .. } = inst(g, n)? else {
                return None;
            };
            let (a, b) = (g.input(n, 0), g.input(n, 1));
            let affine_of = |x| affine(g, body, counters, x);
            let invariant = |x| invariant_sum(g, body, x);
            match opcode {
                Opcode::Iadd => match (affine_of(a), affine_of(b)) {
                    (Some(f), Some(h)) if f.counter == h.counter => Some(Affine {
                        counter: f.counter,
                        scale: f.scale.add(&h.scale),
                        offset: f.offset.add(&h.offset),
                    }),
                    (Some(f), None) => Some(Affine {
                        offset: f.offset.add(&invariant(b)?),
                        ..f
                    }),
                    (None, Some(h)) => Some(Affine {
                        offset: h.offset.add(&invariant(a)?),
                        ..h
                    }),
                    _ => None,
                },
                Opcode::Isub => {
                    let f = affine_of(a)?;
                    let minus = invariant(b)?.times(u64::MAX);
                    Some(Affine {
                        offset: f.offset.add(&minus),
                        ..f
                    })
                }
                Opcode::Imul => {
                    let (f, other) = match (affine_of(a), affine_of(b)) {
                        (Some(f), None) => (f, b),
                        (None, Some(h)) => (h, a),
                        _ => return None,
                    };
                    match constant(g, other) {
                        Some(c) => Some(Affine {
                            counter: f.counter,
                            scale: f.scale.times(c),
                            offset: f.offset.times(c),
                        }),
                        None => {
                            invariant(other)?;
                            Some(Affine {
                                counter: f.counter,
                                scale: f.scale.times_value(other)?,
                                offset: f.offset.times_value(other)?,
                            })
                        }
                    }
                }
                Opcode::Ishl => {
                    // the IR masks the shift amount to the width
                    let c = constant(g, b)? & 63;
                    let f = affine_of(a)?;
                    Some(Affine {
                        counter: f.counter,
                        scale: f.scale.times(1 << c),
                        offset: f.offset.times(1 << c),
                    })
                }
                _ => None,
            }
        }
    }
}

/// One pointer to make: the base, the counter, the scale and the part of the offset
/// that is not a constant, and the addresses it replaces with their constant offsets.
struct Group {
    /// A loop variable passed through unchanged, or an address constant of the body
    /// (`symbol_addr`, `stack_addr`).
    base: Origin,
    counter: u32,
    scale: Linear,
    variable_offset: Vec<(Origin, u64)>,
    members: Vec<(Node, u64)>,
    /// Whether some member computes more than `base + counter` (a shift, a
    /// multiplication or an offset that the pointer saves).
    saves: bool,
}

fn theta(g: &mut Rvsdg, theta: Node, counts: &mut Counts) {
    let body = g.theta_body(theta);
    let counters = counters(g, body);
    if counters.is_empty() {
        return;
    }
    let invariant = |g: &Rvsdg, o: Origin| match o {
        Origin::Arg(r, k) if r == body => g.results(body)[k as usize + 1] == o,
        _ => false,
    };
    let mut groups: Vec<Group> = Vec::new();
    for &n in g.nodes(body) {
        let Some(InstructionData::Binary {
            opcode: Opcode::Ptradd,
            ..
        }) = inst(g, n)
        else {
            continue;
        };
        let (base, index) = (g.input(n, 0), g.input(n, 1));
        let constant_base = g.producer(base).is_some_and(|b| {
            g.node(b).region == body && super::constants::constant(g, b).is_some()
        });
        if !invariant(g, base) && !constant_base {
            continue;
        }
        let Some(f) = affine(g, body, &counters, index) else {
            continue;
        };
        if f.scale.is_zero() {
            continue;
        }
        let plain = f.scale == Linear::constant(1)
            && f.offset.is_zero()
            && index == Origin::Arg(body, f.counter);
        let member = (n, f.offset.constant);
        match groups.iter_mut().find(|gr| {
            gr.base == base
                && gr.counter == f.counter
                && gr.scale == f.scale
                && gr.variable_offset == f.offset.terms
        }) {
            Some(gr) => {
                gr.members.push(member);
                gr.saves |= !plain;
            }
            None => groups.push(Group {
                base,
                counter: f.counter,
                scale: f.scale,
                variable_offset: f.offset.terms,
                members: vec![member],
                saves: !plain,
            }),
        }
    }
    groups.retain(|gr| gr.saves || gr.members.len() > 1);
    groups.truncate(MAX_NEW_VARS);
    for gr in groups {
        pointer(g, theta, body, &counters, gr, counts);
    }
}

/// The value of invariant sum `l` before θ `theta` (its terms are loop variables of the
/// body, read from the θ's inputs).
fn materialize(rw: &mut Rewriter, theta: Node, l: &Linear) -> Origin {
    let mut sum: Option<Origin> = None;
    for &(v, c) in &l.terms {
        let Origin::Arg(_, k) = v else {
            unreachable!("an invariant term is a loop variable")
        };
        let x = rw.g.input(theta, k as usize);
        let t = scale(rw, theta, x, c);
        sum = Some(match sum {
            None => t,
            Some(s) => rw.binary(theta, Opcode::Iadd, s, t),
        });
    }
    match sum {
        None => rw.int(theta, Type::I64, l.constant as i64 as i128),
        Some(s) if l.constant == 0 => s,
        Some(s) => {
            let c = rw.int(theta, Type::I64, l.constant as i64 as i128);
            rw.binary(theta, Opcode::Iadd, s, c)
        }
    }
}

/// Makes group `gr`'s pointer and replaces its addresses.
fn pointer(
    g: &mut Rvsdg,
    theta: Node,
    body: Region,
    counters: &FxHashMap<u32, u64>,
    gr: Group,
    counts: &mut Counts,
) {
    let step = counters[&gr.counter];
    let mut rw = Rewriter::new(g);
    // before the loop: base + scale · the counter's initial value + the variable offset
    let base_init = match gr.base {
        Origin::Arg(_, k) => rw.g.input(theta, k as usize),
        Origin::Out(b, _) => {
            let (op, ty) = super::constants::constant(rw.g, b).expect("an address constant");
            // a new copy: looking for an equal one would scan the whole region once
            // per pointer (quadratic in a large function)
            let outer = rw.g.node(theta).region;
            Origin::Out(rw.g.add_simple(outer, op, &[], &[ty]), 0)
        }
    };
    let counter_init = rw.g.input(theta, gr.counter as usize);
    let variable_offset = Linear {
        constant: 0,
        terms: gr.variable_offset.clone(),
    };
    let mut start = match constant(rw.g, counter_init) {
        // a counter that starts at a constant (0, mostly)
        Some(c) => gr.scale.times(c).add(&variable_offset),
        None => variable_offset,
    };
    let mut init = base_init;
    if constant(rw.g, counter_init).is_none() {
        let scaled = match gr.scale.as_constant() {
            Some(c) => scale(&mut rw, theta, counter_init, c),
            None => {
                let s = materialize(&mut rw, theta, &gr.scale);
                rw.binary(theta, Opcode::Imul, counter_init, s)
            }
        };
        init = rw.binary(theta, Opcode::Ptradd, init, scaled);
    }
    start.terms.retain(|&(_, c)| c != 0);
    if !start.is_zero() {
        let d = materialize(&mut rw, theta, &start);
        init = rw.binary(theta, Opcode::Ptradd, init, d);
    }
    let (p, _) = rw.g.add_theta_var(theta, init);
    let var = rw.g.args(body).len() - 1;
    // in the loop: advanced by scale · step (computed before the loop and carried
    // when it is not a constant)
    let at = gr.members[0].0;
    let advance_by = gr.scale.times(step);
    let advance = match advance_by.as_constant() {
        Some(c) => rw.int(at, Type::I64, c as i64 as i128),
        None => {
            let value = materialize(&mut rw, theta, &advance_by);
            rw.g.add_theta_var(theta, value).0
        }
    };
    let next = rw.binary(at, Opcode::Ptradd, p, advance);
    rw.g.set_result(body, var + 1, next);
    counts.pointers += 1;
    for (n, offset) in gr.members {
        let address = if offset == 0 {
            p
        } else {
            let d = rw.int(n, Type::I64, offset as i64 as i128);
            rw.binary(n, Opcode::Ptradd, p, d)
        };
        rw.replace(Origin::Out(n, 0), address);
        counts.addresses += 1;
        if offset != 0 {
            counts.offsets += fold_offsets(rw.g, address, p, offset as i64);
        }
    }
}

/// `o · scale` beside `at` (a shift for a power of two).
fn scale(rw: &mut Rewriter, at: Node, o: Origin, scale: u64) -> Origin {
    if scale == 1 {
        return o;
    }
    if scale.is_power_of_two() {
        let k = rw.int(at, Type::I64, i128::from(scale.trailing_zeros()));
        return rw.binary(at, Opcode::Ishl, o, k);
    }
    let c = rw.int(at, Type::I64, scale as i64 as i128);
    rw.binary(at, Opcode::Imul, o, c)
}

/// The plain loads and stores that read `address` (= `base + d`) as their address read
/// `base` with `d` added to their offset, when it fits; returns how many.
fn fold_offsets(g: &mut Rvsdg, address: Origin, base: Origin, d: i64) -> usize {
    let mut folded = 0;
    for u in g.users(address).to_vec() {
        let User::In(m, i) = u else { continue };
        let Some(op) = g.op(m).and_then(|op| with_offset(op, i as usize, d)) else {
            continue;
        };
        if let NodeKind::Simple(old) = g.kind_mut(m) {
            *old = op;
        }
        g.set_input(m, i as usize, base);
        folded += 1;
    }
    folded
}

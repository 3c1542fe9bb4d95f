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

use super::constants::RegionConstants;
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

/// `scale · counter + offset` (wrapping, 64 bits) for the loop variable `counter`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
struct Affine {
    counter: u32,
    scale: u64,
    offset: u64,
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

/// `o` as an affine function of a counter of `counters`, computed in `body`'s top level.
fn affine(g: &Rvsdg, body: Region, counters: &FxHashMap<u32, u64>, o: Origin) -> Option<Affine> {
    if !is_i64(g, o) {
        return None;
    }
    match o {
        Origin::Arg(r, k) if r == body && counters.contains_key(&k) => Some(Affine {
            counter: k,
            scale: 1,
            offset: 0,
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
            match opcode {
                Opcode::Iadd => {
                    let (x, c) = match (constant(g, a), constant(g, b)) {
                        (_, Some(c)) => (a, c),
                        (Some(c), _) => (b, c),
                        _ => return None,
                    };
                    let f = affine(g, body, counters, x)?;
                    Some(Affine {
                        offset: f.offset.wrapping_add(c),
                        ..f
                    })
                }
                Opcode::Imul => {
                    let (x, c) = match (constant(g, a), constant(g, b)) {
                        (_, Some(c)) => (a, c),
                        (Some(c), _) => (b, c),
                        _ => return None,
                    };
                    let f = affine(g, body, counters, x)?;
                    Some(Affine {
                        counter: f.counter,
                        scale: f.scale.wrapping_mul(c),
                        offset: f.offset.wrapping_mul(c),
                    })
                }
                Opcode::Ishl => {
                    // the IR masks the shift amount to the width
                    let c = constant(g, b)? & 63;
                    let f = affine(g, body, counters, a)?;
                    Some(Affine {
                        counter: f.counter,
                        scale: f.scale << c,
                        offset: f.offset << c,
                    })
                }
                _ => None,
            }
        }
    }
}

/// One pointer to make: the base's loop variable, the counter and the scale, and the
/// addresses it replaces with their offsets.
struct Group {
    /// A loop variable passed through unchanged, or an address constant of the body
    /// (`symbol_addr`, `stack_addr`).
    base: Origin,
    counter: u32,
    scale: u64,
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
        if f.scale == 0 {
            continue;
        }
        let plain = f.scale == 1 && f.offset == 0 && index == Origin::Arg(body, f.counter);
        match groups
            .iter_mut()
            .find(|gr| gr.base == base && gr.counter == f.counter && gr.scale == f.scale)
        {
            Some(gr) => {
                gr.members.push((n, f.offset));
                gr.saves |= !plain;
            }
            None => groups.push(Group {
                base,
                counter: f.counter,
                scale: f.scale,
                members: vec![(n, f.offset)],
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
    // before the loop: base + scale · counter's initial value
    let base_init = match gr.base {
        Origin::Arg(_, k) => rw.g.input(theta, k as usize),
        Origin::Out(b, _) => {
            let (op, ty) = super::constants::constant(rw.g, b).expect("an address constant");
            let outer = rw.g.node(theta).region;
            RegionConstants::new(outer).get(rw.g, &op, ty)
        }
    };
    let counter_init = rw.g.input(theta, gr.counter as usize);
    let init = match constant(rw.g, counter_init) {
        // a counter that starts at a constant (0, mostly): the base, or the base
        // plus a constant
        Some(c) => match c.wrapping_mul(gr.scale) {
            0 => base_init,
            d => {
                let d = rw.int(theta, Type::I64, d as i64 as i128);
                rw.binary(theta, Opcode::Ptradd, base_init, d)
            }
        },
        None => {
            let scaled = scale(&mut rw, theta, counter_init, gr.scale);
            rw.binary(theta, Opcode::Ptradd, base_init, scaled)
        }
    };
    let (p, _) = rw.g.add_theta_var(theta, init);
    let var = rw.g.args(body).len() - 1;
    // in the loop: advanced by scale · step
    let at = gr.members[0].0;
    let advance = rw.int(at, Type::I64, gr.scale.wrapping_mul(step) as i64 as i128);
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

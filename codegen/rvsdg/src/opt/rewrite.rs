//! What the rewriting passes (`fold`, `strength`) share: reading constants, making
//! nodes beside the one they replace, replacing a value by another, removing what a
//! rewrite left without users, and deciding that a division cannot trap.
//!
//! New nodes go into the region of the node they replace and take its source
//! location. Constants made by a pass are shared within a region (one `iconst 1 : i32`
//! per region and pass, not one per use).

use rustc_hash::FxHashMap;
use vliw_ir::{InstructionData, IntCC, Opcode, Type, Value};

use super::known::{low_bits_nonzero, unsigned_range};
use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};

/// An operand as an RVSDG operation stores it (the node's inputs are the operands).
fn v0() -> Value {
    Value::from_u32(0)
}

/// The bits of a constant value: the output of an `iconst`, `f32const` or `f64const`
/// (masked to its type, as the IR stores them).
pub(crate) fn const_of(g: &Rvsdg, o: Origin) -> Option<u128> {
    let Origin::Out(n, 0) = o else {
        return None;
    };
    match g.op(n)? {
        Op::Inst(InstructionData::UnaryImm {
            opcode: Opcode::Iconst | Opcode::F32const | Opcode::F64const,
            imm,
        }) => Some(*imm & g.ty(o).value()?.mask()),
        _ => None,
    }
}

/// The alternative of a control constant.
pub(crate) fn ctl_of(g: &Rvsdg, o: Origin) -> Option<u32> {
    match (o, g.producer(o).and_then(|n| g.op(n))) {
        (Origin::Out(_, 0), Some(Op::Ctl { alt, alts })) if g.ty(o) == Ty::Ctl(*alts) => Some(*alt),
        _ => None,
    }
}

/// The operation of the simple node that produces `o`, with that node.
pub(crate) fn producer_op(g: &Rvsdg, o: Origin) -> Option<(Node, &InstructionData)> {
    let n = g.producer(o)?;
    match g.op(n)? {
        Op::Inst(data) => Some((n, data)),
        _ => None,
    }
}

/// The value type of `o` (`I64` for a state or control value: callers only ask about
/// values).
pub(crate) fn vty(g: &Rvsdg, o: Origin) -> Type {
    g.ty(o).value().unwrap_or(Type::I64)
}

/// `x` read as a signed integer of type `ty`.
pub(crate) fn sext(ty: Type, x: u128) -> i128 {
    let s = 128 - ty.bits();
    ((x << s) as i128) >> s
}

/// The bits of the signed minimum of `ty`.
pub(crate) fn smin_bits(ty: Type) -> u128 {
    1u128 << (ty.bits() - 1)
}

/// Makes nodes and replaces values in a graph, for one pass.
pub(crate) struct Rewriter<'a> {
    pub g: &'a mut Rvsdg,
    /// The constants this pass made, by region, type and bits.
    consts: FxHashMap<(Region, Ty, u128), Node>,
    /// Nodes whose inputs changed or that are new since the last `take_touched`:
    /// what a pass that iterates looks at again.
    touched: Vec<Node>,
}

impl<'a> Rewriter<'a> {
    pub fn new(g: &'a mut Rvsdg) -> Self {
        Rewriter {
            g,
            consts: FxHashMap::default(),
            touched: Vec::new(),
        }
    }

    pub fn take_touched(&mut self) -> Vec<Node> {
        std::mem::take(&mut self.touched)
    }

    fn add(&mut self, at: Node, op: Op, inputs: &[Origin], outputs: &[Ty]) -> Node {
        let r = self.g.node(at).region;
        let n = self.g.add_simple(r, op, inputs, outputs);
        let loc = self.g.node(at).loc;
        self.g.set_loc(n, loc);
        self.touched.push(n);
        n
    }

    /// A constant of type `ty` (a value type or a control type) in region `r`.
    pub fn constant_in(&mut self, r: Region, ty: Ty, bits: u128) -> Origin {
        if let Some(&n) = self.consts.get(&(r, ty, bits))
            && self.g.is_alive(n)
        {
            return Origin::Out(n, 0);
        }
        let op = match ty {
            Ty::Ctl(alts) => Op::Ctl {
                alt: bits as u32,
                alts,
            },
            Ty::Val(t) => Op::Inst(InstructionData::UnaryImm {
                opcode: match t {
                    Type::F32 => Opcode::F32const,
                    Type::F64 => Opcode::F64const,
                    _ => Opcode::Iconst,
                },
                imm: bits & t.mask(),
            }),
            Ty::Mem | Ty::Io => unreachable!("a state is not a constant"),
        };
        let n = self.g.add_simple(r, op, &[], &[ty]);
        self.consts.insert((r, ty, bits), n);
        Origin::Out(n, 0)
    }

    /// A constant beside node `at`.
    pub fn constant(&mut self, at: Node, ty: Ty, bits: u128) -> Origin {
        let r = self.g.node(at).region;
        self.constant_in(r, ty, bits)
    }

    /// An integer constant of type `ty` beside `at` (`v` taken modulo the width).
    pub fn int(&mut self, at: Node, ty: Type, v: i128) -> Origin {
        self.constant(at, Ty::Val(ty), v as u128 & ty.mask())
    }

    /// `opcode a, b` beside `at`, of the type of `a` (a binary operation without
    /// states: not a division that may trap).
    pub fn binary(&mut self, at: Node, opcode: Opcode, a: Origin, b: Origin) -> Origin {
        let ty = self.g.ty(a);
        let data = InstructionData::Binary {
            opcode,
            args: [v0(), v0()],
        };
        Origin::Out(self.add(at, Op::Inst(data), &[a, b], &[ty]), 0)
    }

    /// A division known not to trap (`Op::SafeDiv`) beside `at`.
    pub fn safe_div(&mut self, at: Node, opcode: Opcode, a: Origin, b: Origin) -> Origin {
        let ty = self.g.ty(a);
        Origin::Out(self.add(at, Op::SafeDiv(opcode), &[a, b], &[ty]), 0)
    }

    /// `opcode a` beside `at`, with result type `to`.
    pub fn unary(&mut self, at: Node, opcode: Opcode, a: Origin, to: Type) -> Origin {
        let data = InstructionData::Unary { opcode, arg: v0() };
        Origin::Out(self.add(at, Op::Inst(data), &[a], &[Ty::Val(to)]), 0)
    }

    pub fn icmp(&mut self, at: Node, cond: IntCC, a: Origin, b: Origin) -> Origin {
        let data = InstructionData::IntCompare {
            opcode: Opcode::Icmp,
            cond,
            args: [v0(), v0()],
        };
        Origin::Out(
            self.add(at, Op::Inst(data), &[a, b], &[Ty::Val(Type::I1)]),
            0,
        )
    }

    pub fn select(&mut self, at: Node, c: Origin, a: Origin, b: Origin) -> Origin {
        let ty = self.g.ty(a);
        let data = InstructionData::Ternary {
            opcode: Opcode::Select,
            args: [v0(), v0(), v0()],
        };
        Origin::Out(self.add(at, Op::Inst(data), &[c, a, b], &[ty]), 0)
    }

    /// Makes every user of `from` read `to` instead (the users are touched).
    pub fn replace(&mut self, from: Origin, to: Origin) {
        if from == to {
            return;
        }
        self.g.divert_users(from, to);
        self.touch_users(to);
    }

    /// Makes user `u` read `to` instead (it is touched).
    pub fn redirect(&mut self, u: User, to: Origin) {
        self.g.set_origin(u, to);
        if let User::In(m, _) = u {
            self.touched.push(m);
        }
    }

    pub fn touch(&mut self, n: Node) {
        self.touched.push(n);
    }

    fn touch_users(&mut self, o: Origin) {
        for &u in self.g.users(o) {
            if let User::In(m, _) = u {
                self.touched.push(m);
            }
        }
    }

    /// Node `n` computed a division with the I/O state that a replacement without it
    /// takes over: its I/O output's user reads its I/O input instead (the state chain
    /// goes around it).
    pub fn bypass_state(&mut self, n: Node) {
        let g = &mut *self.g;
        for (i, o) in g.outputs(n).enumerate() {
            if g.ty(o).is_state() {
                // a node's states come after its values, in the same order in and out
                let values_in = g.inputs(n).len() - (g.num_outputs(n) - i);
                let input = g.input(n, values_in);
                debug_assert_eq!(g.ty(input), g.ty(o));
                g.divert_users(o, input);
            }
        }
    }

    /// Removes `n`, whose outputs have no users any more (it was replaced), and then
    /// the producers of its inputs that this leaves unused, as
    /// [`Rewriter::remove_if_dead`] does.
    pub fn remove(&mut self, n: Node) {
        let producers: Vec<Node> = self
            .g
            .inputs(n)
            .iter()
            .filter_map(|&o| self.g.producer(o))
            .collect();
        self.g.remove_node(n);
        for p in producers {
            self.remove_if_dead(p);
        }
    }

    /// Removes `n` if it is a simple node without state or users, and then the
    /// producers of its inputs that this leaves unused, likewise (what a rewrite
    /// orphans; dead node elimination removes everything else).
    pub fn remove_if_dead(&mut self, n: Node) {
        let mut stack = vec![n];
        while let Some(n) = stack.pop() {
            let g = &mut *self.g;
            if !g.is_alive(n) || g.is_used(n) {
                continue;
            }
            let NodeKind::Simple(op) = g.kind(n) else {
                continue;
            };
            if !op.is_pure() {
                continue;
            }
            let producers: Vec<Node> = g.inputs(n).iter().filter_map(|&o| g.producer(o)).collect();
            g.remove_node(n);
            stack.extend(producers);
        }
    }
}

/// Whether the division `opcode a, b` (of type `ty`) cannot trap: its divisor is a
/// constant other than zero, or a value known not to be zero (`known.rs`: its
/// unsigned range, its low bits), and for a signed division other than -1 unless
/// the dividend is known not to be the minimum.
pub(crate) fn division_cannot_trap(g: &Rvsdg, opcode: Opcode, a: Origin, b: Origin) -> bool {
    let ty = vty(g, b);
    let Some(d) = const_of(g, b) else {
        // a divisor known not to be zero (nor -1, for a signed division): `2 * x + 1`,
        // `y as u64 + 10`
        let range = unsigned_range(g, b, 8);
        let nonzero = low_bits_nonzero(g, b) || range.is_some_and(|(lo, _)| lo > 0);
        return match opcode {
            Opcode::Udiv | Opcode::Urem => nonzero,
            Opcode::Sdiv | Opcode::Srem => {
                nonzero && (range.is_some_and(|(_, hi)| hi < ty.mask()) || known_not_min(g, a, ty))
            }
            _ => false,
        };
    };
    match opcode {
        Opcode::Udiv | Opcode::Urem => d != 0,
        Opcode::Sdiv | Opcode::Srem => d != 0 && (sext(ty, d) != -1 || known_not_min(g, a, ty)),
        _ => false,
    }
}

/// Whether `a` (of type `ty`) is known not to be the signed minimum of its type: a
/// constant other than it, an extension (of a narrower value: between its type's
/// bounds, which are inside the wider type's), a logical right shift by a constant
/// that is not a multiple of the width (the sign bit is clear), a `band` with a
/// constant whose sign bit is clear.
pub(crate) fn known_not_min(g: &Rvsdg, a: Origin, ty: Type) -> bool {
    let min = smin_bits(ty);
    if let Some(c) = const_of(g, a) {
        return c != min;
    }
    let Some((n, data)) = producer_op(g, a) else {
        return false;
    };
    let inputs = g.inputs(n);
    match data.opcode() {
        Opcode::Uextend | Opcode::Sextend => true,
        Opcode::Ushr => const_of(g, inputs[1])
            .is_some_and(|k| !(k & vty(g, inputs[1]).mask()).is_multiple_of(ty.bits() as u128)),
        Opcode::Band => inputs
            .iter()
            .any(|&i| const_of(g, i).is_some_and(|c| c & min == 0)),
        _ => false,
    }
}

/// `op` reading its address `d` bytes further on, if it is a plain `load` (address:
/// input 0) or `store` (address: input 1) and `input` is that address, and the new
/// offset fits in 32 bits: what a load or store of `ptradd(p, d)` becomes when it reads
/// `p` instead. (Atomic accesses have no offset.)
pub(crate) fn with_offset(op: &Op, input: usize, d: i64) -> Option<Op> {
    let moved = |offset: i32| i32::try_from(i64::from(offset) + d).ok();
    match op {
        Op::Inst(InstructionData::Load {
            opcode: Opcode::Load,
            flags,
            arg,
            offset,
        }) if input == 0 => Some(Op::Inst(InstructionData::Load {
            opcode: Opcode::Load,
            flags: *flags,
            arg: *arg,
            offset: moved(*offset)?,
        })),
        Op::Inst(InstructionData::Store {
            opcode: Opcode::Store,
            flags,
            args,
            offset,
        }) if input == 1 => Some(Op::Inst(InstructionData::Store {
            opcode: Opcode::Store,
            flags: *flags,
            args: *args,
            offset: moved(*offset)?,
        })),
        _ => None,
    }
}

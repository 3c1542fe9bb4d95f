//! The address analysis: for every pointer of a λ, the object it points into and its
//! constant offset from that object's start, when they are known.
//!
//! - `stack_addr ssN+c` is slot `ssN` at `c`; `symbol_addr gvN+c` and `tls_addr gvN+c`
//!   are the symbol (by name: two `gvN` may name one symbol) at `c`;
//! - `ptradd p, c` with an `iconst` `c` is `p`'s object at `p`'s offset plus `c`
//!   (wrapping, as `ptradd` does); with any other `c`, `p`'s object at an unknown
//!   offset (the IR has no other pointer arithmetic: `iadd` is not defined on `ptr`,
//!   and a pointer made from an integer by `bitcast` has no known object);
//! - a γ arm's argument is its entry variable's input; a γ's output is what every
//!   arm gives, when they agree on the object (on the offset too, or it is unknown),
//!   an arm that gives `undef` agreeing with any (using an `undef` pointer is
//!   undefined; the construction makes one only where the value is not used);
//! - a θ body's argument joins its input and its next value (to a fixpoint: a pointer
//!   that walks through a slot stays in the slot, at an unknown offset); an invariant
//!   loop variable is its input; one that starts `undef` (as the construction carries
//!   a value out of a loop) is its first next value's object at an unknown offset,
//!   when that object is not a value of the body; a θ's output is its next value's
//!   object (an object named by a value of the body, by the output itself);
//! - any other pointer (a λ parameter, a loaded pointer, a call's result, a join of
//!   different objects) is an object of its own, [`Base::Value`]: the value itself.
//!
//! Offsets are facts about every execution of the region that computes the pointer:
//! within one run of a region, two pointers of the same base and known offsets are
//! that far apart. A value named as a base outside the region that computes it is
//! replaced by the value the enclosing node gives out (a γ or θ output), so that a
//! base always names a value of the region where it is compared or an enclosing one.

use std::rc::Rc;

use rustc_hash::FxHashMap;
use vliw_ir::{GlobalRef, InstructionData, Opcode, StackSlot, Type};

use crate::graph::{Node, NodeKind, Origin, Region};
use crate::ops::{Op, Rvsdg, Ty};

/// The object a pointer points into (by provenance: what it was computed from).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Base {
    /// A stack slot of this activation of the λ.
    Slot(StackSlot),
    /// A symbol's address (`symbol_addr`), by the first `gvN` that names the symbol.
    Symbol(GlobalRef),
    /// A thread-local symbol's address (`tls_addr`), likewise.
    Tls(GlobalRef),
    /// Whatever this pointer value points into: nothing is known about it but itself.
    Value(Origin),
}

/// A pointer: its object and its offset from the object's start, when known.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Addr {
    pub base: Base,
    pub offset: Option<i64>,
}

impl Addr {
    fn at(base: Base, offset: i64) -> Addr {
        Addr {
            base,
            offset: Some(offset),
        }
    }

    /// The pointer `c` bytes further (`None`: an unknown distance).
    pub fn plus(self, c: Option<i64>) -> Addr {
        Addr {
            base: self.base,
            offset: self.offset.zip(c).map(|(o, c)| o.wrapping_add(c)),
        }
    }
}

/// The addresses of the pointers of one λ.
pub struct Addresses {
    map: FxHashMap<Origin, Addr>,
    /// Each `gvN` to the first one that names the same symbol.
    symbols: FxHashMap<GlobalRef, GlobalRef>,
    /// The topological order of each region visited (θ bodies are visited until
    /// their fixpoint).
    orders: FxHashMap<Region, Rc<[Node]>>,
}

/// At most this many passes over a θ body to find its pointers' fixpoint (the lattice
/// is three high: a known offset, an unknown one, a base of its own); past it every
/// pointer variable of the θ is a base of its own.
const MAX_THETA_ROUNDS: usize = 4;

impl Addresses {
    /// Analyzes λ `l`.
    pub fn of_lambda(g: &Rvsdg, l: Node) -> Addresses {
        let info = g.lambda_info(l);
        let mut first: FxHashMap<&str, GlobalRef> = FxHashMap::default();
        let mut symbols = FxHashMap::default();
        for (gv, name) in info.globals.iter() {
            symbols.insert(gv, *first.entry(name.as_str()).or_insert(gv));
        }
        let mut a = Addresses {
            map: FxHashMap::default(),
            symbols,
            orders: FxHashMap::default(),
        };
        a.region(g, g.lambda_body(l));
        a.orders = FxHashMap::default();
        a
    }

    /// The address of pointer `o`.
    pub fn get(&self, o: Origin) -> Addr {
        self.map
            .get(&o)
            .copied()
            .unwrap_or(Addr::at(Base::Value(o), 0))
    }

    fn set(&mut self, o: Origin, a: Addr) {
        self.map.insert(o, a);
    }

    fn region(&mut self, g: &Rvsdg, r: Region) {
        let order = self
            .orders
            .entry(r)
            .or_insert_with(|| g.topological_order(r).into())
            .clone();
        for &n in order.iter() {
            match g.kind(n) {
                NodeKind::Simple(op) => self.simple(g, n, op),
                NodeKind::Gamma { arms } => self.gamma(g, n, arms),
                NodeKind::Theta { body } => self.theta(g, n, *body),
                NodeKind::Lambda { .. } => {}
            }
        }
    }

    fn simple(&mut self, g: &Rvsdg, n: Node, op: &Op) {
        let Op::Inst(data) = op else {
            return;
        };
        if g.num_outputs(n) != 1 || g.ty(Origin::Out(n, 0)) != Ty::Val(Type::Ptr) {
            return;
        }
        let out = Origin::Out(n, 0);
        let addr = match *data {
            InstructionData::StackAddr { slot, offset, .. } => Addr::at(Base::Slot(slot), offset),
            InstructionData::SymbolAddr {
                opcode,
                global,
                offset,
            } => {
                let canon = self.symbols.get(&global).copied().unwrap_or(global);
                match opcode {
                    Opcode::TlsAddr => Addr::at(Base::Tls(canon), offset),
                    _ => Addr::at(Base::Symbol(canon), offset),
                }
            }
            InstructionData::Binary {
                opcode: Opcode::Ptradd,
                ..
            } if g.inputs(n).len() == 2 => {
                let p = self.get(g.input(n, 0));
                p.plus(iconst(g, g.input(n, 1)))
            }
            _ => return,
        };
        self.set(out, addr);
    }

    fn gamma(&mut self, g: &Rvsdg, n: Node, arms: &[Region]) {
        for &arm in arms {
            for k in 0..g.args(arm).len() {
                if let Some(&input) = g.inputs(n).get(k + 1)
                    && is_ptr(g, input)
                {
                    let a = self.get(input);
                    self.set(Origin::Arg(arm, k as u32), a);
                }
            }
            self.region(g, arm);
        }
        for k in 0..g.num_outputs(n) {
            let out = Origin::Out(n, k as u32);
            if !is_ptr(g, out) {
                continue;
            }
            let mut joined: Option<Addr> = None;
            for &arm in arms {
                let Some(&res) = g.results(arm).get(k) else {
                    joined = None;
                    break;
                };
                if is_undef(g, res) {
                    // any pointer: the one the other arms agree on
                    continue;
                }
                let a = self.outside(g, arm, res, out);
                joined = Some(match joined {
                    None => a,
                    Some(j) => join(j, a, out),
                });
            }
            self.set(out, joined.unwrap_or(Addr::at(Base::Value(out), 0)));
        }
    }

    fn theta(&mut self, g: &Rvsdg, n: Node, body: Region) {
        let vars = g.args(body).len();
        // the pointer variables that start `undef`: what the body makes of them
        let mut from_body = Vec::new();
        for k in 0..vars {
            let arg = Origin::Arg(body, k as u32);
            if is_ptr(g, arg) {
                let input = g.input(n, k);
                let before = self.map.get(&arg).copied();
                // an enclosing θ's fixpoint visits this one again: the joins so far
                // hold (the lattice only goes down), so start from them
                let a = match (before, is_undef(g, input)) {
                    (Some(before), true) => before,
                    (Some(before), false) => join(before, self.get(input), arg),
                    (None, true) => {
                        from_body.push(k);
                        Addr::at(Base::Value(arg), 0)
                    }
                    (None, false) => self.get(input),
                };
                self.set(arg, a);
            }
        }
        for round in 1.. {
            self.region(g, body);
            let mut stable = true;
            // an `undef` start is any pointer: the first next value's object (one made
            // outside the body: the same object in every iteration), at an unknown
            // offset
            for k in from_body.drain(..) {
                let arg = Origin::Arg(body, k as u32);
                let Some(&next) = g.results(body).get(k + 1) else {
                    continue;
                };
                let a = self.get(next);
                let inside =
                    matches!(a.base, Base::Value(v) if g.region_within(g.origin_region(v), body));
                if next != arg && !inside {
                    self.set(
                        arg,
                        Addr {
                            base: a.base,
                            offset: None,
                        },
                    );
                    stable = false;
                }
            }
            for k in 0..vars {
                let arg = Origin::Arg(body, k as u32);
                let Some(&next) = g.results(body).get(k + 1) else {
                    continue;
                };
                if !is_ptr(g, arg) || next == arg {
                    continue;
                }
                let cur = self.get(arg);
                let joined = join(cur, self.get(next), arg);
                if joined != cur {
                    self.set(arg, joined);
                    stable = false;
                }
            }
            if stable {
                break;
            }
            if round == MAX_THETA_ROUNDS {
                // give up: every pointer variable is a base of its own (which holds
                // whatever the body does)
                for k in 0..vars {
                    let arg = Origin::Arg(body, k as u32);
                    if is_ptr(g, arg) {
                        self.set(arg, Addr::at(Base::Value(arg), 0));
                    }
                }
                self.region(g, body);
                break;
            }
        }
        for k in 0..g.num_outputs(n) {
            let out = Origin::Out(n, k as u32);
            if let Some(&next) = g.results(body).get(k + 1)
                && is_ptr(g, out)
            {
                let a = self.outside(g, body, next, out);
                self.set(out, a);
            }
        }
    }

    /// The address of `o` (of region `r`) as seen outside `r`, where `instead` (an
    /// output of `r`'s node) carries it: a base named by a value of `r` (or below) is
    /// not one outside, `instead` is.
    fn outside(&self, g: &Rvsdg, r: Region, o: Origin, instead: Origin) -> Addr {
        let a = self.get(o);
        match a.base {
            Base::Value(v) if g.region_within(g.origin_region(v), r) => {
                Addr::at(Base::Value(instead), 0)
            }
            _ => a,
        }
    }
}

/// What two pointers have in common: the same base (and offset, or none), else
/// `instead` is a base of its own.
fn join(a: Addr, b: Addr, instead: Origin) -> Addr {
    if a.base == b.base {
        Addr {
            base: a.base,
            offset: if a.offset == b.offset { a.offset } else { None },
        }
    } else {
        Addr::at(Base::Value(instead), 0)
    }
}

/// Whether `o` is an `undef` (which may be taken to be any pointer: using it is
/// undefined, and the construction only makes it where a value is not used).
fn is_undef(g: &Rvsdg, o: Origin) -> bool {
    g.producer(o).and_then(|n| g.op(n)).is_some_and(|op| {
        matches!(
            op,
            Op::Inst(InstructionData::Nullary {
                opcode: Opcode::Undef
            })
        )
    })
}

fn is_ptr(g: &Rvsdg, o: Origin) -> bool {
    g.ty(o) == Ty::Val(Type::Ptr)
}

/// The value of an `i64` constant, signed.
pub fn iconst(g: &Rvsdg, o: Origin) -> Option<i64> {
    let n = g.producer(o)?;
    match g.op(n)? {
        Op::Inst(InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        }) if g.ty(o) == Ty::Val(Type::I64) => Some(*imm as u64 as i64),
        _ => None,
    }
}

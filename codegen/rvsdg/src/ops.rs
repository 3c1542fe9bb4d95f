//! The operations that live in the compiler's RVSDG: the SSA IR's instructions (all
//! but the branches), plus `match` (an integer to a control value) and control
//! constants; their types (the IR's value types, the memory and I/O states, control
//! values), and the state edges each operation takes.
//!
//! A node of an IR operation reads its value operands in the IR's order, then its
//! states; it writes the IR's results in order, then its states (same order):
//!
//! | operations | states in and out |
//! |---|---|
//! | `load`, `store`, `memcpy`, `memmove`, `memset` | memory |
//! | the same, `volatile` | memory, I/O |
//! | atomics, `fence`, calls | memory, I/O |
//! | `trap` | memory, I/O (it never gives them back) |
//! | `udiv`, `sdiv`, `urem`, `srem` | I/O (they trap on a zero divisor or an overflow), unless marked safe |
//! | everything else | none |
//!
//! Loads thread the memory state through (they do not read it "quasi-linearly"), so
//! that the state chain alone orders every access, and a load that may fault stays
//! where it was.
//!
//! The memory state may be split by disjoint locations (`rvsdg-mem-split`,
//! `opt/memory/split.rs`): `mem_split N` makes `N` states of one and `mem_join N` one
//! of `N`. They are state plumbing, not effects: no value, nothing to run, nothing
//! emitted; one memory is still all there is (`docs/rvsdg.md` §2).

use std::fmt;
use std::hash::Hash;

use vliw_ir::write::{format_f32, format_f64, format_int, write_flags, write_offset};
use vliw_ir::{InstructionData, Opcode, SourceLoc, Type, Value};

use crate::graph::{self, Kind, Operation};

/// The type of an edge of the compiler's RVSDG.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Ty {
    /// An SSA IR value.
    Val(Type),
    /// The memory state.
    Mem,
    /// The I/O state: calls, volatile and atomic accesses, traps.
    Io,
    /// A control value of `n` alternatives.
    Ctl(u32),
}

impl Ty {
    pub fn value(self) -> Option<Type> {
        match self {
            Ty::Val(t) => Some(t),
            _ => None,
        }
    }

    pub fn is_state(self) -> bool {
        matches!(self, Ty::Mem | Ty::Io)
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Val(t) => write!(f, "{t}"),
            Ty::Mem => f.write_str("mem"),
            Ty::Io => f.write_str("io"),
            Ty::Ctl(n) => write!(f, "ctl{n}"),
        }
    }
}

/// An operation.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Op {
    /// An SSA IR instruction (not a branch, not `return`/`unreachable`): its
    /// `InstructionData` with every value operand replaced by `v0` (the node's inputs
    /// are the operands), so that equal operations compare and hash equal.
    Inst(InstructionData),
    /// A control value of `alts` alternatives from an integer: the alternative of the
    /// first case equal to the operand, else `default`.
    Match {
        cases: Box<[(u128, u32)]>,
        default: u32,
        alts: u32,
    },
    /// The constant control value `alt` of `alts`.
    Ctl { alt: u32, alts: u32 },
    /// A division (`udiv sdiv urem srem`) whose divisor is proven not to trap (not
    /// zero, and not -1 for a signed division): no I/O state.
    SafeDiv(Opcode),
    /// One memory state to `N` (at least 2): the states of disjoint locations, which
    /// no longer order each other's accesses.
    MemSplit(u32),
    /// `N` memory states (at least 2) to one: every access on any of them is before
    /// what uses the result.
    MemJoin(u32),
}

/// The states an operation takes and gives back.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct States {
    pub mem: bool,
    pub io: bool,
}

impl States {
    pub fn count(self) -> usize {
        self.mem as usize + self.io as usize
    }

    /// The state types, in operand order.
    pub fn types(self) -> Vec<Ty> {
        let mut v = Vec::new();
        if self.mem {
            v.push(Ty::Mem);
        }
        if self.io {
            v.push(Ty::Io);
        }
        v
    }
}

impl Op {
    /// The operation of an IR instruction (value operands cleared).
    pub fn from_inst(data: &InstructionData) -> Op {
        let mut data = data.clone();
        data.map_values(|_| Value::from_u32(0));
        Op::Inst(data)
    }

    /// The IR instruction for this operation with `args` as its value operands.
    pub fn to_inst(&self, args: &[Value]) -> Option<InstructionData> {
        match self {
            Op::Inst(data) => {
                let mut data = data.clone();
                let mut it = args.iter();
                for v in data.arguments_mut() {
                    *v = *it.next()?;
                }
                Some(data)
            }
            Op::SafeDiv(opcode) => Some(InstructionData::Binary {
                opcode: *opcode,
                args: [*args.first()?, *args.get(1)?],
            }),
            _ => None,
        }
    }

    pub fn opcode(&self) -> Option<Opcode> {
        match self {
            Op::Inst(d) => Some(d.opcode()),
            Op::SafeDiv(o) => Some(*o),
            _ => None,
        }
    }

    /// Number of value operands.
    pub fn num_value_args(&self) -> usize {
        match self {
            Op::Inst(d) => d.arguments().len(),
            Op::Match { .. } => 1,
            Op::Ctl { .. } | Op::MemSplit(_) | Op::MemJoin(_) => 0,
            Op::SafeDiv(_) => 2,
        }
    }

    /// A plain load (`load`, not volatile): it reads memory, writes none, and
    /// threads the memory state only to stay ordered (and to fault in its place).
    pub fn is_plain_load(&self) -> bool {
        matches!(
            self,
            Op::Inst(InstructionData::Load {
                opcode: Opcode::Load,
                flags,
                ..
            }) if !flags.volatile
        )
    }

    /// `mem_split` or `mem_join`: state plumbing (several memory states in or out).
    pub fn is_mem_plumbing(&self) -> bool {
        matches!(self, Op::MemSplit(_) | Op::MemJoin(_))
    }

    /// The kinds of states it reads and writes (`mem_split` and `mem_join`: memory,
    /// one or several).
    pub fn states(&self) -> States {
        let d = match self {
            Op::Inst(d) => d,
            Op::MemSplit(_) | Op::MemJoin(_) => {
                return States {
                    mem: true,
                    io: false,
                };
            }
            _ => return States::default(),
        };
        let volatile = d.mem_flags().is_some_and(|f| f.volatile);
        use Opcode::*;
        match d.opcode() {
            Load | Store | Memcpy | Memmove | Memset => States {
                mem: true,
                io: volatile,
            },
            AtomicLoad | AtomicStore | AtomicRmw | AtomicCas | Fence | Call | CallIndirect
            | TryCall | TryCallIndirect | CatchCall | CatchCallIndirect | Trap | Unreachable => {
                States {
                    mem: true,
                    io: true,
                }
            }
            Udiv | Sdiv | Urem | Srem => States {
                mem: false,
                io: true,
            },
            _ => States::default(),
        }
    }

    /// The states it gives back: those it reads, except for `trap` and
    /// `unreachable`, which never complete (sinks: their region's results take the
    /// states they read).
    pub fn state_outputs(&self) -> States {
        match self.opcode() {
            Some(Opcode::Trap | Opcode::Unreachable) => States::default(),
            _ => self.states(),
        }
    }

    /// Has no state: its outputs depend on its inputs only, and it can be removed when
    /// they are unused. (`mem_split` and `mem_join` are not: they carry states.)
    pub fn is_pure(&self) -> bool {
        self.states().count() == 0
    }

    /// A pure operation whose result comes late (a division that cannot trap, a float
    /// division or square root: 16 to 20 cycles on the machine): better computed
    /// where the optimizer left it, early, than sunk into the γ arm that uses it,
    /// where its path would wait its whole latency.
    pub fn is_long_pure(&self) -> bool {
        match self {
            Op::SafeDiv(_) => true,
            Op::Inst(d) => matches!(d.opcode(), Opcode::Fdiv | Opcode::Sqrt),
            _ => false,
        }
    }

    /// A nullary operation that is cheap to compute anywhere (constants, addresses).
    pub fn is_constant_like(&self) -> bool {
        match self {
            Op::Inst(d) => matches!(
                d.opcode(),
                Opcode::Iconst
                    | Opcode::F32const
                    | Opcode::F64const
                    | Opcode::SymbolAddr
                    | Opcode::TlsAddr
                    | Opcode::StackAddr
                    | Opcode::Undef
            ),
            Op::Ctl { .. } => true,
            _ => false,
        }
    }
}

impl Op {
    /// Writes the operation as the text form has it (`text::parse` reads it back), on
    /// one line: the IR's opcode and immediates without the operands (the node's
    /// inputs) or the type suffix (its output types), memory flags and offsets after
    /// the opcode (`load volatile align 4 +8`); `match2 [3 -> 0, _ -> 1]` (cases, then
    /// the default), `ctl2 1`, `sdiv safe`. `ty`, the type of the first output, makes
    /// an `iconst` print its literal as the IR does (signed, in that type); without it,
    /// the stored bits.
    pub fn write(&self, w: &mut dyn fmt::Write, ty: Option<Ty>) -> fmt::Result {
        use InstructionData as D;
        let d = match self {
            Op::Inst(d) => d,
            Op::Match {
                cases,
                default,
                alts,
            } => {
                write!(w, "match{alts} [")?;
                for (v, a) in cases.iter() {
                    write!(w, "{v} -> {a}, ")?;
                }
                return write!(w, "_ -> {default}]");
            }
            Op::Ctl { alt, alts } => return write!(w, "ctl{alts} {alt}"),
            Op::SafeDiv(o) => return write!(w, "{o} safe"),
            Op::MemSplit(n) => return write!(w, "mem_split {n}"),
            Op::MemJoin(n) => return write!(w, "mem_join {n}"),
        };
        w.write_str(d.opcode().name())?;
        match d {
            D::UnaryImm { opcode, imm } => match opcode {
                Opcode::F32const => write!(w, " {}", format_f32(*imm as u32)),
                Opcode::F64const => write!(w, " {}", format_f64(*imm as u64)),
                _ => match ty {
                    Some(Ty::Val(t)) if t.is_int() || t.is_ptr() => {
                        write!(w, " {}", format_int(t, *imm))
                    }
                    _ => write!(w, " {imm}"),
                },
            },
            D::IntCompare { cond, .. } => write!(w, " {cond}"),
            D::FloatCompare { cond, .. } => write!(w, " {cond}"),
            D::SymbolAddr { global, offset, .. } => {
                write!(w, " {global}")?;
                write_offset(w, *offset)
            }
            D::StackAddr { slot, offset, .. } => {
                write!(w, " {slot}")?;
                write_offset(w, *offset)
            }
            D::Load { flags, offset, .. } | D::Store { flags, offset, .. } => {
                write_flags(w, *flags)?;
                if *offset != 0 {
                    w.write_char(' ')?;
                    write_offset(w, *offset as i64)?;
                }
                Ok(())
            }
            D::AtomicRmw { flags, op, .. } => {
                write!(w, " {op}")?;
                write_flags(w, *flags)
            }
            D::AtomicCas { flags, .. } => write_flags(w, *flags),
            D::Call { func, .. } => write!(w, " {func}"),
            D::CallIndirect { sig, .. } => write!(w, " {sig}"),
            D::Trap { code, .. } => write!(w, " {code}"),
            _ => Ok(()),
        }
    }
}

/// The text form's, without the output type (`iconst` prints its stored bits).
impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, None)
    }
}

impl Operation for Op {
    type Type = Ty;
    type Lambda = vliw_ir::Function;
    type Loc = SourceLoc;

    fn kind(ty: Ty) -> Kind {
        match ty {
            Ty::Val(_) => Kind::Value,
            Ty::Mem | Ty::Io => Kind::State,
            Ty::Ctl(n) => Kind::Control(n),
        }
    }

    fn control(n: u32) -> Ty {
        Ty::Ctl(n)
    }
}

/// The compiler's RVSDG. A λ carries its function's shell: name, signature, linkage,
/// stack slots, callee, signature and symbol tables, file names (no blocks); its body's
/// arguments are the parameters then the memory and I/O states, its results the
/// returned values then the two states.
pub type Rvsdg = graph::Graph<Op>;

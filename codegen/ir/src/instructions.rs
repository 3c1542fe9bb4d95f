//! Opcodes, condition codes, memory flags and the per-format instruction data.

use crate::entities::{Block, FuncRef, GlobalRef, SigRef, StackSlot, Value};
use core::fmt;

/// The shape of an instruction's operands: which `InstructionData` variant it uses.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum InstructionFormat {
    Nullary,
    UnaryImm,
    Unary,
    Binary,
    Ternary,
    IntCompare,
    FloatCompare,
    SymbolAddr,
    StackAddr,
    Load,
    Store,
    AtomicRmw,
    AtomicCas,
    Call,
    CallIndirect,
    Invoke,
    InvokeIndirect,
    Jump,
    Brif,
    Switch,
    Return,
    Trap,
}

macro_rules! opcodes {
    ($($(#[$doc:meta])* $name:ident = $text:literal : $fmt:ident,)*) => {
        /// An instruction's operation. `docs/ir.md` gives the semantics and typing of each.
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub enum Opcode {
            $($(#[$doc])* $name,)*
        }

        impl Opcode {
            /// Every opcode.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$name,)*];

            /// The text name (`iadd`, `sadd_overflow`).
            pub fn name(self) -> &'static str {
                match self { $(Opcode::$name => $text,)* }
            }

            /// The operand format.
            pub fn format(self) -> InstructionFormat {
                match self { $(Opcode::$name => InstructionFormat::$fmt,)* }
            }
        }
    };
}

opcodes! {
    // constants and addresses
    /// `iconst.T imm`: integer (or `ptr`) constant.
    Iconst = "iconst": UnaryImm,
    /// `f32const x`: bit pattern of an `f32`.
    F32const = "f32const": UnaryImm,
    /// `f64const x`: bit pattern of an `f64`.
    F64const = "f64const": UnaryImm,
    /// `symbol_addr gv+off`: address of a symbol plus a byte offset.
    SymbolAddr = "symbol_addr": SymbolAddr,
    /// `tls_addr gv+off`: address of this thread's copy of a thread-local data object
    /// plus a byte offset.
    TlsAddr = "tls_addr": SymbolAddr,
    /// `stack_addr ss+off`: address of a stack slot plus a byte offset.
    StackAddr = "stack_addr": StackAddr,
    /// `undef.T`: an arbitrary value (poison placeholder).
    Undef = "undef": Nullary,
    // integer arithmetic
    Iadd = "iadd": Binary,
    Isub = "isub": Binary,
    Imul = "imul": Binary,
    Udiv = "udiv": Binary,
    Sdiv = "sdiv": Binary,
    Urem = "urem": Binary,
    Srem = "srem": Binary,
    Umulhi = "umulhi": Binary,
    Smulhi = "smulhi": Binary,
    Band = "band": Binary,
    Bor = "bor": Binary,
    Bxor = "bxor": Binary,
    Ishl = "ishl": Binary,
    Ushr = "ushr": Binary,
    Sshr = "sshr": Binary,
    Rotl = "rotl": Binary,
    Rotr = "rotr": Binary,
    Ineg = "ineg": Unary,
    Bnot = "bnot": Unary,
    Clz = "clz": Unary,
    Ctz = "ctz": Unary,
    Popcnt = "popcnt": Unary,
    Bswap = "bswap": Unary,
    Bitrev = "bitrev": Unary,
    Smin = "smin": Binary,
    Smax = "smax": Binary,
    Umin = "umin": Binary,
    Umax = "umax": Binary,
    Iabs = "iabs": Unary,
    // overflow: two results (value, i1)
    UaddOverflow = "uadd_overflow": Binary,
    SaddOverflow = "sadd_overflow": Binary,
    UsubOverflow = "usub_overflow": Binary,
    SsubOverflow = "ssub_overflow": Binary,
    UmulOverflow = "umul_overflow": Binary,
    SmulOverflow = "smul_overflow": Binary,
    // comparisons
    Icmp = "icmp": IntCompare,
    Fcmp = "fcmp": FloatCompare,
    /// `select c, a, b`: `a` if `c` else `b`.
    Select = "select": Ternary,
    // pointers
    /// `ptradd p, off`: `p + off` (`off` is `i64`, wrapping).
    Ptradd = "ptradd": Binary,
    // conversions
    Uextend = "uextend": Unary,
    Sextend = "sextend": Unary,
    Ireduce = "ireduce": Unary,
    Fpromote = "fpromote": Unary,
    Fdemote = "fdemote": Unary,
    FcvtToUintSat = "fcvt_to_uint_sat": Unary,
    FcvtToSintSat = "fcvt_to_sint_sat": Unary,
    FcvtFromUint = "fcvt_from_uint": Unary,
    FcvtFromSint = "fcvt_from_sint": Unary,
    /// `bitcast.T x`: same bits, other type (int/float/ptr of the same size).
    Bitcast = "bitcast": Unary,
    // floating point
    Fadd = "fadd": Binary,
    Fsub = "fsub": Binary,
    Fmul = "fmul": Binary,
    Fdiv = "fdiv": Binary,
    Frem = "frem": Binary,
    Fneg = "fneg": Unary,
    Fabs = "fabs": Unary,
    Fcopysign = "fcopysign": Binary,
    Sqrt = "sqrt": Unary,
    /// `fma a, b, c`: `a * b + c` with one rounding.
    Fma = "fma": Ternary,
    Fmin = "fmin": Binary,
    Fmax = "fmax": Binary,
    Floor = "floor": Unary,
    Ceil = "ceil": Unary,
    Trunc = "trunc": Unary,
    /// Round to nearest, ties to even.
    Nearest = "nearest": Unary,
    /// Round to nearest, ties away from zero.
    Round = "round": Unary,
    // memory
    Load = "load": Load,
    Store = "store": Store,
    /// `memcpy dst, src, len`.
    Memcpy = "memcpy": Ternary,
    /// `memmove dst, src, len`.
    Memmove = "memmove": Ternary,
    /// `memset dst, byte, len`.
    Memset = "memset": Ternary,
    AtomicLoad = "atomic_load": Load,
    AtomicStore = "atomic_store": Store,
    AtomicRmw = "atomic_rmw": AtomicRmw,
    AtomicCas = "atomic_cas": AtomicCas,
    Fence = "fence": Nullary,
    // calls
    Call = "call": Call,
    CallIndirect = "call_indirect": CallIndirect,
    /// `landing_pad`: the first instruction of a block that `invoke`s unwind to; its
    /// results are the exception (a pointer) and its selector (`i32`).
    LandingPad = "landing_pad": Nullary,
    /// `catch_landing_pad`: a landing pad that catches every exception (`catch_unwind`'s:
    /// the search phase of unwinding stops at it), where `landing_pad` is a cleanup
    /// (run while unwinding, which the search phase passes by).
    CatchLandingPad = "catch_landing_pad": Nullary,
    /// `r..., unwound, e, s = try_call fnN(args)`: an invoke's call with its unwind
    /// edge made values, for the RVSDG (docs/rvsdg.md, "Unwinding"): when the callee
    /// returns, its results and `unwound` = 0; when it unwinds, `unwound` = 1 and the
    /// exception and selector a landing pad would get (the results undefined). A
    /// cleanup: the search phase of unwinding passes it by.
    TryCall = "try_call": Call,
    /// `try_call` through a function pointer.
    TryCallIndirect = "try_call_indirect": CallIndirect,
    /// `try_call` whose landing pad catches (`catch_landing_pad`): the search phase
    /// stops at it.
    CatchCall = "catch_call": Call,
    /// `catch_call` through a function pointer.
    CatchCallIndirect = "catch_call_indirect": CallIndirect,
    // terminators
    Jump = "jump": Jump,
    Brif = "brif": Brif,
    Switch = "switch": Switch,
    Return = "return": Return,
    Unreachable = "unreachable": Nullary,
    Trap = "trap": Trap,
    /// `invoke fnN(args), blockN, blockM`: a call that ends its block. A return
    /// continues in the first block (its only predecessor: the call's results are
    /// defined there), an unwinding callee in the second (a landing pad).
    Invoke = "invoke": Invoke,
    /// `invoke_indirect sigN, callee(args), blockN, blockM`.
    InvokeIndirect = "invoke_indirect": InvokeIndirect,
    /// `resume exn`: continues unwinding with a landing pad's exception.
    Resume = "resume": Unary,
}

impl Opcode {
    /// Look an opcode up by its text name.
    pub fn from_name(s: &str) -> Option<Opcode> {
        Opcode::ALL.iter().copied().find(|o| o.name() == s)
    }

    /// Ends a block: `jump brif switch return unreachable trap invoke invoke_indirect
    /// resume`.
    pub fn is_terminator(self) -> bool {
        matches!(
            self,
            Opcode::Jump
                | Opcode::Brif
                | Opcode::Switch
                | Opcode::Return
                | Opcode::Unreachable
                | Opcode::Trap
                | Opcode::Invoke
                | Opcode::InvokeIndirect
                | Opcode::Resume
        )
    }

    /// `invoke` or `invoke_indirect`: a call with a normal and an unwind successor.
    pub fn is_invoke(self) -> bool {
        matches!(self, Opcode::Invoke | Opcode::InvokeIndirect)
    }

    /// `landing_pad` or `catch_landing_pad`: the first instruction of a block that
    /// unwind edges enter.
    pub fn is_landing_pad(self) -> bool {
        matches!(self, Opcode::LandingPad | Opcode::CatchLandingPad)
    }

    /// Transfers control to blocks of the function: `jump brif switch`.
    pub fn is_branch(self) -> bool {
        matches!(self, Opcode::Jump | Opcode::Brif | Opcode::Switch)
    }

    /// `call`, `call_indirect`, `invoke`, `invoke_indirect` or a `try_call`.
    pub fn is_call(self) -> bool {
        matches!(
            self,
            Opcode::Call | Opcode::CallIndirect | Opcode::Invoke | Opcode::InvokeIndirect
        ) || self.is_try_call()
    }

    /// `try_call`, `try_call_indirect`, `catch_call` or `catch_call_indirect`: a call
    /// whose unwinding is three more results.
    pub fn is_try_call(self) -> bool {
        matches!(
            self,
            Opcode::TryCall
                | Opcode::TryCallIndirect
                | Opcode::CatchCall
                | Opcode::CatchCallIndirect
        )
    }

    /// `catch_call` or `catch_call_indirect`.
    pub fn try_call_catches(self) -> bool {
        matches!(self, Opcode::CatchCall | Opcode::CatchCallIndirect)
    }

    /// Whether the text form writes the result type after the opcode (`iconst.i32`,
    /// `load.i64`): the opcodes whose result type does not follow from their operands.
    pub fn has_type_suffix(self) -> bool {
        matches!(
            self,
            Opcode::Iconst
                | Opcode::Undef
                | Opcode::Uextend
                | Opcode::Sextend
                | Opcode::Ireduce
                | Opcode::FcvtToUintSat
                | Opcode::FcvtToSintSat
                | Opcode::FcvtFromUint
                | Opcode::FcvtFromSint
                | Opcode::Bitcast
                | Opcode::Load
                | Opcode::AtomicLoad
        )
    }

    /// Reads memory.
    pub fn can_load(self) -> bool {
        matches!(
            self,
            Opcode::Load
                | Opcode::AtomicLoad
                | Opcode::AtomicRmw
                | Opcode::AtomicCas
                | Opcode::Memcpy
                | Opcode::Memmove
                | Opcode::Call
                | Opcode::CallIndirect
                | Opcode::Invoke
                | Opcode::InvokeIndirect
                | Opcode::TryCall
                | Opcode::TryCallIndirect
                | Opcode::CatchCall
                | Opcode::CatchCallIndirect
        )
    }

    /// Writes memory.
    pub fn can_store(self) -> bool {
        matches!(
            self,
            Opcode::Store
                | Opcode::AtomicStore
                | Opcode::AtomicRmw
                | Opcode::AtomicCas
                | Opcode::Memcpy
                | Opcode::Memmove
                | Opcode::Memset
                | Opcode::Call
                | Opcode::CallIndirect
                | Opcode::Invoke
                | Opcode::InvokeIndirect
                | Opcode::TryCall
                | Opcode::TryCallIndirect
                | Opcode::CatchCall
                | Opcode::CatchCallIndirect
        )
    }

    /// Has an effect besides its results (memory, control, trap, fence, call), so it
    /// cannot be removed when its results are unused. Division can trap, so it counts.
    pub fn has_side_effects(self) -> bool {
        self.is_terminator()
            || self.can_store()
            || matches!(
                self,
                Opcode::Load
                    | Opcode::AtomicLoad
                    | Opcode::Fence
                    | Opcode::LandingPad
                    | Opcode::CatchLandingPad
                    | Opcode::Udiv
                    | Opcode::Sdiv
                    | Opcode::Urem
                    | Opcode::Srem
            )
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Integer comparison conditions of `icmp`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum IntCC {
    Eq,
    Ne,
    Slt,
    Sle,
    Sgt,
    Sge,
    Ult,
    Ule,
    Ugt,
    Uge,
}

impl IntCC {
    pub const ALL: [IntCC; 10] = [
        IntCC::Eq,
        IntCC::Ne,
        IntCC::Slt,
        IntCC::Sle,
        IntCC::Sgt,
        IntCC::Sge,
        IntCC::Ult,
        IntCC::Ule,
        IntCC::Ugt,
        IntCC::Uge,
    ];

    pub fn name(self) -> &'static str {
        match self {
            IntCC::Eq => "eq",
            IntCC::Ne => "ne",
            IntCC::Slt => "slt",
            IntCC::Sle => "sle",
            IntCC::Sgt => "sgt",
            IntCC::Sge => "sge",
            IntCC::Ult => "ult",
            IntCC::Ule => "ule",
            IntCC::Ugt => "ugt",
            IntCC::Uge => "uge",
        }
    }

    pub fn from_name(s: &str) -> Option<IntCC> {
        IntCC::ALL.iter().copied().find(|c| c.name() == s)
    }

    /// The condition that is true exactly when this one is false.
    pub fn inverse(self) -> IntCC {
        match self {
            IntCC::Eq => IntCC::Ne,
            IntCC::Ne => IntCC::Eq,
            IntCC::Slt => IntCC::Sge,
            IntCC::Sge => IntCC::Slt,
            IntCC::Sgt => IntCC::Sle,
            IntCC::Sle => IntCC::Sgt,
            IntCC::Ult => IntCC::Uge,
            IntCC::Uge => IntCC::Ult,
            IntCC::Ugt => IntCC::Ule,
            IntCC::Ule => IntCC::Ugt,
        }
    }

    /// The condition with the operands swapped (`a < b` is `b > a`).
    pub fn swap_args(self) -> IntCC {
        match self {
            IntCC::Eq | IntCC::Ne => self,
            IntCC::Slt => IntCC::Sgt,
            IntCC::Sgt => IntCC::Slt,
            IntCC::Sle => IntCC::Sge,
            IntCC::Sge => IntCC::Sle,
            IntCC::Ult => IntCC::Ugt,
            IntCC::Ugt => IntCC::Ult,
            IntCC::Ule => IntCC::Uge,
            IntCC::Uge => IntCC::Ule,
        }
    }
}

impl fmt::Display for IntCC {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Float comparison conditions of `fcmp` (LLVM's set). `o*` are false when an operand is
/// NaN, `u*` are true when an operand is NaN; `ord`/`uno` test for NaN only.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FloatCC {
    Oeq,
    One,
    Olt,
    Ole,
    Ogt,
    Oge,
    Ord,
    Uno,
    Ueq,
    Une,
    Ult,
    Ule,
    Ugt,
    Uge,
}

impl FloatCC {
    pub const ALL: [FloatCC; 14] = [
        FloatCC::Oeq,
        FloatCC::One,
        FloatCC::Olt,
        FloatCC::Ole,
        FloatCC::Ogt,
        FloatCC::Oge,
        FloatCC::Ord,
        FloatCC::Uno,
        FloatCC::Ueq,
        FloatCC::Une,
        FloatCC::Ult,
        FloatCC::Ule,
        FloatCC::Ugt,
        FloatCC::Uge,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FloatCC::Oeq => "oeq",
            FloatCC::One => "one",
            FloatCC::Olt => "olt",
            FloatCC::Ole => "ole",
            FloatCC::Ogt => "ogt",
            FloatCC::Oge => "oge",
            FloatCC::Ord => "ord",
            FloatCC::Uno => "uno",
            FloatCC::Ueq => "ueq",
            FloatCC::Une => "une",
            FloatCC::Ult => "ult",
            FloatCC::Ule => "ule",
            FloatCC::Ugt => "ugt",
            FloatCC::Uge => "uge",
        }
    }

    pub fn from_name(s: &str) -> Option<FloatCC> {
        FloatCC::ALL.iter().copied().find(|c| c.name() == s)
    }

    /// The condition that is true exactly when this one is false (NaN included).
    pub fn inverse(self) -> FloatCC {
        match self {
            FloatCC::Oeq => FloatCC::Une,
            FloatCC::Une => FloatCC::Oeq,
            FloatCC::One => FloatCC::Ueq,
            FloatCC::Ueq => FloatCC::One,
            FloatCC::Olt => FloatCC::Uge,
            FloatCC::Uge => FloatCC::Olt,
            FloatCC::Ole => FloatCC::Ugt,
            FloatCC::Ugt => FloatCC::Ole,
            FloatCC::Ogt => FloatCC::Ule,
            FloatCC::Ule => FloatCC::Ogt,
            FloatCC::Oge => FloatCC::Ult,
            FloatCC::Ult => FloatCC::Oge,
            FloatCC::Ord => FloatCC::Uno,
            FloatCC::Uno => FloatCC::Ord,
        }
    }
}

impl fmt::Display for FloatCC {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The operation of `atomic_rmw`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AtomicRmwOp {
    Add,
    Sub,
    And,
    Or,
    Xor,
    Nand,
    Xchg,
    Umin,
    Umax,
    Smin,
    Smax,
}

impl AtomicRmwOp {
    pub const ALL: [AtomicRmwOp; 11] = [
        AtomicRmwOp::Add,
        AtomicRmwOp::Sub,
        AtomicRmwOp::And,
        AtomicRmwOp::Or,
        AtomicRmwOp::Xor,
        AtomicRmwOp::Nand,
        AtomicRmwOp::Xchg,
        AtomicRmwOp::Umin,
        AtomicRmwOp::Umax,
        AtomicRmwOp::Smin,
        AtomicRmwOp::Smax,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AtomicRmwOp::Add => "add",
            AtomicRmwOp::Sub => "sub",
            AtomicRmwOp::And => "and",
            AtomicRmwOp::Or => "or",
            AtomicRmwOp::Xor => "xor",
            AtomicRmwOp::Nand => "nand",
            AtomicRmwOp::Xchg => "xchg",
            AtomicRmwOp::Umin => "umin",
            AtomicRmwOp::Umax => "umax",
            AtomicRmwOp::Smin => "smin",
            AtomicRmwOp::Smax => "smax",
        }
    }

    pub fn from_name(s: &str) -> Option<AtomicRmwOp> {
        AtomicRmwOp::ALL.iter().copied().find(|c| c.name() == s)
    }
}

impl fmt::Display for AtomicRmwOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Flags of a memory access: volatile, speculative, the alignment the access may
/// assume (bytes, a power of two; 1 = none), and its alias scope. Text: `volatile`,
/// `speculative`, `align N` (printed when not 1), `scope G C`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct MemFlags {
    pub volatile: bool,
    /// A load that never traps: where an ordinary load would (a null, misaligned or
    /// unmapped address) it gives 0 (the interpreter's memory ends at its objects'
    /// ends, the machine's at its pages': past an object's end the machine gives the
    /// bytes there). A pass that runs a load on paths where the original did not (the
    /// lanes of `rvsdg-jam`, the arms of a flattened γ) marks it, and reads its value
    /// only where the original loaded; the machine's `lds`. Only on plain loads (the
    /// verifier checks).
    pub speculative: bool,
    pub align: u32,
    pub scope: Option<AliasScope>,
}

/// A claim that accesses do not overlap, made by a pass that proved it (loop
/// versioning checks it at run time before the loop): two accesses of the same
/// `group` with different `class`es never touch a common byte during one execution
/// of the loop the group was made for. Accesses of different groups, or without a
/// scope, claim nothing. Schedulers that reorder within a block or overlap the
/// iterations of one loop execution may use it; nothing may move such an access out
/// of its loop.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct AliasScope {
    pub group: u32,
    pub class: u32,
}

impl AliasScope {
    /// The back end's accesses to its own frame's register save area and spill
    /// slots: no pointer to them is ever made, so only an access through the stack
    /// pointer can reach them (the schedulers order them against nothing else). No
    /// IR pass makes this group.
    pub const FRAME_PRIVATE: AliasScope = AliasScope {
        group: u32::MAX,
        class: 0,
    };

    /// Whether accesses with these scopes never touch a common byte.
    pub fn apart(a: Option<AliasScope>, b: Option<AliasScope>) -> bool {
        matches!((a, b), (Some(a), Some(b)) if a.group == b.group && a.class != b.class)
    }

    /// Whether `scope` marks a save or spill slot access ([`AliasScope::FRAME_PRIVATE`]).
    pub fn is_frame_private(scope: Option<AliasScope>) -> bool {
        scope == Some(AliasScope::FRAME_PRIVATE)
    }
}

impl MemFlags {
    /// Not volatile, alignment 1.
    pub const fn new() -> Self {
        MemFlags {
            volatile: false,
            speculative: false,
            align: 1,
            scope: None,
        }
    }

    /// Not volatile, the given alignment.
    pub const fn aligned(align: u32) -> Self {
        MemFlags {
            volatile: false,
            speculative: false,
            align,
            scope: None,
        }
    }

    pub const fn with_volatile(mut self, volatile: bool) -> Self {
        self.volatile = volatile;
        self
    }

    pub const fn with_speculative(mut self, speculative: bool) -> Self {
        self.speculative = speculative;
        self
    }
}

impl Default for MemFlags {
    fn default() -> Self {
        MemFlags::new()
    }
}

/// A branch target with its arguments (which become the target's block parameters).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct BlockCall {
    pub block: Block,
    pub args: Vec<Value>,
}

impl BlockCall {
    pub fn new(block: Block, args: &[Value]) -> Self {
        BlockCall {
            block,
            args: args.to_vec(),
        }
    }
}

impl From<Block> for BlockCall {
    fn from(block: Block) -> Self {
        BlockCall {
            block,
            args: Vec::new(),
        }
    }
}

/// The targets of a `switch`: `dests[0]` is the default, `dests[i + 1]` is taken when the
/// switched value equals `values[i]`. Values are stored masked to the switched value's
/// width and are distinct.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct SwitchData {
    pub values: Vec<u128>,
    pub dests: Vec<BlockCall>,
}

impl SwitchData {
    /// A switch with only a default target.
    pub fn new(default: BlockCall) -> Self {
        SwitchData {
            values: Vec::new(),
            dests: vec![default],
        }
    }

    pub fn default_dest(&self) -> &BlockCall {
        &self.dests[0]
    }

    /// Add a case `value -> dest`.
    pub fn push_case(&mut self, value: u128, dest: BlockCall) {
        self.values.push(value);
        self.dests.push(dest);
    }

    /// The cases, `(value, target)`, in order.
    pub fn cases(&self) -> impl Iterator<Item = (u128, &BlockCall)> {
        self.values.iter().copied().zip(self.dests[1..].iter())
    }
}

/// An instruction: its opcode and operands. The opcode determines the variant (see
/// `Opcode::format`). Result values and their types live in the `DataFlowGraph`.
///
/// Operand order, where it is not obvious: `Store` is `[value, address]`; `AtomicRmw` is
/// `[address, value]`; `AtomicCas` is `[address, expected, replacement]`; `Ternary`
/// memory ops are `[dst, src_or_byte, len]`; `CallIndirect` has the callee address as
/// `args[0]`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum InstructionData {
    /// `undef`, `fence`, `unreachable`.
    Nullary {
        opcode: Opcode,
    },
    /// `iconst` (value masked to the type's width), `f32const`/`f64const` (bit pattern).
    UnaryImm {
        opcode: Opcode,
        imm: u128,
    },
    Unary {
        opcode: Opcode,
        arg: Value,
    },
    Binary {
        opcode: Opcode,
        args: [Value; 2],
    },
    /// `select`, `fma`, `memcpy`, `memmove`, `memset`.
    Ternary {
        opcode: Opcode,
        args: [Value; 3],
    },
    IntCompare {
        opcode: Opcode,
        cond: IntCC,
        args: [Value; 2],
    },
    FloatCompare {
        opcode: Opcode,
        cond: FloatCC,
        args: [Value; 2],
    },
    SymbolAddr {
        opcode: Opcode,
        global: GlobalRef,
        offset: i64,
    },
    StackAddr {
        opcode: Opcode,
        slot: StackSlot,
        offset: i64,
    },
    /// `load`, `atomic_load` (`atomic_load` has offset 0).
    Load {
        opcode: Opcode,
        flags: MemFlags,
        arg: Value,
        offset: i32,
    },
    /// `store`, `atomic_store`: `args = [value, address]`.
    Store {
        opcode: Opcode,
        flags: MemFlags,
        args: [Value; 2],
        offset: i32,
    },
    /// `args = [address, value]`.
    AtomicRmw {
        opcode: Opcode,
        flags: MemFlags,
        op: AtomicRmwOp,
        args: [Value; 2],
    },
    /// `args = [address, expected, replacement]`.
    AtomicCas {
        opcode: Opcode,
        flags: MemFlags,
        args: [Value; 3],
    },
    Call {
        opcode: Opcode,
        func: FuncRef,
        args: Vec<Value>,
    },
    /// `args[0]` is the callee's address, the rest are the call's arguments.
    CallIndirect {
        opcode: Opcode,
        sig: SigRef,
        args: Vec<Value>,
    },
    /// `blocks = [normal, unwind]`, both without arguments.
    Invoke {
        opcode: Opcode,
        func: FuncRef,
        args: Vec<Value>,
        blocks: [BlockCall; 2],
    },
    /// As `CallIndirect`, with `blocks = [normal, unwind]`.
    InvokeIndirect {
        opcode: Opcode,
        sig: SigRef,
        args: Vec<Value>,
        blocks: [BlockCall; 2],
    },
    Jump {
        opcode: Opcode,
        dest: BlockCall,
    },
    /// `blocks = [then, else]`.
    Brif {
        opcode: Opcode,
        arg: Value,
        blocks: [BlockCall; 2],
    },
    Switch {
        opcode: Opcode,
        arg: Value,
        table: Box<SwitchData>,
    },
    Return {
        opcode: Opcode,
        args: Vec<Value>,
    },
    /// `trap code`.
    Trap {
        opcode: Opcode,
        code: u16,
    },
}

impl InstructionData {
    pub fn opcode(&self) -> Opcode {
        use InstructionData::*;
        match *self {
            Nullary { opcode }
            | UnaryImm { opcode, .. }
            | Unary { opcode, .. }
            | Binary { opcode, .. }
            | Ternary { opcode, .. }
            | IntCompare { opcode, .. }
            | FloatCompare { opcode, .. }
            | SymbolAddr { opcode, .. }
            | StackAddr { opcode, .. }
            | Load { opcode, .. }
            | Store { opcode, .. }
            | AtomicRmw { opcode, .. }
            | AtomicCas { opcode, .. }
            | Call { opcode, .. }
            | CallIndirect { opcode, .. }
            | Invoke { opcode, .. }
            | InvokeIndirect { opcode, .. }
            | Jump { opcode, .. }
            | Brif { opcode, .. }
            | Switch { opcode, .. }
            | Return { opcode, .. }
            | Trap { opcode, .. } => opcode,
        }
    }

    /// The value operands, not counting branch arguments (see `branch_destinations`).
    pub fn arguments(&self) -> &[Value] {
        use InstructionData::*;
        match self {
            Nullary { .. }
            | UnaryImm { .. }
            | SymbolAddr { .. }
            | StackAddr { .. }
            | Jump { .. }
            | Trap { .. } => &[],
            Unary { arg, .. } | Load { arg, .. } | Brif { arg, .. } | Switch { arg, .. } => {
                core::slice::from_ref(arg)
            }
            Binary { args, .. }
            | IntCompare { args, .. }
            | FloatCompare { args, .. }
            | Store { args, .. }
            | AtomicRmw { args, .. } => args,
            Ternary { args, .. } | AtomicCas { args, .. } => args,
            Call { args, .. }
            | CallIndirect { args, .. }
            | Invoke { args, .. }
            | InvokeIndirect { args, .. }
            | Return { args, .. } => args,
        }
    }

    /// Mutable `arguments`.
    pub fn arguments_mut(&mut self) -> &mut [Value] {
        use InstructionData::*;
        match self {
            Nullary { .. }
            | UnaryImm { .. }
            | SymbolAddr { .. }
            | StackAddr { .. }
            | Jump { .. }
            | Trap { .. } => &mut [],
            Unary { arg, .. } | Load { arg, .. } | Brif { arg, .. } | Switch { arg, .. } => {
                core::slice::from_mut(arg)
            }
            Binary { args, .. }
            | IntCompare { args, .. }
            | FloatCompare { args, .. }
            | Store { args, .. }
            | AtomicRmw { args, .. } => args,
            Ternary { args, .. } | AtomicCas { args, .. } => args,
            Call { args, .. }
            | CallIndirect { args, .. }
            | Invoke { args, .. }
            | InvokeIndirect { args, .. }
            | Return { args, .. } => args,
        }
    }

    /// The branch targets (with their arguments) of `jump`, `brif`, `switch` and the
    /// `invoke`s (normal, then unwind); empty for other instructions. For `switch`, the
    /// default comes first.
    pub fn branch_destinations(&self) -> &[BlockCall] {
        match self {
            InstructionData::Jump { dest, .. } => core::slice::from_ref(dest),
            InstructionData::Brif { blocks, .. }
            | InstructionData::Invoke { blocks, .. }
            | InstructionData::InvokeIndirect { blocks, .. } => blocks,
            InstructionData::Switch { table, .. } => &table.dests,
            _ => &[],
        }
    }

    /// Mutable `branch_destinations`.
    pub fn branch_destinations_mut(&mut self) -> &mut [BlockCall] {
        match self {
            InstructionData::Jump { dest, .. } => core::slice::from_mut(dest),
            InstructionData::Brif { blocks, .. }
            | InstructionData::Invoke { blocks, .. }
            | InstructionData::InvokeIndirect { blocks, .. } => blocks,
            InstructionData::Switch { table, .. } => &mut table.dests,
            _ => &mut [],
        }
    }

    /// Every value the instruction reads: arguments, then branch arguments.
    pub fn all_values(&self) -> impl Iterator<Item = Value> + '_ {
        self.arguments().iter().copied().chain(
            self.branch_destinations()
                .iter()
                .flat_map(|d| d.args.iter().copied()),
        )
    }

    /// Apply `f` to every value the instruction reads (arguments and branch arguments).
    pub fn map_values(&mut self, mut f: impl FnMut(Value) -> Value) {
        for v in self.arguments_mut() {
            *v = f(*v);
        }
        for d in self.branch_destinations_mut() {
            for v in &mut d.args {
                *v = f(*v);
            }
        }
    }

    /// Memory flags of loads, stores and atomics.
    pub fn mem_flags(&self) -> Option<MemFlags> {
        match *self {
            InstructionData::Load { flags, .. }
            | InstructionData::Store { flags, .. }
            | InstructionData::AtomicRmw { flags, .. }
            | InstructionData::AtomicCas { flags, .. } => Some(flags),
            _ => None,
        }
    }
}

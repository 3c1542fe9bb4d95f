//! The entities of the machine IR (blocks, operations, virtual registers, frame slots,
//! jump tables) and registers.

use core::fmt;
use cranelift_entity::entity_impl;
use vliw_isa::{Gpr, Pred};

/// A machine block.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MBlock(u32);
entity_impl!(MBlock, "block");

/// An operation: its identity in the function's arena ([`MachFunction::insts`]). An
/// id stays valid while passes reorder, rebuild or bundle the block that holds it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InstId(u32);
entity_impl!(InstId, "inst");

/// A virtual register.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VReg(u32);
entity_impl!(VReg, "v");

/// A slot of the stack frame: an IR stack slot, a spill slot, or a temporary.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FrameSlot(u32);
entity_impl!(FrameSlot, "fs");

/// A jump table (`switch` lowered to an indexed branch).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JumpTable(u32);
entity_impl!(JumpTable, "jt");

/// Register classes: the general registers (integers, pointers, floats) and the
/// one-bit predicates.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RegClass {
    Gpr,
    Pred,
}

/// A physical register.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum PReg {
    Gpr(Gpr),
    Pred(Pred),
}

impl PReg {
    pub fn class(self) -> RegClass {
        match self {
            PReg::Gpr(_) => RegClass::Gpr,
            PReg::Pred(_) => RegClass::Pred,
        }
    }

    /// `rN`.
    pub fn gpr(n: u8) -> PReg {
        PReg::Gpr(Gpr::new(n).expect("general register number"))
    }

    /// `pN`.
    pub fn pred(n: u8) -> PReg {
        PReg::Pred(Pred::new(n).expect("predicate number"))
    }
}

impl fmt::Display for PReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PReg::Gpr(r) => write!(f, "{r}"),
            PReg::Pred(p) => write!(f, "{p}"),
        }
    }
}

/// An operand register.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Reg {
    Virtual(VReg),
    Physical(PReg),
}

impl Reg {
    /// `r0`: reads as zero, writes are discarded.
    pub const ZERO: Reg = Reg::Physical(PReg::Gpr(Gpr::ZERO));
    /// `r1`: the stack pointer.
    pub const SP: Reg = Reg::Physical(PReg::Gpr(Gpr::SP));
    /// The thread pointer `tp` (r2): the start of this thread's TLS block.
    pub const TP: Reg = Reg::Physical(PReg::Gpr(Gpr::TP));
    /// `r63`: the link register.
    pub const LR: Reg = Reg::Physical(PReg::Gpr(Gpr::LR));
    /// `r62`: the frame pointer.
    pub const FP: Reg = Reg::Physical(PReg::Gpr(Gpr::FP));
    /// `p0`: reads as true, writes are discarded.
    pub const P0: Reg = Reg::Physical(PReg::Pred(Pred::TRUE));

    pub fn gpr(n: u8) -> Reg {
        Reg::Physical(PReg::gpr(n))
    }

    pub fn pred(n: u8) -> Reg {
        Reg::Physical(PReg::pred(n))
    }

    pub fn as_virtual(self) -> Option<VReg> {
        match self {
            Reg::Virtual(v) => Some(v),
            Reg::Physical(_) => None,
        }
    }

    pub fn as_physical(self) -> Option<PReg> {
        match self {
            Reg::Physical(p) => Some(p),
            Reg::Virtual(_) => None,
        }
    }
}

impl From<VReg> for Reg {
    fn from(v: VReg) -> Reg {
        Reg::Virtual(v)
    }
}

impl From<PReg> for Reg {
    fn from(p: PReg) -> Reg {
        Reg::Physical(p)
    }
}

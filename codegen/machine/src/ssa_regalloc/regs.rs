//! The registers the SSA allocator hands out, per class, as bit masks over register
//! numbers (bit n = `rN` or `pN`; 64 general registers and 16 predicates both fit a
//! `u64`).
//!
//! Not allocatable: `r0` (zero), `r1` (`sp`), `r2` (`tp`), `r62` (`fp`), `r63` (`lr`,
//! read by `ret`), `p0` (true), and the two temporaries: `r11`
//! ([`crate::frame::FRAME_SCRATCH`], also the temporary that breaks cycles of the
//! parallel copies placed after colouring) and `p1` (the same for predicates).

use crate::mir::{PReg, Reg, RegClass};
use vliw_isa::abi::{CALLEE_SAVED_GPRS, CALLEE_SAVED_PREDS};

pub type Mask = u64;

/// The general-register temporary of parallel copies (and of prologues).
pub const GPR_TEMP: u8 = crate::frame::FRAME_SCRATCH;
/// The predicate temporary of parallel copies.
pub const PRED_TEMP: u8 = 1;

const fn range(lo: u8, hi: u8) -> Mask {
    let mut m = 0;
    let mut i = lo;
    while i <= hi {
        m |= 1 << i;
        i += 1;
    }
    m
}

const GPRS: Mask = range(3, 61) & !(1 << GPR_TEMP);
const PREDS: Mask = range(2, 15);

/// The registers of `class` the allocator may assign.
pub fn allocatable(class: RegClass) -> Mask {
    match class {
        RegClass::Gpr => GPRS,
        RegClass::Pred => PREDS,
    }
}

/// The allocatable registers a call preserves.
pub fn callee_saved(class: RegClass) -> Mask {
    let m = match class {
        RegClass::Gpr => range(*CALLEE_SAVED_GPRS.start(), *CALLEE_SAVED_GPRS.end()),
        RegClass::Pred => range(*CALLEE_SAVED_PREDS.start(), *CALLEE_SAVED_PREDS.end()),
    };
    m & allocatable(class)
}

/// The order in which colours are tried when no hint applies: caller-saved registers
/// that carry no arguments first (they cost no save in the prologue and do not meet
/// the argument copies of calls), then the argument registers, then the callee-saved
/// ones.
pub fn preference(class: RegClass) -> [Mask; 3] {
    match class {
        RegClass::Gpr => {
            let args = range(3, 10);
            let callee = callee_saved(class);
            [GPRS & !args & !callee, GPRS & args, callee]
        }
        RegClass::Pred => {
            let callee = callee_saved(class);
            [PREDS & !callee, 0, callee]
        }
    }
}

/// The register number and class of a physical register.
pub fn number(p: PReg) -> (RegClass, u8) {
    match p {
        PReg::Gpr(g) => (RegClass::Gpr, g.num()),
        PReg::Pred(q) => (RegClass::Pred, q.num()),
    }
}

/// Register `n` of `class`.
pub fn preg(class: RegClass, n: u8) -> PReg {
    match class {
        RegClass::Gpr => PReg::gpr(n),
        RegClass::Pred => PReg::pred(n),
    }
}

/// The class index used by per-class arrays.
pub fn class_index(class: RegClass) -> usize {
    match class {
        RegClass::Gpr => 0,
        RegClass::Pred => 1,
    }
}

pub const CLASSES: [RegClass; 2] = [RegClass::Gpr, RegClass::Pred];

/// Adds a physical register to a per-class pair of masks if it is allocatable.
pub fn add_physical(masks: &mut [Mask; 2], r: Reg) {
    if let Reg::Physical(p) = r {
        let (class, n) = number(p);
        if allocatable(class) & (1 << n) != 0 {
            masks[class_index(class)] |= 1 << n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_registers_are_never_handed_out() {
        for n in [0, 1, 2, 11, 62, 63] {
            assert_eq!(allocatable(RegClass::Gpr) & (1 << n), 0, "r{n}");
        }
        for n in [0, 1] {
            assert_eq!(allocatable(RegClass::Pred) & (1 << n), 0, "p{n}");
        }
        assert_eq!(allocatable(RegClass::Gpr).count_ones(), 58);
        assert_eq!(callee_saved(RegClass::Gpr).count_ones(), 30);
        assert_eq!(callee_saved(RegClass::Pred).count_ones(), 4);
        for class in CLASSES {
            let p = preference(class);
            assert_eq!(p[0] | p[1] | p[2], allocatable(class));
            assert_eq!(p[0] & p[1] | p[0] & p[2] | p[1] & p[2], 0);
        }
    }
}

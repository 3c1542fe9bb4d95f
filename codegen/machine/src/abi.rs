//! The calling convention (`docs/isa.md` §6, details in `docs/machine.md`): where the
//! words of arguments and results travel.
//!
//! Every value is split into 64-bit words (`i128` is two words, low word first; every
//! other type one word, in its canonical form). The argument words, in order, go to
//! `r3`..`r10` and then to the stack; the result words to `r3`..`r10` and then to a
//! *return area* in memory. At the call, `sp` points at the return area (if any),
//! followed by the stack arguments:
//!
//! ```text
//! sp + 0                  return words 8, 9, ...     (8 × ret_area_words bytes)
//! sp + 8 × ret_area_words stack argument words 8, 9, ...
//! ```
//!
//! Variadic arguments travel like fixed ones. Because the return area comes first, a
//! callee always knows where its stack arguments start, variadic or not.

use vliw_ir::Type;
use vliw_isa::abi::{ARG_REGS, CALLEE_SAVED_GPRS, CALLEE_SAVED_PREDS};
use vliw_isa::{Gpr, Pred};

use crate::mir::PReg;

/// Argument words passed in registers.
pub const ARG_WORDS_IN_REGS: usize = 8;
/// Result words returned in registers (`r3`..`r10`).
pub const RET_WORDS_IN_REGS: usize = 8;

/// Where one 64-bit word of an argument or result travels.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Loc {
    Reg(Gpr),
    /// Byte offset from `sp` at the call (from the caller's view; the callee sees it at
    /// its entry `sp` plus the same offset).
    Stack(u64),
}

/// The locations of a call's argument and result words.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CallLayout {
    /// For each argument, the location of each of its words.
    pub args: Vec<Vec<Loc>>,
    /// For each result, the location of each of its words.
    pub rets: Vec<Vec<Loc>>,
    /// Words of the return area (results beyond the eighth word).
    pub ret_area_words: u64,
    /// Words of stack arguments (arguments beyond the eighth word).
    pub stack_arg_words: u64,
}

impl CallLayout {
    /// Words the caller reserves at `sp` for the call.
    pub fn outgoing_words(&self) -> u64 {
        self.ret_area_words + self.stack_arg_words
    }
}

/// Number of 64-bit words of a value of type `ty`.
pub fn words_of(ty: Type) -> usize {
    if ty == Type::I128 { 2 } else { 1 }
}

fn reg(n: u8) -> Gpr {
    Gpr::new(n).expect("register number")
}

/// The layout of a call with these argument and result types (variadic arguments
/// included in `args`).
pub fn call_layout(args: &[Type], rets: &[Type]) -> CallLayout {
    let ret_words: usize = rets.iter().map(|&t| words_of(t)).sum();
    let ret_area_words = ret_words.saturating_sub(RET_WORDS_IN_REGS) as u64;
    let mut k = 0usize;
    let mut ret_locs = Vec::with_capacity(rets.len());
    for &t in rets {
        let mut w = Vec::new();
        for _ in 0..words_of(t) {
            w.push(if k < RET_WORDS_IN_REGS {
                Loc::Reg(reg(ARG_REGS[0] + k as u8))
            } else {
                Loc::Stack(8 * (k - RET_WORDS_IN_REGS) as u64)
            });
            k += 1;
        }
        ret_locs.push(w);
    }
    let mut j = 0usize;
    let mut arg_locs = Vec::with_capacity(args.len());
    for &t in args {
        let mut w = Vec::new();
        for _ in 0..words_of(t) {
            w.push(if j < ARG_WORDS_IN_REGS {
                Loc::Reg(reg(ARG_REGS[j]))
            } else {
                Loc::Stack(8 * (ret_area_words + (j - ARG_WORDS_IN_REGS) as u64))
            });
            j += 1;
        }
        arg_locs.push(w);
    }
    CallLayout {
        args: arg_locs,
        rets: ret_locs,
        ret_area_words,
        stack_arg_words: j.saturating_sub(ARG_WORDS_IN_REGS) as u64,
    }
}

/// The registers a call may change: `r3`..`r31`, `lr`, `p1`..`p11`.
pub fn caller_saved() -> Vec<PReg> {
    let mut v: Vec<PReg> = (3..=31).map(PReg::gpr).collect();
    v.push(PReg::Gpr(Gpr::LR));
    v.extend((1..=11).map(PReg::pred));
    v
}

/// Whether a callee must preserve `r` (`r32`..`r62`, `p12`..`p15`).
pub fn is_callee_saved(r: PReg) -> bool {
    match r {
        PReg::Gpr(g) => CALLEE_SAVED_GPRS.contains(&g.num()),
        PReg::Pred(p) => CALLEE_SAVED_PREDS.contains(&p.num()),
    }
}

/// `p12`..`p15`.
pub fn callee_saved_preds() -> impl Iterator<Item = Pred> {
    CALLEE_SAVED_PREDS.map(|n| Pred::new(n).expect("predicate"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Type::*;

    fn r(n: u8) -> Loc {
        Loc::Reg(reg(n))
    }

    #[test]
    fn scalars_fill_r3_to_r10_then_the_stack() {
        let l = call_layout(&[I64; 10], &[I32]);
        let words: Vec<Loc> = l.args.iter().map(|w| w[0]).collect();
        assert_eq!(
            &words[..8],
            &[r(3), r(4), r(5), r(6), r(7), r(8), r(9), r(10)]
        );
        assert_eq!(&words[8..], &[Loc::Stack(0), Loc::Stack(8)]);
        assert_eq!(l.rets, vec![vec![r(3)]]);
        assert_eq!(
            (l.ret_area_words, l.stack_arg_words, l.outgoing_words()),
            (0, 2, 2)
        );
    }

    #[test]
    fn i128_takes_two_consecutive_words_and_may_straddle_the_stack() {
        let l = call_layout(&[I128, I8, F64, I128, I64, I64, I128], &[I128, I64]);
        assert_eq!(l.args[0], vec![r(3), r(4)]);
        assert_eq!(l.args[1], vec![r(5)]);
        assert_eq!(l.args[2], vec![r(6)]);
        assert_eq!(l.args[3], vec![r(7), r(8)]);
        assert_eq!(l.args[5], vec![r(10)]);
        assert_eq!(l.args[6], vec![Loc::Stack(0), Loc::Stack(8)]);
        assert_eq!(l.rets, vec![vec![r(3), r(4)], vec![r(5)]]);
        let l = call_layout(
            &[I64; 7].iter().copied().chain([I128]).collect::<Vec<_>>(),
            &[],
        );
        assert_eq!(
            l.args[7],
            vec![r(10), Loc::Stack(0)],
            "the low word in r10, the high word on the stack"
        );
    }

    #[test]
    fn results_beyond_eight_words_go_to_the_return_area_before_the_stack_arguments() {
        let rets = [I128, I128, I128, I128, I64, I1];
        let args = [I64; 9];
        let l = call_layout(&args, &rets);
        assert_eq!(l.rets[3], vec![r(9), r(10)]);
        assert_eq!(l.rets[4], vec![Loc::Stack(0)]);
        assert_eq!(l.rets[5], vec![Loc::Stack(8)]);
        assert_eq!(l.ret_area_words, 2);
        assert_eq!(
            l.args[8],
            vec![Loc::Stack(16)],
            "stack arguments follow the return area"
        );
        assert_eq!(l.outgoing_words(), 3);
    }

    #[test]
    fn caller_and_callee_saved_registers_partition_the_allocatable_ones() {
        let cs = caller_saved();
        assert!(
            cs.contains(&PReg::gpr(3))
                && cs.contains(&PReg::gpr(31))
                && cs.contains(&PReg::gpr(63))
        );
        assert!(
            !cs.contains(&PReg::gpr(32))
                && !cs.contains(&PReg::gpr(1))
                && !cs.contains(&PReg::gpr(2))
        );
        for n in 3..=63u8 {
            let p = PReg::gpr(n);
            assert!(
                cs.contains(&p) != is_callee_saved(p),
                "r{n} is exactly one of caller- or callee-saved"
            );
        }
        for n in 1..16u8 {
            let p = PReg::pred(n);
            assert!(cs.contains(&p) != is_callee_saved(p), "p{n}");
        }
        assert_eq!(
            callee_saved_preds().map(|p| p.num()).collect::<Vec<_>>(),
            [12, 13, 14, 15]
        );
    }
}

//! Call-frame information: where the canonical frame address (CFA, the `sp` at the
//! function's entry) is and where each saved register sits, from the bundle at which
//! the prologue changes them, for the unwinder (written as `.eh_frame` by
//! `crate::eh_frame`).
//!
//! The rows come from the bundles the encoder emits, not from the prologue as
//! `crate::frame` builds it: the bundler mixes the prologue into the entry block's
//! other operations. A row describes the state after a whole bundle (every operation
//! of a bundle reads the registers as they were before it) and starts at the
//! bundle's last syllable: an unwinder looks a frame up at its return address − 1,
//! which is inside the call's bundle, and the callee runs after all of that bundle,
//! a save of `lr` beside the call included; at every bundle start the rows of the
//! bundles before hold, as they should. Only
//! the entry block's unguarded prologue operations count: the stack-pointer
//! adjustment, the realignment through `fp`, and the first store of each saved
//! register to its save slot (no other store writes a save slot). Epilogues are not
//! described: after the prologue the rows hold to the end of the function, which is
//! right at every call, the only place a frame is unwound from (a guarded epilogue
//! may be followed by more of the body, so the state after it could not be told
//! anyway).

use vliw_isa::abi::dwarf;
use vliw_isa::{Gpr, Opcode};

use crate::frame::FRAME_SCRATCH;
use crate::mir::{FrameLayout, Imm, MInst, PReg, Reg};

/// What a row of the call-frame table changes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FrameRule {
    /// The CFA is `reg + offset`.
    Cfa { reg: Gpr, offset: u64 },
    /// The DWARF register `reg` is saved at `CFA + offset` (`offset` < 0).
    SavedAtCfa { reg: u16, offset: i64 },
    /// The DWARF register `reg` is saved at `sp + offset`: in a realigned frame `sp`
    /// is at no fixed distance from the CFA.
    SavedAtSp { reg: u16, offset: u64 },
}

/// A change that holds from code offset `offset` on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct FrameRow {
    pub offset: u64,
    pub rule: FrameRule,
}

/// Follows the prologue through the entry block's bundles.
pub struct PrologueTracker<'a> {
    frame: &'a FrameLayout,
    /// The CFA as `reg + offset`.
    cfa: (Gpr, u64),
    /// A register other than the CFA's that holds `CFA - k` (the realigning
    /// prologue's copy of the entry `sp`).
    copy: Option<(Gpr, u64)>,
    /// Which of `frame.saves` have been stored.
    saved: Vec<bool>,
    pub rows: Vec<FrameRow>,
    /// A prologue operation this tracker cannot describe.
    pub error: Option<String>,
}

fn gpr_of(r: Reg) -> Option<Gpr> {
    match r.as_physical()? {
        PReg::Gpr(g) => Some(g),
        PReg::Pred(_) => None,
    }
}

fn dwarf_of(r: PReg) -> u16 {
    match r {
        PReg::Gpr(g) => dwarf::gpr(g),
        PReg::Pred(p) => dwarf::pred(p),
    }
}

impl<'a> PrologueTracker<'a> {
    pub fn new(frame: &'a FrameLayout) -> PrologueTracker<'a> {
        PrologueTracker {
            frame,
            cfa: (Gpr::SP, 0),
            copy: None,
            saved: vec![false; frame.saves.len()],
            rows: Vec::new(),
            error: None,
        }
    }

    /// Records the effects of a bundle of the entry block, as rows from code offset
    /// `end` (its last syllable).
    pub fn bundle<'i>(&mut self, members: impl Iterator<Item = &'i MInst>, end: u64) {
        // every operation reads the state from before the bundle
        let (cfa, copy) = (self.cfa, self.copy);
        let mut new_cfa = cfa;
        let mut new_copy = copy;
        for mi in members {
            if !mi.guard.is_always() {
                continue;
            }
            let (Some(&d), Some(&s)) = (mi.defs.first(), mi.uses.first()) else {
                if mi.is(Opcode::StD) {
                    self.store(mi, cfa, end);
                }
                continue;
            };
            let (Some(d), Some(s)) = (gpr_of(d), gpr_of(s)) else {
                continue;
            };
            let imm = match mi.imm {
                Imm::Const(c) => Some(c),
                _ => None,
            };
            match mi.opcode() {
                // the frame's allocation (an epilogue's positive adjustment is not
                // described, see the module comment)
                Some(Opcode::AddI) if d == Gpr::SP && s == Gpr::SP => {
                    if let Some(c) = imm.filter(|&c| c < 0)
                        && cfa.0 == Gpr::SP
                    {
                        new_cfa = (Gpr::SP, cfa.1 + c.unsigned_abs());
                    }
                }
                Some(Opcode::AndI) if d == Gpr::SP && s == Gpr::SP => match copy {
                    Some((r, k)) if cfa.0 == Gpr::SP => new_cfa = (r, k),
                    _ => {
                        self.error = Some("`sp` realigned without a copy of the entry `sp`".into())
                    }
                },
                Some(Opcode::Mov) if s == Gpr::SP && d.num() == FRAME_SCRATCH => {
                    if cfa.0 == Gpr::SP && copy.is_none() {
                        new_copy = Some((d, cfa.1));
                    }
                }
                Some(Opcode::Mov) if d == Gpr::FP && Some(s) == copy.map(|c| c.0) => {
                    let k = copy.map_or(0, |c| c.1);
                    if cfa.0 == s {
                        new_cfa = (Gpr::FP, k);
                    }
                    new_copy = None;
                }
                _ => {}
            }
        }
        if new_cfa != cfa {
            self.rows.push(FrameRow {
                offset: end,
                rule: FrameRule::Cfa {
                    reg: new_cfa.0,
                    offset: new_cfa.1,
                },
            });
        }
        self.cfa = new_cfa;
        self.copy = new_copy;
    }

    /// `std [sp + off], r`: the save of a register (or, through the scratch
    /// register, of a predicate) when `off` is its save slot.
    fn store(&mut self, mi: &MInst, cfa: (Gpr, u64), end: u64) {
        let [base, value] = mi.uses[..] else {
            return;
        };
        let Imm::Const(off) = mi.imm else {
            return;
        };
        if base != Reg::SP || off < 0 {
            return;
        }
        let off = off as u64;
        let Some(value) = gpr_of(value) else {
            return;
        };
        for (i, &(r, slot)) in self.frame.saves.iter().enumerate() {
            let stored_here = match r {
                PReg::Gpr(g) => g == value,
                PReg::Pred(_) => value.num() == FRAME_SCRATCH,
            };
            if slot != off || !stored_here || self.saved[i] {
                continue;
            }
            self.saved[i] = true;
            let reg = dwarf_of(r);
            let rule = if cfa.0 == Gpr::SP {
                FrameRule::SavedAtCfa {
                    reg,
                    offset: off as i64 - cfa.1 as i64,
                }
            } else {
                FrameRule::SavedAtSp { reg, offset: off }
            };
            self.rows.push(FrameRow { offset: end, rule });
        }
    }

    /// The rows, or what could not be described; checks that every saved register
    /// was stored.
    pub fn finish(self) -> Result<Vec<FrameRow>, String> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if let Some(i) = self.saved.iter().position(|s| !s) {
            return Err(format!(
                "the save of {} is not in the entry block",
                self.frame.saves[i].0
            ));
        }
        Ok(self.rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{compute_layout, prologue};
    use crate::mir::{FrameSlotData, FrameSlotKind};
    use cranelift_entity::PrimaryMap;

    fn layout(slot_align: u32, saved: &[PReg]) -> FrameLayout {
        let mut slots = PrimaryMap::new();
        slots.push(FrameSlotData {
            size: 8,
            align: slot_align,
            kind: FrameSlotKind::Temp,
        });
        compute_layout(&slots, 0, saved)
    }

    /// The prologue one operation per bundle, bundle `i` ending at `8 * (i + 1)`.
    fn rows_one_per_bundle(frame: &FrameLayout) -> Vec<FrameRow> {
        let mut t = PrologueTracker::new(frame);
        for (i, mi) in prologue(frame).iter().enumerate() {
            t.bundle(std::iter::once(mi), 8 * (i as u64 + 1));
        }
        t.finish().unwrap()
    }

    #[test]
    fn plain_frame_moves_the_cfa_then_saves_relative_to_it() {
        let lr = PReg::Gpr(Gpr::LR);
        let f = layout(8, &[lr, PReg::gpr(40), PReg::pred(12)]);
        let rows = rows_one_per_bundle(&f);
        assert_eq!(
            rows[0],
            FrameRow {
                offset: 8,
                rule: FrameRule::Cfa {
                    reg: Gpr::SP,
                    offset: f.size
                }
            }
        );
        let saved: Vec<(u16, i64)> = rows[1..]
            .iter()
            .map(|r| match r.rule {
                FrameRule::SavedAtCfa { reg, offset } => (reg, offset),
                other => panic!("{other:?}"),
            })
            .collect();
        let expect: Vec<(u16, i64)> = f
            .saves
            .iter()
            .map(|&(r, o)| (dwarf_of(r), o as i64 - f.size as i64))
            .collect();
        assert_eq!(saved, expect);
        assert_eq!(saved[2].0, 76, "p12 is DWARF register 76");
        // the predicate's row starts after its store, not after the p2r
        assert_eq!(rows.last().unwrap().offset, 8 * prologue(&f).len() as u64);
    }

    #[test]
    fn operations_of_one_bundle_read_the_state_before_it() {
        // the adjustment and a save in one bundle (which the bundler never makes:
        // the store reads the new `sp`): the store addresses the old `sp`, so the
        // save is above the CFA
        let lr = PReg::Gpr(Gpr::LR);
        let f = layout(8, &[lr]);
        let p = prologue(&f);
        let mut t = PrologueTracker::new(&f);
        t.bundle(p.iter(), 8);
        let rows = t.finish().unwrap();
        let save = f.saves[0].1 as i64;
        assert_eq!(
            rows,
            vec![
                FrameRow {
                    offset: 8,
                    rule: FrameRule::SavedAtCfa {
                        reg: 63,
                        offset: save
                    }
                },
                FrameRow {
                    offset: 8,
                    rule: FrameRule::Cfa {
                        reg: Gpr::SP,
                        offset: f.size
                    }
                },
            ]
        );
    }

    #[test]
    fn realigned_frame_ends_with_the_cfa_in_fp() {
        let fp = PReg::Gpr(Gpr::FP);
        let f = layout(64, &[fp, PReg::gpr(33)]);
        assert!(f.realigned);
        let rows = rows_one_per_bundle(&f);
        let cfas: Vec<(Gpr, u64)> = rows
            .iter()
            .filter_map(|r| match r.rule {
                FrameRule::Cfa { reg, offset } => Some((reg, offset)),
                _ => None,
            })
            .collect();
        assert_eq!(
            cfas,
            vec![
                (Gpr::SP, f.size),
                (Gpr::new(FRAME_SCRATCH).unwrap(), 0),
                (Gpr::FP, 0)
            ]
        );
        let at_sp: Vec<(u16, u64)> = rows
            .iter()
            .filter_map(|r| match r.rule {
                FrameRule::SavedAtSp { reg, offset } => Some((reg, offset)),
                _ => None,
            })
            .collect();
        assert_eq!(at_sp, vec![(62, f.saves[0].1), (33, f.saves[1].1)]);
    }

    #[test]
    fn guarded_operations_and_other_stores_are_not_the_prologue() {
        let lr = PReg::Gpr(Gpr::LR);
        let f = layout(8, &[lr]);
        let mut t = PrologueTracker::new(&f);
        // a store of lr elsewhere than its slot, and a guarded adjustment
        let other = MInst::op(Opcode::StD, &[], &[Reg::SP, Reg::LR], Imm::Const(0));
        t.bundle(std::iter::once(&other), 8);
        let guarded = MInst::op(Opcode::AddI, &[Reg::SP], &[Reg::SP], Imm::Const(-16))
            .with_guard(crate::mir::MGuard::new(Reg::pred(3), false));
        t.bundle(std::iter::once(&guarded), 16);
        assert!(t.rows.is_empty());
        assert!(t.finish().unwrap_err().contains("r63"));
    }
}

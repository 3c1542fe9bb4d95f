//! Liveness at every program point, as the spiller and the colouring need it.
//!
//! Block live sets come from Boissinot's two-pass algorithm (`vliw_ssa::LiveSets`);
//! a backward walk over each block ([`Walker`]) then gives, per operation:
//!
//! - the *last uses* (kills) and *dead definitions*, which tell the colouring when a
//!   register becomes free;
//! - the *forbidden* physical registers of each virtual register: every allocatable
//!   physical register written or live while the virtual one is live (argument and
//!   result registers around calls, the caller-saved registers a call clobbers);
//! - the *register pressure* before and after each operation: virtual registers live
//!   against the allocatable registers not held by physical values at that point. A
//!   point where the pressure exceeds them is a *violation* the spiller removes.
//!
//! Physical registers may only be live inside one block (instruction selection puts
//! argument copies next to their call, the entry's parameter copies at the entry); a
//! function where one is live into a block other than the entry, or other than the
//! exception registers into a landing block (`MInst::unwind`), is reported as
//! unsupported. The values live into a landing block are live across the call whose
//! unwind edge enters it (the call is the block's last operation but for its result
//! copies, and the block's live-out set holds them), so the call's clobbers keep them
//! out of the exception registers and every other caller-saved one.

use cranelift_entity::{EntityRef, SecondaryMap};
use vliw_ssa::bitset::BitSet;
use vliw_ssa::{Cfg, DomTree, LiveSets, LoopForest};

use super::regs::{CLASSES, Mask, add_physical, allocatable, class_index};
use crate::mir::{MBlock, MInst, MachFunction, Reg, VReg};
use crate::ssa_view::{SsaView, block, cfg_of};

/// Facts of one block for the colouring, in forward order.
#[derive(Clone, Default, Debug)]
pub struct BlockFacts {
    /// `(index, v)`: operation `index` reads `v` for the last time in this block, and
    /// `v` is dead after it.
    pub kills: Vec<(u32, VReg)>,
    /// `(index, v)`: operation `index` defines `v`, which is never read.
    pub dead_defs: Vec<(u32, VReg)>,
    /// Parameters that are never read.
    pub dead_params: Vec<VReg>,
}

/// The analyses of one function (see the module documentation).
pub struct Analysis {
    pub cfg: Cfg,
    pub dom: DomTree,
    pub loops: LoopForest,
    pub live: LiveSets,
    pub blocks: SecondaryMap<MBlock, BlockFacts>,
    pub forbidden: SecondaryMap<VReg, Mask>,
    /// Blocks with a point where the pressure exceeds the registers.
    pub violations: Vec<MBlock>,
    /// Values a definition keeps (`MInst::keep`).
    pub kept: SecondaryMap<VReg, bool>,
}

/// The backward walk over one block: the live set after the operation last stepped
/// over, and the pressure it gives.
pub struct Walker {
    pub live: BitSet,
    /// Live virtual registers per class.
    pub count: [usize; 2],
    /// Live allocatable physical registers per class.
    pub phys: [Mask; 2],
}

/// Virtual registers an operation reads: guard, operands, `Psi` guards, block
/// arguments (each occurrence).
pub fn virtual_uses(inst: &MInst) -> impl Iterator<Item = VReg> + '_ {
    inst.all_uses().filter_map(Reg::as_virtual)
}

pub fn virtual_defs(inst: &MInst) -> impl Iterator<Item = VReg> + '_ {
    inst.defs.iter().filter_map(|r| r.as_virtual())
}

/// Allocatable physical registers an operation writes (implicit ones included).
pub fn physical_defs(inst: &MInst) -> [Mask; 2] {
    let mut m = [0; 2];
    for r in inst.all_defs() {
        add_physical(&mut m, r);
    }
    m
}

fn physical_uses(inst: &MInst) -> [Mask; 2] {
    let mut m = [0; 2];
    for r in inst.all_uses() {
        add_physical(&mut m, r);
    }
    m
}

/// How many registers a point lacks, per class (≤ 0: none).
pub type Excess = [i64; 2];

pub fn excess(count: [usize; 2], held: [Mask; 2]) -> Excess {
    let mut e = [0; 2];
    for class in CLASSES {
        let c = class_index(class);
        let avail = (allocatable(class) & !held[c]).count_ones() as i64;
        e[c] = count[c] as i64 - avail;
    }
    e
}

impl Walker {
    /// The state at the end of a block whose live-out set is `live_out`.
    pub fn at_end(mf: &MachFunction, live_out: &BitSet) -> Walker {
        let mut count = [0; 2];
        for v in live_out.iter() {
            count[class_index(mf.vregs[VReg::new(v)])] += 1;
        }
        Walker {
            live: live_out.clone(),
            count,
            phys: [0; 2],
        }
    }

    /// The point after `inst` (its definitions written): returns its excess, adds the
    /// physical registers live or written there to the forbidden sets of the virtual
    /// registers live or defined there, then removes `inst`'s definitions from the
    /// live set (`dead` gets those never read).
    pub fn step_defs(
        &mut self,
        mf: &MachFunction,
        inst: &MInst,
        forbidden: Option<&mut SecondaryMap<VReg, Mask>>,
        mut dead: impl FnMut(VReg),
    ) -> Excess {
        let pdefs = physical_defs(inst);
        let held = [self.phys[0] | pdefs[0], self.phys[1] | pdefs[1]];
        let mut count = self.count;
        for d in virtual_defs(inst) {
            if !self.live.contains(d.index()) {
                count[class_index(mf.vregs[d])] += 1;
            }
        }
        let e = excess(count, held);
        if let Some(forbidden) = forbidden
            && held != [0, 0]
        {
            for v in self.live.iter().map(VReg::new).chain(virtual_defs(inst)) {
                forbidden[v] |= held[class_index(mf.vregs[v])];
            }
        }
        for d in virtual_defs(inst) {
            if self.live.remove(d.index()) {
                self.count[class_index(mf.vregs[d])] -= 1;
            } else {
                dead(d);
            }
        }
        self.phys = [self.phys[0] & !pdefs[0], self.phys[1] & !pdefs[1]];
        e
    }

    /// The point before `inst`: adds its uses to the live set (`kill` gets those not
    /// live after it: their last use) and returns the excess there.
    pub fn step_uses(
        &mut self,
        mf: &MachFunction,
        inst: &MInst,
        mut kill: impl FnMut(VReg),
    ) -> Excess {
        let puses = physical_uses(inst);
        self.phys = [self.phys[0] | puses[0], self.phys[1] | puses[1]];
        for u in virtual_uses(inst) {
            if self.live.insert(u.index()) {
                self.count[class_index(mf.vregs[u])] += 1;
                kill(u);
            }
        }
        excess(self.count, self.phys)
    }
}

impl Analysis {
    /// Analyses `mf` (machine SSA; every block of the layout reachable). An error
    /// names what the allocator does not support.
    pub fn compute(mf: &MachFunction) -> Result<Analysis, String> {
        let cfg = cfg_of(mf);
        let dom = DomTree::compute(&cfg);
        let loops = LoopForest::compute(&cfg);
        let live = LiveSets::compute(&cfg, &loops, &SsaView { mf });
        let mut blocks: SecondaryMap<MBlock, BlockFacts> = SecondaryMap::new();
        let mut forbidden: SecondaryMap<VReg, Mask> = SecondaryMap::with_capacity(mf.vregs.len());
        let mut violations = Vec::new();
        let mut keeps: Vec<(VReg, VReg)> = Vec::new();
        let entry = mf.layout.first().copied();
        let landing = mf.landing_blocks();
        // what a landing block receives: the exception registers
        let mut exception_regs = [0; 2];
        for r in vliw_isa::abi::EXCEPTION_REGS {
            add_physical(&mut exception_regs, Reg::gpr(r));
        }
        for &b in &mf.layout {
            let mut facts = BlockFacts::default();
            let mut walker = Walker::at_end(mf, live.live_out(block(b)));
            let mut violated = false;
            for (i, inst) in mf.block_insts(b).enumerate().rev() {
                let i = i as u32;
                let after = walker.step_defs(mf, inst, Some(&mut forbidden), |d| {
                    facts.dead_defs.push((i, d))
                });
                let before = walker.step_uses(mf, inst, |u| facts.kills.push((i, u)));
                violated |= after.iter().chain(&before).any(|&e| e > 0);
            }
            let received = if landing.contains(&b) {
                [
                    walker.phys[0] & !exception_regs[0],
                    walker.phys[1] & !exception_regs[1],
                ]
            } else {
                walker.phys
            };
            if Some(b) != entry && received != [0, 0] {
                return Err(format!(
                    "a physical register is live into {b} (only the entry may receive one, \
                     and a landing block the exception registers)"
                ));
            }
            for &p in &mf.blocks[b].params {
                if !walker.live.contains(p.index()) {
                    facts.dead_params.push(p);
                }
            }
            // the parameters are written at the entry while the live-in values are held
            let mut at_entry = [0usize; 2];
            for v in live.live_in(block(b)).iter() {
                at_entry[class_index(mf.vregs[VReg::new(v)])] += 1;
            }
            for &p in &mf.blocks[b].params {
                at_entry[class_index(mf.vregs[p])] += 1;
            }
            violated |= excess(at_entry, [0, 0]).iter().any(|&e| e > 0);
            facts.kills.reverse();
            facts.dead_defs.reverse();
            for (i, inst) in mf.block_insts(b).enumerate() {
                if let Some(Reg::Virtual(k)) = inst.keep {
                    // `kills` is in the order of the operations: those of `inst` are a
                    // run found by binary search (a block may hold thousands)
                    let from = facts.kills.partition_point(|&(j, _)| j < i as u32);
                    let run = &facts.kills[from..];
                    let to = run.partition_point(|&(j, _)| j == i as u32);
                    if !run[..to].iter().any(|&(_, u)| u == k) {
                        return Err(format!("{b}: `keeps {k}` where {k} stays live"));
                    }
                    if let Some(&Reg::Virtual(d)) = inst.defs.first() {
                        keeps.push((k, d));
                    }
                }
            }
            if violated {
                violations.push(b);
            }
            blocks[b] = facts;
        }
        share_forbidden_along_keeps(&keeps, &mut forbidden);
        let mut kept = SecondaryMap::new();
        for &(k, _) in &keeps {
            kept[k] = true;
        }
        Ok(Analysis {
            cfg,
            dom,
            loops,
            live,
            blocks,
            forbidden,
            violations,
            kept,
        })
    }

    /// Loop depth of a block.
    pub fn depth(&self, b: MBlock) -> u32 {
        self.loops.loop_depth(block(b))
    }
}

/// A definition that keeps a value takes that value's colour (`MInst::keep`), so the
/// two, and every chain of them, may only use colours that none of them forbids.
/// `pairs` are (kept value, keeping definition).
fn share_forbidden_along_keeps(pairs: &[(VReg, VReg)], forbidden: &mut SecondaryMap<VReg, Mask>) {
    let mut changed = !pairs.is_empty();
    while changed {
        changed = false;
        for &(k, d) in pairs {
            let m = forbidden[k] | forbidden[d];
            if m != forbidden[k] || m != forbidden[d] {
                forbidden[k] = m;
                forbidden[d] = m;
                changed = true;
            }
        }
    }
}

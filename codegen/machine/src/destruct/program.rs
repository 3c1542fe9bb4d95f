//! The program as SSA destruction sees it: the parallel-copy sites where copies go,
//! the φ-functions (block parameters and the arguments of the final `br` of each
//! predecessor), and where each virtual register is defined and used.
//!
//! **Copy sites.** Before anything else, every block with parameters gets an empty
//! `ParallelCopy` as its first operation (the *entry* site, where `a0 ← a'0` goes) and
//! every block whose final `br` passes arguments gets one just before that `br` (the
//! *exit* site, where `a'i ← ai` goes). Filling a site never moves an operation, so
//! program points stay valid while copies are added.
//!
//! **Where the exit copies are.** Only the final, unconditional `br` of a block carries
//! arguments (`docs/machine.md` §2); guarded `br`s to other blocks come before it. The
//! exit site sits after them and just before the final `br`, so its copies run on the
//! argument-passing edge only, and the final `br` itself reads no register: what is
//! live just after the site is the block's live-out set (which includes what the
//! guarded branches' targets need). A guarded `br` that reads a predicate reads it
//! *before* the site; the interference test sees its use at its own program point
//! (thesis Fig 5.1). Our ISA has no branch that defines a register, so the Fig 5.2
//! case (a branch with decrement feeding a φ) cannot arise: any definition of a
//! φ argument is an ordinary operation before the site.

use cranelift_entity::{EntityRef, SecondaryMap};
use vliw_ssa::{DomTree, UseSite};

use crate::mir::{Imm, MBlock, MInst, MOp, MachFunction, Reg, VReg};
use crate::ssa_view::block;

/// The position of the φ-uses of a block (its final `br`'s arguments): after every
/// operation.
pub const END: u32 = u32::MAX;

/// A program point: position 0 is the block's entry (its parameters are defined
/// there), position `i + 1` operation `i`, [`END`] the end of the block.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub struct Point {
    pub block: MBlock,
    pub pos: u32,
}

impl Point {
    pub fn new(block: MBlock, pos: u32) -> Point {
        Point { block, pos }
    }

    /// The point of operation `i` of `block`.
    pub fn inst(block: MBlock, i: usize) -> Point {
        Point::new(block, i as u32 + 1)
    }

    pub fn use_site(self) -> UseSite {
        if self.pos == END {
            UseSite::BlockEnd(block(self.block))
        } else {
            UseSite::Instruction(block(self.block))
        }
    }
}

/// Which blocks have an entry and an exit copy site.
#[derive(Clone, Debug, Default)]
pub struct CopySites {
    /// Operation 0 is the entry `ParallelCopy`.
    pub entry: SecondaryMap<MBlock, bool>,
    /// The operation before the final `br` is the exit `ParallelCopy`.
    pub exit: SecondaryMap<MBlock, bool>,
    /// Per block with parameters, the predecessors that pass arguments to it (in
    /// layout order).
    pub phi_preds: SecondaryMap<MBlock, Vec<MBlock>>,
    /// Blocks with parameters, in layout order.
    pub phi_blocks: Vec<MBlock>,
}

impl CopySites {
    /// The index of the exit site of `b` (`None` if it has none).
    pub fn exit_index(&self, mf: &MachFunction, b: MBlock) -> Option<usize> {
        self.exit[b].then(|| mf.block_len(b) - 2)
    }

    /// The index of the entry site of `b`.
    pub fn entry_index(&self, b: MBlock) -> Option<usize> {
        self.entry[b].then_some(0)
    }
}

/// The final `br` of `b` if it passes arguments: its target.
pub fn arg_target(mf: &MachFunction, b: MBlock) -> Option<MBlock> {
    let last = mf.last_inst(b)?;
    match last.imm {
        Imm::Block(t) if last.is(vliw_isa::Opcode::Br) && !last.args.is_empty() => Some(t),
        _ => None,
    }
}

/// Inserts the empty copy sites (see the module documentation).
pub fn insert_copy_sites(mf: &mut MachFunction) -> CopySites {
    let mut sites = CopySites::default();
    for &b in &mf.layout {
        if let Some(t) = arg_target(mf, b) {
            sites.phi_preds[t].push(b);
        }
    }
    for b in mf.layout.clone() {
        let loc = mf.last_inst(b).map(|i| i.loc).unwrap_or_default();
        let mut pc = MInst::new(MOp::ParallelCopy);
        pc.loc = loc;
        if arg_target(mf, b).is_some() {
            let at = mf.block_len(b) - 1;
            mf.insert_inst(b, at, pc.clone());
            sites.exit[b] = true;
        }
        if !mf.blocks[b].params.is_empty() {
            mf.insert_inst(b, 0, pc);
            sites.entry[b] = true;
            sites.phi_blocks.push(b);
        }
    }
    sites
}

/// Adds `dst ← src` to the parallel copy at operation `index` of `b`.
pub fn push_copy(mf: &mut MachFunction, b: MBlock, index: usize, dst: Reg, src: Reg) {
    let pc = mf.inst_at_mut(b, index);
    debug_assert_eq!(pc.op, MOp::ParallelCopy);
    pc.defs.push(dst);
    pc.uses.push(src);
}

/// Where each virtual register is defined and used (reachable blocks only).
#[derive(Clone, Debug, Default)]
pub struct Sites {
    pub def: Vec<Option<Point>>,
    pub uses: Vec<Vec<Point>>,
}

impl Sites {
    pub fn compute(mf: &MachFunction, dom: &DomTree) -> Sites {
        let mut s = Sites::default();
        s.grow(mf.vregs.len());
        for &b in &mf.layout {
            if !dom.is_reachable(block(b)) {
                continue;
            }
            let data = &mf.blocks[b];
            for &p in &data.params {
                s.def[p.index()] = Some(Point::new(b, 0));
            }
            for (i, inst) in mf.block_insts(b).enumerate() {
                let at = Point::inst(b, i);
                let reads = core::iter::once(inst.guard.pred)
                    .chain(inst.psi_guards.iter().map(|g| g.pred))
                    .chain(inst.uses.iter().copied());
                for u in reads.filter_map(Reg::as_virtual) {
                    s.uses[u.index()].push(at);
                }
                for a in inst.args.iter().filter_map(|r| r.as_virtual()) {
                    s.uses[a.index()].push(Point::new(b, END));
                }
                for d in inst.defs.iter().filter_map(|r| r.as_virtual()) {
                    s.def[d.index()] = Some(at);
                }
            }
        }
        s
    }

    /// Makes room for `n` virtual registers.
    pub fn grow(&mut self, n: usize) {
        if self.def.len() < n {
            self.def.resize(n, None);
            self.uses.resize(n, Vec::new());
        }
    }

    pub fn def(&self, v: VReg) -> Option<Point> {
        self.def.get(v.index()).copied().flatten()
    }

    pub fn uses(&self, v: VReg) -> &[Point] {
        self.uses.get(v.index()).map_or(&[], |u| u.as_slice())
    }

    pub fn remove_use(&mut self, v: VReg, at: Point) {
        let u = &mut self.uses[v.index()];
        if let Some(i) = u.iter().position(|&p| p == at) {
            u.swap_remove(i);
        }
    }

    /// Moves one use of `v` from `from` to `to`.
    pub fn move_use(&mut self, v: VReg, from: Point, to: Point) {
        let u = &mut self.uses[v.index()];
        let i = u.iter().position(|&p| p == from);
        debug_assert!(i.is_some(), "{v} is not used at {from:?}");
        if let Some(i) = i {
            u[i] = to;
        }
    }

    /// The φ-functions as Method I would leave them before any of its copies exists
    /// (`ssa-destruction=virtual`, thesis §5.3.3): every argument a reachable
    /// predecessor passes is *used at its exit copy site* (where `a'i ← ai` would read
    /// it) instead of at the end of the block, so it is not live after the site, and
    /// every parameter of a reachable block is *defined at its entry copy site* (by
    /// `a0 ← a'0`). Coalescing a virtual copy moves that point back
    /// ([`Sites::move_use`], [`Sites::set_def`]).
    pub fn move_phis_to_copy_sites(&mut self, mf: &MachFunction, sites: &CopySites, dom: &DomTree) {
        for &b in &mf.layout {
            if !dom.is_reachable(block(b)) {
                continue;
            }
            if let Some(entry) = sites.entry_index(b) {
                for &p in &mf.blocks[b].params {
                    self.set_def(p, Point::inst(b, entry));
                }
            }
            if let Some(exit) = sites.exit_index(mf, b) {
                let br = mf.last_inst(b).expect("br");
                for a in br.args.iter().filter_map(|r| r.as_virtual()) {
                    self.move_use(a, Point::new(b, END), Point::inst(b, exit));
                }
            }
        }
    }

    pub fn set_def(&mut self, v: VReg, at: Point) {
        self.def[v.index()] = Some(at);
    }

    pub fn add_use(&mut self, v: VReg, at: Point) {
        self.uses[v.index()].push(at);
    }
}

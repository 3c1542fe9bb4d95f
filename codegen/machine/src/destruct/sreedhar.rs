//! The baseline: Sreedhar, Ju, Gillies and Santhanam's Method III ("Translating out of
//! static single assignment form", SAS 1999), with their conservative notion of
//! interference (live ranges that intersect, values ignored).
//!
//! Every variable starts in a φ-congruence class of its own. For each φ
//! `x0 ← φ(x1:L1, ..., xn:Ln)` (a parameter of `L0` and the arguments of its
//! predecessors), for every pair of resources whose classes interfere (some members'
//! live ranges intersect):
//!
//! 1. `class(xi) ∩ LiveOut(Lj) ≠ ∅` and `class(xj) ∩ LiveOut(Li) = ∅`: copy `xi`;
//! 2. the converse: copy `xj`;
//! 3. both: copy both;
//! 4. neither: the pair is left *unresolved*; afterwards the resources with the most
//!    unresolved neighbours are copied first until every unresolved pair has a copied
//!    member.
//!
//! For the target `x0`, `LiveOut(L0)` reads `LiveIn(L0)` plus `L0`'s parameters. A
//! copied argument gets `xi' ← xi` at the exit copy site of `Li` (`xi'` joins
//! `LiveOut(Li)`; `xi` leaves it unless a successor still needs it), a copied target
//! `x0 ← x0'` at the entry site of `L0`. Then the classes of the φ's resources are
//! merged. Live sets come from `vliw_ssa::LiveSets` and are updated as the paper
//! says; the pairwise class test uses the liveness check (valid while copies are
//! added). Finally each class is one register ([`super::rename`]), and the copies of a
//! site are sequentialized as one parallel copy.

use cranelift_entity::EntityRef;
use vliw_ssa::bitset::BitSet;
use vliw_ssa::{LiveSets, LivenessChecker};

use super::classes::Classes;
use super::interference::Ctx;
use super::program::{CopySites, END, Point, Sites, insert_copy_sites, push_copy};
use super::{Stats, rename};
use crate::mir::{MBlock, MachFunction, Reg, VReg};
use crate::ssa_view::{SsaView, block, cfg_of};

struct State {
    ctx: Ctx,
    classes: Classes,
    live_in: Vec<BitSet>,
    live_out: Vec<BitSet>,
}

impl State {
    fn classes_intersect(&self, a: VReg, b: VReg) -> bool {
        let (ca, cb) = (self.classes.class(a), self.classes.class(b));
        self.classes.members(ca).iter().any(|&x| {
            self.classes
                .members(cb)
                .iter()
                .any(|&y| self.ctx.intersect(x, y))
        })
    }

    /// Whether a member of `v`'s class is in the set of resource block `at` (the
    /// φ's block for its target: live-in plus parameters; else live-out).
    fn class_meets(&self, mf: &MachFunction, v: VReg, at: MBlock, target: bool) -> bool {
        let c = self.classes.class(v);
        self.classes.members(c).iter().any(|&m| {
            if target {
                self.live_in[at.index()].contains(m.index()) || mf.blocks[at].params.contains(&m)
            } else {
                self.live_out[at.index()].contains(m.index())
            }
        })
    }
}

pub fn destruct(mf: &mut MachFunction) -> Stats {
    let copy_sites = insert_copy_sites(mf);
    let cfg = cfg_of(mf);
    let checker = LivenessChecker::new(&cfg);
    let live = LiveSets::compute(&cfg, checker.loops(), &SsaView { mf });
    let extra: usize = copy_sites
        .phi_blocks
        .iter()
        .map(|&b| mf.blocks[b].params.len() * (1 + copy_sites.phi_preds[b].len()))
        .sum();
    let universe = mf.vregs.len() + extra;
    let copy_set = |s: &BitSet| {
        let mut out = BitSet::new(universe);
        s.iter().for_each(|i| {
            out.insert(i);
        });
        out
    };
    let nblocks = mf.blocks.len();
    let live_in = (0..nblocks)
        .map(|b| copy_set(live.live_in(vliw_ssa::Block::new(b))))
        .collect();
    let live_out = (0..nblocks)
        .map(|b| copy_set(live.live_out(vliw_ssa::Block::new(b))))
        .collect();
    let sites = Sites::compute(mf, checker.dominators());
    let values = (0..universe).map(VReg::new).collect();
    let mut st = State {
        ctx: Ctx {
            checker,
            sites,
            values,
        },
        classes: Classes::new(mf.vregs.len()),
        live_in,
        live_out,
    };
    let mut inserted = 0;
    for &l0 in &copy_sites.phi_blocks {
        if !st.ctx.dom().is_reachable(block(l0)) {
            continue;
        }
        for k in 0..mf.blocks[l0].params.len() {
            inserted += resolve_phi(mf, &copy_sites, &mut st, l0, k, &cfg);
        }
    }
    let seq = rename::rename(mf, &st.classes, &st.ctx);
    Stats {
        inserted,
        remaining: seq.remaining,
        sequential: seq.copies,
        temporaries: seq.temporaries,
        ..Stats::default()
    }
}

/// Method III for the φ of parameter `k` of `l0`; returns the copies inserted.
fn resolve_phi(
    mf: &mut MachFunction,
    copy_sites: &CopySites,
    st: &mut State,
    l0: MBlock,
    k: usize,
    cfg: &vliw_ssa::Cfg,
) -> usize {
    // resource i: (register, block); 0 is the target
    let mut res: Vec<(Reg, MBlock)> = vec![(Reg::Virtual(mf.blocks[l0].params[k]), l0)];
    for &p in &copy_sites.phi_preds[l0] {
        if st.ctx.dom().is_reachable(block(p)) {
            res.push((mf.last_inst(p).expect("br").args[k], p));
        }
    }
    let n = res.len();
    let mut candidate = vec![false; n];
    let mut unresolved: Vec<(usize, usize)> = Vec::new();
    for i in 0..n {
        let Reg::Virtual(xi) = res[i].0 else {
            candidate[i] = true; // a physical argument is always copied
            continue;
        };
        for j in i + 1..n {
            let Reg::Virtual(xj) = res[j].0 else {
                continue;
            };
            if st.classes.class(xi) == st.classes.class(xj) || !st.classes_intersect(xi, xj) {
                continue;
            }
            let ci = st.class_meets(mf, xi, res[j].1, j == 0);
            let cj = st.class_meets(mf, xj, res[i].1, i == 0);
            match (ci, cj) {
                (true, false) => candidate[i] = true,
                (false, true) => candidate[j] = true,
                (true, true) => {
                    candidate[i] = true;
                    candidate[j] = true;
                }
                (false, false) => unresolved.push((i, j)),
            }
        }
    }
    loop {
        let pending: Vec<(usize, usize)> = unresolved
            .iter()
            .copied()
            .filter(|&(i, j)| !candidate[i] && !candidate[j])
            .collect();
        if pending.is_empty() {
            break;
        }
        let mut count = vec![0usize; n];
        for (i, j) in pending {
            count[i] += 1;
            count[j] += 1;
        }
        let best = (0..n)
            .max_by_key(|&i| (count[i], core::cmp::Reverse(i)))
            .expect("n > 0");
        candidate[best] = true;
    }
    let mut copies = 0;
    for i in 0..n {
        if !candidate[i] {
            continue;
        }
        copies += 1;
        let (x, b) = res[i];
        let class = mf.class_of(x);
        let xp = mf.new_vreg(class);
        st.ctx.sites.grow(mf.vregs.len());
        st.classes.grow(mf.vregs.len());
        if i == 0 {
            let x0 = x.as_virtual().expect("a parameter");
            let entry = copy_sites.entry_index(l0).expect("entry site");
            push_copy(mf, l0, entry, x, Reg::Virtual(xp));
            mf.blocks[l0].params[k] = xp;
            let at = Point::inst(l0, entry);
            st.ctx.sites.def[x0.index()] = Some(at);
            st.ctx.sites.def[xp.index()] = Some(Point::new(l0, 0));
            st.ctx.sites.uses[xp.index()].push(at);
        } else {
            let exit = copy_sites.exit_index(mf, b).expect("exit site");
            push_copy(mf, b, exit, Reg::Virtual(xp), x);
            mf.last_inst_mut(b).expect("br").args[k] = Reg::Virtual(xp);
            let at = Point::inst(b, exit);
            st.ctx.sites.def[xp.index()] = Some(at);
            st.ctx.sites.uses[xp.index()].push(Point::new(b, END));
            st.live_out[b.index()].insert(xp.index());
            if let Reg::Virtual(xi) = x {
                st.ctx.sites.remove_use(xi, Point::new(b, END));
                st.ctx.sites.uses[xi.index()].push(at);
                let still_passed = mf.last_inst(b).expect("br").args.contains(&x);
                let live_in_succ = cfg
                    .succs(block(b))
                    .iter()
                    .any(|s| st.live_in[s.index()].contains(xi.index()));
                if !still_passed && !live_in_succ {
                    st.live_out[b.index()].remove(xi.index());
                }
            }
        }
        res[i].0 = Reg::Virtual(xp);
    }
    // merge the classes of the φ's resources
    let first = res[0].0.as_virtual().expect("virtual after copying");
    for &(r, _) in &res[1..] {
        let v = r.as_virtual().expect("virtual after copying");
        let (ca, cb) = (st.classes.class(first), st.classes.class(v));
        st.classes.merge(&st.ctx, ca, cb);
    }
    copies
}

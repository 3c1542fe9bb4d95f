//! Sreedhar et al.'s Method I with parallel copies (thesis §5.2, Lemma 8): for each
//! φ `a0 ← φ(a1, ..., an)` of a block `B0` (a block parameter and the arguments its
//! predecessors pass), new variables `a'0, ..., a'n`; the copy `a'i ← ai` joins the
//! exit parallel copy of predecessor `Bi`, `a0 ← a'0` the entry parallel copy of
//! `B0`; the parameter becomes `a'0` and the arguments `a'i`. The `a'` variables have
//! tiny live ranges (from the exit site to the end of `Bi`, from the entry of `B0` to
//! the entry site) that never meet, so the program is in conventional SSA: each
//! φ-web `{a'0, ..., a'n}` can take one name. This solves the lost-copy problem (a0
//! live out of a predecessor through a critical edge) and the swap problem (φs that
//! read each other) without splitting edges.

use super::program::{CopySites, push_copy};
use crate::mir::{MachFunction, Reg, VReg};

/// Inserts the copies; returns the φ-webs (`a'0` then the `a'i`).
pub fn insert(mf: &mut MachFunction, sites: &CopySites) -> Vec<Vec<VReg>> {
    let mut webs = Vec::new();
    for &b in &sites.phi_blocks {
        for k in 0..mf.blocks[b].params.len() {
            let a0 = mf.blocks[b].params[k];
            let class = mf.vregs[a0];
            let a0p = mf.new_vreg(class);
            mf.blocks[b].params[k] = a0p;
            let entry = sites
                .entry_index(b)
                .expect("a block with parameters has an entry site");
            push_copy(mf, b, entry, Reg::Virtual(a0), Reg::Virtual(a0p));
            let mut web = vec![a0p];
            for &p in &sites.phi_preds[b] {
                let exit = sites.exit_index(mf, p).expect("an argument-passing block");
                let ai = mf.last_inst(p).expect("br").args[k];
                let aip = mf.new_vreg(class);
                push_copy(mf, p, exit, Reg::Virtual(aip), ai);
                mf.last_inst_mut(p).expect("br").args[k] = Reg::Virtual(aip);
                web.push(aip);
            }
            webs.push(web);
        }
    }
    webs
}

//! Load rotation for pointer chasing (machine SSA, in Psi-SSA after if-conversion:
//! `rotate-loads`).
//!
//! A loop that walks linked nodes loads, at the top of every trip, through the
//! pointer the previous trip chose: a tree lookup's `cur = if key < n.key { &n.left }
//! else { &n.right }`, then `n = *cur`. After if-conversion the choice is a ψ at the
//! end of the latch, and the load waits for it in the header: compare, ψ, load, and
//! only then the next compare, a chain of the whole load latency and more per node.
//! The pass moves that load across the back edge and through the ψ:
//!
//! - the header's first memory operation, `v = ld [p + off]` with `p` a parameter of
//!   the header, is removed, and `v` becomes a new parameter of the header;
//! - every predecessor passes the loaded value: before its final jump it loads
//!   `[a + off]` from the argument `a` it passes for `p` (the same load, executed on
//!   the same edge: the jump is the block's last operation and unguarded), or, when
//!   `a` is a ψ of its block, `ψ(g1: lds [a1 + off], g2: lds [a2 + off], ...)`: each
//!   candidate loaded speculatively, the choice made on the loaded values (a chain of
//!   `sel`, so that the loads wait for their addresses only, not for the guards).
//!
//! The candidates' loads then issue as soon as the node is known, beside the load of
//! its key, and the choice costs one operation after the compare (the next node
//! itself, not its address). Only the header's *first* operation that touches memory
//! or control moves (everything before it is pure, so nothing between the
//! predecessors' jumps and it can write memory, leave, or fault), of an ordinary load
//! of a virtual register, unguarded; a header whose every predecessor ends with an
//! unguarded `br` to it passing arguments (what instruction selection gives an edge
//! with arguments), and only where a latch passes a ψ of at most [`MAX_CANDIDATES`]
//! arguments, as that is where the rotation shortens the loop's recurrence. The
//! speculative loads never fault; where the ψ chooses an argument, its load reads
//! the address the header would have read, at the same point of the memory order.
//!
//! **Entries of a loop's blocks** (`rotate-load-entries=on`): the same move for a
//! block inside a loop that is not its own predecessor and not the header of a loop
//! of one block of work (whose other blocks only jump back: the modulo scheduler's),
//! when every predecessor enters it by a final unguarded jump, one of them inside the
//! loop, with no ψ needed: each predecessor loads through the argument it passes,
//! speculatively (`lds`) when it has a side exit before its jump, so that the
//! schedulers may issue the load above that exit. A threaded state machine's states
//! each load the next byte first: the load now issues beside the previous state's
//! end-of-input test.
//!
//! Counters: `rotate-loads.loops` (headers whose load moved), `rotate-loads.candidates`
//! (speculative loads of ψ arguments made), `rotate-loads.entries` (loop blocks whose
//! load moved into their predecessors).

use rustc_hash::FxHashMap as HashMap;

use cranelift_entity::EntityRef;

use vliw_isa::{Format, Opcode};
use vliw_ssa::LoopForest;

use crate::mir::{Imm, InstId, MBlock, MInst, MOp, MachFunction, Reg, VReg};
use crate::pcp::rewrite::is_pure;
use crate::ssa_view::{block, block_preds, cfg_of};

/// The most arguments of a ψ whose candidates are loaded.
pub const MAX_CANDIDATES: usize = 4;

/// What [`rotate_loads`] did.
#[derive(Copy, Clone, Default, Debug, PartialEq, Eq)]
pub struct LoadRotationStats {
    pub loops: usize,
    pub candidates: usize,
    /// Loop blocks other than headers whose load moved into their predecessors.
    pub entries: usize,
}

/// The load a header may give up: (its id, its result, the index of the parameter it
/// reads, its opcode, its offset).
struct HeaderLoad {
    id: InstId,
    def: VReg,
    param: usize,
    opcode: Opcode,
    offset: Imm,
}

fn header_load(mf: &MachFunction, h: MBlock) -> Option<HeaderLoad> {
    let params = &mf.blocks[h].params;
    for &id in mf.block_inst_ids(h) {
        let inst = mf.inst(id);
        if let MOp::Op(o) = inst.op
            && o.format() == Format::Load
        {
            let (&[Reg::Virtual(def)], &[Reg::Virtual(addr)]) =
                (inst.defs.as_slice(), inst.uses.as_slice())
            else {
                return None;
            };
            let param = params.iter().position(|&p| p == addr)?;
            return (inst.guard.is_always()
                && inst.keep.is_none()
                && inst.unwind.is_none()
                && o.speculative_load().is_some())
            .then(|| HeaderLoad {
                id,
                def,
                param,
                opcode: o,
                offset: inst.imm.clone(),
            });
        }
        if !is_pure(inst) || inst.is(Opcode::Br) {
            return None;
        }
    }
    None
}

/// The final jump of `p` if it is an unguarded `br h(args)`: its id.
fn final_jump(mf: &MachFunction, p: MBlock, h: MBlock) -> Option<InstId> {
    let &id = mf.block_inst_ids(p).last()?;
    let inst = mf.inst(id);
    (inst.is(Opcode::Br)
        && inst.guard.is_always()
        && inst.imm == Imm::Block(h)
        && inst.args.len() == mf.blocks[h].params.len())
    .then_some(id)
    .filter(|_| {
        // no other edge from `p` into `h`
        mf.block_inst_ids(p)
            .iter()
            .filter(|&&i| mf.inst(i).branch_targets(mf).contains(&h))
            .count()
            == 1
    })
}

/// The final jumps of `preds` into `h` (see [`final_jump`]), if every one ends so.
fn final_jumps(mf: &MachFunction, preds: &[MBlock], h: MBlock) -> Option<Vec<(MBlock, InstId)>> {
    preds
        .iter()
        .map(|&p| final_jump(mf, p, h).map(|j| (p, j)))
        .collect()
}

/// Rotates the header loads of the loops of `mf` (module documentation); with
/// `entries`, also the first load of every other block of a loop that its
/// predecessors enter by their final jumps (module documentation).
pub fn rotate_loads(mf: &mut MachFunction, entries: bool) -> LoadRotationStats {
    let mut stats = LoadRotationStats::default();
    let cfg = cfg_of(mf);
    let loops = LoopForest::compute(&cfg);
    let preds = block_preds(mf, &cfg);
    let landing = mf.landing_blocks();
    for l in loops.loops() {
        let h = crate::ssa_view::mblock(loops.header(l));
        if landing.contains(&h) || !mf.layout.contains(&h) {
            continue;
        }
        let Some(load) = header_load(mf, h) else {
            continue;
        };
        let Some(jumps) = final_jumps(mf, &preds[h.index()], h) else {
            continue;
        };
        // the ψ each predecessor passes for the address, if any
        let psis: HashMap<MBlock, InstId> = jumps
            .iter()
            .filter_map(|&(p, j)| {
                let a = mf.inst(j).args[load.param];
                mf.block_inst_ids(p)
                    .iter()
                    .copied()
                    .find(|&i| {
                        let inst = mf.inst(i);
                        inst.op == MOp::Psi
                            && inst.defs == [a]
                            && inst.guard.is_always()
                            && inst.uses.len() <= MAX_CANDIDATES
                    })
                    .map(|i| (p, i))
            })
            .collect();
        let latch_psi = jumps
            .iter()
            .any(|(p, _)| psis.contains_key(p) && loops.contains(l, block(*p)));
        if !latch_psi {
            continue;
        }
        rotate(mf, h, &load, &jumps, &psis, &mut stats);
        stats.loops += 1;
    }
    if entries {
        rotate_entries(mf, &mut stats);
    }
    stats
}

/// The entries of a loop's blocks: a block inside a loop, not its own predecessor,
/// whose first memory operation loads through a parameter and whose every
/// predecessor enters it by a final jump, one of them inside the same loop: each
/// predecessor loads the value for it, speculatively where the predecessor has a
/// side exit before its jump, so that the load may climb above that exit.
fn rotate_entries(mf: &mut MachFunction, stats: &mut LoadRotationStats) {
    let cfg = cfg_of(mf);
    let loops = LoopForest::compute(&cfg);
    let preds = block_preds(mf, &cfg);
    let landing = mf.landing_blocks();
    let blocks: Vec<MBlock> = mf.layout.clone();
    for b in blocks {
        let Some(l) = loops.innermost_loop(block(b)) else {
            continue;
        };
        if landing.contains(&b) || preds[b.index()].contains(&b) {
            continue;
        }
        // a loop that is one block of work (its other blocks only jump back) is the
        // modulo scheduler's, which overlaps its trips better than one load ahead
        if let Some(own) = loops.loop_headed_by(block(b))
            && loops
                .body(own)
                .iter()
                .all(|&o| o == block(b) || mf.block_inst_ids(crate::ssa_view::mblock(o)).len() <= 1)
        {
            continue;
        }
        let Some(load) = header_load(mf, b) else {
            continue;
        };
        let Some(jumps) = final_jumps(mf, &preds[b.index()], b) else {
            continue;
        };
        if jumps.is_empty() || !jumps.iter().any(|(p, _)| loops.contains(l, block(*p))) {
            continue;
        }
        let psis = HashMap::default();
        rotate(mf, b, &load, &jumps, &psis, stats);
        stats.entries += 1;
    }
}

fn rotate(
    mf: &mut MachFunction,
    h: MBlock,
    load: &HeaderLoad,
    jumps: &[(MBlock, InstId)],
    psis: &HashMap<MBlock, InstId>,
    stats: &mut LoadRotationStats,
) {
    let class = mf.class_of(Reg::Virtual(load.def));
    let loc = mf.inst(load.id).loc;
    let scope = mf.inst(load.id).scope;
    let make_load = |opcode: Opcode, def: Reg, addr: Reg| {
        let mut i = MInst::op(opcode, &[def], &[addr], load.offset.clone());
        i.loc = loc;
        i.scope = scope;
        i
    };
    for &(p, j) in jumps {
        let a = mf.inst(j).args[load.param];
        let at = mf.block_inst_ids(p).len() - 1;
        let value = Reg::Virtual(mf.new_vreg(class));
        let mut new: Vec<MInst> = Vec::new();
        if let Some(&psi) = psis.get(&p) {
            let (args, guards) = {
                let inst = mf.inst(psi);
                (inst.uses.clone(), inst.psi_guards.clone())
            };
            let spec = load.opcode.speculative_load().expect("an ordinary load");
            let mut loaded = Vec::with_capacity(args.len());
            for &arg in &args {
                let t = Reg::Virtual(mf.new_vreg(class));
                new.push(make_load(spec, t, arg));
                loaded.push(t);
                stats.candidates += 1;
            }
            // the choice as a chain of `sel` (the last argument whose guard holds):
            // the candidates are loaded unguarded and the choice waits for the
            // guards only, where a ψ's predicated copies would guard the loads
            let mut acc = loaded[0];
            for (k, (&t, g)) in loaded.iter().zip(&guards).enumerate().skip(1) {
                let d = if k + 1 == loaded.len() {
                    value
                } else {
                    Reg::Virtual(mf.new_vreg(class))
                };
                let (yes, no) = if g.negated { (acc, t) } else { (t, acc) };
                let sel = if g.is_always() {
                    MInst::copy(d, t)
                } else {
                    MInst::op(Opcode::Sel, &[d], &[g.pred, yes, no], Imm::None)
                };
                new.push(MInst { loc, ..sel });
                acc = d;
            }
            if loaded.len() == 1 {
                new.push(MInst {
                    loc,
                    ..MInst::copy(value, acc)
                });
            }
        } else {
            // a predecessor with a side exit before its jump loads speculatively, so
            // that the scheduler may move the load above that exit
            let side_exit = mf.block_inst_ids(p)[..at]
                .iter()
                .any(|&i| mf.inst(i).is(Opcode::Br));
            let opcode = match load.opcode.speculative_load() {
                Some(spec) if side_exit => spec,
                _ => load.opcode,
            };
            new.push(make_load(opcode, value, a));
        }
        for (k, inst) in new.into_iter().enumerate() {
            mf.insert_inst(p, at + k, inst);
        }
        mf.inst_mut(j).args.push(value);
    }
    mf.blocks[h].params.push(load.def);
    let ids: Vec<InstId> = mf
        .block_inst_ids(h)
        .iter()
        .copied()
        .filter(|&i| i != load.id)
        .collect();
    mf.set_block_insts(h, ids);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::Phase;

    /// A tree lookup after if-conversion: the next slot chosen by a ψ in the latch.
    const LOOKUP: &str = "machine function @lookup export {
block0:
    v0 = copy r3
    v1 = copy r4
    br block1(v0)
block1(v2):
    v3 = ld.d [v2 + 0]
    pv4, p0 = cmp.ne v3, 0
    (pv4) br block2
    br block4(r0)
block2:
    v5 = ld.w [v3 + 24]
    pv6, p0 = cmp.eq v1, v5
    (pv6) br block5
    br block3
block5:
    br block4(v3)
block3:
    pv7, p0 = cmp.ltu v1, v5
    v8 = add v3, 8
    v9 = add v3, 16
    v10 = psi p0: v9, pv7: v8
    br block1(v10)
block4(v11):
    r3 = copy v11
    ret uses[r3]
}
";

    #[test]
    fn the_next_node_is_loaded_through_the_psi() {
        let mut mf = MachFunction::parse(LOOKUP).unwrap();
        let stats = rotate_loads(&mut mf, false);
        assert_eq!(
            stats,
            LoadRotationStats {
                loops: 1,
                candidates: 2,
                entries: 0
            }
        );
        mf.verify(Phase::Ssa).unwrap();
        let text = mf.to_string();
        assert!(text.contains("block1(v2, v3):"), "{text}");
        assert!(text.contains("lds.d [v9 + 0]"), "{text}");
        assert!(text.contains("lds.d [v8 + 0]"), "{text}");
        assert!(text.contains("v12 = ld.d [v0 + 0]"), "{text}");
    }

    #[test]
    fn a_store_before_the_load_keeps_it() {
        let text = LOOKUP.replace(
            "    v3 = ld.d [v2 + 0]\n",
            "    st.d [v0 + 0] = v1\n    v3 = ld.d [v2 + 0]\n",
        );
        let mut mf = MachFunction::parse(&text).unwrap();
        assert_eq!(rotate_loads(&mut mf, false), LoadRotationStats::default());
    }

    /// A loop whose block after the header loads through the pointer its
    /// predecessor computed, that predecessor with a side exit before its jump.
    const WALK: &str = "machine function @walk export {
block0:
    v0 = copy r3
    v1 = copy r4
    br block1(v0, r0)
block1(v2, v3):
    pv4, p0 = cmp.ltu v2, v1
    (pv4) br block2
    br block5(v3)
block2:
    v5 = add v2, 8
    pv11, p0 = cmp.eq v5, 64
    (pv11) br block6
    br block3(v5)
block6:
    br block5(v3)
block3(v6):
    v7 = ld.d [v6 + 0]
    v8 = add v3, v7
    pv9, p0 = cmp.ne v7, 0
    (pv9) br block4
    br block5(v8)
block4:
    br block1(v6, v8)
block5(v10):
    r3 = copy v10
    ret uses[r3]
}
";

    #[test]
    fn a_loop_block_entered_by_a_jump_is_loaded_for_by_its_predecessor() {
        let mut mf = MachFunction::parse(WALK).unwrap();
        assert_eq!(rotate_loads(&mut mf, false), LoadRotationStats::default());
        let stats = rotate_loads(&mut mf, true);
        assert_eq!(stats.entries, 1, "{mf}");
        mf.verify(Phase::Ssa).unwrap();
        let text = mf.to_string();
        assert!(text.contains("block3(v6, v7):"), "{text}");
        // the side exit before the jump: a speculative load, free to climb above it
        assert!(text.contains("lds.d [v5 + 0]"), "{text}");
    }

    #[test]
    fn a_loop_of_one_block_of_work_keeps_its_load() {
        // the header's only other block jumps back: the modulo scheduler's loop
        let text = "machine function @sum export {
block0:
    v0 = copy r3
    v1 = copy r4
    br block1(v0, r0)
block1(v2, v3):
    v4 = ld.d [v2 + 0]
    v5 = add v3, v4
    v6 = add v2, 8
    pv7, p0 = cmp.ltu v6, v1
    (pv7) br block2
    br block3(v5)
block2:
    br block1(v6, v5)
block3(v8):
    r3 = copy v8
    ret uses[r3]
}
";
        let mut mf = MachFunction::parse(text).unwrap();
        assert_eq!(rotate_loads(&mut mf, true), LoadRotationStats::default());
    }
}

//! Loop restructuring (Bahmann et al. §4.1): every strongly connected component of a
//! region becomes a tail-controlled loop.
//!
//! For a component `S` with entry edges (from outside into `S`), exit edges (from `S`
//! to outside) and repetition edges (from `S` to an entry node, a block an entry edge
//! goes to):
//!
//! - If it is already tail-controlled (one entry node `H`; one repetition edge and one
//!   exit edge, both from the same block `T` that ends in `brif`), it stays; if the
//!   `brif` repeats on false, its condition is inverted (`bxor c, 1`) and its
//!   destinations swapped.
//! - Otherwise the header `H` is the one entry node, or a new mux over the entry nodes
//!   (entry selector `q`) into which every entry edge is redirected; the exit `E` is
//!   the one exit node, a new mux over the exit nodes (exit selector), or, for a
//!   component without exit, a new block that jumps to the region's end with `undef`
//!   arguments; and a new tail `T(r, slots...)`, a mux over `[E, H]` (`brif r, H, E`),
//!   receives every repetition edge (`r = 1`, with the header's selector and
//!   arguments) and every exit edge (`r = 0`, with the exit's selector and arguments).
//!
//! The loop is then collapsed for the enclosing region (`Editor::collapse_loop`) and
//! its body, the region from `H` to `T`, restructured in turn (a `Region` task).

use super::Task;
use super::editor::{Editor, Mux};
use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashMap;
use vliw_ir::{Block, BlockCall, InstructionData, Opcode, Type};

/// Scratch state of the SCC search, kept across regions (indexed by block, valid
/// when the stamp matches).
#[derive(Default)]
pub(crate) struct SccScratch {
    stamp: SecondaryMap<Block, u32>,
    index: SecondaryMap<Block, u32>,
    low: SecondaryMap<Block, u32>,
    on_stack: SecondaryMap<Block, bool>,
    in_scc: SecondaryMap<Block, u32>,
}

/// The non-trivial strongly connected components (several blocks, or one with an edge
/// to itself) of the blocks reachable from `start` without entering `end`, by
/// Tarjan's algorithm (iterative), in the order it completes them: a component after
/// every component it reaches.
pub(crate) fn find_sccs(
    ed: &mut Editor,
    sc: &mut SccScratch,
    start: Block,
    end: Block,
) -> Vec<Vec<Block>> {
    let mut out = Vec::new();
    if start == end {
        return out;
    }
    let mut call2: Vec<(Block, usize)> = Vec::new();
    let mut tstack: Vec<Block> = Vec::new();
    let g = ed.next_generation();
    let mut counter = 0u32;
    let enter = |b: Block,
                 sc: &mut SccScratch,
                 call: &mut Vec<(Block, usize)>,
                 tstack: &mut Vec<Block>,
                 counter: &mut u32| {
        sc.stamp[b] = g;
        sc.index[b] = *counter;
        sc.low[b] = *counter;
        sc.on_stack[b] = true;
        *counter += 1;
        tstack.push(b);
        call.push((b, 0));
    };
    enter(start, sc, &mut call2, &mut tstack, &mut counter);
    while let Some(&(v, i)) = call2.last() {
        if let Some(&w) = ed.succs(v).get(i) {
            call2.last_mut().expect("non-empty").1 += 1;
            if w == end {
                continue;
            }
            if sc.stamp[w] != g {
                enter(w, sc, &mut call2, &mut tstack, &mut counter);
            } else if sc.on_stack[w] {
                sc.low[v] = sc.low[v].min(sc.index[w]);
            }
            continue;
        }
        call2.pop();
        if let Some(&(u, _)) = call2.last() {
            sc.low[u] = sc.low[u].min(sc.low[v]);
        }
        if sc.low[v] == sc.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = tstack.pop().expect("v is on the stack");
                sc.on_stack[w] = false;
                comp.push(w);
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 || ed.succs(v).contains(&v) {
                comp.reverse();
                out.push(comp);
            }
        }
    }
    out
}

/// Makes the component `scc` of the region ending at `end` a tail-controlled loop,
/// collapses it, and queues its body.
pub(crate) fn make_loop(
    ed: &mut Editor,
    sc: &mut SccScratch,
    scc: &[Block],
    end: Block,
    tasks: &mut Vec<Task>,
) {
    let g = ed.next_generation();
    for &b in scc {
        sc.in_scc[b] = g;
    }
    let inside = |sc: &SccScratch, b: Block| sc.in_scc[b] == g;

    // Entry edges and entry nodes, from the distinct outside predecessors.
    let mut entry_nodes: Vec<Block> = Vec::new();
    let mut entry_index: FxHashMap<Block, usize> = FxHashMap::default();
    let mut entries: Vec<(Block, u32, usize)> = Vec::new();
    let mut outside_preds: Vec<Block> = Vec::new();
    let gp = ed.next_generation();
    for &n in scc {
        for i in 0..ed.preds(n).len() {
            let p = ed.preds(n)[i];
            if !inside(sc, p) && !ed.has_mark(p, gp) {
                ed.set_mark(p, gp);
                outside_preds.push(p);
            }
        }
    }
    for &p in &outside_preds {
        for (i, d) in ed.dests(p).iter().enumerate() {
            if inside(sc, d.block) {
                let k = *entry_index.entry(d.block).or_insert_with(|| {
                    entry_nodes.push(d.block);
                    entry_nodes.len() - 1
                });
                entries.push((p, i as u32, k));
            }
        }
    }
    assert!(
        !entry_nodes.is_empty(),
        "restructure: a loop of a region is entered from the region"
    );

    // Exit and repetition edges.
    let mut exit_nodes: Vec<Block> = Vec::new();
    let mut exit_index: FxHashMap<Block, usize> = FxHashMap::default();
    let mut exits: Vec<(Block, u32, usize)> = Vec::new();
    let mut reps: Vec<(Block, u32, usize)> = Vec::new();
    for &n in scc {
        for (i, d) in ed.dests(n).iter().enumerate() {
            if !inside(sc, d.block) {
                let k = *exit_index.entry(d.block).or_insert_with(|| {
                    exit_nodes.push(d.block);
                    exit_nodes.len() - 1
                });
                exits.push((n, i as u32, k));
            } else if let Some(&k) = entry_index.get(&d.block) {
                reps.push((n, i as u32, k));
            }
        }
    }
    ed.stats.loops += 1;

    // Already tail-controlled?
    if entry_nodes.len() == 1
        && exits.len() == 1
        && reps.len() == 1
        && exits[0].0 == reps[0].0
        && ed.opcode_of_terminator(exits[0].0) == Opcode::Brif
    {
        let (h, t) = (entry_nodes[0], exits[0].0);
        if reps[0].1 == 1 {
            invert_brif(ed, t);
        }
        ed.collapse_loop(h, t);
        if h != t {
            tasks.push(Task::Region {
                start: h,
                end: t,
                own_loop: true,
            });
        }
        return;
    }
    ed.stats.loops_rebuilt += 1;

    // The header.
    let h_mux = (entry_nodes.len() > 1).then(|| ed.create_mux(&entry_nodes, Some(entry_nodes[0])));
    let h = h_mux.as_ref().map_or(entry_nodes[0], |m| m.block);
    if let Some(m) = &h_mux {
        ed.stats.loop_entry_muxes += 1;
        let mut touched = Vec::new();
        for &(p, i, k) in &entries {
            let args = ed.dests(p)[i as usize].args.clone();
            let new = ed.mux_args(m, k, p, &args);
            ed.set_dest(p, i, BlockCall::new(m.block, &new));
            touched.push(p);
        }
        ed.refresh_all(&touched);
    }

    // The exit.
    let mut e_mux: Option<Mux> = None;
    let e = match exit_nodes.len() {
        0 => {
            let (e0, _) = ed.new_block(&[], Some(end));
            ed.append_terminator(
                e0,
                InstructionData::Jump {
                    opcode: Opcode::Jump,
                    dest: BlockCall::new(end, &[]),
                },
            );
            let args = ed.undef_args(e0, end);
            ed.set_dest(e0, 0, BlockCall::new(end, &args));
            ed.stats.endless_loops += 1;
            e0
        }
        1 => exit_nodes[0],
        _ => {
            let m = ed.create_mux(&exit_nodes, Some(exit_nodes[0]));
            ed.stats.loop_exit_muxes += 1;
            let b = m.block;
            e_mux = Some(m);
            b
        }
    };

    // The tail: a mux over [E, H], so `brif r, H, E`.
    let t_mux = ed.create_mux(&[e, h], Some(e));
    let t = t_mux.block;
    let mut touched = Vec::new();
    for &(n, i, k) in &reps {
        let args = ed.dests(n)[i as usize].args.clone();
        let to_h = match &h_mux {
            Some(m) => ed.mux_args(m, k, n, &args),
            None => args,
        };
        let new = ed.mux_args(&t_mux, 1, n, &to_h);
        ed.set_dest(n, i, BlockCall::new(t, &new));
        touched.push(n);
    }
    for &(n, i, k) in &exits {
        let args = ed.dests(n)[i as usize].args.clone();
        let to_e = match &e_mux {
            Some(m) => ed.mux_args(m, k, n, &args),
            None => args,
        };
        let new = ed.mux_args(&t_mux, 0, n, &to_e);
        ed.set_dest(n, i, BlockCall::new(t, &new));
        touched.push(n);
    }
    ed.refresh_all(&touched);
    ed.collapse_loop(h, t);
    tasks.push(Task::Region {
        start: h,
        end: t,
        own_loop: true,
    });
}

/// `brif c, A, B` in `t` becomes `brif (bxor c, 1), B, A`.
fn invert_brif(ed: &mut Editor, t: Block) {
    let term = ed.terminator(t);
    let InstructionData::Brif { arg, blocks, .. } = ed.func.dfg.inst_data(term).clone() else {
        unreachable!("a brif")
    };
    let one = ed.iconst(t, Type::I1, 1);
    let inst = ed.func.dfg.make_inst(InstructionData::Binary {
        opcode: Opcode::Bxor,
        args: [arg, one],
    });
    let c = ed.func.dfg.append_result(inst, Type::I1);
    ed.func.layout.insert_inst_before(inst, term);
    let [a, b] = blocks;
    ed.replace_terminator(
        t,
        InstructionData::Brif {
            opcode: Opcode::Brif,
            arg: c,
            blocks: [b, a],
        },
    );
    ed.refresh(t);
    ed.stats.conditions_inverted += 1;
}

//! Branch restructuring (Bahmann et al. §4.2) of an acyclic region, its loops
//! collapsed: the region from `start` to `end` is walked as a sequence. A block that
//! ends in `jump` and a collapsed loop are items followed by their target; a block
//! whose terminator has several (logical) edges is a branch head:
//!
//! - each edge starts an arm, the blocks the edge dominates in the region view: the
//!   edge's target if it has no other predecessor (and no other edge of the head goes
//!   there), then every block all of whose predecessors are in the arm. An arm is
//!   empty when the target has other predecessors, or is the region's end.
//! - the continuation points are the targets of the edges that leave the arms (for an
//!   empty arm, its edge's target). With one point `C`, it is the join; with several,
//!   a new mux `M` over them becomes the join: every edge leaving an arm (and every
//!   empty arm's edge) is redirected into `M` with the point's selector and its
//!   arguments.
//! - each non-empty arm is restructured as the region from its first block to the
//!   join (an `Acyclic` task), and the walk goes on at the join (a new mux is itself a
//!   branch head).

use super::Task;
use super::editor::{Edge, Editor};
use cranelift_entity::SecondaryMap;
use vliw_ir::{Block, InstructionData, Opcode};

/// Scratch state of the arm searches (indexed by block, valid when the stamp
/// matches).
#[derive(Default)]
pub(crate) struct ArmScratch {
    /// The arm (by its stamp) a block was accepted into.
    arm: SecondaryMap<Block, u32>,
    /// Predecessors found in the arm so far, valid when `count_stamp` matches.
    count: SecondaryMap<Block, u32>,
    count_stamp: SecondaryMap<Block, u32>,
    /// Whether a block is a continuation point, valid when it matches.
    point_stamp: SecondaryMap<Block, u32>,
    /// Edges of the head per target, valid when `target_stamp` matches.
    target_edges: SecondaryMap<Block, u32>,
    target_stamp: SecondaryMap<Block, u32>,
}

/// Restructures the branches of the acyclic region from `start` to `end`. With
/// `own_loop`, `start` is the header of the loop whose body the region is, and is
/// walked as a block, not as its collapsed loop.
pub(crate) fn walk(
    ed: &mut Editor,
    sc: &mut ArmScratch,
    start: Block,
    end: Block,
    own_loop: bool,
    tasks: &mut Vec<Task>,
) {
    let mut cur = start;
    let mut first = true;
    let mut new_mux = false;
    while cur != end {
        let as_block = first && own_loop;
        first = false;
        if !as_block && ed.is_collapsed(cur) {
            cur = ed.loop_exit_edge(cur).target;
            continue;
        }
        match ed.opcode_of_terminator(cur) {
            Opcode::Jump => {
                cur = ed.dests(cur)[0].block;
                continue;
            }
            Opcode::Brif | Opcode::Switch => {}
            op => panic!("restructure: {cur} ends in {op} inside a region ending at {end}"),
        }
        let edges = ed.edges(cur);
        if edges.len() == 1 {
            // All destinations equal: a jump.
            let dest = ed.dests(cur)[0].clone();
            ed.replace_terminator(
                cur,
                InstructionData::Jump {
                    opcode: Opcode::Jump,
                    dest,
                },
            );
            ed.refresh(cur);
            ed.stats.branches_simplified += 1;
            continue;
        }
        (cur, new_mux) = branch(ed, sc, edges, new_mux, end, tasks);
    }
}

/// Structures the branch whose logical edges are `edges` (of a new mux if
/// `head_is_new_mux`); returns its join and whether the join is a new mux.
fn branch(
    ed: &mut Editor,
    sc: &mut ArmScratch,
    edges: Vec<Edge>,
    head_is_new_mux: bool,
    end: Block,
    tasks: &mut Vec<Task>,
) -> (Block, bool) {
    let gt = ed.next_generation();
    for e in &edges {
        if sc.target_stamp[e.target] != gt {
            sc.target_stamp[e.target] = gt;
            sc.target_edges[e.target] = 0;
        }
        sc.target_edges[e.target] += 1;
    }
    let gp = ed.next_generation();
    let mut points: Vec<Block> = Vec::new();
    let mut add_point = |sc: &mut ArmScratch, b: Block| {
        if sc.point_stamp[b] != gp {
            sc.point_stamp[b] = gp;
            points.push(b);
        }
    };
    let mut leaving: Vec<Edge> = Vec::new();
    let mut arms: Vec<Block> = Vec::new();
    for e in edges {
        let s = e.target;
        if s == end || sc.target_edges[s] > 1 || ed.view_indegree(s) != 1 {
            add_point(sc, s);
            leaving.push(e);
            continue;
        }
        // The blocks the edge dominates, breadth first.
        let ga = ed.next_generation();
        sc.arm[s] = ga;
        let mut arm = vec![s];
        let mut i = 0;
        while i < arm.len() {
            let n = arm[i];
            i += 1;
            for &m in ed.view_succs(n) {
                if m == end || sc.arm[m] == ga {
                    continue;
                }
                if sc.count_stamp[m] != ga {
                    sc.count_stamp[m] = ga;
                    sc.count[m] = 0;
                }
                sc.count[m] += 1;
                if sc.count[m] as usize == ed.view_indegree(m) {
                    sc.arm[m] = ga;
                    arm.push(m);
                }
            }
        }
        for &n in &arm {
            if ed.view_succs(n).iter().all(|&m| sc.arm[m] == ga) {
                continue;
            }
            for x in ed.view_edges(n) {
                if sc.arm[x.target] != ga {
                    add_point(sc, x.target);
                    leaving.push(x);
                }
            }
        }
        arms.push(s);
    }

    // A mux has one edge per target, so after the redirection its targets other than
    // the region's end have the mux as only predecessor: its arms cannot all be empty
    // with several points, unless the head did not dominate the rest of its region
    // (and the muxes would then go on forever).
    assert!(
        !(head_is_new_mux && arms.is_empty() && points.len() > 1),
        "restructure: internal error: the mux to {points:?} has only empty arms"
    );
    let (join, mux) = if let [c] = points[..] {
        (c, false)
    } else {
        let mux = ed.create_mux(&points, Some(points[0]));
        ed.redirect_into_mux(&mux, &leaving);
        ed.stats.branch_muxes += 1;
        (mux.block, true)
    };
    for s in arms {
        tasks.push(Task::Acyclic {
            start: s,
            end: join,
        });
    }
    (join, mux)
}

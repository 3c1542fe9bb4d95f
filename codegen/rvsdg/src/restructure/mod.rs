//! Control-flow restructuring after Bahmann, Reissmann, Jahre and Meyer, "Perfect
//! reconstructability of control flow from demand dependence graphs" (ACM TACO 2015),
//! done in place on the SSA IR: [`restructure`] rewrites a function into the
//! *structured form* below, which the RVSDG construction turns into γ (decision) and θ
//! (tail-controlled loop) nodes by a recursive walk of its [`Tree`]
//! ([`structure_tree`]). Since the IR has block parameters, the result is an ordinary
//! function that the verifier accepts and the interpreter runs, with the same
//! results, traps and side effects in the same order.
//!
//! # The structured form
//!
//! 1. **Block-local values.** Every value an instruction uses (operands and branch
//!    arguments) is a parameter of its block or a result of an earlier instruction of
//!    it. Values cross blocks only as branch arguments. Pure instructions without
//!    operands (`iconst f32const f64const symbol_addr tls_addr stack_addr undef`) are
//!    copied into the blocks that use them rather than passed.
//! 2. **No unreachable blocks.**
//! 3. **One exit.** At most one block ends in `return` (none only when the function
//!    cannot return), at most one in `unreachable`; and the function's last item (see
//!    the tree) is either one block ending in `return`, `trap` or `unreachable`, or a
//!    branch whose arms are single blocks ending in `return` (at most one), `trap` (one
//!    per code) or `unreachable` (at most one). No other block ends in any of them.
//! 4. **Tail-controlled loops.** Every cycle is a loop: a header `H` and a tail `T`
//!    that ends in `brif r, H(args), E(args)` (repeat while `r`), `T → H` being the
//!    loop's only back edge (the only edge into `H` from a block `H` dominates) and
//!    `E ≠ H` its exit. Every block of the loop other than `H` is entered only from
//!    inside the loop, and no edge leaves the loop other than `T → E`.
//! 5. **Structured branches.** Every block ending in `brif`/`switch` (outside a loop
//!    tail) has at least two *logical edges* (destinations grouped by target and
//!    arguments: switch cases to the same block with the same arguments are one edge),
//!    and all of them flow into one join block, its immediate post-dominator. An arm
//!    is the blocks its edge dominates: its first block has the head as its only
//!    predecessor and is reached by only that edge; an edge straight to the join is an
//!    empty arm (several such edges with different arguments are allowed). A
//!    `brif`/`switch` whose destinations are all equal is replaced by a `jump`.
//!
//! Selectors, the parameters the added mux blocks switch on, are `i1` for two targets
//! (`brif sel, targets[1], targets[0]`) and `i32` for more (`switch sel,
//! targets[n-1], [0 -> targets[0], ..]`): selector `i` goes to target `i`.
//!
//! # The structure tree
//!
//! [`structure_tree`] returns the [`Tree`] and rejects anything else with a message
//! naming the block; the RVSDG construction trusts what it returns. A *sequence*
//! (`Tree::Seq`) from a block `s` to an end `e` lists items (`Block`, `Branch`,
//! `Loop`; never a nested `Seq`); each item has an entry block (`Block(b)`: `b`;
//! `Branch`: its head; `Loop`: its header) and a successor (`Block(b)`: the target of
//! its `jump`; `Branch`: its join; `Loop`: its exit). The first item's entry is `s`
//! (an empty sequence has `s == e`), each item's successor is the next item's entry,
//! and the last item's successor is `e`.
//!
//! - The function is the *top-level* sequence from the entry block, which has no end:
//!   its last item, and no other item of the tree, is a `Block` ending in `return` or
//!   `trap`, or a `Branch` with `join: None` whose arms are `Seq([Block(t)])`, `t`
//!   ending in `return` or `trap` with the head as only predecessor.
//! - `Block(b)`: `b` ends in `jump`.
//! - `Branch { head, arms, join: Some(c) }`: `head` ends in `brif` or `switch` with at
//!   least two logical edges; `arms` has one entry per logical edge, in the order of
//!   their first destinations, `(index of the first destination in
//!   branch_destinations, arm)`; the other destinations of the edge are those with
//!   the same target and arguments. The arm is `Seq([])` when the edge goes to `c`,
//!   otherwise the sequence from the edge's target to `c`, that target having the
//!   head as only predecessor (besides the sources of its back edges, if the arm
//!   starts with a loop) and that edge as only edge from it. `c` is the head's
//!   immediate post-dominator.
//! - `Loop { header: h, body, tail: t, exit: x }`: `t` ends in `brif r, h(..), x(..)`
//!   (destination 0 is `h`, taken while `r` is true; destination 1 is `x ≠ h`). If
//!   `h == t` the body is `Seq([])` (a one-block loop); otherwise `body` is the
//!   sequence from `h` to `t`, whose first item is `Block(h)` or a `Branch` headed by
//!   `h` (never a loop headed by `h`), and `t` is in no item of it. `t → h` is the
//!   only edge into `h` from inside the loop and `t → x` the only edge out of it.
//! - Every block of the function is exactly one of: a `Block` item, a `Branch` head,
//!   or a `Loop` tail (a header is the entry of its body's first item, or its own
//!   tail).
//!
//! - Constructs may end together: a branch's join or a loop's exit may be the end of
//!   the enclosing sequence (and so the join or tail of the construct around it).
//!
//! For the θ of a loop, the header's parameters are the loop variables. Where the
//! tail is a new block, its `brif` passes to the header and to the exit values drawn
//! from parameters of the tail of their own (a two-target mux's slots are per
//! target), so a loop variable that the loop does not change stays recognisably
//! invariant.
//! The tree is as deep as the constructs are nested; `Tree`'s derived `Drop`, `Clone`
//! and `Debug` recurse (depths of 10^4 are fine on a 2 MiB stack).
//!
//! # The algorithm
//!
//! 1. Unreachable blocks are removed; branches with equal destinations become jumps;
//!    values are made block-local (`local`: re-materialized constants, and parameters
//!    for the live-in values from one liveness computation).
//! 2. The exits are merged into one (`exit`).
//! 3. The function's body, the region from the entry to the exit, is restructured.
//!    A *region* `[s, e)` is the part of the CFG reachable from `s` without entering
//!    `e`; `s` dominates it and every block in it reaches `e`. Restructuring a region
//!    (a `Region` task) makes each of its strongly connected components a
//!    tail-controlled loop (`loops`), collapses the loop to one node seen from the
//!    region (a node whose only edge is the loop's exit edge) and queues its body, the
//!    region `[H, T)`; then it structures the branches of the region, now acyclic
//!    (`branches`), queueing each arm as the region from its first block to the join
//!    (an `Acyclic` task: arms contain no cycles left). Tasks run from a work list,
//!    so deep nesting does not recurse.
//!
//! Each task costs time linear in its region (plus the predecessor lists it edits),
//! and a block is in one region per nesting level, so the total is `O(size ·
//! nesting depth)`; the liveness of step 1 costs the number of parameters it adds.
//!
//! Where this follows jlm (`jlm/llvm/frontend/ControlFlowRestructuring.cpp`) and
//! where not: the selectors and the values are block parameters, so the edge
//! splitting and the assignment blocks of jlm are not needed (an edge carries its
//! selector constant and arguments); a loop with one entry keeps its entry block as
//! header, and one with one exit target exits straight to it; and the arms' exits
//! need no extra null block when they all reach one continuation point.

mod branches;
mod editor;
mod exit;
mod local;
mod loops;
mod passthrough;
mod tree;

pub use local::is_rematerializable;
pub use passthrough::forward_pass_through_params;
pub use tree::{Tree, structure_tree};

use editor::Editor;
use vliw_ir::{Block, Function};

/// What [`restructure`] did to a function.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RestructureStats {
    /// Loops in the result (each strongly connected component found).
    pub loops: usize,
    /// Loops that were not tail-controlled and got a new tail block.
    pub loops_rebuilt: usize,
    /// Loops with several entry blocks, which got a mux header.
    pub loop_entry_muxes: usize,
    /// Loops with several exit targets, which got a mux exit.
    pub loop_exit_muxes: usize,
    /// Loops without any exit, which got a never-taken exit to the function's exit.
    pub endless_loops: usize,
    /// Branches whose arms continued at several points, which got a mux join.
    pub branch_muxes: usize,
    /// Whether the function's exits were merged into a mux over several kinds of
    /// exit (`return` and trap codes): 0 or 1.
    pub exit_muxes: usize,
    /// Block parameters added in total (to existing and new blocks).
    pub params_added: usize,
    /// Of which parameters added to existing blocks for values live across blocks.
    pub live_params_added: usize,
    /// Blocks added (muxes, tails, exits).
    pub blocks_added: usize,
    /// Unreachable blocks removed.
    pub unreachable_removed: usize,
    /// Constants copied into the blocks that use them.
    pub consts_rematerialized: usize,
    /// `brif`/`switch` with all destinations equal, replaced by `jump`.
    pub branches_simplified: usize,
    /// Tail `brif`s that repeated on false, inverted.
    pub conditions_inverted: usize,
    /// Blocks copied so that each way into a dead region has its own
    /// (`exit::privatize_dead_regions`).
    pub dead_region_copies: usize,
    /// Dead ends detached (`exit::detach_dead_ends`).
    pub dead_ends_detached: usize,
    /// The blocks that were dead ends: they jump on where they ended in
    /// `unreachable`, which the RVSDG's construction puts back as a sink.
    pub dead_ends: Vec<Block>,
}

impl RestructureStats {
    /// Adds `other`'s counts to `self`'s.
    pub fn add(&mut self, other: &RestructureStats) {
        self.loops += other.loops;
        self.loops_rebuilt += other.loops_rebuilt;
        self.loop_entry_muxes += other.loop_entry_muxes;
        self.loop_exit_muxes += other.loop_exit_muxes;
        self.endless_loops += other.endless_loops;
        self.branch_muxes += other.branch_muxes;
        self.exit_muxes += other.exit_muxes;
        self.params_added += other.params_added;
        self.live_params_added += other.live_params_added;
        self.blocks_added += other.blocks_added;
        self.unreachable_removed += other.unreachable_removed;
        self.consts_rematerialized += other.consts_rematerialized;
        self.branches_simplified += other.branches_simplified;
        self.conditions_inverted += other.conditions_inverted;
        self.dead_region_copies += other.dead_region_copies;
        self.dead_ends_detached += other.dead_ends_detached;
    }

    /// Whether the function was changed (counts of what was found, `loops`, aside).
    pub fn changed(&self) -> bool {
        let mut c = self.clone();
        c.loops = 0;
        c != RestructureStats::default()
    }
}

/// A unit of work of the restructuring.
pub(crate) enum Task {
    /// Restructure the loops, then the branches, of the region `[start, end)`. With
    /// `own_loop`, `start` is the header of the loop whose body the region is.
    Region {
        start: Block,
        end: Block,
        own_loop: bool,
    },
    /// Restructure the branches of the acyclic region `[start, end)`.
    Acyclic { start: Block, end: Block },
}

/// Rewrites `func` in place into the structured form (module documentation). `func`
/// must verify; the result verifies, and computes the same results, traps and side
/// effects in the same order, except past an `unreachable` of a dead end (which the
/// result's `dead_ends` lists: the construction of the RVSDG puts it back).
pub fn restructure(func: &mut Function) -> RestructureStats {
    let mut stats = RestructureStats::default();
    let Some(entry) = func.layout.entry_block() else {
        return stats;
    };
    stats.unreachable_removed = local::remove_unreachable(func);
    stats.branches_simplified = local::simplify_branches(func);
    local::make_values_local(func, &mut stats);
    stats.dead_region_copies = exit::privatize_dead_regions(func);
    if stats.dead_region_copies > 0 {
        // a region whose ways in all took copies is left unreachable
        stats.unreachable_removed += local::remove_unreachable(func);
    }

    let mut ed = Editor::new(func, stats);
    let dead_ends = exit::detach_dead_ends(&mut ed);
    ed.stats.dead_ends_detached = dead_ends.len();
    ed.stats.dead_ends = dead_ends;
    let end = exit::single_exit(&mut ed);
    let mut sccs = loops::SccScratch::default();
    let mut arms = branches::ArmScratch::default();
    let mut tasks = vec![Task::Region {
        start: entry,
        end,
        own_loop: false,
    }];
    while let Some(task) = tasks.pop() {
        match task {
            Task::Region {
                start,
                end,
                own_loop,
            } => {
                for scc in loops::find_sccs(&mut ed, &mut sccs, start, end) {
                    loops::make_loop(&mut ed, &mut sccs, &scc, end, &mut tasks);
                }
                branches::walk(&mut ed, &mut arms, start, end, own_loop, &mut tasks);
            }
            Task::Acyclic { start, end } => {
                branches::walk(&mut ed, &mut arms, start, end, false, &mut tasks);
            }
        }
    }
    debug_assert!(ed.cfg_in_sync(), "the CFG mirror is out of sync");
    ed.stats
}

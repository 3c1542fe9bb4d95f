//! One exit (rule 3): every `return`, `trap` and `unreachable` becomes a jump to one
//! exit block.
//!
//! The exit's kinds are "return" (the `return`s, and a function without any exit,
//! whose only way out will be the never-taken exit of an endless loop), "unreachable"
//! (kept as such: the back end makes it a trap, and it costs no return path), and one
//! kind per distinct trap code. With one kind the exit is one block that returns
//! its parameters (or traps); with several, the exit `X(k, rets...)` is a mux that
//! switches on `k` to one terminal block per kind: `R(rets...): return rets...` and
//! `Tc: trap c`.
//!
//! A function that has one terminal block, or already ends in such a switch (the
//! terminal blocks, at most one `return` and distinct trap codes, reached only from
//! one block through one edge each), is left as it is.
//!
//! **Dead ends** are taken out first ([`detach_dead_ends`]): a block that ends in
//! `unreachable` (Rust's panics: a call of a function that does not return, then
//! `unreachable`) and is reached from one branch, which also goes elsewhere (not only
//! to other terminal blocks), jumps instead to that other target, with `undef`
//! arguments. It becomes the arm of a
//! decision (a γ whose arm ends in an `unreachable` sink, `build.rs`) rather than a way
//! to the function's exit: routed to the exit, every bounds check's panic would be
//! one more way out of every enclosing loop and branch, selected by constants that the
//! hot path computes. The restructured function differs from the original only where
//! the original reaches `unreachable`, which is undefined; the RVSDG puts the
//! `unreachable` back.

use super::editor::Editor;
use rustc_hash::{FxHashMap, FxHashSet};
use vliw_ir::{Block, BlockCall, Function, InstructionData, Opcode, Value};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Return,
    Trap(u16),
    /// `unreachable`: kept (the back end traps there), not merged with returns.
    Unreachable,
}

/// The most instructions of a dead region copied for one way into it, and for one
/// function ([`privatize_dead_regions`]): landing code is a few drops and a resume.
pub(crate) const MAX_DEAD_REGION: usize = 64;
pub(crate) const MAX_DEAD_COPIES: usize = 4096;

/// The blocks from which no `return` is reachable (`None` for a function without a
/// `return`: all of it is a dead end).
fn dead_blocks(func: &Function) -> Option<FxHashSet<Block>> {
    let blocks: Vec<Block> = func.layout.blocks().collect();
    let mut preds: FxHashMap<Block, Vec<Block>> = FxHashMap::default();
    let mut work = Vec::new();
    for &b in &blocks {
        let term = func.layout.last_inst(b)?;
        if func.dfg.opcode(term) == Opcode::Return {
            work.push(b);
        }
        for d in func.dfg.branch_destinations(term) {
            preds.entry(d.block).or_default().push(b);
        }
    }
    if work.is_empty() {
        return None;
    }
    let mut live: FxHashSet<Block> = FxHashSet::default();
    while let Some(b) = work.pop() {
        if live.insert(b) {
            work.extend(preds.get(&b).into_iter().flatten().copied());
        }
    }
    Some(blocks.into_iter().filter(|b| !live.contains(b)).collect())
}

/// The blocks reachable from `y` (all dead when `y` is), in a depth-first order.
fn region_from(func: &Function, y: Block) -> Vec<Block> {
    let mut seen: FxHashSet<Block> = FxHashSet::default();
    let mut order = Vec::new();
    let mut stack = vec![y];
    while let Some(b) = stack.pop() {
        if !seen.insert(b) {
            continue;
        }
        order.push(b);
        if let Some(term) = func.layout.last_inst(b) {
            for d in func.dfg.branch_destinations(term).iter().rev() {
                stack.push(d.block);
            }
        }
    }
    order
}

/// Gives every way into a dead region (the blocks from which no `return` is
/// reachable: a panic's call, the landing code it unwinds to, the resume) a copy of
/// its own, so that [`detach_dead_ends`] can make each one an arm of the branch that
/// enters it: in a function with landing pads, the bounds checks of a loop all unwind
/// to one cleanup, which would otherwise be one more exit of the loop, selected by
/// constants on the hot path. Runs on block-local values (`make_values_local`): a
/// block is copied with fresh parameters and results. A region over
/// [`MAX_DEAD_REGION`] instructions, or past [`MAX_DEAD_COPIES`] in the function,
/// stays shared. Returns the blocks made.
pub(crate) fn privatize_dead_regions(func: &mut Function) -> usize {
    let Some(dead) = dead_blocks(func) else {
        return 0;
    };
    if dead.is_empty() {
        return 0;
    }
    // the ways in: (source, target) edges from a live block to a dead one
    let mut entries: Vec<(Block, Block)> = Vec::new();
    for b in func.layout.blocks() {
        if dead.contains(&b) {
            continue;
        }
        let term = func
            .layout
            .last_inst(b)
            .expect("blocks end in a terminator");
        for d in func.dfg.branch_destinations(term) {
            if dead.contains(&d.block) && !entries.contains(&(b, d.block)) {
                entries.push((b, d.block));
            }
        }
    }
    let mut claimed: FxHashSet<Block> = FxHashSet::default();
    let (mut made, mut budget) = (0, MAX_DEAD_COPIES);
    for (x, y) in entries {
        let region = region_from(func, y);
        if region.iter().all(|b| !claimed.contains(b)) {
            claimed.extend(region);
            continue;
        }
        let size: usize = region
            .iter()
            .map(|&b| func.layout.block_insts(b).count())
            .sum();
        if size > MAX_DEAD_REGION || size > budget {
            continue;
        }
        budget -= size;
        let copies = copy_blocks(func, &region);
        made += copies.len();
        let term = func
            .layout
            .last_inst(x)
            .expect("blocks end in a terminator");
        func.dfg.retarget_branch(term, y, copies[&y]);
    }
    made
}

/// Copies `blocks` (block-local values) after the last block; branches between them
/// go between the copies. Returns each block's copy.
fn copy_blocks(func: &mut Function, blocks: &[Block]) -> FxHashMap<Block, Block> {
    let copies: FxHashMap<Block, Block> = blocks
        .iter()
        .map(|&b| {
            let c = func.dfg.make_block();
            func.layout.append_block(c);
            (b, c)
        })
        .collect();
    for &b in blocks {
        let c = copies[&b];
        let mut values: FxHashMap<Value, Value> = FxHashMap::default();
        for p in func.dfg.block_params(b).to_vec() {
            let ty = func.dfg.value_type(p);
            values.insert(p, func.dfg.append_block_param(c, ty));
        }
        let insts: Vec<_> = func.layout.block_insts(b).collect();
        for inst in insts {
            let data = func.dfg.inst_data(inst).clone();
            let types: Vec<_> = func
                .dfg
                .inst_results(inst)
                .iter()
                .map(|&r| func.dfg.value_type(r))
                .collect();
            let copy = func.dfg.make_inst(data);
            func.dfg.make_inst_results(copy, &types);
            for (&r, &n) in func
                .dfg
                .inst_results(inst)
                .iter()
                .zip(func.dfg.inst_results(copy))
            {
                values.insert(r, n);
            }
            func.dfg
                .map_inst_values(copy, |v| values.get(&v).copied().unwrap_or(v));
            let targets: Vec<Block> = func
                .dfg
                .branch_destinations(copy)
                .iter()
                .map(|d| d.block)
                .collect();
            for t in targets {
                if let Some(&ct) = copies.get(&t) {
                    func.dfg.retarget_branch(copy, t, ct);
                }
            }
            func.layout.append_inst(copy, c);
            func.srclocs[copy] = func.srclocs[inst];
        }
    }
    copies
}

/// Detaches the dead ends (module documentation): each block that ends in
/// `unreachable` and is reached through one way into its dead region (the blocks from
/// which no `return` is reachable), a branch that also goes to another block, jumps to
/// that block with `undef` arguments instead. Returns the detached blocks, in which
/// the RVSDG's construction puts an `unreachable` sink before the jump.
pub(crate) fn detach_dead_ends(ed: &mut Editor) -> Vec<Block> {
    let mut detached = Vec::new();
    let Some(dead) = dead_blocks(ed.func) else {
        return detached;
    };
    // each dead block's way in, when it has one: the live block whose branch enters
    // its region (`None` for a block of regions entered from several)
    let mut way_in: FxHashMap<Block, Option<(Block, Block)>> = FxHashMap::default();
    let blocks: Vec<Block> = ed.func.layout.blocks().collect();
    for &x in &blocks {
        if dead.contains(&x) {
            continue;
        }
        let targets: Vec<Block> = ed.succs(x).to_vec();
        for y in targets {
            if !dead.contains(&y) {
                continue;
            }
            for b in region_from(ed.func, y) {
                way_in
                    .entry(b)
                    .and_modify(|w| {
                        if *w != Some((x, y)) {
                            *w = None;
                        }
                    })
                    .or_insert(Some((x, y)));
            }
        }
    }
    for b in blocks {
        if ed.opcode_of_terminator(b) != Opcode::Unreachable {
            continue;
        }
        let Some(&Some((pred, entry))) = way_in.get(&b) else {
            continue;
        };
        if pred == b {
            continue;
        }
        let Some(&other) = ed.succs(pred).iter().find(|&&s| s != entry) else {
            continue;
        };
        // a branch among terminal blocks is already the function's end (and the exit
        // a first restructuring made: detaching from it would not be idempotent)
        let terminal = |s: Block| {
            matches!(
                ed.opcode_of_terminator(s),
                Opcode::Return | Opcode::Trap | Opcode::Unreachable
            )
        };
        if ed.succs(pred).iter().all(|&s| terminal(s)) {
            continue;
        }
        let args = ed.undef_args(b, other);
        ed.replace_terminator(
            b,
            InstructionData::Jump {
                opcode: Opcode::Jump,
                dest: BlockCall::new(other, &args),
            },
        );
        ed.refresh(b);
        detached.push(b);
    }
    detached
}

/// Gives the function one exit; returns the block the function body flows into: the
/// one terminal block, or the block switching to the terminal blocks.
pub(crate) fn single_exit(ed: &mut Editor) -> Block {
    let mut terms: Vec<(Block, Opcode, u16)> = Vec::new();
    for b in ed.func.layout.blocks() {
        let term = ed.func.layout.last_inst(b).expect("blocks are not empty");
        match ed.func.dfg.inst_data(term) {
            InstructionData::Return { .. } => terms.push((b, Opcode::Return, 0)),
            InstructionData::Trap { code, .. } => terms.push((b, Opcode::Trap, *code)),
            InstructionData::Nullary {
                opcode: Opcode::Unreachable,
            } => terms.push((b, Opcode::Unreachable, 0)),
            _ => {}
        }
    }
    if terms.len() == 1 {
        return terms[0].0;
    }
    if let Some(x) = existing_final_branch(ed, &terms) {
        return x;
    }

    let mut kinds: Vec<Kind> = Vec::new();
    if terms.is_empty() || terms.iter().any(|t| t.1 == Opcode::Return) {
        kinds.push(Kind::Return);
    }
    for &(_, op, code) in &terms {
        let kind = match op {
            Opcode::Trap => Kind::Trap(code),
            Opcode::Unreachable => Kind::Unreachable,
            _ => continue,
        };
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    let rets = ed.func.signature.returns.clone();
    let mut kind_blocks = Vec::with_capacity(kinds.len());
    for &k in &kinds {
        let block = match k {
            Kind::Return => {
                let (r, ps) = ed.new_block(&rets, None);
                ed.append_terminator(
                    r,
                    InstructionData::Return {
                        opcode: Opcode::Return,
                        args: ps,
                    },
                );
                r
            }
            Kind::Trap(code) => {
                let (t, _) = ed.new_block(&[], None);
                ed.append_terminator(
                    t,
                    InstructionData::Trap {
                        opcode: Opcode::Trap,
                        code,
                    },
                );
                t
            }
            Kind::Unreachable => {
                let (u, _) = ed.new_block(&[], None);
                ed.append_terminator(
                    u,
                    InstructionData::Nullary {
                        opcode: Opcode::Unreachable,
                    },
                );
                u
            }
        };
        kind_blocks.push(block);
    }
    let mux = (kinds.len() > 1).then(|| ed.create_mux(&kind_blocks, Some(kind_blocks[0])));
    ed.stats.exit_muxes += usize::from(mux.is_some());

    for &(b, op, code) in &terms {
        let term = ed.terminator(b);
        let (kind, args): (Kind, Vec<Value>) = match op {
            Opcode::Return => (Kind::Return, ed.func.dfg.inst_args(term).to_vec()),
            Opcode::Unreachable => (Kind::Unreachable, Vec::new()),
            _ => (Kind::Trap(code), Vec::new()),
        };
        let i = kinds.iter().position(|&k| k == kind).expect("a kind");
        let dest = match &mux {
            Some(m) => BlockCall::new(m.block, &ed.mux_args(m, i, b, &args)),
            None => BlockCall::new(kind_blocks[0], &args),
        };
        ed.replace_terminator(
            b,
            InstructionData::Jump {
                opcode: Opcode::Jump,
                dest,
            },
        );
        ed.refresh(b);
    }
    match mux {
        Some(m) => m.block,
        None => kind_blocks[0],
    }
}

/// The block `X` if the function already ends in the final switch: at least two
/// terminal blocks, at most one `return`, at most one `unreachable`, distinct trap
/// codes, each
/// with `X` as only predecessor and reached by one edge of `X`, whose edges all go to
/// them.
fn existing_final_branch(ed: &Editor, terms: &[(Block, Opcode, u16)]) -> Option<Block> {
    if terms.len() < 2 || terms.iter().filter(|t| t.1 == Opcode::Unreachable).count() > 1 {
        return None;
    }
    if terms.iter().filter(|t| t.1 == Opcode::Return).count() > 1 {
        return None;
    }
    let mut codes = FxHashSet::default();
    if !terms
        .iter()
        .filter(|t| t.1 == Opcode::Trap)
        .all(|t| codes.insert(t.2))
    {
        return None;
    }
    let [x] = ed.preds(terms[0].0) else {
        return None;
    };
    let x = *x;
    if !terms.iter().all(|t| ed.preds(t.0) == [x]) {
        return None;
    }
    if !matches!(ed.opcode_of_terminator(x), Opcode::Brif | Opcode::Switch) {
        return None;
    }
    let targets: FxHashSet<Block> = terms.iter().map(|t| t.0).collect();
    let edges = ed.edges(x);
    (edges.len() == terms.len() && edges.iter().all(|e| targets.contains(&e.target))).then_some(x)
}

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
use rustc_hash::FxHashSet;
use vliw_ir::{Block, BlockCall, InstructionData, Opcode, Value};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Return,
    Trap(u16),
    /// `unreachable`: kept (the back end traps there), not merged with returns.
    Unreachable,
}

/// Detaches the dead ends (module documentation): each block that ends in `unreachable`
/// and has one predecessor, whose branch also goes to another block, jumps to that
/// block with `undef` arguments instead. Returns the detached blocks, in which the
/// RVSDG's construction puts an `unreachable` sink before the jump.
pub(crate) fn detach_dead_ends(ed: &mut Editor) -> Vec<Block> {
    let mut detached = Vec::new();
    let blocks: Vec<Block> = ed.func.layout.blocks().collect();
    for b in blocks {
        if ed.opcode_of_terminator(b) != Opcode::Unreachable {
            continue;
        }
        let &[pred] = ed.preds(b) else {
            continue;
        };
        if pred == b {
            continue;
        }
        let Some(&other) = ed.succs(pred).iter().find(|&&s| s != b) else {
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

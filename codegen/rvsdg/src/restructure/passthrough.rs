//! Forwarding of pass-through parameters, after the structure tree exists.
//!
//! Rule 1 of the structured form (every value block-local) is what lets restructuring
//! insert mux blocks without breaking dominance, but it passes every value live across
//! a block through that block as a parameter: a value defined at the top of a
//! function and read at its end becomes a parameter of every block between, so every
//! γ and θ of the function would carry it as an entry, exit or loop variable. The
//! number of such variables grows with (values live across) × (constructs crossed),
//! quadratically in the function's length, and every pass after the construction
//! would pay for them until invariant value redirection and dead node elimination
//! remove them.
//!
//! Here the parameters that only pass one value on are removed again, once the
//! structure is fixed, and their uses read that value directly; the RVSDG builder then
//! routes a value into a region only where the region reads it. A parameter `p` of
//! block `X` is *forwardable* when every edge into `X` passes either `p` itself (a
//! loop's back edge that does not change it) or one value `w` (Braun et al.'s trivial
//! φ, "Simple and Efficient Construction of Static Single Assignment Form", CC 2013,
//! §3.1), and `w` is *visible* at `X`: the region of the structure where `w` is defined
//! (the top level, an arm of a branch, a loop's body) is `X`'s region or one that
//! encloses it. Dominance holds by construction (the definition of a trivial φ's only
//! operand dominates the φ's block); visibility is what the regions add. A value
//! defined in a loop and read after it, or defined in an arm and read after the join,
//! keeps its parameter: that is the θ's exit value or the γ's exit variable, which the
//! RVSDG needs. Removing one parameter can make others forwardable (a chain of blocks
//! passing one value on), so a work list repeats the check for the parameters that
//! read a removed one.
//!
//! An `undef` operand does not count either: the mux blocks of the restructuring pass
//! `undef` in the slots of the targets an edge does not select, so a value a loop only
//! carries reaches its header from the back edge as φ(value, `undef`); choosing the
//! value for `undef` is a refinement. Such a φ is forwarded only when its value is
//! defined at the start of its block (a parameter of it, or defined in a block that
//! strictly dominates it), which a trivial φ's operand always is.
//!
//! A detached dead end (a panic's block, which the restructuring made jump on with
//! `undef` arguments, `exit.rs`) passes nothing that is ever read: its edge is not an
//! operand, so that the values live across a bounds check do not all become exit
//! variables of its γ.
//!
//! The cost is linear in the number of parameters and branch arguments; the result is
//! no longer in structured form by rule 1 (so [`super::structure_tree`] would reject
//! it) but keeps the control flow, and so the tree, it had.

use cranelift_entity::SecondaryMap;
use cranelift_entity::packed_option::PackedOption;
use rustc_hash::FxHashSet;
use vliw_ir::{Block, DominatorTree, Function, Opcode, Value, ValueDef};

use super::Tree;

/// Removes the forwardable parameters of `func` (see the module documentation), whose
/// structure is `tree`; returns how many. The edges out of `dead_ends` (the detached
/// dead ends of the restructuring, which reach `unreachable` before their jump) pass
/// nothing that matters: they do not count as operands.
pub fn forward_pass_through_params(
    func: &mut Function,
    tree: &Tree,
    dead_ends: &FxHashSet<Block>,
) -> usize {
    let regions = Regions::of(tree);
    let dom = DominatorTree::compute(func);
    // the operands of each parameter: what each edge into its block passes
    let mut operands: SecondaryMap<Value, Vec<Value>> = SecondaryMap::new();
    // the parameters each parameter is an operand of
    let mut read_by: SecondaryMap<Value, Vec<Value>> = SecondaryMap::new();
    let mut is_param: SecondaryMap<Value, bool> = SecondaryMap::new();
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for &b in &blocks {
        for &p in func.dfg.block_params(b) {
            is_param[p] = true;
        }
    }
    for &b in &blocks {
        let Some(term) = func.layout.last_inst(b) else {
            continue;
        };
        if dead_ends.contains(&b) {
            continue;
        }
        for d in func.dfg.branch_destinations(term) {
            for (&p, &a) in func.dfg.block_params(d.block).iter().zip(&d.args) {
                operands[p].push(a);
                if is_param[a] && a != p {
                    read_by[a].push(p);
                }
            }
        }
    }
    let mut forward: SecondaryMap<Value, PackedOption<Value>> = SecondaryMap::new();
    let mut work: Vec<Value> = blocks
        .iter()
        .rev()
        .flat_map(|&b| func.dfg.block_params(b).iter().rev().copied())
        .collect();
    let mut removed = 0;
    while let Some(p) = work.pop() {
        if forward[p].is_some() {
            continue;
        }
        let mut only = None;
        let mut trivial = true;
        for &a in &operands[p] {
            let a = resolve(&mut forward, a);
            if a == p || only == Some(a) || is_undef(func, a) {
                continue;
            }
            if only.is_some() {
                trivial = false;
                break;
            }
            only = Some(a);
        }
        let Some(w) = only else { continue };
        let ValueDef::Param(block, _) = func.dfg.value_def(p) else {
            continue;
        };
        if !trivial || !regions.visible(func, w, block) || !available(func, &dom, w, block) {
            continue;
        }
        forward[p] = w.into();
        removed += 1;
        work.extend(read_by[p].iter().copied());
    }
    if removed == 0 {
        return 0;
    }
    // every use reads the value its parameter forwarded
    for &b in &blocks {
        let insts: Vec<_> = func.layout.block_insts(b).collect();
        for inst in insts {
            func.dfg
                .map_inst_values(inst, |v| resolve_shared(&forward, v));
        }
    }
    // the forwarded parameters go, with the arguments that fed them
    for &b in &blocks {
        let Some(term) = func.layout.last_inst(b) else {
            continue;
        };
        let dests: Vec<Block> = func
            .dfg
            .branch_destinations(term)
            .iter()
            .map(|d| d.block)
            .collect();
        for (k, target) in dests.into_iter().enumerate() {
            let keep: Vec<bool> = func
                .dfg
                .block_params(target)
                .iter()
                .map(|&p| forward[p].is_none())
                .collect();
            if keep.iter().all(|&k| k) {
                continue;
            }
            let d = &mut func.dfg.inst_data_mut(term).branch_destinations_mut()[k];
            let mut i = 0;
            d.args.retain(|_| {
                i += 1;
                keep[i - 1]
            });
        }
    }
    for &b in &blocks {
        if func
            .dfg
            .block_params(b)
            .iter()
            .all(|&p| forward[p].is_none())
        {
            continue;
        }
        let params = func.dfg.detach_block_params(b);
        for p in params {
            if forward[p].is_none() {
                func.dfg.attach_block_param(b, p);
            }
        }
    }
    removed
}

/// Whether `v` is the result of an `undef`.
fn is_undef(func: &Function, v: Value) -> bool {
    matches!(func.dfg.value_def(v), ValueDef::Result(inst, _) if func.dfg.opcode(inst) == Opcode::Undef)
}

/// The block that defines `v` (`None` for a detached value).
fn def_block(func: &Function, v: Value) -> Option<Block> {
    match func.dfg.value_def(v) {
        ValueDef::Param(b, _) => Some(b),
        ValueDef::Result(inst, _) => func.layout.inst_block(inst),
        ValueDef::Detached => None,
    }
}

/// Whether `w` is defined at the start of block `x`: a parameter of `x`, or a value of a
/// block that strictly dominates `x`. (A trivial φ's operand always is; one that is
/// trivial only once its `undef` operands are ignored may not be.)
fn available(func: &Function, dom: &DominatorTree, w: Value, x: Block) -> bool {
    match func.dfg.value_def(w) {
        ValueDef::Param(b, _) if b == x => true,
        _ => def_block(func, w).is_some_and(|d| dom.strictly_dominates(d, x)),
    }
}

/// What `v` stands for after forwarding (following chains, shortening them).
fn resolve(forward: &mut SecondaryMap<Value, PackedOption<Value>>, v: Value) -> Value {
    let root = resolve_shared(forward, v);
    let mut x = v;
    while let Some(next) = forward[x].expand() {
        forward[x] = root.into();
        x = next;
    }
    root
}

fn resolve_shared(forward: &SecondaryMap<Value, PackedOption<Value>>, mut v: Value) -> Value {
    while let Some(next) = forward[v].expand() {
        v = next;
    }
    v
}

/// The regions of the structure (the top level, each arm, each loop body), numbered
/// in preorder so that `r` encloses `s` when `first[r] <= s <= last[r]`, and the
/// region of every block.
struct Regions {
    of_block: SecondaryMap<Block, u32>,
    /// The last region inside region `r` (itself when it has none).
    last: Vec<u32>,
}

impl Regions {
    fn of(tree: &Tree) -> Regions {
        enum Work<'t> {
            Open(&'t Tree, Option<(Block, Block)>),
            Item(&'t Tree, u32),
            Close(u32),
        }
        let mut of_block: SecondaryMap<Block, u32> = SecondaryMap::new();
        let mut last: Vec<u32> = Vec::new();
        let mut stack = vec![Work::Open(tree, None)];
        while let Some(w) = stack.pop() {
            match w {
                Work::Open(t, header_tail) => {
                    let r = last.len() as u32;
                    last.push(r);
                    if let Some((header, tail)) = header_tail {
                        of_block[header] = r;
                        of_block[tail] = r;
                    }
                    stack.push(Work::Close(r));
                    stack.push(Work::Item(t, r));
                }
                Work::Close(r) => last[r as usize] = last.len() as u32 - 1,
                Work::Item(t, r) => match t {
                    Tree::Block(b) => of_block[*b] = r,
                    Tree::Seq(items) => stack.extend(items.iter().rev().map(|i| Work::Item(i, r))),
                    Tree::Branch { head, arms, .. } => {
                        of_block[*head] = r;
                        stack.extend(arms.iter().rev().map(|(_, a)| Work::Open(a, None)));
                    }
                    Tree::Loop {
                        header, body, tail, ..
                    } => stack.push(Work::Open(body, Some((*header, *tail)))),
                },
            }
        }
        Regions { of_block, last }
    }

    /// Whether `w` is defined in the region of block `x` or in one around it.
    fn visible(&self, func: &Function, w: Value, x: Block) -> bool {
        let Some(def) = def_block(func, w) else {
            return false;
        };
        let (r, s) = (self.of_block[def], self.of_block[x]);
        r <= s && s <= self.last[r as usize]
    }
}

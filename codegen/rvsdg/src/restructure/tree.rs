//! The structure tree of a function in structured form, and the check that it is in
//! that form ([`structure_tree`]). The invariants are those of the module
//! documentation (`restructure`, "The structure tree").
//!
//! The check parses the function from its entry with an explicit stack (no recursion:
//! nesting can be as deep as the function is long). Loop headers are the blocks with a
//! back edge (an edge from a block they dominate); the join of a branch is the
//! immediate post-dominator of its head. Every block is parsed once; a block reached
//! twice, an edge that leaves a construct other than through its end, or a block never
//! reached, is an error naming the block.

use super::editor::group_dests;
use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashMap;
use vliw_ir::{
    Block, ControlFlowGraph, DominatorTree, Function, InstructionData, Opcode, PostDominatorTree,
    Value,
};

/// The structure of a function in structured form (see the module documentation of
/// `restructure` for the exact invariants).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tree {
    /// A block that ends in `jump` to the entry block of the next item of its
    /// sequence (or, for the last item, to the sequence's end); or, as the last item of
    /// the top-level sequence only, a block that ends in `return` or `trap`.
    Block(Block),
    /// Items (`Block`, `Branch`, `Loop`; never a `Seq`) executed one after the other.
    Seq(Vec<Tree>),
    /// `head` ends in `brif`/`switch` with at least two logical edges (destinations
    /// grouped by target and arguments); one arm per logical edge, in the order of
    /// their first destinations, as `(index of the first destination in
    /// branch_destinations, Seq)`. Every arm flows into `join`; `join: None` only for
    /// the last item of the top-level sequence, whose arms are `Seq([Block(t)])` with
    /// `t` ending in `return` or `trap`.
    Branch {
        head: Block,
        arms: Vec<(usize, Tree)>,
        join: Option<Block>,
    },
    /// A tail-controlled loop: `tail` ends in `brif r, header(args), exit(args)`,
    /// repeating while `r` is true; `body` is the `Seq` from `header` to `tail`
    /// (empty when `header == tail`); `exit` is the entry block of the next item (or
    /// the enclosing end).
    Loop {
        header: Block,
        body: Box<Tree>,
        tail: Block,
        exit: Block,
    },
}

impl Tree {
    /// The items of a `Seq` (a one-item slice for anything else).
    pub fn items(&self) -> &[Tree] {
        match self {
            Tree::Seq(items) => items,
            other => core::slice::from_ref(other),
        }
    }

    /// The block control enters the item or sequence by (`None` for an empty `Seq`).
    pub fn entry(&self) -> Option<Block> {
        match self {
            Tree::Block(b) => Some(*b),
            Tree::Seq(items) => items.first().and_then(Tree::entry),
            Tree::Branch { head, .. } => Some(*head),
            Tree::Loop { header, .. } => Some(*header),
        }
    }

    /// Counts (loops, branches, blocks as `Block` items) in the tree.
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        let mut stack = vec![self];
        while let Some(t) = stack.pop() {
            match t {
                Tree::Block(_) => c.2 += 1,
                Tree::Seq(items) => stack.extend(items),
                Tree::Branch { arms, .. } => {
                    c.1 += 1;
                    stack.extend(arms.iter().map(|(_, a)| a));
                }
                Tree::Loop { body, .. } => {
                    c.0 += 1;
                    stack.push(body);
                }
            }
        }
        c
    }
}

/// The structure tree of `func`, which must be in structured form; otherwise an error
/// that names the offending block. `func` should verify.
pub fn structure_tree(func: &Function) -> Result<Tree, String> {
    let name = &func.name;
    let err = |m: String| format!("function @{name}: {m}");
    let entry = func
        .layout
        .entry_block()
        .ok_or_else(|| err("no blocks".into()))?;
    check_block_local(func).map_err(err)?;
    let mut p = Parser::new(func);
    let tree = p.parse(entry).map_err(err)?;
    if let Some(b) = func.layout.blocks().find(|&b| !p.visited[b]) {
        return Err(err(format!(
            "{b} is not part of the structure (unreachable, or reached only from inside a \
             loop through an edge that is not the loop's)"
        )));
    }
    Ok(tree)
}

/// Rule 1 (every value a block uses is defined in the block) and no `unreachable`.
fn check_block_local(func: &Function) -> Result<(), String> {
    let mut def_in: SecondaryMap<Value, u32> = SecondaryMap::new();
    for b in func.layout.blocks() {
        let tag = b.as_u32() + 1;
        for &p in func.dfg.block_params(b) {
            def_in[p] = tag;
        }
        for inst in func.layout.block_insts(b) {
            if let Some(v) = func.dfg.inst_values(inst).find(|&v| def_in[v] != tag) {
                return Err(format!(
                    "{b} uses {v}, which it does not define (values cross blocks only as \
                     branch arguments)"
                ));
            }
            for &r in func.dfg.inst_results(inst) {
                def_in[r] = tag;
            }
        }
    }
    Ok(())
}

enum Frame {
    /// A sequence being parsed: `cur` is the block of its next item, `end` where it
    /// ends (`None`: the top level, which ends after a terminal item, `done`).
    Seq {
        items: Vec<Tree>,
        cur: Block,
        end: Option<Block>,
        /// The header of the loop whose body this is: parsed as a block, not a loop.
        body_of: Option<Block>,
        done: bool,
    },
    /// A branch whose arms are being parsed; `todo` in reverse order.
    Branch {
        head: Block,
        join: Block,
        todo: Vec<(usize, Block)>,
        arms: Vec<(usize, Tree)>,
        current: usize,
    },
    /// A loop whose body is being parsed.
    Loop {
        header: Block,
        tail: Block,
        exit: Block,
    },
}

struct Parser<'a> {
    func: &'a Function,
    cfg: ControlFlowGraph,
    dom: DominatorTree,
    pdom: PostDominatorTree,
    visited: SecondaryMap<Block, bool>,
    /// How many open constructs end at a block.
    active_end: SecondaryMap<Block, u32>,
    returns: usize,
}

impl<'a> Parser<'a> {
    fn new(func: &'a Function) -> Self {
        let cfg = ControlFlowGraph::compute(func);
        let dom = DominatorTree::with_cfg(func, &cfg);
        let pdom = PostDominatorTree::compute(&cfg);
        Parser {
            func,
            cfg,
            dom,
            pdom,
            visited: SecondaryMap::new(),
            active_end: SecondaryMap::new(),
            returns: 0,
        }
    }

    fn term(&self, b: Block) -> &'a InstructionData {
        let inst = self
            .func
            .layout
            .last_inst(b)
            .expect("verified: blocks are not empty");
        self.func.dfg.inst_data(inst)
    }

    fn is_terminal(&self, b: Block) -> bool {
        matches!(
            self.term(b),
            InstructionData::Return { .. }
                | InstructionData::Trap { .. }
                | InstructionData::Nullary {
                    opcode: Opcode::Unreachable
                }
        )
    }

    fn visit(&mut self, b: Block) -> Result<(), String> {
        if self.visited[b] {
            return Err(format!(
                "{b} is reached twice (a shared block, or a cycle that is not a \
                 tail-controlled loop)"
            ));
        }
        self.visited[b] = true;
        if matches!(self.term(b), InstructionData::Return { .. }) {
            self.returns += 1;
            if self.returns > 1 {
                return Err(format!("{b} is a second block ending in return"));
            }
        }
        Ok(())
    }

    fn parse(&mut self, entry: Block) -> Result<Tree, String> {
        let mut stack = vec![Frame::Seq {
            items: Vec::new(),
            cur: entry,
            end: None,
            body_of: None,
            done: false,
        }];
        loop {
            let Some(top) = stack.last_mut() else {
                unreachable!("the top-level sequence delivers the tree")
            };
            match top {
                Frame::Seq {
                    items,
                    cur,
                    end,
                    done,
                    ..
                } if *done || Some(*cur) == *end => {
                    let tree = Tree::Seq(core::mem::take(items));
                    stack.pop();
                    if let Some(t) = self.deliver(&mut stack, tree)? {
                        return Ok(t);
                    }
                }
                Frame::Seq { .. } => self.item(&mut stack)?,
                Frame::Branch {
                    todo,
                    join,
                    arms,
                    current,
                    ..
                } => match todo.pop() {
                    Some((i, t)) if t == *join => arms.push((i, Tree::Seq(Vec::new()))),
                    Some((i, t)) => {
                        *current = i;
                        let end = Some(*join);
                        stack.push(Frame::Seq {
                            items: Vec::new(),
                            cur: t,
                            end,
                            body_of: None,
                            done: false,
                        });
                    }
                    None => {
                        let Some(Frame::Branch {
                            head, join, arms, ..
                        }) = stack.pop()
                        else {
                            unreachable!()
                        };
                        self.active_end[join] -= 1;
                        let Some(Frame::Seq { items, cur, .. }) = stack.last_mut() else {
                            unreachable!("a branch is an item of a sequence")
                        };
                        items.push(Tree::Branch {
                            head,
                            arms,
                            join: Some(join),
                        });
                        *cur = join;
                    }
                },
                Frame::Loop { .. } => unreachable!("a loop frame always has its body on top"),
            }
        }
    }

    /// Hands a finished sequence to its parent; `Some` for the top-level one.
    fn deliver(&mut self, stack: &mut Vec<Frame>, tree: Tree) -> Result<Option<Tree>, String> {
        match stack.last_mut() {
            None => Ok(Some(tree)),
            Some(Frame::Branch { arms, current, .. }) => {
                arms.push((*current, tree));
                Ok(None)
            }
            Some(Frame::Loop { .. }) => {
                let Some(Frame::Loop { header, tail, exit }) = stack.pop() else {
                    unreachable!()
                };
                self.active_end[tail] -= 1;
                self.visit(tail)?;
                if self.back_preds(tail).next().is_some() {
                    return Err(format!(
                        "{tail}, the tail of the loop headed by {header}, has a back edge"
                    ));
                }
                let Some(Frame::Seq { items, cur, .. }) = stack.last_mut() else {
                    unreachable!("a loop is an item of a sequence")
                };
                items.push(Tree::Loop {
                    header,
                    body: Box::new(tree),
                    tail,
                    exit,
                });
                *cur = exit;
                Ok(None)
            }
            Some(Frame::Seq { .. }) => unreachable!("a sequence is not an item"),
        }
    }

    /// Predecessors `p` of `b` that `b` dominates: the sources of its back edges.
    fn back_preds(&self, b: Block) -> impl Iterator<Item = Block> + '_ {
        self.cfg
            .preds(b)
            .iter()
            .copied()
            .filter(move |&p| self.dom.dominates(b, p))
    }

    /// Whether `p` is the only predecessor of `b` other than the sources of `b`'s back
    /// edges (an arm may start with a loop).
    fn only_forward_pred(&self, b: Block, p: Block) -> bool {
        let mut forward = self
            .cfg
            .preds(b)
            .iter()
            .filter(|&&q| !self.dom.dominates(b, q));
        forward.next() == Some(&p) && forward.next().is_none()
    }

    /// Parses the item at the top sequence's `cur`.
    fn item(&mut self, stack: &mut Vec<Frame>) -> Result<(), String> {
        let Some(Frame::Seq {
            cur, end, body_of, ..
        }) = stack.last()
        else {
            unreachable!()
        };
        let (cur, end, body_of) = (*cur, *end, *body_of);
        if self.active_end[cur] > 0 {
            return Err(format!(
                "an edge to {cur} leaves a construct that ends at {}",
                end.map_or("the function's exit".to_string(), |e| e.to_string())
            ));
        }

        // A loop?
        if body_of != Some(cur) {
            let back: Vec<Block> = self.back_preds(cur).take(2).collect();
            if let Some(&tail) = back.first() {
                if let Some(&other) = back.get(1) {
                    return Err(format!(
                        "{cur} heads a loop with two back edges (from {tail} and {other})"
                    ));
                }
                let exit = match self.term(tail) {
                    InstructionData::Brif { blocks, .. }
                        if blocks[0].block == cur && blocks[1].block != cur =>
                    {
                        blocks[1].block
                    }
                    _ => {
                        return Err(format!(
                            "{tail}, the back edge of the loop headed by {cur}, does not end \
                             in `brif r, {cur}(..), exit(..)`"
                        ));
                    }
                };
                if tail == cur {
                    self.visit(cur)?;
                    let Some(Frame::Seq { items, cur: c, .. }) = stack.last_mut() else {
                        unreachable!()
                    };
                    items.push(Tree::Loop {
                        header: cur,
                        body: Box::new(Tree::Seq(Vec::new())),
                        tail: cur,
                        exit,
                    });
                    *c = exit;
                } else {
                    self.active_end[tail] += 1;
                    stack.push(Frame::Loop {
                        header: cur,
                        tail,
                        exit,
                    });
                    stack.push(Frame::Seq {
                        items: Vec::new(),
                        cur,
                        end: Some(tail),
                        body_of: Some(cur),
                        done: false,
                    });
                }
                return Ok(());
            }
        }

        self.visit(cur)?;
        let term = self.term(cur);
        let Some(Frame::Seq {
            items,
            cur: next,
            done,
            ..
        }) = stack.last_mut()
        else {
            unreachable!()
        };
        match term {
            InstructionData::Jump { dest, .. } => {
                items.push(Tree::Block(cur));
                *next = dest.block;
                Ok(())
            }
            InstructionData::Return { .. }
            | InstructionData::Trap { .. }
            | InstructionData::Nullary {
                opcode: Opcode::Unreachable,
            } => {
                if end.is_some() {
                    return Err(format!(
                        "{cur} ends in {} inside a construct (only the function's last \
                         item may)",
                        term.opcode()
                    ));
                }
                items.push(Tree::Block(cur));
                *done = true;
                Ok(())
            }
            InstructionData::Brif { .. } | InstructionData::Switch { .. } => {
                let dests = term.branch_destinations();
                let groups = group_dests(dests);
                if groups.len() < 2 {
                    return Err(format!(
                        "{cur} ends in a {} whose destinations are all equal (restructure \
                         makes it a jump)",
                        term.opcode()
                    ));
                }
                let arm_targets: Vec<(usize, Block)> = groups
                    .iter()
                    .map(|g| (g[0] as usize, dests[g[0] as usize].block))
                    .collect();
                let mut edges_to: FxHashMap<Block, u32> = FxHashMap::default();
                for &(_, t) in &arm_targets {
                    *edges_to.entry(t).or_default() += 1;
                }
                let single = |t: Block| edges_to[&t] == 1;
                match self.pdom.ipdom(cur) {
                    None => {
                        // The final branch: its arms are terminal blocks.
                        if end.is_some() {
                            return Err(format!(
                                "{cur} branches to the function's exits from inside a construct"
                            ));
                        }
                        let mut arms = Vec::new();
                        for &(i, t) in &arm_targets {
                            if !self.is_terminal(t) || self.cfg.preds(t) != [cur] || !single(t) {
                                return Err(format!(
                                    "{cur} ends the function: {t} must end in return or trap \
                                     and be reached only by one edge of {cur}"
                                ));
                            }
                            arms.push((i, Tree::Seq(vec![Tree::Block(t)])));
                        }
                        let Some(Frame::Seq { items, done, .. }) = stack.last_mut() else {
                            unreachable!()
                        };
                        items.push(Tree::Branch {
                            head: cur,
                            arms,
                            join: None,
                        });
                        *done = true;
                        for &(_, t) in &arm_targets {
                            self.visit(t)?;
                        }
                        Ok(())
                    }
                    Some(join) => {
                        if self.active_end[join] > 0 && Some(join) != end {
                            return Err(format!(
                                "the branch at {cur} joins at {join}, the end of an enclosing \
                                 construct"
                            ));
                        }
                        for &(_, t) in &arm_targets {
                            if t != join && (!self.only_forward_pred(t, cur) || !single(t)) {
                                return Err(format!(
                                    "{t}, the first block of an arm of the branch at {cur}, \
                                     has other predecessors (its join is {join})"
                                ));
                            }
                        }
                        self.active_end[join] += 1;
                        let mut todo = arm_targets;
                        todo.reverse();
                        stack.push(Frame::Branch {
                            head: cur,
                            join,
                            todo,
                            arms: Vec::new(),
                            current: 0,
                        });
                        Ok(())
                    }
                }
            }
            _ => Err(format!(
                "{cur} ends in {} (restructure turns it into a jump to the exit)",
                term.opcode()
            )),
        }
    }
}

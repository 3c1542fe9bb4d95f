//! The editing layer of the restructuring: the function with a mirror of its CFG that
//! stays exact under the edits (successors and predecessors per block, deduplicated
//! like `vliw_ir::ControlFlowGraph`), edge groups, constants created where an edge
//! needs them, and mux blocks (a selector parameter and slots, switching to
//! several targets).
//!
//! Every edit keeps values block-local (rule 1 of the module documentation): the
//! arguments an edit puts on an edge are values of the edge's source block (its
//! parameters, results of its instructions, or constants created in it just before its
//! terminator), and a new block's terminator passes only its own parameters.

use super::RestructureStats;
use cranelift_entity::SecondaryMap;
use cranelift_entity::packed_option::PackedOption;
use rustc_hash::FxHashMap;
use vliw_ir::{Block, BlockCall, Function, Inst, InstructionData, Opcode, SwitchData, Type, Value};

/// One logical edge: the destinations of `src`'s terminator (indices into its
/// `branch_destinations`) that go to `target` with the same arguments. A `switch` whose
/// cases share a target and arguments has one edge for all of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Edge {
    pub src: Block,
    pub dests: Vec<u32>,
    pub target: Block,
}

/// A block that switches on a selector parameter to `targets[i]` when the selector is
/// `i`: `brif sel, targets[1], targets[0]` for two targets (selector `i1`), `switch sel,
/// targets[n-1], [0 -> targets[0], ..., n-2 -> targets[n-2]]` for more (selector `i32`).
/// The other parameters are slots: with two targets, one per parameter of each target;
/// with more, shared among the targets by type (the `k`-th parameter of type `t` of
/// every target is fed from the `k`-th slot of type `t`).
pub(crate) struct Mux {
    pub block: Block,
    pub targets: Vec<Block>,
    sel_ty: Type,
    slot_tys: Vec<Type>,
    /// Per target, per slot: the target's parameter fed from the slot, if any.
    fed: Vec<Vec<Option<u32>>>,
}

/// The destinations of a terminator grouped by target and arguments (its logical
/// edges), each group in increasing index order, the groups in the order of their
/// first index.
pub(crate) fn group_dests(dests: &[BlockCall]) -> Vec<Vec<u32>> {
    let mut out: Vec<Vec<u32>> = Vec::new();
    if dests.len() <= 8 {
        for (i, d) in dests.iter().enumerate() {
            match out.iter_mut().find(|g| dests[g[0] as usize] == *d) {
                Some(g) => g.push(i as u32),
                None => out.push(vec![i as u32]),
            }
        }
    } else {
        let mut index: FxHashMap<(Block, &[Value]), usize> = FxHashMap::default();
        for (i, d) in dests.iter().enumerate() {
            match index.get(&(d.block, d.args.as_slice())) {
                Some(&k) => out[k].push(i as u32),
                None => {
                    index.insert((d.block, d.args.as_slice()), out.len());
                    out.push(vec![i as u32]);
                }
            }
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum ConstKey {
    Int(Block, Type, u128),
    Undef(Block, Type),
}

pub(crate) struct Editor<'f> {
    pub func: &'f mut Function,
    succs: SecondaryMap<Block, Vec<Block>>,
    preds: SecondaryMap<Block, Vec<Block>>,
    consts: FxHashMap<ConstKey, Value>,
    /// Scratch marks of the clients; a mark is valid when it equals the generation it
    /// was set with.
    mark: SecondaryMap<Block, u32>,
    /// Scratch marks of `refresh`, separate so that a refresh never clobbers a
    /// client's marks.
    rmark: SecondaryMap<Block, u32>,
    generation: u32,
    /// The tail of the loop each collapsed loop header heads (see `loops`).
    loop_tail: SecondaryMap<Block, PackedOption<Block>>,
    pub stats: RestructureStats,
}

impl<'f> Editor<'f> {
    /// The editor over `func`, whose blocks must all end in a terminator.
    pub fn new(func: &'f mut Function, stats: RestructureStats) -> Self {
        let mut ed = Editor {
            func,
            succs: SecondaryMap::new(),
            preds: SecondaryMap::new(),
            consts: FxHashMap::default(),
            mark: SecondaryMap::new(),
            rmark: SecondaryMap::new(),
            generation: 0,
            loop_tail: SecondaryMap::new(),
            stats,
        };
        let blocks: Vec<Block> = ed.func.layout.blocks().collect();
        for b in blocks {
            ed.refresh(b);
        }
        ed
    }

    /// A fresh generation of scratch marks.
    pub fn next_generation(&mut self) -> u32 {
        self.generation += 1;
        self.generation
    }

    pub fn set_mark(&mut self, b: Block, g: u32) {
        self.mark[b] = g;
    }

    pub fn has_mark(&self, b: Block, g: u32) -> bool {
        self.mark[b] == g
    }

    // ---- the CFG mirror ----

    pub fn succs(&self, b: Block) -> &[Block] {
        &self.succs[b]
    }

    pub fn preds(&self, b: Block) -> &[Block] {
        &self.preds[b]
    }

    pub fn terminator(&self, b: Block) -> Inst {
        self.func
            .layout
            .last_inst(b)
            .unwrap_or_else(|| panic!("restructure: {b} has no terminator"))
    }

    pub fn opcode_of_terminator(&self, b: Block) -> Opcode {
        self.func.dfg.opcode(self.terminator(b))
    }

    pub fn dests(&self, b: Block) -> &[BlockCall] {
        self.func.dfg.branch_destinations(self.terminator(b))
    }

    /// Recomputes `b`'s successors from its terminator and updates the predecessor
    /// lists of the targets it gained or lost. Call after editing `b`'s terminator.
    pub fn refresh(&mut self, b: Block) {
        self.refresh_all(&[b]);
    }

    /// Refreshes each block of `blocks` (once). The sources a target lost are removed
    /// from its predecessor list in one pass per target, so redirecting many edges
    /// away from a block with many predecessors stays linear.
    pub fn refresh_all(&mut self, blocks: &[Block]) {
        let g = self.next_generation();
        let mut todo = Vec::new();
        for &b in blocks {
            if self.rmark[b] != g {
                self.rmark[b] = g;
                todo.push(b);
            }
        }
        // (lost target, source) pairs.
        let mut lost: Vec<(Block, Block)> = Vec::new();
        for b in todo {
            let old = core::mem::take(&mut self.succs[b]);
            let g_new = self.next_generation();
            let mut new = Vec::new();
            let term = self.terminator(b);
            for d in self.func.dfg.branch_destinations(term) {
                if self.rmark[d.block] != g_new {
                    self.rmark[d.block] = g_new;
                    new.push(d.block);
                }
            }
            for &t in &old {
                if self.rmark[t] != g_new {
                    lost.push((t, b));
                }
            }
            let g_old = self.next_generation();
            for &t in &old {
                self.rmark[t] = g_old;
            }
            for &t in &new {
                if self.rmark[t] != g_old {
                    self.preds[t].push(b);
                }
            }
            self.succs[b] = new;
        }
        lost.sort_unstable();
        for group in lost.chunk_by(|x, y| x.0 == y.0) {
            let t = group[0].0;
            if let [(_, b)] = group {
                let ps = &mut self.preds[t];
                let pos = ps.iter().position(|p| p == b).expect("pred list in sync");
                ps.remove(pos);
            } else {
                let g = self.next_generation();
                for &(_, b) in group {
                    self.rmark[b] = g;
                }
                let rmark = &self.rmark;
                self.preds[t].retain(|&p| rmark[p] != g);
            }
        }
    }

    /// Whether the mirror agrees with the function's CFG (for debug assertions).
    pub fn cfg_in_sync(&self) -> bool {
        let cfg = vliw_ir::ControlFlowGraph::compute(self.func);
        let sorted = |xs: &[Block]| {
            let mut v = xs.to_vec();
            v.sort();
            v
        };
        self.func.layout.blocks().all(|b| {
            sorted(cfg.succs(b)) == sorted(&self.succs[b])
                && sorted(cfg.preds(b)) == sorted(&self.preds[b])
        })
    }

    /// The logical edges of `b`'s terminator, in the order of their first destination.
    pub fn edges(&self, b: Block) -> Vec<Edge> {
        let dests = self.dests(b);
        group_dests(dests)
            .into_iter()
            .map(|g| Edge {
                src: b,
                target: dests[g[0] as usize].block,
                dests: g,
            })
            .collect()
    }

    /// Sets destination `idx` of `src`'s terminator (call `refresh(src)` afterwards).
    pub fn set_dest(&mut self, src: Block, idx: u32, call: BlockCall) {
        let term = self.terminator(src);
        self.func.dfg.inst_data_mut(term).branch_destinations_mut()[idx as usize] = call;
    }

    /// Replaces `b`'s terminator by `data` (call `refresh(b)` afterwards).
    pub fn replace_terminator(&mut self, b: Block, data: InstructionData) {
        let term = self.terminator(b);
        self.func.dfg.replace_inst(term, data);
    }

    // ---- loops collapsed for the enclosing region ----

    /// Records that `header` heads a tail-controlled loop whose tail is `tail`: seen
    /// from the enclosing region, the loop is one node with one edge, the tail's exit
    /// edge (destination 1 of its `brif`).
    pub fn collapse_loop(&mut self, header: Block, tail: Block) {
        debug_assert!(
            self.succs[tail].len() == 2 && self.succs[tail][0] == header,
            "{tail} ends in brif {header}, exit"
        );
        self.loop_tail[header] = tail.into();
    }

    pub fn loop_tail(&self, header: Block) -> Option<Block> {
        self.loop_tail[header].expand()
    }

    pub fn is_collapsed(&self, b: Block) -> bool {
        self.loop_tail[b].is_some()
    }

    /// The edge leaving a collapsed loop.
    pub fn loop_exit_edge(&self, header: Block) -> Edge {
        let tail = self.loop_tail(header).expect("a collapsed loop");
        Edge {
            src: tail,
            dests: vec![1],
            target: self.dests(tail)[1].block,
        }
    }

    /// Distinct successors of `b` in the region view: a collapsed loop's header has
    /// its loop's exit target as only successor.
    pub fn view_succs(&self, b: Block) -> &[Block] {
        match self.loop_tail(b) {
            // The tail's successors are [header, exit] (its `brif`'s destinations).
            Some(t) => &self.succs[t][1..],
            None => &self.succs[b],
        }
    }

    /// Edges of `b` in the region view.
    pub fn view_edges(&self, b: Block) -> Vec<Edge> {
        if self.is_collapsed(b) {
            vec![self.loop_exit_edge(b)]
        } else {
            self.edges(b)
        }
    }

    /// The number of predecessors of `b` in the region view: a collapsed loop's tail
    /// counts as its header, and a header's back edge does not count.
    pub fn view_indegree(&self, b: Block) -> usize {
        self.preds[b].len() - usize::from(self.is_collapsed(b))
    }

    // ---- new instructions and blocks ----

    fn insert_before_terminator(&mut self, b: Block, data: InstructionData, ty: Type) -> Value {
        let inst = self.func.dfg.make_inst(data);
        let v = self.func.dfg.append_result(inst, ty);
        match self.func.layout.last_inst(b) {
            Some(last) if self.func.dfg.opcode(last).is_terminator() => {
                self.func.layout.insert_inst_before(inst, last)
            }
            _ => self.func.layout.append_inst(inst, b),
        }
        v
    }

    /// `iconst.ty imm` in `b` (before its terminator), shared by all users in `b`.
    pub fn iconst(&mut self, b: Block, ty: Type, imm: u128) -> Value {
        let imm = imm & ty.mask();
        let key = ConstKey::Int(b, ty, imm);
        if let Some(&v) = self.consts.get(&key) {
            return v;
        }
        let data = InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        };
        let v = self.insert_before_terminator(b, data, ty);
        self.consts.insert(key, v);
        v
    }

    /// `undef.ty` in `b` (before its terminator), shared by all users in `b`.
    pub fn undef(&mut self, b: Block, ty: Type) -> Value {
        let key = ConstKey::Undef(b, ty);
        if let Some(&v) = self.consts.get(&key) {
            return v;
        }
        let data = InstructionData::Nullary {
            opcode: Opcode::Undef,
        };
        let v = self.insert_before_terminator(b, data, ty);
        self.consts.insert(key, v);
        v
    }

    /// `undef` values in `b` for each parameter of `target`.
    pub fn undef_args(&mut self, b: Block, target: Block) -> Vec<Value> {
        let tys: Vec<Type> = self.param_types(target);
        tys.into_iter().map(|t| self.undef(b, t)).collect()
    }

    pub fn param_types(&self, b: Block) -> Vec<Type> {
        self.func
            .dfg
            .block_params(b)
            .iter()
            .map(|&p| self.func.dfg.value_type(p))
            .collect()
    }

    /// A new block with parameters of types `params`, placed before `before` (at the
    /// end of the layout if `None`), without instructions yet.
    pub fn new_block(&mut self, params: &[Type], before: Option<Block>) -> (Block, Vec<Value>) {
        let b = self.func.dfg.make_block();
        match before {
            Some(x) => self.func.layout.insert_block_before(b, x),
            None => self.func.layout.append_block(b),
        }
        let vs = params
            .iter()
            .map(|&t| self.func.dfg.append_block_param(b, t))
            .collect();
        self.stats.blocks_added += 1;
        self.stats.params_added += params.len();
        (b, vs)
    }

    /// Appends `data` as the terminator of the new block `b` and registers its edges.
    pub fn append_terminator(&mut self, b: Block, data: InstructionData) {
        let inst = self.func.dfg.make_inst(data);
        self.func.layout.append_inst(inst, b);
        self.refresh(b);
    }

    /// A mux block switching to `targets` (at least two), placed before `before`.
    pub fn create_mux(&mut self, targets: &[Block], before: Option<Block>) -> Mux {
        let n = targets.len();
        assert!(n >= 2, "a mux has at least two targets");
        let sel_ty = if n == 2 { Type::I1 } else { Type::I32 };
        // Slots. With two targets (a loop's tail choosing between its header and its
        // exit, or a two-way merge) each target has slots of its own: sharing them
        // would make one slot carry different values on different paths (a loop's
        // bound in the exit's slot on one path, in the header's on another), which
        // hides what is invariant from the RVSDG's passes; a slot is `undef` on the
        // other target's paths, and invariant value redirection treats `undef` as
        // agreeing with anything. With more targets (the merged exits of a state
        // machine) the slots are shared by type: the `k`-th parameter of type `t` of
        // every target is fed from the `k`-th slot of type `t`, so that the number of
        // slots stays the largest target's, not the sum over all targets.
        let shared = n > 2;
        let mut by_type: Vec<(Type, Vec<usize>)> = Vec::new();
        let mut slot_tys: Vec<Type> = Vec::new();
        let mut slot_of: Vec<Vec<usize>> = Vec::with_capacity(n);
        for &t in targets {
            let mut seen: Vec<(Type, usize)> = Vec::new();
            let mut mine = Vec::new();
            for ty in self.param_types(t) {
                if !shared {
                    mine.push(slot_tys.len());
                    slot_tys.push(ty);
                    continue;
                }
                let k = match seen.iter_mut().find(|(x, _)| *x == ty) {
                    Some((_, c)) => {
                        *c += 1;
                        *c - 1
                    }
                    None => {
                        seen.push((ty, 1));
                        0
                    }
                };
                let list = match by_type.iter().position(|(x, _)| *x == ty) {
                    Some(p) => &mut by_type[p].1,
                    None => {
                        by_type.push((ty, Vec::new()));
                        &mut by_type.last_mut().expect("just pushed").1
                    }
                };
                if list.len() == k {
                    list.push(slot_tys.len());
                    slot_tys.push(ty);
                }
                mine.push(list[k]);
            }
            slot_of.push(mine);
        }
        let mut params = vec![sel_ty];
        params.extend_from_slice(&slot_tys);
        let (block, vs) = self.new_block(&params, before);
        let sel = vs[0];
        let slots = &vs[1..];
        let calls: Vec<BlockCall> = targets
            .iter()
            .zip(&slot_of)
            .map(|(&t, so)| BlockCall {
                block: t,
                args: so.iter().map(|&s| slots[s]).collect(),
            })
            .collect();
        let data = if n == 2 {
            InstructionData::Brif {
                opcode: Opcode::Brif,
                arg: sel,
                blocks: [calls[1].clone(), calls[0].clone()],
            }
        } else {
            let mut table = SwitchData::new(calls[n - 1].clone());
            for (i, c) in calls[..n - 1].iter().enumerate() {
                table.push_case(i as u128, c.clone());
            }
            InstructionData::Switch {
                opcode: Opcode::Switch,
                arg: sel,
                table: Box::new(table),
            }
        };
        self.append_terminator(block, data);
        let fed = slot_of
            .iter()
            .map(|so| {
                let mut f = vec![None; slot_tys.len()];
                for (j, &s) in so.iter().enumerate() {
                    f[s] = Some(j as u32);
                }
                f
            })
            .collect();
        Mux {
            block,
            targets: targets.to_vec(),
            sel_ty,
            slot_tys,
            fed,
        }
    }

    /// The arguments an edge from `src` passes to `mux` to reach its target `i` with
    /// `args` (the arguments the edge passed to that target): the selector `i`, the
    /// arguments in their slots, `undef` in the other slots.
    pub fn mux_args(&mut self, mux: &Mux, i: usize, src: Block, args: &[Value]) -> Vec<Value> {
        let mut out = Vec::with_capacity(1 + mux.slot_tys.len());
        out.push(self.iconst(src, mux.sel_ty, i as u128));
        for (s, &ty) in mux.slot_tys.iter().enumerate() {
            out.push(match mux.fed[i][s] {
                Some(j) => args[j as usize],
                None => self.undef(src, ty),
            });
        }
        out
    }

    /// Redirects `edges` (whose targets are among `mux.targets`) into `mux`, then
    /// refreshes their sources.
    pub fn redirect_into_mux(&mut self, mux: &Mux, edges: &[Edge]) {
        let index: FxHashMap<Block, usize> = mux
            .targets
            .iter()
            .enumerate()
            .map(|(i, &t)| (t, i))
            .collect();
        let mut touched = Vec::with_capacity(edges.len());
        for e in edges {
            let args = self.dests(e.src)[e.dests[0] as usize].args.clone();
            let new = self.mux_args(mux, index[&e.target], e.src, &args);
            for &d in &e.dests {
                self.set_dest(e.src, d, BlockCall::new(mux.block, &new));
            }
            touched.push(e.src);
        }
        self.refresh_all(&touched);
    }
}

//! Writing RVSDG operations back as SSA IR instructions, for both ways back to
//! control flow (the structural destruction, `destroy.rs`, and Lawrence's
//! sequentialization, `lawrence/emit.rs`): a cursor at the end of a block, the
//! instruction of a simple node, control values as branches or as `i32` alternative
//! numbers.

use vliw_ir::{
    Block, BlockCall, Function, InstructionData, IntCC, Opcode, SwitchData, Type, Value,
};

use crate::graph::Node;
use crate::ops::{Op, Rvsdg, Ty};

/// What a value-typed or control origin is in the function being emitted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    /// An SSA value.
    Ir(Value),
    /// A control value from `match` node `node` (whose operand is an SSA value).
    Match(Node, Value),
    /// A constant control value.
    Const(u32),
}

/// Where instructions go: the end of `block` of `func`.
pub(crate) struct Cursor<'a> {
    pub g: &'a Rvsdg,
    pub func: &'a mut Function,
    pub block: Block,
}

impl Cursor<'_> {
    pub fn new_block(&mut self) -> Block {
        let b = self.func.dfg.make_block();
        self.func.layout.append_block(b);
        b
    }

    pub fn inst(&mut self, data: InstructionData, results: &[Type]) -> vliw_ir::Inst {
        let inst = self.func.dfg.make_inst(data);
        self.func.dfg.make_inst_results(inst, results);
        self.func.layout.append_inst(inst, self.block);
        inst
    }

    pub fn terminate(&mut self, data: InstructionData) {
        self.inst(data, &[]);
    }

    pub fn jump(&mut self, dest: BlockCall) {
        self.terminate(InstructionData::Jump {
            opcode: Opcode::Jump,
            dest,
        });
    }

    /// Gives the last instruction emitted the source location of node `n` (a γ's or
    /// θ's branch, the λ's `return`), if it has one.
    pub fn locate_last(&mut self, n: Node) {
        let loc = self.g.node(n).loc;
        if let Some(inst) = self.func.layout.last_inst(self.block)
            && !loc.is_default()
        {
            self.func.srclocs[inst] = loc;
        }
    }

    pub fn iconst(&mut self, ty: Type, imm: u128) -> Value {
        let inst = self.inst(
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm: imm & ty.mask(),
            },
            &[ty],
        );
        self.func.dfg.first_result(inst)
    }

    /// The SSA value of `val`: a control value as its `i32` alternative number.
    pub fn value(&mut self, val: Val) -> Value {
        match val {
            Val::Ir(v) => v,
            Val::Const(alt) => self.iconst(Type::I32, alt as u128),
            Val::Match(node, x) => {
                // alt = default, then case by case (the first equal case wins, so go
                // backwards)
                let Some(Op::Match { cases, default, .. }) = self.g.op(node) else {
                    unreachable!("a Match value comes from a match node")
                };
                let cases = cases.clone();
                let ty = self.func.dfg.value_type(x);
                let mut alt = self.iconst(Type::I32, *default as u128);
                for &(c, a) in cases.iter().rev() {
                    let k = self.iconst(ty, c);
                    let eq = self.inst(
                        InstructionData::IntCompare {
                            opcode: Opcode::Icmp,
                            cond: IntCC::Eq,
                            args: [x, k],
                        },
                        &[Type::I1],
                    );
                    let eq = self.func.dfg.first_result(eq);
                    let av = self.iconst(Type::I32, a as u128);
                    let sel = self.inst(
                        InstructionData::Ternary {
                            opcode: Opcode::Select,
                            args: [eq, av, alt],
                        },
                        &[Type::I32],
                    );
                    alt = self.func.dfg.first_result(sel);
                }
                alt
            }
        }
    }

    /// The instruction of simple node `n` (an IR operation, `op`) on `args` (its
    /// value inputs), with the source location of the node; its value results.
    pub fn operation(&mut self, n: Node, op: &Op, args: &[Value]) -> Vec<Value> {
        let g = self.g;
        let data = op.to_inst(args).expect("an IR operation");
        let types: Vec<Type> = g.outputs(n).filter_map(|o| g.ty(o).value()).collect();
        let inst = self.inst(data, &types);
        let loc = g.node(n).loc;
        if !loc.is_default() {
            self.func.srclocs[inst] = loc;
        }
        self.func.dfg.inst_results(inst).to_vec()
    }

    /// Ends the block with the branch on control value `pred` to `targets` (one per
    /// alternative); a constant selects its target with a jump.
    pub fn branch(&mut self, pred: Val, targets: &[BlockCall]) {
        let data = match pred {
            Val::Match(node, x) => {
                let Some(Op::Match { cases, default, .. }) = self.g.op(node) else {
                    unreachable!()
                };
                let is_bool = self.func.dfg.value_type(x) == Type::I1;
                if is_bool && targets.len() == 2 && cases.len() == 1 {
                    let (c, a) = cases[0];
                    let (t, f) = if c == 1 { (a, *default) } else { (*default, a) };
                    InstructionData::Brif {
                        opcode: Opcode::Brif,
                        arg: x,
                        blocks: [targets[t as usize].clone(), targets[f as usize].clone()],
                    }
                } else {
                    let mut table = SwitchData::new(targets[*default as usize].clone());
                    let mut seen = rustc_hash::FxHashSet::default();
                    for &(c, a) in cases.iter() {
                        if seen.insert(c) {
                            table.push_case(c, targets[a as usize].clone());
                        }
                    }
                    InstructionData::Switch {
                        opcode: Opcode::Switch,
                        arg: x,
                        table: Box::new(table),
                    }
                }
            }
            Val::Ir(x) => {
                // an alternative number: the last arm is the default
                let last = targets.len() - 1;
                let mut table = SwitchData::new(targets[last].clone());
                for (k, t) in targets[..last].iter().enumerate() {
                    table.push_case(k as u128, t.clone());
                }
                InstructionData::Switch {
                    opcode: Opcode::Switch,
                    arg: x,
                    table: Box::new(table),
                }
            }
            Val::Const(alt) => InstructionData::Jump {
                opcode: Opcode::Jump,
                dest: targets[alt as usize].clone(),
            },
        };
        self.terminate(data);
    }
}

/// The SSA type an origin of type `ty` has in the function (a control value is an
/// `i32` alternative number); `None` for a state.
pub(crate) fn ir_type(ty: Ty) -> Option<Type> {
    match ty {
        Ty::Val(t) => Some(t),
        Ty::Ctl(_) => Some(Type::I32),
        Ty::Mem | Ty::Io => None,
    }
}

/// A function with λ `lambda`'s name, signature and tables, and no blocks yet.
pub(crate) fn empty_function(g: &Rvsdg, lambda: Node) -> Function {
    let shell = g.lambda_info(lambda);
    Function {
        name: shell.name.clone(),
        signature: shell.signature.clone(),
        linkage: shell.linkage,
        inline: shell.inline,
        cold: shell.cold,
        personality: shell.personality.clone(),
        param_attrs: shell.param_attrs.clone(),
        stack_slots: shell.stack_slots.clone(),
        ext_funcs: shell.ext_funcs.clone(),
        signatures: shell.signatures.clone(),
        globals: shell.globals.clone(),
        files: shell.files.clone(),
        ..Default::default()
    }
}

/// Removes the blocks that no path from the entry reaches (what followed a `trap`).
pub(crate) fn remove_unreachable_blocks(func: &mut Function) {
    let Some(entry) = func.layout.entry_block() else {
        return;
    };
    let mut seen = rustc_hash::FxHashSet::default();
    let mut stack = vec![entry];
    seen.insert(entry);
    while let Some(b) = stack.pop() {
        if let Some(last) = func.layout.last_inst(b) {
            for d in func.dfg.branch_destinations(last) {
                if seen.insert(d.block) {
                    stack.push(d.block);
                }
            }
        }
    }
    let dead: Vec<Block> = func.layout.blocks().filter(|b| !seen.contains(b)).collect();
    for b in dead {
        let insts: Vec<_> = func.layout.block_insts(b).collect();
        for i in insts {
            func.layout.remove_inst(i);
        }
        func.layout.remove_block(b);
    }
}

//! Control flow: jumps, conditional branches, switches, returns, traps and calls.
//!
//! Block arguments travel only on the unconditional `br` that ends a block. A
//! conditional edge (of `brif`, a switch case, a jump-table entry) to a block with
//! parameters goes through a new *edge block* holding just that `br`, so that the
//! copies made when leaving SSA run on that edge only (the lost-copy problem).

use rustc_hash::FxHashMap as HashMap;
use vliw_ir::{BlockCall, Inst, InstructionData, Opcode as IrOp, Type, Value};
use vliw_isa::Opcode;

use super::{Lower, Regs, trap_code};
use crate::abi;
use crate::error::CompileError;
use crate::mir::{Imm, MBlock, MGuard, MInst, PReg, Reg};

/// ... if the range of case values is at most this many times the number of cases.
pub const JUMP_TABLE_MAX_DENSITY: u64 = 3;

/// The runtime's entry that continues unwinding after a cleanup.
const RESUME: &str = "_Unwind_Resume";

impl Lower<'_> {
    /// The words of a block call's arguments.
    fn block_args(&mut self, bc: &BlockCall) -> Vec<Reg> {
        let mut out = Vec::new();
        for &a in &bc.args {
            out.extend(self.get(a).words());
        }
        out
    }

    /// `trap code`.
    fn trap(&mut self, code: i64) {
        self.push(MInst::op(Opcode::Trap, &[], &[], Imm::Const(code)));
    }

    /// Lowers the call of `data` with `call`; for an invoke, the call gets the unwind
    /// edge and a branch to the normal successor follows it.
    fn invoke_edges(&mut self, data: &InstructionData, call: impl FnOnce(&mut Self)) {
        if let [normal, unwind] = data.branch_destinations() {
            self.unwind_to = Some(self.unwind_edge(unwind));
            call(self);
            self.jump_to(normal);
        } else {
            call(self);
        }
    }

    /// The unwind edge of an invoke to `pad`, an IR block that starts with its
    /// landing pad. A pad with parameters is entered through an edge block of this
    /// invoke's own (laid out at the end): it copies the exception registers and
    /// passes them with the edge's arguments (values of before the call, so that
    /// nothing runs between the call and the edge) to the pad's block.
    fn unwind_edge(&mut self, pad: &BlockCall) -> crate::mir::Unwind {
        let first = self.func.layout.first_inst(pad.block);
        let catch = first.is_some_and(|i| self.func.dfg.opcode(i) == IrOp::CatchLandingPad);
        let target = self.machine_block(pad.block);
        if self.pad_params[cranelift_entity::EntityRef::index(pad.block)].is_none() {
            return crate::mir::Unwind { pad: target, catch };
        }
        let mut args = self.block_args(pad);
        let edge = self.mf.new_block();
        self.cold_blocks.push(edge);
        let here = self.cur;
        self.cur = edge;
        args.extend(self.exception_copies());
        let mut br = MInst::op(Opcode::Br, &[], &[], Imm::Block(target));
        br.args = args;
        self.push(br);
        self.cur = here;
        crate::mir::Unwind { pad: edge, catch }
    }

    /// `br target(args)` at the end of the current block.
    fn jump_to(&mut self, bc: &BlockCall) {
        let args = self.block_args(bc);
        let mut br = MInst::op(
            Opcode::Br,
            &[],
            &[],
            Imm::Block(self.machine_block(bc.block)),
        );
        br.args = args;
        self.push(br);
    }

    /// A block that conditional control flow can reach for `bc`: the target itself if
    /// it has no parameters, else an edge block passing the arguments (evaluated in
    /// the current block).
    fn edge(&mut self, bc: &BlockCall, cache: &mut HashMap<BlockCall, MBlock>) -> MBlock {
        if bc.args.is_empty() {
            return self.machine_block(bc.block);
        }
        if let Some(&b) = cache.get(bc) {
            return b;
        }
        let args = self.block_args(bc);
        let e = self.new_block();
        let mut br = MInst::op(
            Opcode::Br,
            &[],
            &[],
            Imm::Block(self.machine_block(bc.block)),
        );
        br.args = args;
        br.loc = self.loc;
        self.mf.push_inst(e, br);
        cache.insert(bc.clone(), e);
        e
    }

    fn br_if(&mut self, p: Reg, target: MBlock) {
        self.push(
            MInst::op(Opcode::Br, &[], &[], Imm::Block(target)).with_guard(MGuard::new(p, false)),
        );
    }

    fn br(&mut self, target: MBlock) {
        self.push(MInst::op(Opcode::Br, &[], &[], Imm::Block(target)));
    }

    pub(super) fn lower_control(
        &mut self,
        _inst: Inst,
        data: &InstructionData,
        results: &[Value],
    ) -> Result<(), CompileError> {
        match data {
            InstructionData::Jump { dest, .. } => {
                self.jump_to(dest);
                Ok(())
            }
            InstructionData::Brif { arg, blocks, .. } => {
                // a known condition is a jump: no guarded branch followed by dead code
                if let Some(c) = self.const_of(*arg) {
                    self.jump_to(&blocks[if c & 1 != 0 { 0 } else { 1 }]);
                    return Ok(());
                }
                let p = self.get_pred(*arg);
                if p == Reg::P0 {
                    self.jump_to(&blocks[0]);
                    return Ok(());
                }
                let mut cache = HashMap::default();
                let then_b = self.edge(&blocks[0], &mut cache);
                if blocks[1].args.is_empty() {
                    self.br_if(p, then_b);
                    self.jump_to(&blocks[1]);
                } else if blocks[0].args.is_empty() {
                    // negate instead: the argument-passing jump is the fall-through
                    self.push(
                        MInst::op(Opcode::Br, &[], &[], Imm::Block(then_b))
                            .with_guard(MGuard::new(p, false)),
                    );
                    self.jump_to(&blocks[1]);
                } else {
                    let else_b = self.edge(&blocks[1], &mut cache);
                    self.br_if(p, then_b);
                    self.br(else_b);
                }
                Ok(())
            }
            InstructionData::Switch { arg, table, .. } => self.switch(*arg, table),
            InstructionData::Return { args, .. } => {
                let types: Vec<Type> = args.iter().map(|&a| self.ty(a)).collect();
                let layout = abi::call_layout(&[], &types);
                let mut uses = Vec::new();
                let mut copies = Vec::new();
                for (&a, locs) in args.iter().zip(&layout.rets) {
                    let words = self.get(a).words();
                    for (w, loc) in words.into_iter().zip(locs) {
                        match *loc {
                            abi::Loc::Reg(r) => copies.push((PReg::Gpr(r), w)),
                            abi::Loc::Stack(off) => self.push(MInst::op(
                                Opcode::StD,
                                &[],
                                &[Reg::SP, w],
                                Imm::IncomingArg(off as i64),
                            )),
                        }
                    }
                }
                for (p, w) in copies {
                    self.push(MInst::copy(Reg::Physical(p), w));
                    uses.push(p);
                }
                let mut ret = MInst::op(Opcode::Ret, &[], &[], Imm::None);
                ret.implicit_uses = uses;
                self.push(ret);
                Ok(())
            }
            InstructionData::Nullary {
                opcode: IrOp::Unreachable,
            } => {
                self.trap(trap_code::UNREACHABLE);
                Ok(())
            }
            InstructionData::Trap { code, .. } => {
                self.trap(i64::from(*code));
                Ok(())
            }
            // an invoke is a call whose unwind edge leaves from it, then a branch to
            // its normal successor
            InstructionData::Call {
                func: fref, args, ..
            }
            | InstructionData::Invoke {
                func: fref, args, ..
            } => {
                let ext = &self.func.ext_funcs[*fref];
                let name = ext.name.clone();
                let rets = ext.signature.returns.clone();
                self.invoke_edges(data, |l| l.lower_call(Ok(&name), args, &rets, results));
                Ok(())
            }
            InstructionData::CallIndirect { sig, args, .. }
            | InstructionData::InvokeIndirect { sig, args, .. } => {
                let rets = self.func.signatures[*sig].returns.clone();
                let callee = self.get1(args[0]);
                self.invoke_edges(data, |l| {
                    l.lower_call(Err(callee), &args[1..], &rets, results)
                });
                Ok(())
            }
            InstructionData::Unary {
                opcode: IrOp::Resume,
                arg,
            } => {
                // the unwinder continues the cleanup phase from here; it never returns
                let exception = self.get(*arg);
                self.call(Ok(RESUME), &[Type::Ptr], &[exception], &[]);
                self.trap(trap_code::UNREACHABLE);
                Ok(())
            }
            _ => Err(self.err(format!("unexpected control operation `{}`", data.opcode()))),
        }
    }

    fn lower_call(
        &mut self,
        callee: Result<&str, Reg>,
        args: &[Value],
        rets: &[Type],
        results: &[Value],
    ) {
        let types: Vec<Type> = args.iter().map(|&a| self.ty(a)).collect();
        let regs: Vec<Regs> = args.iter().map(|&a| self.get(a)).collect();
        let out = self.call(callee, &types, &regs, rets);
        for (&r, regs) in results.iter().zip(out) {
            self.def(r, regs);
        }
    }

    /// `switch`: a jump table when dense enough, else a chain of compares.
    fn switch(&mut self, arg: Value, table: &vliw_ir::SwitchData) -> Result<(), CompileError> {
        let ty = self.ty(arg);
        let mut cache = HashMap::default();
        let default = table.default_dest().clone();
        if ty == Type::I128 {
            let (lo, hi) = self.get2(arg);
            for (value, dest) in table.cases() {
                let target = self.edge(dest, &mut cache);
                let vlo = self.movi(value as u64 as i64);
                let vhi = self.movi((value >> 64) as u64 as i64);
                let p = self.icmp128(vliw_ir::IntCC::Eq, (lo, hi), (vlo, vhi));
                self.br_if(p, target);
            }
            self.jump_to(&default);
            return Ok(());
        }
        let x = self.get1(arg);
        // case values in the canonical (sign-extended) form of the switched value
        let cases: Vec<(i64, BlockCall)> = table
            .cases()
            .map(|(v, d)| (super::canonical_const(ty, v) as i64, d.clone()))
            .collect();
        if self.opts.jump_tables && cases.len() >= self.opts.jump_table_min_cases {
            let min = cases.iter().map(|c| c.0).min().expect("cases");
            let max = cases.iter().map(|c| c.0).max().expect("cases");
            let range = (max as i128 - min as i128 + 1) as u128;
            if range <= u128::from(JUMP_TABLE_MAX_DENSITY) * cases.len() as u128 {
                return self.jump_table(x, min, range as u64, &cases, &default, &mut cache);
            }
        }
        for (value, dest) in &cases {
            let target = self.edge(dest, &mut cache);
            let p = if i32::try_from(*value).is_ok() {
                self.cmpi(Opcode::CmpEqI, x, *value)
            } else {
                let c = self.movi(*value);
                self.cmp(Opcode::CmpEq, x, c)
            };
            self.br_if(p, target);
        }
        self.jump_to(&default);
        Ok(())
    }

    /// `idx = x - min; if idx >=u range goto default; goto table[idx]`.
    fn jump_table(
        &mut self,
        x: Reg,
        min: i64,
        range: u64,
        cases: &[(i64, BlockCall)],
        default: &BlockCall,
        cache: &mut HashMap<BlockCall, MBlock>,
    ) -> Result<(), CompileError> {
        let default_b = self.edge(default, cache);
        let mut targets = vec![default_b; range as usize];
        for (value, dest) in cases {
            let t = self.edge(dest, cache);
            targets[(value.wrapping_sub(min)) as u64 as usize] = t;
        }
        let idx = if min == 0 {
            x
        } else if i32::try_from(min.wrapping_neg()).is_ok() {
            self.ri(Opcode::AddI, x, min.wrapping_neg())
        } else {
            let m = self.movi(min);
            self.rr(Opcode::Sub, x, m)
        };
        let out = if i32::try_from(range).is_ok() {
            self.cmpi(Opcode::CmpGeuI, idx, range as i64)
        } else {
            let r = self.movi(range as i64);
            self.cmp(Opcode::CmpGeu, idx, r)
        };
        self.br_if(out, default_b);
        let jt = self.mf.jump_tables.push(targets);
        let base = self.vreg();
        self.push(MInst::op(Opcode::Addpc, &[base], &[], Imm::JumpTable(jt)));
        let scaled = self.ri(Opcode::ShlI, idx, 3);
        let entry = self.rr(Opcode::Add, base, scaled);
        let target = self.load_entry(entry);
        let mut jr = MInst::op(Opcode::Jr, &[], &[target], Imm::JumpTable(jt));
        jr.loc = self.loc;
        self.push(jr);
        Ok(())
    }

    fn load_entry(&mut self, addr: Reg) -> Reg {
        let d = self.vreg();
        self.push(MInst::op(Opcode::LdD, &[d], &[addr], Imm::Const(0)));
        d
    }
}

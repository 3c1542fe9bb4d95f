//! How a function's variables, definitions and uses are described to the liveness
//! algorithms, in the model of the machine IR: blocks with parameters (the
//! φ-definitions) and branch arguments (the φ-uses).
//!
//! Conventions (thesis §2.4, §3.1): variables are dense indices; the program is in
//! strict SSA (each variable has one definition, which dominates every use); a
//! φ-definition (block parameter) sits at the entry of its block; a φ-use (an argument
//! passed on an edge) sits at the end of the predecessor, after its last instruction.

use std::fmt;

use crate::cfg::{Block, Cfg};
use crate::dominators::DomTree;

/// A variable (an SSA value), as a dense index `0..var_count`.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Var(pub u32);

impl Var {
    pub fn new(index: usize) -> Self {
        Var(u32::try_from(index).expect("variable index fits in u32"))
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Debug for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// One event of a block's backward scan.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Access {
    Def(Var),
    Use(Var),
}

/// What the live-set algorithms need to know about a function. Only reachable blocks
/// are asked about.
pub trait SsaProgram {
    /// Variables are `Var(0..var_count())`.
    fn var_count(&self) -> usize;

    /// The φ-definitions (block parameters) of `block`.
    fn for_each_phi_def(&self, block: Block, f: impl FnMut(Var));

    /// The definitions and ordinary uses of `block`'s instructions, **last instruction
    /// first**, and within one instruction its definitions before its uses (the reverse
    /// of execution). The block's φ-uses are not included.
    fn for_each_access_backward(&self, block: Block, f: impl FnMut(Access));

    /// The φ-uses of `block`: the arguments it passes to its successors' parameters,
    /// on all its outgoing edges.
    fn for_each_phi_use(&self, block: Block, f: impl FnMut(Var));
}

/// Where a variable is used, at block granularity, for the liveness check.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum UseSite {
    /// An operand of an instruction of the block (the terminator included).
    Instruction(Block),
    /// A φ-use: an argument the block passes on one of its outgoing edges, which sits
    /// at the end of the block, after every instruction.
    BlockEnd(Block),
}

impl UseSite {
    pub fn block(self) -> Block {
        match self {
            UseSite::Instruction(b) | UseSite::BlockEnd(b) => b,
        }
    }
}

/// One instruction: the variables it defines and uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Instruction {
    pub defs: Vec<Var>,
    pub uses: Vec<Var>,
}

/// The code of one block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockCode {
    /// The block parameters (φ-definitions).
    pub params: Vec<Var>,
    pub insts: Vec<Instruction>,
    /// Per outgoing edge, in the CFG's successor order, the arguments passed to the
    /// target's parameters (φ-uses).
    pub edge_args: Vec<Vec<Var>>,
}

/// A plain, owned description of a function: the reference input of the tests, and a
/// simple way for a client to hand its code to the analyses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExplicitProgram {
    pub var_count: usize,
    pub blocks: Vec<BlockCode>,
}

/// Where a variable is defined and used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VarSites {
    /// The block of the definition (a parameter or an instruction); `None` if the
    /// variable is never defined.
    pub def: Option<Block>,
    pub uses: Vec<UseSite>,
}

/// A violation of strict SSA found by [`ExplicitProgram::check_strict_ssa`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SsaError {
    MultipleDefinitions(Var),
    Undefined(Var),
    /// A use its definition does not dominate.
    NotDominated {
        var: Var,
        at: UseSite,
    },
    /// An edge passes a different number of arguments than the target has parameters.
    ArgumentCount {
        block: Block,
        edge: usize,
    },
}

impl ExplicitProgram {
    pub fn new(num_blocks: usize) -> Self {
        ExplicitProgram {
            var_count: 0,
            blocks: vec![BlockCode::default(); num_blocks],
        }
    }

    pub fn new_var(&mut self) -> Var {
        self.var_count += 1;
        Var::new(self.var_count - 1)
    }

    /// The definition block and use sites of every variable, over all blocks.
    pub fn sites(&self) -> Vec<VarSites> {
        let mut sites = vec![VarSites::default(); self.var_count];
        for (i, code) in self.blocks.iter().enumerate() {
            let b = Block::new(i);
            for &p in &code.params {
                sites[p.index()].def = Some(b);
            }
            for inst in &code.insts {
                for &d in &inst.defs {
                    sites[d.index()].def = Some(b);
                }
                for &u in &inst.uses {
                    sites[u.index()].uses.push(UseSite::Instruction(b));
                }
            }
            for args in &code.edge_args {
                for &a in args {
                    sites[a.index()].uses.push(UseSite::BlockEnd(b));
                }
            }
        }
        sites
    }

    /// Checks strict SSA on the reachable blocks: one definition per variable, argument
    /// counts matching parameter counts, and every use dominated by its definition (in
    /// the definition's block: after it; at a block's end: anywhere in the block).
    /// Unreachable blocks are not checked.
    pub fn check_strict_ssa(&self, cfg: &Cfg, dom: &DomTree) -> Result<(), SsaError> {
        // (block, position): params at 0, instruction i at i + 1.
        let mut def_at: Vec<Option<(Block, usize)>> = vec![None; self.var_count];
        let mut define = |v: Var, at: (Block, usize)| match def_at[v.index()] {
            Some(_) => Err(SsaError::MultipleDefinitions(v)),
            None => {
                def_at[v.index()] = Some(at);
                Ok(())
            }
        };
        for b in cfg.reachable_blocks() {
            let code = &self.blocks[b.index()];
            for &p in &code.params {
                define(p, (b, 0))?;
            }
            for (i, inst) in code.insts.iter().enumerate() {
                for &d in &inst.defs {
                    define(d, (b, i + 1))?;
                }
            }
        }
        let check = |v: Var, at: UseSite, pos: usize| {
            let (d, dpos) = def_at[v.index()].ok_or(SsaError::Undefined(v))?;
            let u = at.block();
            let ok = dom.strictly_dominates(d, u) || (d == u && dpos < pos);
            if ok {
                Ok(())
            } else {
                Err(SsaError::NotDominated { var: v, at })
            }
        };
        for b in cfg.reachable_blocks() {
            let code = &self.blocks[b.index()];
            for (i, inst) in code.insts.iter().enumerate() {
                for &u in &inst.uses {
                    check(u, UseSite::Instruction(b), i + 1)?;
                }
            }
            let succs = cfg.succs(b);
            if code.edge_args.len() != succs.len() {
                return Err(SsaError::ArgumentCount {
                    block: b,
                    edge: code.edge_args.len(),
                });
            }
            for (e, (args, &s)) in code.edge_args.iter().zip(succs).enumerate() {
                if args.len() != self.blocks[s.index()].params.len() {
                    return Err(SsaError::ArgumentCount { block: b, edge: e });
                }
                for &a in args {
                    check(a, UseSite::BlockEnd(b), usize::MAX)?;
                }
            }
        }
        Ok(())
    }
}

impl SsaProgram for ExplicitProgram {
    fn var_count(&self) -> usize {
        self.var_count
    }

    fn for_each_phi_def(&self, block: Block, f: impl FnMut(Var)) {
        self.blocks[block.index()]
            .params
            .iter()
            .copied()
            .for_each(f);
    }

    fn for_each_access_backward(&self, block: Block, mut f: impl FnMut(Access)) {
        for inst in self.blocks[block.index()].insts.iter().rev() {
            inst.defs.iter().for_each(|&d| f(Access::Def(d)));
            inst.uses.iter().for_each(|&u| f(Access::Use(u)));
        }
    }

    fn for_each_phi_use(&self, block: Block, f: impl FnMut(Var)) {
        self.blocks[block.index()]
            .edge_args
            .iter()
            .flatten()
            .copied()
            .for_each(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_ssa_check_rejects_an_undominated_use() {
        // 0 -> 1, 2; 1 -> 2. v0 defined in 1, used in 2: 1 does not dominate 2.
        let cfg = Cfg::from_successors(
            Block(0),
            vec![vec![Block(1), Block(2)], vec![Block(2)], vec![]],
        );
        let dom = DomTree::compute(&cfg);
        let mut p = ExplicitProgram::new(3);
        let v = p.new_var();
        p.blocks[0].edge_args = vec![vec![], vec![]];
        p.blocks[1].insts.push(Instruction {
            defs: vec![v],
            uses: vec![],
        });
        p.blocks[1].edge_args = vec![vec![]];
        p.blocks[2].insts.push(Instruction {
            defs: vec![],
            uses: vec![v],
        });
        assert_eq!(
            p.check_strict_ssa(&cfg, &dom),
            Err(SsaError::NotDominated {
                var: v,
                at: UseSite::Instruction(Block(2))
            })
        );
        // Passing it as an argument from 1 instead is fine.
        let w = p.new_var();
        p.blocks[2].insts[0].uses = vec![w];
        p.blocks[2].params = vec![w];
        p.blocks[0].edge_args = vec![vec![], vec![v]];
        assert!(matches!(
            p.check_strict_ssa(&cfg, &dom),
            Err(SsaError::NotDominated { .. })
        ));
        let z = p.new_var();
        p.blocks[0].insts.push(Instruction {
            defs: vec![z],
            uses: vec![],
        });
        p.blocks[0].edge_args = vec![vec![], vec![z]];
        p.blocks[1].edge_args = vec![vec![v]];
        assert_eq!(p.check_strict_ssa(&cfg, &dom), Ok(()));
    }

    #[test]
    fn a_use_before_its_definition_in_the_same_block_is_rejected() {
        let cfg = Cfg::from_successors(Block(0), vec![Vec::<Block>::new()]);
        let dom = DomTree::compute(&cfg);
        let mut p = ExplicitProgram::new(1);
        let v = p.new_var();
        p.blocks[0].insts.push(Instruction {
            defs: vec![],
            uses: vec![v],
        });
        p.blocks[0].insts.push(Instruction {
            defs: vec![v],
            uses: vec![],
        });
        assert!(matches!(
            p.check_strict_ssa(&cfg, &dom),
            Err(SsaError::NotDominated { .. })
        ));
    }
}

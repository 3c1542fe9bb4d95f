//! Alias scopes from `noalias` parameters: the loads and stores whose address is
//! computed from one `noalias` pointer parameter (by `ptradd`s and block parameters
//! that every branch passes such a pointer) get the scope of that parameter, so that
//! the machine schedulers do not order them against the accesses through another
//! (`vliw_ir::AliasScope::apart`).
//!
//! Why: a kernel that reads `data: &[i64]` and counts into `counts: &mut [u64; 8]`
//! stores to `counts` in every trip; without scopes the next trip's load of `data`
//! waits for that store, and the loop's recurrence runs through memory. The RVSDG's
//! memory state splitting gives `noalias` parameters locations of their own, but only
//! where its address analysis can follow every pointer: the state machines that
//! restructuring makes of a decision tree carry pointers of different parameters in
//! one shared slot of a mux, and there it follows none. After sequentialization and
//! jump threading those muxes are gone, and the block parameters say plainly where
//! each pointer comes from.
//!
//! **The contract** (`vliw_ir::ParamAttrs::noalias`, Rust's `&mut T` and `&T` without
//! interior mutability, LLVM's `noalias`): while the function runs, memory accessed
//! through a pointer based on the parameter is accessed through no pointer not based
//! on it (or nothing writes it). An access whose address this pass derives from
//! parameter `i` is based on `i` and on no other parameter (its address is `i`'s value
//! plus offsets), so two such accesses of different parameters touch a common byte
//! only if neither writes it, and then their order does not matter. Whatever else the
//! function does with the pointers (passes them to a callee, stores them) does not
//! weaken this: accesses the pass does not attribute keep no scope and stay ordered
//! with everything.
//!
//! **The analysis.** Each pointer value's base: a `noalias` parameter, or unknown. A
//! `ptradd`'s result has its pointer operand's base; a block parameter has the base
//! every branch into the block passes, when they agree (an optimistic fixpoint:
//! parameters start undecided, a loop's back edge that passes the header's own
//! parameter plus an offset keeps it); anything else is unknown. The scopes are one
//! group new in the function (above every group it already has) with class `i + 1`
//! for parameter `i`; an access that already has a scope keeps it, and a volatile one
//! gets none.

use cranelift_entity::SecondaryMap;
use vliw_ir::{AliasScope, Function, InstructionData, Opcode, Type, Value};

/// What [`scope_noalias_accesses`] did to one function.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct NoaliasStats {
    /// Functions whose accesses got scopes.
    pub functions: usize,
    /// Loads and stores scoped.
    pub scoped: usize,
}

impl std::ops::AddAssign for NoaliasStats {
    fn add_assign(&mut self, o: Self) {
        self.functions += o.functions;
        self.scoped += o.scoped;
    }
}

/// A pointer's base in the lattice: not decided yet, a `noalias` parameter, unknown.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
enum Base {
    #[default]
    Undecided,
    Param(u32),
    Unknown,
}

impl Base {
    fn meet(self, other: Base) -> Base {
        match (self, other) {
            (Base::Undecided, b) | (b, Base::Undecided) => b,
            (a, b) if a == b => a,
            _ => Base::Unknown,
        }
    }
}

/// Scopes the loads and stores of `func` whose addresses come from its `noalias`
/// parameters (module documentation).
pub fn scope_noalias_accesses(func: &mut Function) -> NoaliasStats {
    let mut stats = NoaliasStats::default();
    let Some(entry) = func.entry_block() else {
        return stats;
    };
    let params = func.dfg.block_params(entry).to_vec();
    let noalias: Vec<(usize, Value)> = params
        .iter()
        .enumerate()
        .filter(|&(i, &v)| func.param_attrs(i).noalias && func.dfg.value_type(v) == Type::Ptr)
        .map(|(i, &v)| (i, v))
        .collect();
    // one parameter alone is apart from nothing that has a scope of its group
    if noalias.len() < 2 {
        return stats;
    }
    let blocks: Vec<_> = func.layout.blocks().collect();
    let mut base: SecondaryMap<Value, Base> = SecondaryMap::new();
    // one walk: whether a branch enters the entry block again (its parameters are then
    // not only the function's), the highest scope group the function already has, and
    // the results that are not a `ptradd` of a pointer, unknown once and for all
    let mut entered = false;
    let mut highest: Option<u32> = None;
    for &b in &blocks {
        for inst in func.layout.block_insts(b) {
            let data = func.dfg.inst_data(inst);
            for d in data.branch_destinations() {
                entered |= d.block == entry;
            }
            if let Some(scope) = data.mem_flags().and_then(|f| f.scope)
                && scope.group != AliasScope::FRAME_PRIVATE.group
            {
                highest = highest.max(Some(scope.group));
            }
            let ptradd = matches!(
                data,
                InstructionData::Binary {
                    opcode: Opcode::Ptradd,
                    ..
                }
            );
            if !ptradd {
                for &r in func.dfg.inst_results(inst) {
                    base[r] = Base::Unknown;
                }
            }
        }
    }
    let group = highest.map_or(1, |g| g + 1);
    if group == AliasScope::FRAME_PRIVATE.group {
        return stats;
    }
    for &v in &params {
        base[v] = Base::Unknown;
    }
    if !entered {
        for &(i, v) in &noalias {
            base[v] = Base::Param(i as u32);
        }
    }
    // to the fixpoint: bases only go down, two steps at most per value
    let mut changed = true;
    while changed {
        changed = false;
        for &b in &blocks {
            for inst in func.layout.block_insts(b) {
                let data = func.dfg.inst_data(inst);
                if let InstructionData::Binary {
                    opcode: Opcode::Ptradd,
                    args,
                } = data
                {
                    let r = func.dfg.inst_results(inst)[0];
                    let new = base[r].meet(base[args[0]]);
                    if new != base[r] {
                        base[r] = new;
                        changed = true;
                    }
                }
                for d in data.branch_destinations() {
                    let targets = func.dfg.block_params(d.block);
                    for (&p, &a) in targets.iter().zip(&d.args) {
                        let new = base[p].meet(base[a]);
                        if new != base[p] {
                            base[p] = new;
                            changed = true;
                        }
                    }
                }
            }
        }
    }
    // a parameter no branch passes anything (unreachable) stays undecided: no scope
    for &b in &blocks {
        let insts: Vec<_> = func.layout.block_insts(b).collect();
        for inst in insts {
            let address = match func.dfg.inst_data(inst) {
                InstructionData::Load {
                    opcode: Opcode::Load,
                    arg,
                    ..
                } => *arg,
                InstructionData::Store {
                    opcode: Opcode::Store,
                    args,
                    ..
                } => args[1],
                _ => continue,
            };
            let Base::Param(i) = base[address] else {
                continue;
            };
            // a volatile access keeps its order with everything
            if let InstructionData::Load { flags, .. } | InstructionData::Store { flags, .. } =
                func.dfg.inst_data_mut(inst)
                && flags.scope.is_none()
                && !flags.volatile
            {
                flags.scope = Some(AliasScope {
                    group,
                    class: i + 1,
                });
                stats.scoped += 1;
            }
        }
    }
    stats.functions += usize::from(stats.scoped > 0);
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use vliw_ir::parse_module;

    /// The scopes of the function's loads and stores, in layout order.
    fn scopes(func: &Function) -> Vec<Option<(u32, u32)>> {
        func.layout
            .blocks()
            .flat_map(|b| func.layout.block_insts(b))
            .filter_map(|i| func.dfg.inst_data(i).mem_flags())
            .map(|f| f.scope.map(|s| (s.group, s.class)))
            .collect()
    }

    fn run(text: &str) -> (Function, NoaliasStats) {
        let mut m = parse_module(text).expect("parses");
        let mut f = m.functions.remove(0);
        let stats = scope_noalias_accesses(&mut f);
        vliw_ir::verify_function(&f).expect("verifies");
        (f, stats)
    }

    #[test]
    fn a_loop_over_two_noalias_parameters_scopes_both() {
        // counts[0] += data[i] for i in 0..n, the pointer into data walking by 8
        let text = "function @f(ptr noalias readonly, i64, ptr noalias) -> i64 {\n\
            block0(v0: ptr, v1: i64, v2: ptr):\n\
            \x20   v3 = iconst.i64 0\n\
            \x20   jump block1(v3, v0)\n\
            block1(v4: i64, v5: ptr):\n\
            \x20   v6 = load.i64 align 8 v5\n\
            \x20   v7 = load.i64 align 8 v2+8\n\
            \x20   v8 = iadd v6, v7\n\
            \x20   store align 8 v8, v2+8\n\
            \x20   v9 = iconst.i64 8\n\
            \x20   v10 = ptradd v5, v9\n\
            \x20   v11 = iconst.i64 1\n\
            \x20   v12 = iadd v4, v11\n\
            \x20   v13 = icmp ult v12, v1\n\
            \x20   brif v13, block1(v12, v10), block2\n\
            block2:\n\
            \x20   return v12\n\
            }\n";
        let (f, stats) = run(text);
        assert_eq!(stats.scoped, 3);
        assert_eq!(scopes(&f), vec![Some((1, 1)), Some((1, 3)), Some((1, 3))]);
    }

    #[test]
    fn pointers_that_meet_another_base_get_no_scope() {
        // v5 is `a` on one path and `b` on the other; a loaded pointer is unknown; a
        // volatile access gets none; a scope made before stays, and the new group is
        // above it
        let text = "function @f(ptr noalias, ptr noalias, i1) -> i64 {\n\
            block0(v0: ptr, v1: ptr, v2: i1):\n\
            \x20   v3 = load.i64 align 8 scope 4 2 v0\n\
            \x20   brif v2, block1(v0), block1(v1)\n\
            block1(v5: ptr):\n\
            \x20   v6 = load.i64 align 8 v5\n\
            \x20   v7 = load.ptr align 8 v1\n\
            \x20   v8 = load.i64 align 8 v7\n\
            \x20   v9 = load.i64 align 8 v1+16\n\
            \x20   v13 = load.i64 volatile align 8 v1+24\n\
            \x20   v10 = iadd v6, v8\n\
            \x20   v11 = iadd v10, v9\n\
            \x20   v12 = iadd v11, v3\n\
            \x20   v14 = iadd v12, v13\n\
            \x20   return v14\n\
            }\n";
        let (f, stats) = run(text);
        assert_eq!(stats.scoped, 2);
        assert_eq!(
            scopes(&f),
            vec![Some((4, 2)), None, Some((5, 2)), None, Some((5, 2)), None]
        );
    }

    #[test]
    fn one_noalias_parameter_changes_nothing() {
        let one = "function @f(ptr noalias, ptr) -> i64 {\n\
            block0(v0: ptr, v1: ptr):\n\
            \x20   v2 = load.i64 align 8 v0\n\
            \x20   store align 8 v2, v1\n\
            \x20   return v2\n\
            }\n";
        let (f, stats) = run(one);
        assert_eq!(stats, NoaliasStats::default());
        assert_eq!(scopes(&f), vec![None, None]);
    }
}

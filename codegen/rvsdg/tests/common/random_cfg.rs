//! Random CFGs for differential tests: functions `(i32, i32) -> i32` with random
//! edges (loops, irreducible ones, endless ones, several exits, unreachable blocks),
//! block parameters, values used across blocks, traps, `unreachable`, divisions and
//! calls of the host function `@trace`. The restructuring's test and the optimizations'
//! random test run them.

#![allow(dead_code)] // each test file uses a part

use vliw_ir::Function;

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545f4914f6cdd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// How many random programs, from which seed (`RANDOM_PROGRAMS`, `RANDOM_SEED`, as in
/// the pipeline's random tests).
pub fn count_and_seed(default: usize) -> (usize, u64) {
    let var = |name: &str| std::env::var(name).ok().and_then(|s| s.parse::<u64>().ok());
    (
        var("RANDOM_PROGRAMS").map_or(default, |n| n as usize),
        var("RANDOM_SEED").unwrap_or(1),
    )
}

#[derive(Clone, Debug)]
enum Term {
    Jump(usize),
    Brif(usize, usize),
    Switch(Vec<usize>),
    Return,
    Trap(u16),
    Unreachable,
}

/// A random function `(i32, i32) -> i32` over up to `max_blocks` blocks (plus the
/// fuel checks) with random edges
/// (loops, irreducible ones, several exits, unreachable blocks), block parameters of
/// several types, values used across blocks (any value of a dominating block), traps,
/// `unreachable`, and calls of the host function `@trace` (side effects whose order
/// the comparison sees). The edges to a block not after their source (every cycle
/// has one) are guarded by checks of a fuel parameter, decremented there, that leave
/// to an exit when it runs out, so that runs terminate; but one function in ten has
/// no checks, and endless loops.
pub fn random_function(rng: &mut Rng, name: &str, max_blocks: usize) -> Function {
    use vliw_ir::{FunctionBuilder, IntCC, Linkage, Opcode, Signature, SwitchData, Type};
    let n = 2 + rng.below(max_blocks - 1);
    let target = |rng: &mut Rng| 1 + rng.below(n - 1);
    // The first target is often the next block, so that most blocks are reachable.
    let first = |rng: &mut Rng, i: usize| {
        if i + 1 < n && rng.chance(60) {
            i + 1
        } else {
            target(rng)
        }
    };
    let mut terms: Vec<Term> = (0..n)
        .map(|i| match rng.below(100) {
            0..30 => Term::Jump(first(rng, i)),
            30..65 => Term::Brif(first(rng, i), target(rng)),
            65..78 => {
                let k = 2 + rng.below(4);
                Term::Switch(
                    std::iter::once(first(rng, i))
                        .chain((1..k).map(|_| target(rng)))
                        .collect(),
                )
            }
            78..89 => Term::Return,
            89..99 => Term::Trap(1 + rng.below(3) as u16),
            _ => Term::Unreachable,
        })
        .collect();
    if !terms.iter().any(|t| matches!(t, Term::Return)) {
        terms[n - 1] = Term::Return;
    }
    let succs_of = |t: &Term| -> Vec<usize> {
        match t {
            Term::Jump(a) => vec![*a],
            Term::Brif(a, b) => vec![*a, *b],
            Term::Switch(ts) => ts.clone(),
            _ => vec![],
        }
    };
    // Fuel checks: on every edge to a block not after its source (every cycle has
    // one), either one check node per target block, which all such edges go
    // through (head-controlled loops), or one per edge (latches: tail-controlled loops
    // appear); or, in one function in ten, none (endless loops appear).
    let mode = rng.below(10);
    let mut nodes = n;
    let mut check_target: Vec<usize> = Vec::new(); // per check node, its block
    let mut check_of_target = vec![usize::MAX; n];
    let mut edge_node: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, t) in terms.iter().enumerate() {
        for s in succs_of(t) {
            let node = if s > i || mode == 0 {
                s
            } else if mode < 5 {
                if check_of_target[s] == usize::MAX {
                    check_of_target[s] = nodes;
                    check_target.push(s);
                    nodes += 1;
                }
                check_of_target[s]
            } else {
                check_target.push(s);
                nodes += 1;
                nodes - 1
            };
            edge_node[i].push(node);
        }
    }
    let out = nodes;
    nodes += 1;
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    succs[..n].clone_from_slice(&edge_node);
    for (k, &t) in check_target.iter().enumerate() {
        succs[n + k] = vec![out, t];
    }
    let cfg = vliw_ssa::Cfg::from_successors(
        vliw_ssa::Block(0),
        succs.iter().map(|s| {
            s.iter()
                .map(|&t| vliw_ssa::Block(t as u32))
                .collect::<Vec<_>>()
        }),
    );
    let dom: vliw_ssa::DomTree<vliw_ssa::Block> = vliw_ssa::DomTree::compute(&cfg);

    let types = [Type::I32, Type::I64, Type::I8];
    let mut f = Function::new(
        name,
        Signature::new(&[Type::I32, Type::I32], &[Type::I32]),
        Linkage::Export,
    );
    let trace = f.import_function("trace", Signature::new(&[Type::I32], &[]));
    let mut b = FunctionBuilder::new(&mut f);
    let blocks: Vec<vliw_ir::Block> = (0..nodes).map(|_| b.create_block()).collect();
    // Parameters: the entry's are the arguments; a block's are the fuel and 0..3
    // random ones; a check node has its block's; the exit one i32.
    let mut param_tys: Vec<Vec<Type>> = vec![Vec::new(); nodes];
    param_tys[0] = vec![Type::I32, Type::I32];
    for tys in &mut param_tys[1..n] {
        let extra = rng.below(4);
        *tys = std::iter::once(Type::I32)
            .chain((0..extra).map(|_| types[rng.below(types.len())]))
            .collect();
    }
    for (k, &t) in check_target.iter().enumerate() {
        param_tys[n + k] = param_tys[t].clone();
    }
    param_tys[out] = vec![Type::I32];
    let params: Vec<Vec<vliw_ir::Value>> = (0..nodes)
        .map(|i| {
            param_tys[i]
                .iter()
                .map(|&t| b.append_block_param(blocks[i], t))
                .collect()
        })
        .collect();

    // Emit in dominator-tree preorder (then the unreachable nodes); each node sees
    // the values of its dominators.
    let mut order: Vec<usize> = dom.preorder().iter().map(|x| x.index()).collect();
    for i in 0..nodes {
        if !dom.is_reachable(vliw_ssa::Block(i as u32)) {
            order.push(i);
        }
    }
    let mut pools: Vec<Vec<vliw_ir::Value>> = vec![Vec::new(); nodes];
    for &i in &order {
        let block = blocks[i];
        b.switch_to_block(block);
        let mut pool = match dom.idom(vliw_ssa::Block(i as u32)) {
            Some(d) => pools[d.index()].clone(),
            None => Vec::new(),
        };
        pool.extend_from_slice(&params[i]);
        let fuel = if i == 0 {
            let v = b.ins().iconst(Type::I32, 2 + rng.below(30) as i64);
            pool.push(v);
            v
        } else {
            params[i][0]
        };
        let ty_of = |b: &FunctionBuilder, v: vliw_ir::Value| b.func.dfg.value_type(v);
        let pick = |rng: &mut Rng, b: &mut FunctionBuilder, pool: &[vliw_ir::Value], ty: Type| {
            let of: Vec<_> = pool
                .iter()
                .copied()
                .filter(|&v| ty_of(b, v) == ty)
                .collect();
            if of.is_empty() || rng.chance(10) {
                let k = rng.below(9) as i64 - 3;
                b.ins().iconst(ty, k)
            } else {
                of[rng.below(of.len())]
            }
        };
        if i == out {
            let x = params[i][0];
            let seven = b.ins().iconst(Type::I32, 7);
            let y = b.ins().binary(Opcode::Imul, x, seven);
            b.ins().return_(&[y]);
            pools[i] = pool;
            continue;
        }
        if i >= n {
            // A check node: leave when the fuel is out, else go on with one less.
            let orig = check_target[i - n];
            let zero = b.ins().iconst(Type::I32, 0);
            let one = b.ins().iconst(Type::I32, 1);
            let less = b.ins().binary(Opcode::Isub, fuel, one);
            let mut args = params[i].clone();
            args[0] = less;
            let x = pick(rng, &mut b, &pool, Type::I32);
            if rng.chance(50) {
                let c = b.ins().icmp(IntCC::Sle, fuel, zero);
                b.ins().brif(c, blocks[out], &[x], blocks[orig], &args);
            } else {
                let c = b.ins().icmp(IntCC::Sgt, fuel, zero);
                b.ins().brif(c, blocks[orig], &args, blocks[out], &[x]);
            }
            pools[i] = pool;
            continue;
        }
        // Random operations.
        for _ in 0..rng.below(5) {
            let ty = types[rng.below(types.len())];
            let x = pick(rng, &mut b, &pool, ty);
            let y = pick(rng, &mut b, &pool, ty);
            let v = match rng.below(12) {
                0 => b.ins().binary(Opcode::Iadd, x, y),
                1 => b.ins().binary(Opcode::Isub, x, y),
                2 => b.ins().binary(Opcode::Imul, x, y),
                3 => b.ins().binary(Opcode::Bxor, x, y),
                4 => b.ins().binary(Opcode::Udiv, x, y),
                5 => {
                    let c = b.ins().icmp(IntCC::Slt, x, y);
                    b.ins().select(c, y, x)
                }
                6 => {
                    if ty == Type::I64 {
                        b.ins().ireduce(Type::I32, x)
                    } else {
                        b.ins().sextend(Type::I64, x)
                    }
                }
                7 => {
                    let v = pick(rng, &mut b, &pool, Type::I32);
                    b.ins().call(trace, &[v]);
                    continue;
                }
                _ => b.ins().binary(Opcode::Iadd, x, x),
            };
            pool.push(v);
        }
        let args_for =
            |rng: &mut Rng, b: &mut FunctionBuilder, pool: &[vliw_ir::Value], node: usize| {
                let mut args = vec![fuel];
                for &ty in &param_tys[node][1..] {
                    args.push(pick(rng, b, pool, ty));
                }
                (blocks[node], args)
            };
        let en = &edge_node[i];
        match &terms[i] {
            Term::Jump(_) => {
                let (tb, args) = args_for(rng, &mut b, &pool, en[0]);
                b.ins().jump(tb, &args);
            }
            Term::Brif(..) => {
                let ty = types[rng.below(types.len())];
                let x = pick(rng, &mut b, &pool, ty);
                let y = pick(rng, &mut b, &pool, ty);
                let c = b.ins().icmp(IntCC::Slt, x, y);
                let (tb, targs) = args_for(rng, &mut b, &pool, en[0]);
                let (eb, eargs) = args_for(rng, &mut b, &pool, en[1]);
                b.ins().brif(c, tb, &targs, eb, &eargs);
            }
            Term::Switch(_) => {
                let ty = types[rng.below(types.len())];
                let x = pick(rng, &mut b, &pool, ty);
                let seven = b.ins().iconst(ty, 7);
                let v = b.ins().binary(Opcode::Band, x, seven);
                let (db, dargs) = args_for(rng, &mut b, &pool, en[0]);
                let mut table = SwitchData::new(vliw_ir::BlockCall::new(db, &dargs));
                let mut vals: Vec<u128> = (0..8).collect();
                for &t in &en[1..] {
                    let k = vals.remove(rng.below(vals.len()));
                    // Sometimes the same target and arguments as the previous case.
                    let call = if rng.chance(30) && table.dests.len() > 1 {
                        table.dests.last().expect("a case").clone()
                    } else {
                        let (tb, targs) = args_for(rng, &mut b, &pool, t);
                        vliw_ir::BlockCall::new(tb, &targs)
                    };
                    table.push_case(k, call);
                }
                b.ins().switch(v, table);
            }
            Term::Return => {
                let v = pick(rng, &mut b, &pool, Type::I32);
                b.ins().return_(&[v]);
            }
            Term::Trap(code) => {
                b.ins().trap(*code);
            }
            Term::Unreachable => {
                b.ins().unreachable();
            }
        }
        pools[i] = pool;
    }
    f
}

//! Scalar promotion of stack slot cells in loops (`rvsdg-promote`): a variable that
//! lives in a stack slot because its address escapes *somewhere* — a loop's
//! accumulator printed after the loop (`println!` takes `&h`), a `Vec` whose address
//! its drop glue receives — is loaded and stored in every iteration, on the loop's
//! memory state chain. Where its address has not escaped yet when the loop runs, and
//! the loop reaches it only through its own loads and stores, it is a loop variable
//! in all but name (LLVM's LICM promotion, `promoteLoopAccessesToScalars`, whose
//! condition is the same: the object is not captured before or in the loop).
//!
//! **Which cells.** For a θ and a stack slot of the λ: every
//! access to the slot inside the θ, at any depth, is a plain load or store of one
//! cell (the same offset and size, a known offset within the slot's bounds, the same
//! value type); accesses of the slot to other bytes that do not overlap the cell are
//! left alone. No nested θ accesses the cell (its value would have to be carried
//! through it too). And no use through which the slot's address escapes
//! (`escape::slot_captures`) can run before or during the outermost θ around it (itself
//! when it is in none: an outer loop could run an escaping use of its body before
//! the next run of the inner one): each is after that θ (it depends on one of the
//! θ's outputs, so it runs after the θ's last iteration), in another arm of a γ that
//! holds the θ (it does not run when the θ does), a call outside the loop being
//! promoted to a λ of the module whose parameter does not escape it (`vec![0; n]`
//! writing its result into the slot: a store of the slot in the memory order, which
//! keeps nothing of the address), or — for a cell the θ only reads —
//! inside the θ in a γ arm that never completes (a sink at its top level, or a γ
//! whose arms all never complete: a landing pad's drops before `_Unwind_Resume`;
//! the loop never goes on after it, so what it does to the cell is not seen by the
//! loads that were hoisted; the memory it reads still holds the cell, which nobody
//! wrote) and that holds none of the θ's accesses of the cell (a load there may
//! come after the use and read what it wrote: a panic's arguments that a call
//! fills in the slot, filetest `promote-sink-arm-loads.ir`). Then nothing but
//! the loop's own accesses reads or writes the cell while it runs.
//!
//! **The rewrite.** The cell is loaded once before the θ (a stack slot's cell is
//! always there to be loaded; the value loaded when nothing stored it yet is never
//! used), its value enters the θ as a loop variable, each load in the body reads the
//! current value and each store makes a new one (through γs as entry and exit
//! variables, in the order of the body's memory state chain), and after the θ the
//! last value is stored back when the θ stored the cell. The body's loads and
//! stores of the cell go. Counters: `promote.cells` (cells promoted),
//! `promote.loads`, `promote.stores` (accesses removed from loop bodies).
//!
//! Only a body whose memory state is one chain per region (as built, before
//! `rvsdg-mem-split`) is rewritten: the chain is the order of the accesses.
//! `VLIW_PROMOTE_TRACE=1` prints why a cell is not promoted.

use rustc_hash::{FxHashMap, FxHashSet};
use vliw_ir::{InstructionData, Opcode, StackSlot, Type};

use super::access::Analysis;
use super::address::Base;
use super::escape::slot_captures;
use super::split::one_chain_per_region;
use crate::graph::{Node, NodeKind, Origin, Region, User};
use crate::ops::{Op, Rvsdg, Ty};
use crate::report::Report;

/// Promotes the cells of every λ's outermost loops (module documentation).
pub fn promote_loop_cells(g: &mut Rvsdg, report: &mut Report) {
    let mut counts = Counts::default();
    let mut callees = Callees::new(g);
    for l in g.lambdas() {
        promote_lambda(g, l, &mut callees, &mut counts);
    }
    report.count("promote.cells", counts.cells);
    report.count("promote.loads", counts.loads);
    report.count("promote.stores", counts.stores);
}

#[derive(Default)]
struct Counts {
    cells: u64,
    loads: u64,
    stores: u64,
}

/// A cell of a stack slot: its offset, size and the type its accesses read or write.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
struct Cell {
    slot: StackSlot,
    offset: i64,
    size: u64,
    ty: Type,
}

/// One access to the cell inside the θ.
struct CellAccess {
    node: Node,
    store: bool,
}

fn promote_lambda(g: &mut Rvsdg, l: Node, callees: &mut Callees, counts: &mut Counts) {
    let body = g.lambda_body(l);
    // nothing to analyse without a loop; nothing to rewrite once the states are split
    if thetas(g, body).is_empty() || !one_chain_per_region(g, body) {
        return;
    }
    // one cell per slot per round: a rewrite changes the graph the analysis saw, but
    // only the accesses of its own slot (it removes them and adds a load and a store
    // of that slot around the θ); the accesses and escape points of other slots stay
    // as analysed, so their cells are promoted in the same round
    for _ in 0..MAX_ROUNDS {
        let a = Analysis::of_lambda(g, l);
        if !a.slots_trusted() {
            return;
        }
        let found = find_candidates(g, body, &a, callees);
        if found.is_empty() {
            return;
        }
        for (theta, cell, accesses) in found {
            rewrite(g, theta, cell, &accesses, counts);
        }
        // what was known of this λ's parameters (a recursive call's) may have changed
        callees.forget(l);
    }
}

/// At most this many rounds per λ (each round analyses the λ again).
const MAX_ROUNDS: usize = 16;

/// The θs below `body`, innermost first, each with the outermost θ that holds it
/// (itself when it is in no other).
fn thetas(g: &Rvsdg, body: Region) -> Vec<(Node, Node)> {
    let mut found = Vec::new();
    let mut work: Vec<(Region, Option<Node>)> = vec![(body, None)];
    while let Some((r, outer)) = work.pop() {
        for &n in g.nodes(r) {
            match g.kind(n) {
                NodeKind::Theta { body } => {
                    let outermost = outer.unwrap_or(n);
                    found.push((n, outermost));
                    work.push((*body, Some(outermost)));
                }
                NodeKind::Gamma { arms } => work.extend(arms.iter().map(|&a| (a, outer))),
                _ => {}
            }
        }
    }
    found.reverse();
    found
}

/// The cells that can be promoted, at most one per slot (the first found, θs
/// innermost first), each with its θ and accesses.
fn find_candidates(
    g: &Rvsdg,
    body: Region,
    a: &Analysis,
    callees: &mut Callees,
) -> Vec<(Node, Cell, Vec<CellAccess>)> {
    let mut captured = slot_captures(g, body, &a.addrs);
    // the escape points of each slot's address, found when first asked for
    let mut points: FxHashMap<StackSlot, Option<Vec<(Node, Option<usize>)>>> = FxHashMap::default();
    let mut reach = Reach::default();
    let mut found: Vec<(Node, Cell, Vec<CellAccess>)> = Vec::new();
    for (theta, outermost) in thetas(g, body) {
        if mem_var(g, theta).is_none() {
            continue;
        }
        for (cell, accesses) in cells_of(g, theta, a) {
            if found.iter().any(|(_, c, _)| c.slot == cell.slot) {
                continue;
            }
            let escapes = points.entry(cell.slot).or_insert_with(|| {
                escape_points(g, body, captured.remove(&cell.slot).unwrap_or_default())
            });
            if let Some(escapes) = escapes
                && safe_to_promote(g, outermost, cell, &accesses, escapes, callees, &mut reach)
            {
                found.push((theta, cell, accesses));
                continue;
            }
            if tracing() {
                eprintln!(
                    "promote: {theta}: {cell:?}: an escaping use may run before or in the loop"
                );
            }
        }
    }
    found
}

/// Whether `VLIW_PROMOTE_TRACE` asks why cells are not promoted (read once).
fn tracing() -> bool {
    static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *TRACE.get_or_init(|| std::env::var_os("VLIW_PROMOTE_TRACE").is_some())
}

/// The cells the θ's loads and stores of stack slots access, each with its accesses,
/// where every access of the slot in the θ is to that cell or apart from it and no
/// node in the θ has effects the analysis cannot list.
fn cells_of(g: &Rvsdg, theta: Node, a: &Analysis) -> Vec<(Cell, Vec<CellAccess>)> {
    let mut by_slot: Vec<(StackSlot, Vec<(Node, Cell, bool)>)> = Vec::new();
    let mut refused: FxHashSet<StackSlot> = FxHashSet::default();
    for r in g.regions_below(g.theta_body(theta)) {
        for &n in g.nodes(r) {
            if !matches!(g.kind(n), NodeKind::Simple(_)) {
                continue;
            }
            let e = a.effects(g, n);
            if e.anything {
                return Vec::new();
            }
            let plain = match g.op(n) {
                Some(Op::Inst(InstructionData::Load { opcode, flags, .. })) => {
                    (*opcode == Opcode::Load && !flags.volatile).then_some(false)
                }
                Some(Op::Inst(InstructionData::Store { opcode, flags, .. })) => {
                    (*opcode == Opcode::Store && !flags.volatile).then_some(true)
                }
                _ => None,
            };
            for acc in e.reads.iter().chain(&e.writes) {
                let Base::Slot(s) = acc.addr.base else {
                    continue;
                };
                let cell = match (plain, acc.addr.offset, acc.size, a.in_bounds(acc)) {
                    (Some(store), Some(offset), Some(size), Some(true)) => {
                        let value = if store {
                            g.input(n, 0)
                        } else {
                            Origin::Out(n, 0)
                        };
                        match g.ty(value) {
                            Ty::Val(ty) => Some((
                                Cell {
                                    slot: s,
                                    offset,
                                    size,
                                    ty,
                                },
                                store,
                            )),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                let Some((cell, store)) = cell else {
                    // a copy, an unknown offset: the slot stays in memory
                    if tracing() {
                        eprintln!("promote: {theta}: {s}: {n} is not a plain access of a cell");
                    }
                    refused.insert(s);
                    continue;
                };
                match by_slot.iter_mut().find(|(x, _)| *x == s) {
                    Some((_, v)) => v.push((n, cell, store)),
                    None => by_slot.push((s, vec![(n, cell, store)])),
                }
            }
        }
    }
    let mut cells = Vec::new();
    for (s, found) in by_slot {
        if refused.contains(&s) {
            continue;
        }
        // the first access's cell; the others the same or apart from it
        let cell = found[0].1;
        let overlaps = |c: &Cell| {
            c.offset < cell.offset + cell.size as i64 && cell.offset < c.offset + c.size as i64
        };
        if found.iter().any(|(_, c, _)| *c != cell && overlaps(c)) {
            continue;
        }
        let accesses: Vec<CellAccess> = found
            .iter()
            .filter(|(_, c, _)| *c == cell)
            .map(|&(node, _, store)| CellAccess { node, store })
            .collect();
        if in_nested_theta(g, theta, &accesses) {
            continue;
        }
        cells.push((cell, accesses));
    }
    cells
}

/// Whether an access is inside a θ nested in `theta`.
fn in_nested_theta(g: &Rvsdg, theta: Node, accesses: &[CellAccess]) -> bool {
    accesses.iter().any(|acc| {
        let mut r = g.node(acc.node).region;
        loop {
            let owner = g.owner(r).expect("inside the θ");
            if owner == theta {
                return false;
            }
            if matches!(g.kind(owner), NodeKind::Theta { .. }) {
                return true;
            }
            r = g.node(owner).region;
        }
    })
}

/// Whether no use through which the cell's slot escapes runs before or during θ
/// `theta`, the outermost θ around the one whose accesses are `accesses` (module
/// documentation).
fn safe_to_promote(
    g: &Rvsdg,
    theta: Node,
    cell: Cell,
    accesses: &[CellAccess],
    points: &[(Node, Option<usize>)],
    callees: &mut Callees,
    reach: &mut Reach,
) -> bool {
    let stored = accesses.iter().any(|x| x.store);
    let inner = innermost_theta(g, g.node(accesses[0].node).region);
    points.iter().all(|&(node, input)| {
        let ok = match order(g, theta, node, reach) {
            Order::After | Order::Exclusive => true,
            // the loop never goes on after that arm, so the hoisted loads do not see
            // what the use does to the cell; but a load of the cell in the arm
            // itself may come after it (a panic's arguments that a call has just
            // written into the slot)
            Order::InsideSinkArm(arm) if !stored => {
                let inside_arm = g.regions_below(arm);
                !accesses
                    .iter()
                    .any(|acc| inside_arm.contains(&g.node(acc.node).region))
            }
            // a call that only accesses the slot through the argument and keeps
            // nothing of it is a load and a store of the slot in the memory order:
            // harmless unless in the loop being promoted
            _ => {
                !ancestors(g, node).iter().any(|&(_, n)| n == inner)
                    && input.is_some_and(|i| callees.does_not_capture(g, node, i))
            }
        };
        if !ok && tracing() {
            eprintln!(
                "promote: {theta}: {:?}: escapes at {node} ({:?}), in {:?}",
                cell.slot,
                g.op(node),
                ancestors(g, node)
            );
        }
        ok
    })
}

/// The nodes at which the escaping uses `uses` let the address go: a pure
/// computation (no state: a `bitcast`, an `icmp`, an `iadd` on the integer) is
/// followed to its users, since it can do nothing with the address itself; a node
/// with a state (a call, a store of the value, a load through a pointer made of it)
/// or a γ or θ that takes the value is a point. Returned by the λ: no point (after
/// everything). `None` when a value leaves a γ arm or θ body (the structural node's
/// users would have to be followed: not worth it).
fn escape_points(g: &Rvsdg, body: Region, uses: Vec<User>) -> Option<Vec<(Node, Option<usize>)>> {
    let mut points = Vec::new();
    let mut seen: FxHashSet<Node> = FxHashSet::default();
    // a use, and whether it reads the address itself (not something computed from it)
    let mut work: Vec<(User, bool)> = uses.into_iter().map(|u| (u, true)).collect();
    while let Some((u, direct)) = work.pop() {
        match u {
            User::Res(r, _) if r == body => {}
            User::Res(..) => return None,
            User::In(n, i) => {
                let pure = matches!(g.kind(n), NodeKind::Simple(op) if op.states() == Default::default())
                    && !g
                        .inputs(n)
                        .iter()
                        .any(|&o| matches!(g.ty(o), Ty::Mem | Ty::Io));
                if !pure {
                    points.push((n, direct.then_some(i as usize)));
                } else if seen.insert(n) {
                    for o in g.outputs(n) {
                        work.extend(g.users(o).iter().map(|&u| (u, false)));
                    }
                }
            }
        }
    }
    Some(points)
}

/// The θ whose body holds region `r` (at any depth below it, through γs only).
fn innermost_theta(g: &Rvsdg, mut r: Region) -> Node {
    loop {
        let owner = g.owner(r).expect("inside a θ");
        if matches!(g.kind(owner), NodeKind::Theta { .. }) {
            return owner;
        }
        r = g.node(owner).region;
    }
}

/// Which parameters of the module's λs their calls do not capture, found when first
/// asked for.
struct Callees {
    by_name: rustc_hash::FxHashMap<String, Node>,
    known: rustc_hash::FxHashMap<(Node, usize), bool>,
}

impl Callees {
    fn new(g: &Rvsdg) -> Callees {
        Callees {
            by_name: g
                .lambdas()
                .into_iter()
                .map(|l| (g.lambda_info(l).name.clone(), l))
                .collect(),
            known: Default::default(),
        }
    }

    /// Forgets what is known of λ `l`'s parameters (its body changed).
    fn forget(&mut self, l: Node) {
        self.known.retain(|&(callee, _), _| callee != l);
    }

    /// Whether call `n` passes its input `i` to a λ of the module whose pointer
    /// parameter does not escape it (`escape::escapes`: only used as the address of
    /// its own plain accesses): the callee reads and writes through it while the
    /// call runs and keeps nothing of it after.
    fn does_not_capture(&mut self, g: &Rvsdg, n: Node, i: usize) -> bool {
        let Some(Op::Inst(InstructionData::Call { func, .. })) = g.op(n) else {
            return false;
        };
        let Some(caller) = g.enclosing_lambda(g.node(n).region) else {
            return false;
        };
        let Some(callee) = g
            .lambda_info(caller)
            .ext_funcs
            .get(*func)
            .and_then(|f| self.by_name.get(&f.name).copied())
        else {
            return false;
        };
        let params = &g.lambda_info(callee).signature.params;
        if params.get(i) != Some(&Type::Ptr) {
            return false;
        }
        *self.known.entry((callee, i)).or_insert_with(|| {
            let body = g.lambda_body(callee);
            let addrs = super::address::Addresses::of_lambda(g, callee);
            !super::escape::escapes(g, body, &addrs, Base::Value(Origin::Arg(body, i as u32)))
        })
    }
}

/// Where node `x` runs relative to θ `theta`.
enum Order {
    /// After the θ's last iteration.
    After,
    /// Never in a run of the λ in which the θ runs (another arm of a γ).
    Exclusive,
    /// Inside the θ, in this γ arm (the outermost of those around it in the θ) that
    /// ends in a sink.
    InsideSinkArm(Region),
    /// Possibly before or during it.
    Unknown,
}

/// The chain of (region, node) from `n` up to the λ's body: `n` in its region, its
/// owner in the enclosing region, and so on.
fn ancestors(g: &Rvsdg, n: Node) -> Vec<(Region, Node)> {
    let mut chain = Vec::new();
    let mut cur = n;
    loop {
        let r = g.node(cur).region;
        chain.push((r, cur));
        match g.owner(r) {
            Some(o) if !matches!(g.kind(o), NodeKind::Lambda { .. }) => cur = o,
            _ => return chain,
        }
    }
}

fn order(g: &Rvsdg, theta: Node, x: Node, reach: &mut Reach) -> Order {
    let tx = ancestors(g, x);
    let tt = ancestors(g, theta);
    // x holds the θ: it runs around it
    if tt.iter().any(|&(_, n)| n == x) {
        return Order::Unknown;
    }
    // inside the θ: x's chain passes through it
    if let Some(k) = tx.iter().position(|&(_, n)| n == theta) {
        let inside = &tx[..k];
        let sink_arm = inside.iter().rev().find(|&&(r, _)| {
            g.owner(r)
                .is_some_and(|o| matches!(g.kind(o), NodeKind::Gamma { .. }))
                && never_completes(g, r)
        });
        return match sink_arm {
            Some(&(arm, _)) => Order::InsideSinkArm(arm),
            None => Order::Unknown,
        };
    }
    // the deepest region both chains pass through
    for &(r, nt) in &tt {
        if let Some(&(_, nx)) = tx.iter().find(|&&(rx, _)| rx == r) {
            if nt == nx {
                // the same structural node holds both, in different regions (x is
                // not in the θ): different arms of a γ, or a θ around both (none:
                // the θ is outermost)
                return if matches!(g.kind(nt), NodeKind::Gamma { .. }) {
                    Order::Exclusive
                } else {
                    Order::Unknown
                };
            }
            return if reach.reaches(g, nt, nx) {
                Order::After
            } else {
                Order::Unknown
            };
        }
    }
    Order::Unknown
}

/// Whether a run of region `r` never completes: it holds a sink at its top level
/// (`unreachable`, `trap`), or a γ every arm of which that can run never completes.
/// An arm can run unless the γ's predicate is a `match` of a value that is a known
/// constant on every path that completes (`completing_constant`) and selects
/// another arm. That is the shape of a landing pad: each drop may unwind, its γ's
/// arm for that sets a flag and the next one drops the next value, and the last
/// calls `_Unwind_Resume` (a sink); after them, a γ on the flag calls the
/// "panic in cleanup" function (a sink) — on every path that gets there the flag
/// is set.
fn never_completes(g: &Rvsdg, r: Region) -> bool {
    g.nodes(r).iter().any(|&n| match g.kind(n) {
        NodeKind::Simple(Op::Inst(d)) => matches!(d.opcode(), Opcode::Unreachable | Opcode::Trap),
        NodeKind::Gamma { arms } => {
            let taken = taken_arm(g, n);
            arms.iter()
                .enumerate()
                .filter(|&(k, _)| taken.is_none_or(|t| t == k))
                .all(|(_, &a)| never_completes(g, a))
        }
        _ => false,
    })
}

/// The arm γ `n` takes whenever its predicate is computed on a path that completes:
/// its predicate a control constant, or a `match` of a [`completing_constant`].
fn taken_arm(g: &Rvsdg, n: Node) -> Option<usize> {
    let p = g.input(n, 0);
    if let Some(alt) = crate::opt::rewrite::ctl_of(g, p) {
        return Some(alt as usize);
    }
    let m = g.producer(p)?;
    let Some(Op::Match { cases, default, .. }) = g.op(m) else {
        return None;
    };
    let v = completing_constant(g, g.input(m, 0))?;
    Some(
        cases
            .iter()
            .find(|&&(c, _)| c == v)
            .map_or(*default, |&(_, a)| a) as usize,
    )
}

/// The value of `o` on every path on which the node that makes it completes: a
/// constant, or a γ output whose arms that complete all give that constant.
fn completing_constant(g: &Rvsdg, o: Origin) -> Option<u128> {
    if let Some(c) = crate::opt::rewrite::const_of(g, o) {
        return Some(c);
    }
    let Origin::Out(n, k) = o else {
        return None;
    };
    let NodeKind::Gamma { arms } = g.kind(n) else {
        return None;
    };
    let mut value = None;
    for &a in arms {
        if never_completes(g, a) {
            continue;
        }
        let v = completing_constant(g, g.results(a)[k as usize])?;
        if value.is_some_and(|x| x != v) {
            return None;
        }
        value = Some(v);
    }
    value
}

/// The nodes that depend on a node (same region, through any edge), found once per
/// node asked about.
#[derive(Default)]
struct Reach {
    after: FxHashMap<Node, FxHashSet<Node>>,
}

impl Reach {
    fn reaches(&mut self, g: &Rvsdg, from: Node, to: Node) -> bool {
        self.after
            .entry(from)
            .or_insert_with(|| g.dependents(from))
            .contains(&to)
    }
}

/// The θ's memory variable: the index of its one memory-typed input.
fn mem_var(g: &Rvsdg, theta: Node) -> Option<usize> {
    let mut found = g
        .inputs(theta)
        .iter()
        .enumerate()
        .filter(|&(_, &o)| g.ty(o) == Ty::Mem)
        .map(|(i, _)| i);
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// The memory state input of simple node `n` (its one memory-typed input).
fn mem_input(g: &Rvsdg, n: Node) -> usize {
    g.inputs(n)
        .iter()
        .position(|&o| g.ty(o) == Ty::Mem)
        .expect("a load or store reads a memory state")
}

fn mem_output(g: &Rvsdg, n: Node) -> Origin {
    g.outputs(n)
        .find(|&o| g.ty(o) == Ty::Mem)
        .expect("a load or store gives a memory state")
}

/// A `stack_addr` of the cell's slot in region `r`, and the offset a load or store
/// through it needs to reach the cell.
fn cell_pointer(g: &mut Rvsdg, r: Region, cell: Cell) -> Origin {
    let n = g.add_simple(
        r,
        Op::Inst(InstructionData::StackAddr {
            opcode: Opcode::StackAddr,
            slot: cell.slot,
            offset: 0,
        }),
        &[],
        &[Ty::Val(Type::Ptr)],
    );
    Origin::Out(n, 0)
}

/// The flags of the cell's first access, whose copy the new load and store take
/// (alignment; no scope: promotion runs before `rvsdg-mem-split`).
fn flags_of(g: &Rvsdg, n: Node) -> vliw_ir::MemFlags {
    match g.op(n) {
        Some(Op::Inst(d)) => d.mem_flags().expect("a load or store"),
        _ => unreachable!("a load or store"),
    }
}

fn rewrite(g: &mut Rvsdg, theta: Node, cell: Cell, accesses: &[CellAccess], counts: &mut Counts) {
    let region = g.node(theta).region;
    let m = mem_var(g, theta).expect("checked");
    let mut flags = flags_of(g, accesses[0].node);
    flags.scope = None;
    // the load before the θ, on the state that enters it
    let state_in = g.input(theta, m);
    let ptr = cell_pointer(g, region, cell);
    let offset = i32::try_from(cell.offset).expect("within a slot");
    let load = g.add_simple(
        region,
        Op::Inst(InstructionData::Load {
            opcode: Opcode::Load,
            flags,
            arg: vliw_ir::Value::from_u32(0),
            offset,
        }),
        &[ptr, state_in],
        &[Ty::Val(cell.ty), Ty::Mem],
    );
    g.set_input(theta, m, Origin::Out(load, 1));
    let (arg, out) = g.add_theta_var(theta, Origin::Out(load, 0));
    // the body: the accesses' values from the loop variable
    let targets: FxHashSet<Node> = accesses.iter().map(|x| x.node).collect();
    let tbody = g.theta_body(theta);
    let last = thread(g, tbody, arg, &targets, counts);
    let Origin::Out(_, k) = out else {
        unreachable!("a θ output")
    };
    g.set_result(tbody, k as usize + 1, last);
    // the store after the θ, when the body stored the cell
    if accesses.iter().any(|x| x.store) {
        let mem_out = Origin::Out(theta, m as u32);
        let users = g.users(mem_out).to_vec();
        let ptr = cell_pointer(g, region, cell);
        let store = g.add_simple(
            region,
            Op::Inst(InstructionData::Store {
                opcode: Opcode::Store,
                flags,
                args: [vliw_ir::Value::from_u32(0); 2],
                offset,
            }),
            &[out, ptr, mem_out],
            &[Ty::Mem],
        );
        for u in users {
            match u {
                User::In(n, i) => g.set_input(n, i as usize, Origin::Out(store, 0)),
                User::Res(r, i) => g.set_result(r, i as usize, Origin::Out(store, 0)),
            }
        }
    }
    counts.cells += 1;
}

/// Replaces the accesses to the cell in region `r` (and the γs in it), in the order
/// of the region's memory state chain, by the values they read and write; `cur` is
/// the cell's value on entry. Returns its value at the end of the region.
fn thread(
    g: &mut Rvsdg,
    r: Region,
    mut cur: Origin,
    targets: &FxHashSet<Node>,
    counts: &mut Counts,
) -> Origin {
    for n in g.topological_order(r) {
        if targets.contains(&n) {
            let state_in = g.input(n, mem_input(g, n));
            let state_out = mem_output(g, n);
            let store = matches!(g.op(n), Some(Op::Inst(InstructionData::Store { .. })));
            if store {
                cur = g.input(n, 0);
                counts.stores += 1;
            } else {
                g.divert_users(Origin::Out(n, 0), cur);
                counts.loads += 1;
            }
            g.divert_users(state_out, state_in);
            g.remove_node(n);
            continue;
        }
        let NodeKind::Gamma { arms } = g.kind(n).clone() else {
            continue;
        };
        if !arms.iter().any(|&arm| {
            g.regions_below(arm)
                .iter()
                .any(|&q| g.nodes(q).iter().any(|m| targets.contains(m)))
        }) {
            continue;
        }
        let args = g.add_gamma_entry(n, cur);
        let finals: Vec<Origin> = arms
            .iter()
            .zip(args)
            .map(|(&arm, a)| thread(g, arm, a, targets, counts))
            .collect();
        cur = g.add_gamma_exit(n, &finals);
    }
    cur
}

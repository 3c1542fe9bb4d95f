//! Unit tests of the dependence graph, the list scheduler and the padding.

use vliw_ir::Linkage;
use vliw_isa::{CmpType, MachineConfig, Opcode};

use super::deps::{DepGraph, DepKind, OpInfo};
use super::{Policy, list};
use crate::emit::encoding_of;
use crate::mir::{Imm, MGuard, MInst, MachFunction, PReg, Reg};

/// The number of operations of each bundle of each block, after scheduling.
struct Lens {
    blocks: Vec<Vec<usize>>,
}

fn schedule_function_with(f: &mut MachFunction, config: &MachineConfig, policy: Policy) -> Lens {
    super::schedule_function_with(f, config, policy);
    let bundles = f.bundles.as_ref().expect("bundled");
    Lens {
        blocks: f.layout.iter().map(|&b| bundles.lens(b)).collect(),
    }
}

fn r(n: u8) -> Reg {
    Reg::gpr(n)
}

fn p(n: u8) -> Reg {
    Reg::pred(n)
}

fn op(o: Opcode, defs: &[Reg], uses: &[Reg], imm: i64) -> MInst {
    let imm = if o.format().has(vliw_isa::FieldKind::Imm) {
        Imm::Const(imm)
    } else {
        Imm::None
    };
    MInst::op(o, defs, uses, imm)
}

fn ld(d: u8, base: u8, off: i64) -> MInst {
    op(Opcode::LdD, &[r(d)], &[r(base)], off)
}

fn st(base: u8, off: i64, v: u8) -> MInst {
    op(Opcode::StD, &[], &[r(base), r(v)], off)
}

fn movi(d: u8, v: i64) -> MInst {
    op(Opcode::Movi, &[r(d)], &[], v)
}

fn call() -> MInst {
    let mut c = MInst::op(
        Opcode::Call,
        &[],
        &[],
        Imm::Symbol {
            name: "f".into(),
            addend: 0,
        },
    );
    c.implicit_uses = vec![PReg::gpr(3)];
    c.implicit_defs = crate::abi::caller_saved();
    c
}

fn func() -> MachFunction {
    MachFunction::new("t", Linkage::Export)
}

fn infos(insts: &[MInst]) -> Vec<OpInfo> {
    let f = func();
    let config = MachineConfig::default();
    insts
        .iter()
        .map(|mi| OpInfo::new(mi, encoding_of(&f, mi).expect("encodable"), &config))
        .collect()
}

fn graph(insts: &[MInst]) -> DepGraph {
    DepGraph::build(&mut infos(insts))
}

fn cycles(insts: &[MInst], config: &MachineConfig) -> Vec<u32> {
    let f = func();
    let mut ops: Vec<OpInfo> = insts
        .iter()
        .map(|mi| OpInfo::new(mi, encoding_of(&f, mi).expect("encodable"), config))
        .collect();
    let g = DepGraph::build(&mut ops);
    list::schedule(&ops, &g, config)
}

#[test]
fn true_dependences_carry_the_producer_latency() {
    let g = graph(&[
        ld(11, 1, 8),
        op(Opcode::AddI, &[r(12)], &[r(11)], 1),
        op(Opcode::Mul, &[r(13)], &[r(12), r(12)], 0),
        op(Opcode::Add, &[r(14)], &[r(13), r(11)], 0),
    ]);
    assert_eq!(g.distance(0, 1), Some(3));
    assert_eq!(g.kinds(0, 1), vec![DepKind::True]);
    assert_eq!(g.distance(1, 2), Some(1));
    assert_eq!(g.distance(2, 3), Some(3));
    assert_eq!(g.distance(0, 3), Some(3));
}

#[test]
fn anti_and_output_dependences_allow_the_same_bundle() {
    let g = graph(&[
        op(Opcode::AddI, &[r(12)], &[r(11)], 1),
        movi(11, 5),
        movi(11, 6),
    ]);
    assert_eq!(g.kinds(0, 1), vec![DepKind::Anti]);
    assert_eq!(g.distance(0, 1), Some(0));
    assert_eq!(g.kinds(1, 2), vec![DepKind::Output]);
    assert_eq!(g.distance(1, 2), Some(0), "the later slot wins");
    // the second write does not wait for the reader of the first twice
    assert_eq!(g.distance(0, 2), None);
}

#[test]
fn guards_are_read_and_guarded_writes_do_not_hide_earlier_ones() {
    let mut cmp = op(Opcode::CmpEqI, &[p(1), p(2)], &[r(3)], 0);
    cmp.ctype = CmpType::Normal;
    let guarded = movi(11, 3).with_guard(MGuard::new(p(1), false));
    let g = graph(&[
        ld(11, 1, 0),
        cmp,
        guarded,
        op(Opcode::AddI, &[r(12)], &[r(11)], 1),
    ]);
    assert_eq!(g.kinds(1, 2), vec![DepKind::True]); // the guard
    assert_eq!(g.distance(1, 2), Some(1));
    // the add may read either write: it waits for the load too
    assert_eq!(g.distance(0, 3), Some(3));
    assert_eq!(g.distance(2, 3), Some(1));
}

#[test]
fn and_or_compares_read_nothing_and_stay_ordered() {
    let mut a = op(Opcode::CmpEqI, &[p(1), p(2)], &[r(3)], 0);
    a.ctype = CmpType::Or;
    let mut b = op(Opcode::CmpEqI, &[p(1), p(2)], &[r(4)], 0);
    b.ctype = CmpType::Or;
    let use_p1 = movi(5, 1).with_guard(MGuard::new(p(1), false));
    let g = graph(&[a, b, use_p1]);
    assert_eq!(g.kinds(0, 1), vec![DepKind::Output, DepKind::Output]);
    // both may have written p1
    assert_eq!(g.distance(0, 2), Some(1));
    assert_eq!(g.distance(1, 2), Some(1));
}

#[test]
fn memory_accesses_off_one_base_are_disambiguated_by_offset() {
    // disjoint slots off sp: independent
    let g = graph(&[st(1, 8, 3), ld(4, 1, 16), st(1, 24, 5)]);
    assert_eq!(g.distance(0, 1), None);
    assert_eq!(g.distance(0, 2), None);
    assert_eq!(g.distance(1, 2), None);
    // the same slot: store → load in a later bundle, load → store in the same one
    let g = graph(&[st(1, 8, 3), ld(4, 1, 8), st(1, 8, 5)]);
    assert_eq!(g.kinds(0, 1), vec![DepKind::Memory]);
    assert_eq!(g.distance(0, 1), Some(1));
    assert_eq!(g.distance(1, 2), Some(0));
    assert_eq!(g.distance(0, 2), Some(1));
    // overlapping bytes of different sizes
    let g = graph(&[st(1, 8, 3), op(Opcode::LdW, &[r(4)], &[r(1)], 12)]);
    assert_eq!(g.distance(0, 1), Some(1));
    // loads never depend on loads
    let g = graph(&[ld(4, 1, 8), ld(5, 1, 8)]);
    assert_eq!(g.distance(0, 1), None);
}

#[test]
fn memory_accesses_off_different_or_redefined_bases_may_alias() {
    let g = graph(&[st(11, 0, 3), ld(4, 1, 8)]);
    assert_eq!(g.distance(0, 1), Some(1));
    // sp redefined between the two: offsets no longer comparable
    let g = graph(&[
        st(1, 8, 3),
        op(Opcode::AddI, &[r(1)], &[r(1)], -16),
        ld(4, 1, 24),
    ]);
    assert_eq!(g.kinds(0, 2), vec![DepKind::Memory]);
    // atomics and fences overlap everything
    let amo = op(Opcode::AmoaddD, &[r(4)], &[r(11), r(5)], 0);
    let g = graph(&[st(1, 8, 3), amo, ld(6, 1, 16)]);
    assert_eq!(g.distance(0, 1), Some(1));
    assert_eq!(g.distance(1, 2), Some(1));
}

#[test]
fn save_and_spill_slots_are_reached_through_sp_only() {
    let private = |mut i: MInst| {
        i.scope = Some(vliw_ir::AliasScope::FRAME_PRIVATE);
        i
    };
    // a callee-saved register's save and a load through a pointer argument, then a
    // store through it and a spill slot's reload: independent
    let g = graph(&[private(st(1, 24, 32)), ld(4, 3, 0)]);
    assert_eq!(g.distance(0, 1), None);
    let g = graph(&[st(3, 0, 5), private(ld(6, 1, 16))]);
    assert_eq!(g.distance(0, 1), None);
    // through sp, offsets decide as for any access: the same slot is ordered
    let g = graph(&[private(st(1, 16, 32)), ld(4, 1, 16)]);
    assert_eq!(g.distance(0, 1), Some(1));
    // an atomic (no known place) still orders ordinary accesses around it; a save
    // before it does not keep an access of the same slot after it from its order
    let amo = op(Opcode::AmoaddD, &[r(4)], &[r(11), r(5)], 0);
    let g = graph(&[private(st(1, 8, 32)), amo.clone(), private(ld(6, 1, 8))]);
    assert_eq!(g.distance(0, 1), None);
    assert_eq!(g.distance(0, 2), Some(1));
    let g = graph(&[st(1, 8, 3), amo, ld(6, 1, 16)]);
    assert_eq!(g.distance(1, 2), Some(1));
}

#[test]
fn calls_are_barriers_with_implicit_uses_and_defs() {
    let g = graph(&[
        ld(3, 1, 8),
        movi(40, 1),
        call(),
        op(Opcode::AddI, &[r(21)], &[r(3)], 1),
    ]);
    // the argument register: written before the call or in its bundle (the call
    // clobbers it, a later write in the model), ready for the callee (`pad`), not
    // 3 cycles before
    assert_eq!(g.distance(0, 2), Some(0));
    assert_eq!(g.distance(1, 2), Some(0)); // barrier: same bundle at the latest
    assert_eq!(g.distance(2, 3), Some(1)); // after the call, reading its result
    assert!(g.kinds(2, 3).contains(&DepKind::Barrier));
    // a caller-saved register is written by the call too
    let g = graph(&[movi(20, 1), call()]);
    assert_eq!(g.distance(0, 1), Some(0));
}

#[test]
fn traps_order_memory_but_not_register_operations() {
    let trap = op(Opcode::Trap, &[], &[], 7).with_guard(MGuard::new(p(1), false));
    let g = graph(&[
        st(1, 8, 3),
        trap,
        op(Opcode::AddI, &[r(5)], &[r(6)], 1),
        ld(7, 1, 16),
    ]);
    assert_eq!(g.distance(0, 1), Some(0));
    assert_eq!(g.distance(1, 2), None);
    assert_eq!(g.distance(1, 3), Some(1));
}

#[test]
fn the_final_branch_comes_last() {
    let br = MInst::op(Opcode::Ret, &[], &[], Imm::None);
    let g = graph(&[movi(5, 1), ld(6, 1, 8), br]);
    assert_eq!(g.distance(0, 2), Some(0));
    assert_eq!(g.distance(1, 2), Some(0));
    let c = cycles(
        &[
            movi(5, 1),
            ld(6, 1, 8),
            movi(7, 1),
            MInst::op(Opcode::Ret, &[], &[], Imm::None),
        ],
        &MachineConfig::default(),
    );
    assert!(c[..3].iter().all(|&x| x <= c[3]), "{c:?}");
}

#[test]
fn a_chain_of_dependent_loads_is_spaced_by_the_latency() {
    let config = MachineConfig::default();
    let c = cycles(&[ld(11, 1, 0), ld(12, 11, 0), ld(13, 12, 0)], &config);
    assert_eq!(c, vec![0, 3, 6]);
    let config = MachineConfig::from_overrides("latency.load=5").unwrap();
    let c = cycles(&[ld(11, 1, 0), ld(12, 11, 0), ld(13, 12, 0)], &config);
    assert_eq!(c, vec![0, 5, 10]);
}

#[test]
fn independent_operations_fill_bundles_up_to_width_and_units() {
    let config = MachineConfig::default();
    let c = cycles(&(10..16).map(|n| movi(n, 1)).collect::<Vec<_>>(), &config);
    assert_eq!(c, vec![0, 0, 0, 0, 1, 1]);
    // two memory units
    let c = cycles(
        &(10..15).map(|n| ld(n, 1, 8 * n as i64)).collect::<Vec<_>>(),
        &config,
    );
    assert_eq!(c, vec![0, 0, 1, 1, 2]);
    // a long immediate takes two syllables
    let c = cycles(
        &[movi(10, 1 << 40), movi(11, 1 << 40), movi(12, 1)],
        &config,
    );
    assert_eq!(c, vec![0, 0, 1]);
    // the critical path goes first: the load chain before the independent moves
    let c = cycles(
        &[
            movi(20, 1),
            movi(21, 1),
            movi(22, 1),
            movi(23, 1),
            ld(11, 1, 0),
            ld(12, 11, 0),
        ],
        &config,
    );
    assert_eq!(c[4], 0);
    assert_eq!(c[5], 3);
}

#[test]
fn nothing_moves_across_a_call() {
    let config = MachineConfig::default();
    let c = cycles(&[movi(20, 1), call(), movi(21, 1), movi(22, 1)], &config);
    assert!(c[0] <= c[1] && c[1] < c[2] && c[1] < c[3], "{c:?}");
}

fn function_of(insts: Vec<MInst>) -> MachFunction {
    let mut f = func();
    let b = f.new_block();
    f.set_block(b, insts);
    f.layout.push(b);
    f
}

#[test]
fn latency_gaps_become_empty_bundles_and_exits_wait_for_results() {
    // (the one-cycle `nop` of a machine without `nop N`)
    let config = MachineConfig::from_overrides("max-nop=1").unwrap();
    let ret = || MInst::op(Opcode::Ret, &[], &[], Imm::None);
    let insts = vec![
        ld(11, 1, 0),
        op(Opcode::AddI, &[r(3)], &[r(11)], 1),
        ld(4, 1, 8),
        ret(),
    ];
    let mut f = function_of(insts.clone());
    let bundles = schedule_function_with(&mut f, &config, Policy::Pad);
    // ld r11, ld r4 | nop | nop | add r3 ; ret — the caller may read r4 at once:
    // ret issues at 3, the caller at 3 + 1 + penalty >= ready(r4) = 3
    assert_eq!(bundles.blocks, vec![vec![2, 1, 1, 2]]);
    let ops: Vec<Opcode> = f
        .block_insts(f.layout[0])
        .map(|i| i.opcode().unwrap())
        .collect();
    assert_eq!(
        ops,
        vec![
            Opcode::LdD,
            Opcode::LdD,
            Opcode::Nop,
            Opcode::Nop,
            Opcode::AddI,
            Opcode::Ret
        ]
    );
    // with `nop N`, the two idle cycles fold into the loads' bundle: `nop 3`
    let mut f = function_of(insts.clone());
    let bundles = schedule_function_with(&mut f, &MachineConfig::default(), Policy::Pad);
    assert_eq!(bundles.blocks, vec![vec![3, 2]]);
    let nop = f.block_insts(f.layout[0]).nth(2).unwrap();
    assert_eq!(
        (nop.opcode(), &nop.imm),
        (Some(Opcode::NopN), &Imm::Const(3))
    );
    // with the interlock policy, the gaps are left to the hardware
    let mut f = function_of(insts);
    let bundles = schedule_function_with(&mut f, &config, Policy::Interlock);
    assert_eq!(bundles.blocks, vec![vec![2, 2]]);
}

#[test]
fn a_result_left_in_flight_delays_the_return() {
    let config = MachineConfig::default();
    let mut f = function_of(vec![
        ld(3, 1, 0),
        MInst::op(Opcode::Ret, &[], &[], Imm::None),
    ]);
    let bundles = schedule_function_with(&mut f.clone(), &config, Policy::Pad);
    // ld at 0 is ready at 3; ret at 1 enters the caller at 1 + 1 + 1 = 3
    assert_eq!(bundles.blocks, vec![vec![1, 1]]);
    // without a branch penalty the return waits one more cycle: an empty bundle,
    // or the load's bundle made two cycles long
    let config = MachineConfig::from_overrides("branch-penalty=0,max-nop=1").unwrap();
    let bundles = schedule_function_with(&mut f.clone(), &config, Policy::Pad);
    assert_eq!(bundles.blocks, vec![vec![1, 1, 1]]);
    let config = MachineConfig::from_overrides("branch-penalty=0").unwrap();
    let bundles = schedule_function_with(&mut f, &config, Policy::Pad);
    assert_eq!(bundles.blocks, vec![vec![2, 1]]);
}

#[test]
fn successors_that_read_late_need_no_padding() {
    let config = MachineConfig::default();
    // block0: ld r11 ; falls through into block1, which reads r11 only after a call
    // would have to wait; here it reads it in its third bundle
    let mut f = func();
    let b0 = f.new_block();
    let b1 = f.new_block();
    f.set_block(b0, vec![ld(11, 1, 0)]);
    f.set_block(
        b1,
        vec![
            movi(12, 1),
            op(Opcode::AddI, &[r(13)], &[r(12)], 1),
            op(Opcode::AddI, &[r(14)], &[r(13)], 1),
            op(Opcode::Add, &[r(3)], &[r(14), r(11)], 0),
            MInst::op(Opcode::Ret, &[], &[], Imm::None),
        ],
    );
    f.layout = vec![b0, b1];
    let bundles = schedule_function_with(&mut f, &config, Policy::Pad);
    // r11 is read at cycle 3 of block1: ready(r11) = 3 - 1 (block0's length) = 2 — fine
    assert_eq!(bundles.blocks[0], vec![1]);
    // a successor reading at once makes the predecessor wait
    let mut f = func();
    let b0 = f.new_block();
    let b1 = f.new_block();
    f.set_block(b0, vec![ld(11, 1, 0)]);
    f.set_block(
        b1,
        vec![
            op(Opcode::Add, &[r(3)], &[r(11), r(11)], 0),
            MInst::op(Opcode::Ret, &[], &[], Imm::None),
        ],
    );
    f.layout = vec![b0, b1];
    // block1's only predecessor is block0: block1 is scheduled knowing what block0
    // leaves in flight, and waits itself (its first bundle a `nop 3`)
    let bundles = schedule_function_with(&mut f.clone(), &config, Policy::Pad);
    assert_eq!(bundles.blocks[0], vec![1], "ld");
    assert_eq!(bundles.blocks[1], vec![1, 2], "nop 3 ; add ret");
    // with a second predecessor (a branch from block2), block1 cannot know: the
    // predecessor waits instead
    let b2 = f.new_block();
    f.set_block(b2, vec![MInst::op(Opcode::Br, &[], &[], Imm::Block(b1))]);
    f.layout = vec![b0, b1, b2];
    let bundles = schedule_function_with(&mut f.clone(), &config, Policy::Pad);
    assert_eq!(bundles.blocks[0], vec![2], "ld ; nop 3");
    let config = MachineConfig::from_overrides("max-nop=1").unwrap();
    let bundles = schedule_function_with(&mut f, &config, Policy::Pad);
    assert_eq!(bundles.blocks[0], vec![1, 1, 1]);
}

#[test]
fn arguments_need_only_be_ready_when_the_callee_starts() {
    let config = MachineConfig::default();
    let mut f = function_of(vec![
        ld(3, 1, 0),
        call(),
        MInst::op(Opcode::Ret, &[], &[], Imm::None),
    ]);
    let bundles = schedule_function_with(&mut f, &config, Policy::Pad);
    // ld r3 at 0 is ready at 3; the call at 1 enters the callee at 1 + 1 + 1 = 3
    assert_eq!(bundles.blocks, vec![vec![1, 1, 1]]);
    // a caller-saved register that is neither an argument nor a result is not waited for
    let mut f = function_of(vec![
        ld(3, 1, 0),
        ld(20, 1, 8),
        call(),
        MInst::op(Opcode::Ret, &[], &[], Imm::None),
    ]);
    let bundles = schedule_function_with(&mut f, &config, Policy::Pad);
    assert_eq!(bundles.blocks, vec![vec![2, 1, 1]]);
}

#[test]
fn a_large_block_schedules_in_reasonable_time() {
    // naive-allocator-like code: loads and stores of homes off sp, now and then a
    // store through a pointer (which may alias every home)
    let n = 6000;
    let mut insts = Vec::new();
    for k in 0..n as i64 {
        insts.push(ld(11, 1, 8 * k));
        insts.push(op(Opcode::AddI, &[r(14)], &[r(11)], 1));
        insts.push(st(1, 8 * k + 8, 14));
        if k % 50 == 0 {
            insts.push(st(11, 0, 14));
        }
    }
    insts.push(MInst::op(Opcode::Ret, &[], &[], Imm::None));
    let mut f = function_of(insts);
    let start = std::time::Instant::now();
    let bundles = schedule_function_with(&mut f, &MachineConfig::default(), Policy::Pad);
    let took = start.elapsed();
    assert!(bundles.blocks[0].len() >= 3 * n / 4);
    assert!(took.as_secs_f64() < 5.0, "{took:?}");
    eprintln!("{} operations: {took:?}", 3 * n);
}

#[test]
fn a_narrower_machine_gets_narrower_bundles() {
    let config = MachineConfig::from_overrides("width=2,mem=1").unwrap();
    let c = cycles(
        &(10..14).map(|n| ld(n, 1, 8 * n as i64)).collect::<Vec<_>>(),
        &config,
    );
    assert_eq!(c, vec![0, 1, 2, 3]);
    let c = cycles(&(10..14).map(|n| movi(n, 1)).collect::<Vec<_>>(), &config);
    assert_eq!(c, vec![0, 0, 1, 1]);
    // a long immediate fills a 2-wide bundle alone
    let c = cycles(&[movi(10, 1 << 40), movi(11, 1)], &config);
    assert_eq!(c, vec![0, 1]);
}

#[test]
fn the_dump_shows_bundles() {
    let config = MachineConfig::default();
    let mut f = function_of(vec![
        movi(10, 1),
        movi(11, 2),
        MInst::op(Opcode::Ret, &[], &[], Imm::None),
    ]);
    schedule_function_with(&mut f, &config, Policy::Pad);
    let text = f.to_string();
    assert!(
        text.contains("    r10 = movi 1 ; r11 = movi 2 ; ret ;;"),
        "{text}"
    );
}

/// Writes of one register under disjoint guards (one predicate in both polarities, or
/// the two halves of a compare) may share a bundle; a predicate rewritten in between
/// ends that. A reader under a disjoint guard still waits the write's latency: it
/// interlocks on its operands whether or not its guard holds.
#[test]
fn writes_of_one_register_share_a_bundle() {
    let cmp = op(Opcode::CmpEqI, &[p(1), p(2)], &[r(3)], 0);
    let under =
        |q: u8, negated: bool, d: u8, v: i64| movi(d, v).with_guard(MGuard::new(p(q), negated));
    // (p1) r11 = 1; (!p1) r11 = 2, or under the halves of one compare, or under
    // guards nothing relates: the same bundle (the later slot wins)
    for (q, negated) in [(1, true), (2, false), (3, false)] {
        let g = graph(&[
            cmp.clone(),
            under(1, false, 11, 1),
            under(q, negated, 11, 2),
        ]);
        assert_eq!(g.distance(1, 2), Some(0));
    }
    // a reader under the other half: the write does not reach it, but it waits the
    // write's latency (a load under p1, a reader under p2: 3 cycles, not 0)
    let read = op(Opcode::AddI, &[r(12)], &[r(11)], 1).with_guard(MGuard::new(p(2), false));
    let g = graph(&[
        cmp.clone(),
        ld(11, 1, 0).with_guard(MGuard::new(p(1), false)),
        read.clone(),
    ]);
    assert_eq!(g.distance(1, 2), Some(3));
    // a guarded write after a load: both reach the reader, which waits for both;
    // the two writes may share a bundle
    let g = graph(&[
        cmp.clone(),
        ld(11, 1, 0),
        under(1, false, 11, 1),
        read.clone(),
    ]);
    assert_eq!(g.distance(1, 2), Some(0));
    assert_eq!(g.distance(2, 3), Some(1));
    assert_eq!(g.distance(1, 3), Some(3), "the load still reaches it");
    // an unguarded write after it: only that one reaches the reader
    let g = graph(&[cmp, ld(11, 1, 0), movi(11, 5), read]);
    assert_eq!((g.distance(1, 2), g.distance(2, 3)), (Some(0), Some(1)));
    assert_eq!(g.distance(1, 3), None);
}

#[test]
fn idle_cycles_fold_only_into_bundles_that_go_on_in_sequence() {
    // a bundle with a side exit (a guarded trap) keeps its one cycle: the wait for
    // the load after it becomes a `nop N` bundle of its own
    let trap = op(Opcode::Trap, &[], &[], 7).with_guard(MGuard::new(p(1), false));
    let insts = vec![
        ld(11, 1, 0),
        trap,
        op(Opcode::AddI, &[r(3)], &[r(11)], 1),
        MInst::op(Opcode::Ret, &[], &[], Imm::None),
    ];
    let mut f = function_of(insts);
    let bundles = schedule_function_with(&mut f, &MachineConfig::default(), Policy::Pad);
    assert_eq!(bundles.blocks, vec![vec![2, 1, 2]]);
    let nop = f.block_insts(f.layout[0]).nth(2).unwrap();
    assert_eq!(
        (nop.opcode(), &nop.imm),
        (Some(Opcode::NopN), &Imm::Const(2))
    );
    // a full bundle cannot take the `nop N` either; long waits take several
    let config = MachineConfig::from_overrides("latency.load=12,max-nop=4").unwrap();
    let insts = vec![
        ld(11, 1, 0),
        ld(12, 1, 8),
        movi(13, 1),
        movi(14, 2),
        op(Opcode::Add, &[r(3)], &[r(11), r(12)], 0),
        MInst::op(Opcode::Ret, &[], &[], Imm::None),
    ];
    let mut f = function_of(insts);
    let bundles = schedule_function_with(&mut f, &config, Policy::Pad);
    // 4 operations | nop 4 | nop 4 | nop 3 | add ; ret: 12 cycles before the add
    assert_eq!(bundles.blocks, vec![vec![4, 1, 1, 1, 2]]);
    let cycles: Vec<&Imm> = f
        .block_insts(f.layout[0])
        .map(|i| &i.imm)
        .skip(4)
        .take(3)
        .collect();
    assert_eq!(cycles, vec![&Imm::Const(4), &Imm::Const(4), &Imm::Const(3)]);
}

/// Two guarded branches in a row share a bundle where the machine has two branch
/// units (the first taken in slot order wins, which is program order); with one,
/// each takes its own. An operation between them keeps them apart.
#[test]
fn branches_in_a_row_share_a_bundle_with_two_branch_units() {
    let br = |g: u8| op(Opcode::Br, &[], &[], 16).with_guard(MGuard::new(p(g), false));
    let insts = [
        op(Opcode::CmpEqI, &[p(2), Reg::P0], &[r(3)], 1),
        op(Opcode::CmpEqI, &[p(3), Reg::P0], &[r(3)], 2),
        br(2),
        br(3),
        op(Opcode::Br, &[], &[], 32),
    ];
    let two = MachineConfig::default();
    let one = MachineConfig::from_overrides("branch=1").unwrap();
    assert_eq!(cycles(&insts, &one), vec![0, 0, 1, 2, 3]);
    assert_eq!(cycles(&insts, &two), vec![0, 0, 1, 1, 2]);
    let apart = [
        op(Opcode::CmpEqI, &[p(2), Reg::P0], &[r(3)], 1),
        br(2),
        movi(4, 1),
        br(2),
    ];
    assert_eq!(cycles(&apart, &two), vec![0, 1, 2, 2]);
}

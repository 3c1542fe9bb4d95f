//! Predecoding: the text is decoded once, linearly, into a compact form that the
//! issue loop executes without ever decoding again.
//!
//! - Every bundle becomes a `Bundle` (address, fall-through successor, the union of
//!   the registers and predicates its operations read, for the interlock) and its
//!   operations become `Op`s with register numbers turned into indices of one
//!   register file (`r0..r63` at 0..63, `p0..p15` at 64..79, writes to `r0`/`p0`
//!   redirected to a sink), latencies looked up in the machine configuration, and
//!   direct branch targets resolved to bundle indices.
//! - A syllable that does not decode, or a bundle that `check_bundle` rejects,
//!   becomes an *illegal* bundle entry of one syllable that faults only if executed;
//!   decoding resumes at the next syllable.
//! - A table maps every syllable address of the text to its bundle index, or to
//!   `NONE` when no bundle starts there, for indirect jumps.
//!
//! Read-before-write inside a bundle: all operations read before any writes. Most
//! bundles can nevertheless execute their operations one at a time, writing at once,
//! in an order where every reader of a register comes before its writer
//! (`execution_order`); only bundles with a cyclic dependency (a swap of two
//! registers, a store followed by a load) are marked `BUFFERED` and execute with
//! their writes deferred to the end of the bundle. So are bundles where a slot
//! after a system call writes r3, the system call's result register.

use vliw_isa::{
    CmpType, DecodeError, FieldKind, Format, Inst, MachineConfig, Opcode, check_bundle,
    decode_bundle,
};

/// No bundle (an index into the bundle table).
pub(crate) const NONE: u32 = u32::MAX;
/// Register-file index of `p0`; predicate `pN` is at `PRED_BASE + N`.
pub(crate) const PRED_BASE: u8 = 64;
/// Register-file index that absorbs writes to `r0` and `p0`.
pub(crate) const SINK: u8 = 80;
/// Size of the register file array (indexed by `u8`, so no bounds checks).
pub(crate) const REG_FILE: usize = 256;
pub(crate) const LR: u8 = 63;

/// Bundle flags.
pub(crate) const ILLEGAL: u8 = 1;
pub(crate) const BUFFERED: u8 = 2;
/// The flags' bits from here up hold the cycles a `nop N` adds after the bundle,
/// N − 1 (`max-nop` is at most 64).
pub(crate) const EXTRA_CYCLES_SHIFT: u8 = 2;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Bundle {
    pub addr: u64,
    /// The bundle that follows in the text, or `NONE` at the end of a text segment.
    pub next: u32,
    /// First operation in `Code::ops` (and `Code::insts`); for an illegal bundle, the
    /// index of its message in `Code::errors`.
    pub ops_start: u32,
    /// First register index in `Code::srcs`.
    pub srcs_start: u32,
    pub n_ops: u8,
    /// The operations that count as work in the statistics: all but `nop` and
    /// `nop N`.
    pub work: u8,
    pub n_srcs: u8,
    pub flags: u8,
    pub syllables: u8,
}

/// One predecoded operation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Op {
    /// The immediate; for `addpc` the address it computes; for `call`/`callr` the
    /// return address (the next bundle's address).
    pub imm: i64,
    /// For `br`/`call`: the target address.
    pub aux: u64,
    /// For `br`/`call`: the target bundle, or `NONE`.
    pub target: u32,
    /// Cycles until the destinations are ready.
    pub lat: u32,
    pub opcode: Opcode,
    /// Destination register-file indices (`rd` or `pd1`, and `pd2`); `SINK` if none.
    /// Control operations have none here: their writes are special.
    pub d1: u8,
    pub d2: u8,
    pub rs1: u8,
    pub rs2: u8,
    pub rs3: u8,
    /// Source predicates as register-file indices.
    pub ps1: u8,
    pub ps2: u8,
    pub guard: u8,
    /// 1 if the guard is negated.
    pub guard_xor: u8,
    /// Executes even when its guard is false (`.unc` compares).
    pub unc: bool,
    /// For compares: what to write, for each guard/outcome, as 4-bit entries
    /// indexed by `2 * g + c`: bit 0 write pd1, bit 1 its value, bit 2 write pd2,
    /// bit 3 its value. Derived from `semantics::compare_writes`.
    pub cmp_actions: u16,
}

/// A text range and where its entries start in `Code::table`.
#[derive(Clone, Copy, Debug)]
struct TextRange {
    base: u64,
    /// Number of syllables.
    len: u64,
    table_start: usize,
}

/// The predecoded text.
#[derive(Debug, Default)]
pub(crate) struct Code {
    pub bundles: Vec<Bundle>,
    /// Operations in execution order (see the module comment).
    pub ops: Vec<Op>,
    /// Operations in slot order as decoded, for the trace.
    pub insts: Vec<Inst>,
    pub srcs: Vec<u8>,
    pub errors: Vec<String>,
    ranges: Vec<TextRange>,
    table: Vec<u32>,
}

fn gpr_index(r: vliw_isa::Gpr) -> u8 {
    r.num()
}

fn pred_index(p: vliw_isa::Pred) -> u8 {
    PRED_BASE + p.num()
}

/// Where a write to `r` lands.
fn gpr_dest_index(r: vliw_isa::Gpr) -> u8 {
    if r.num() == 0 { SINK } else { r.num() }
}

fn pred_dest_index(p: vliw_isa::Pred) -> u8 {
    if p.num() == 0 {
        SINK
    } else {
        PRED_BASE + p.num()
    }
}

/// The 16-bit action table of a compare type (see `Op::cmp_actions`), from
/// `vliw_isa::semantics::compare_writes`.
fn cmp_actions(ctype: CmpType) -> u16 {
    let mut table = 0u16;
    for g in [false, true] {
        for c in [false, true] {
            let (w1, w2) = vliw_isa::semantics::compare_writes(ctype, g, c);
            let mut entry = 0u16;
            if let Some(v) = w1 {
                entry |= 1 | (v as u16) << 1;
            }
            if let Some(v) = w2 {
                entry |= 4 | (v as u16) << 3;
            }
            table |= entry << (4 * (2 * g as u16 + c as u16));
        }
    }
    table
}

fn is_mem_read(op: Opcode) -> bool {
    matches!(op.format(), Format::Load | Format::Amo | Format::Cas)
}

fn is_mem_write(op: Opcode) -> bool {
    matches!(op.format(), Format::Store | Format::Amo | Format::Cas)
}

/// Operations that can fault while they execute (the others fault, if at all, after
/// the bundle): their relative order decides which fault a bundle reports.
fn can_fault(op: Opcode) -> bool {
    matches!(
        op.format(),
        Format::Load | Format::Store | Format::Amo | Format::Cas
    ) && !op.is_speculative_load()
}

/// Registers (register-file indices) an operation reads, as a bitmask.
fn reads(inst: &Inst) -> u128 {
    let mut mask = 0u128;
    for r in inst.gpr_sources() {
        mask |= 1 << gpr_index(r);
    }
    for p in inst.pred_sources() {
        mask |= 1 << pred_index(p);
    }
    mask
}

/// Registers an operation writes inside the bundle (a system call's result is
/// written after the bundle).
fn writes(inst: &Inst) -> u128 {
    let mut mask = 0u128;
    if inst.opcode != Opcode::Syscall
        && let Some(r) = inst.gpr_dest()
    {
        mask |= 1 << gpr_index(r);
    }
    for p in inst.pred_dests() {
        mask |= 1 << pred_index(p);
    }
    mask
}

/// An order of the operations in which executing each one completely (writes
/// included) before the next gives the read-before-write semantics, or `None` if
/// there is none. Constraints for slots `i < j`: if `j` reads what `i` writes, `j`
/// goes first; if `i` reads or writes what `j` writes, `i` goes first; the same for
/// memory; faulting operations and control operations keep their slot order.
fn execution_order(insts: &[Inst]) -> Option<Vec<usize>> {
    let n = insts.len();
    let r: Vec<u128> = insts.iter().map(reads).collect();
    let w: Vec<u128> = insts.iter().map(writes).collect();
    let mut before = vec![0u32; n]; // before[k]: bitmask of operations that must precede k
    let mut any_edge = false;
    for i in 0..n {
        for j in i + 1..n {
            let (a, b) = (insts[i].opcode, insts[j].opcode);
            let j_first = w[i] & r[j] != 0 || (is_mem_write(a) && is_mem_read(b));
            let i_first = r[i] & w[j] != 0
                || w[i] & w[j] != 0
                || (is_mem_read(a) && is_mem_write(b))
                || (is_mem_write(a) && is_mem_write(b))
                || (can_fault(a) && can_fault(b))
                || (a.is_control() && b.is_control());
            if j_first {
                before[i] |= 1 << j;
                any_edge = true;
            }
            if i_first {
                before[j] |= 1 << i;
            }
        }
    }
    if !any_edge {
        return Some((0..n).collect());
    }
    // Kahn's algorithm, lowest slot first.
    let mut order = Vec::with_capacity(n);
    let mut done = 0u32;
    while order.len() < n {
        let next = (0..n).find(|&k| done & (1 << k) == 0 && before[k] & !done == 0)?;
        done |= 1 << next;
        order.push(next);
    }
    Some(order)
}

fn predecode_op(
    inst: &Inst,
    syllable_addr: u64,
    next_bundle_addr: u64,
    config: &MachineConfig,
) -> Op {
    let format = inst.format();
    let opcode = inst.opcode;
    let mut op = Op {
        imm: inst.imm,
        aux: 0,
        target: NONE,
        lat: config.latency(opcode.latency_class()),
        opcode,
        d1: SINK,
        d2: SINK,
        rs1: gpr_index(inst.rs1),
        rs2: gpr_index(inst.rs2),
        rs3: gpr_index(inst.rs3),
        ps1: pred_index(inst.ps1),
        ps2: pred_index(inst.ps2),
        guard: pred_index(inst.guard.pred),
        guard_xor: inst.guard.negated as u8,
        unc: false,
        cmp_actions: 0,
    };
    if format.has(FieldKind::Rd) {
        op.d1 = gpr_dest_index(inst.rd);
    }
    if format.has(FieldKind::Pd1) {
        op.d1 = pred_dest_index(inst.pd1);
    }
    if format.has(FieldKind::Pd2) {
        op.d2 = pred_dest_index(inst.pd2);
    }
    if format.has(FieldKind::CmpType) {
        op.cmp_actions = cmp_actions(inst.ctype);
        // the operations that take effect with a false guard (`.unc` compares)
        op.unc = vliw_isa::semantics::executes(false, inst.ctype, true);
    }
    match opcode {
        Opcode::Addpc => op.imm = syllable_addr.wrapping_add(inst.imm as u64) as i64,
        Opcode::Br | Opcode::Call => {
            op.aux = syllable_addr.wrapping_add(inst.imm as u64);
            op.imm = next_bundle_addr as i64;
        }
        Opcode::Callr => op.imm = next_bundle_addr as i64,
        Opcode::Ret => op.rs1 = LR,
        _ => {}
    }
    op
}

/// Why a bundle is illegal, as the fault message shows it.
fn decode_error_text(e: &DecodeError) -> String {
    e.to_string()
}

impl Code {
    /// Predecodes the file contents of the text segments, given as (address, bytes).
    pub fn new(texts: &[(u64, &[u8])], config: &MachineConfig) -> Code {
        let mut code = Code::default();
        for &(base, bytes) in texts {
            let words: Vec<u64> = bytes
                .as_chunks::<8>()
                .0
                .iter()
                .map(|c| u64::from_le_bytes(*c))
                .collect();
            let table_start = code.table.len();
            code.table.resize(table_start + words.len(), NONE);
            code.ranges.push(TextRange {
                base,
                len: words.len() as u64,
                table_start,
            });
            let mut i = 0;
            while i < words.len() {
                let addr = base + 8 * i as u64;
                let index = code.bundles.len() as u32;
                code.table[table_start + i] = index;
                let decoded = decode_bundle(&words[i..])
                    .map_err(|e| decode_error_text(&e))
                    .and_then(|(insts, len)| {
                        check_bundle(&insts, config)
                            .map(|()| (insts, len))
                            .map_err(|e| e.to_string())
                    });
                match decoded {
                    Ok((insts, len)) => {
                        code.push_bundle(addr, &insts, len, config);
                        i += len;
                    }
                    Err(message) => {
                        code.bundles.push(Bundle {
                            addr,
                            next: NONE,
                            ops_start: code.errors.len() as u32,
                            srcs_start: 0,
                            n_ops: 0,
                            work: 0,
                            n_srcs: 0,
                            flags: ILLEGAL,
                            syllables: 1,
                        });
                        code.errors.push(message);
                        i += 1;
                    }
                }
            }
        }
        // Fall-through successors and direct branch targets.
        for k in 0..code.bundles.len() {
            let b = code.bundles[k];
            code.bundles[k].next = code.lookup(b.addr + 8 * b.syllables as u64);
        }
        for k in 0..code.ops.len() {
            if matches!(code.ops[k].opcode, Opcode::Br | Opcode::Call) {
                code.ops[k].target = code.lookup(code.ops[k].aux);
            }
        }
        code
    }

    fn push_bundle(&mut self, addr: u64, insts: &[Inst], syllables: usize, config: &MachineConfig) {
        let next_addr = addr + 8 * syllables as u64;
        let mut syllable_addrs = Vec::with_capacity(insts.len());
        let mut offset = 0u64;
        for inst in insts {
            offset += 8 * inst.syllables() as u64;
            // The operation's own syllable is the last of its one or two.
            syllable_addrs.push(addr + offset - 8);
        }
        let (order, mut flags) = match execution_order(insts) {
            Some(order) => (order, 0),
            None => ((0..insts.len()).collect(), BUFFERED),
        };
        // A system call is performed after the bundle, but its result in r3 takes
        // its slot's place among the bundle's writes: a later slot writing r3 wins.
        // The buffered execution knows which writes come after the system call.
        if let Some(k) = insts.iter().position(|i| i.opcode == Opcode::Syscall)
            && insts[k + 1..]
                .iter()
                .any(|i| i.gpr_dest().is_some_and(|r| r.num() == 3))
        {
            flags = BUFFERED;
        }
        let ops_start = self.ops.len() as u32;
        for &k in &order {
            self.ops.push(predecode_op(
                &insts[k],
                syllable_addrs[k],
                next_addr,
                config,
            ));
        }
        self.insts.extend_from_slice(insts);
        let srcs_start = self.srcs.len() as u32;
        let all_reads = insts.iter().fold(0u128, |m, i| m | reads(i));
        self.srcs
            .extend((0..128u8).filter(|&r| all_reads & (1 << r) != 0));
        // (`check_bundle` allows one `nop N`, N in 1..=max-nop)
        if let Some(nop) = insts.iter().find(|i| i.opcode == Opcode::NopN) {
            flags |= ((nop.imm - 1) as u8) << EXTRA_CYCLES_SHIFT;
        }
        self.bundles.push(Bundle {
            addr,
            next: NONE,
            ops_start,
            srcs_start,
            n_ops: insts.len() as u8,
            work: insts
                .iter()
                .filter(|i| !matches!(i.opcode, Opcode::Nop | Opcode::NopN))
                .count() as u8,
            n_srcs: (self.srcs.len() as u32 - srcs_start) as u8,
            flags,
            syllables: syllables as u8,
        });
    }

    /// The bundle starting at `addr`, or `NONE`.
    #[inline]
    pub fn lookup(&self, addr: u64) -> u32 {
        for r in &self.ranges {
            let off = addr.wrapping_sub(r.base);
            if off % 8 == 0 && off / 8 < r.len {
                return self.table[r.table_start + (off / 8) as usize];
            }
        }
        NONE
    }

    /// The operations of a bundle in execution order.
    #[inline(always)]
    pub fn ops(&self, b: &Bundle) -> &[Op] {
        &self.ops[b.ops_start as usize..b.ops_start as usize + b.n_ops as usize]
    }

    /// The operations of a bundle in slot order, as decoded.
    pub fn insts(&self, b: &Bundle) -> &[Inst] {
        &self.insts[b.ops_start as usize..b.ops_start as usize + b.n_ops as usize]
    }

    #[inline(always)]
    pub fn srcs(&self, b: &Bundle) -> &[u8] {
        &self.srcs[b.srcs_start as usize..b.srcs_start as usize + b.n_srcs as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use vliw_isa::{encode_bundle, parse_inst};

    fn insts(ops: &[&str]) -> Vec<Inst> {
        ops.iter().map(|t| parse_inst(t).unwrap().inst).collect()
    }

    fn words(bundles: &[&[&str]]) -> Vec<u8> {
        let mut w = Vec::new();
        for b in bundles {
            encode_bundle(&insts(b), &mut w).unwrap();
        }
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn readers_go_before_writers() {
        let order = |ops: &[&str]| execution_order(&insts(ops));
        assert_eq!(
            order(&[
                "add r4 = r4, 1",
                "add r5 = r5, r4",
                "xor r6 = r6, r5",
                "cmp.ne p1, p2 = r3, 1"
            ]),
            Some(vec![2, 1, 0, 3])
        );
        assert_eq!(
            order(&["mov r1 = r2", "mov r2 = r1"]),
            None,
            "a swap needs buffering"
        );
        assert_eq!(
            order(&["st.d [r1] = r2", "ld.d r3 = [r4]"]),
            None,
            "the load must see memory before the store"
        );
        assert_eq!(
            order(&["ld.d r3 = [r4]", "st.d [r1] = r2"]),
            Some(vec![0, 1])
        );
        assert_eq!(
            order(&["cmp.eq p1, p2 = r1, r2", "(p1) add r3 = r3, 1"]),
            Some(vec![1, 0])
        );
        assert_eq!(
            order(&["add r1 = r1, 1", "add r1 = r2, 2"]),
            Some(vec![0, 1]),
            "a later slot writes last"
        );
        assert_eq!(
            order(&["add r3 = r0, 5", "syscall 1"]),
            Some(vec![1, 0]),
            "syscall reads its arguments first"
        );
    }

    #[test]
    fn compare_action_tables_follow_apply() {
        for ctype in CmpType::ALL {
            let table = cmp_actions(ctype);
            for g in [false, true] {
                for c in [false, true] {
                    let entry = table >> (4 * (2 * g as u16 + c as u16));
                    for old in [(false, false), (false, true), (true, false), (true, true)] {
                        let new1 = if entry & 1 != 0 {
                            entry & 2 != 0
                        } else {
                            old.0
                        };
                        let new2 = if entry & 4 != 0 {
                            entry & 8 != 0
                        } else {
                            old.1
                        };
                        assert_eq!(
                            (new1, new2),
                            ctype.apply(g, c, old),
                            "{ctype:?} g={g} c={c} old={old:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn illegal_syllables_resume_at_the_next_one() {
        let mut bytes = words(&[&["nop"], &["add r1 = r2, r3", "br .-8"]]);
        bytes.extend_from_slice(&0u64.to_le_bytes()); // illegal opcode 0
        bytes.extend(words(&[&["nop", "nop", "nop", "nop", "nop"]])); // too wide
        let code = Code::new(&[(0x10000, &bytes)], &MachineConfig::default());
        let lookup = |a| code.lookup(a);
        assert_eq!(lookup(0x10000), 0);
        assert_eq!(lookup(0x10008), 1);
        assert_eq!(lookup(0x10010), NONE, "inside a bundle");
        assert_eq!(lookup(0x10018), 2);
        assert_eq!(code.bundles[2].flags, ILLEGAL);
        assert_eq!(code.errors[0], "illegal opcode 0x0");
        let wide = &code.bundles[3];
        assert_eq!((wide.addr, wide.flags), (0x10020, ILLEGAL));
        assert!(
            code.errors[1].contains("issue width is 4"),
            "{}",
            code.errors[1]
        );
        // Decoding resumed inside the wide bundle: its last four syllables are a bundle.
        assert_eq!(code.bundles[4].addr, 0x10028);
        assert_eq!(code.bundles[4].flags, 0);
        assert_eq!(code.bundles[4].next, NONE, "end of text");
        assert_eq!(lookup(0x10048), NONE);
        assert_eq!(lookup(0x10001), NONE);
        // br .-8 in the second syllable of bundle 1 (0x10010) targets 0x10008.
        let br = code
            .ops(&code.bundles[1])
            .iter()
            .find(|o| o.opcode == Opcode::Br)
            .unwrap();
        assert_eq!((br.aux, br.target, br.imm), (0x10008, 1, 0x10018));
        assert_eq!(code.bundles[0].next, 1);
    }
}

//! Call profiles (`vliw-run --profile FUNC`): what the calls of chosen functions
//! execute, callees included.
//!
//! A call starts at the function's first bundle, entered from outside the function,
//! and lasts until a bundle of its caller (the function that held the bundle
//! executed just before the entry) executes again; everything in between is counted,
//! whatever function it is in. While a call is open, entries of other profiled
//! functions are part of it (a profiled callee is not counted on its own). This is
//! how `./y.sh bench hexagon` counts Hexagon packets from qemu's execution log, so
//! that both sides count the same thing.
//!
//! The counters are differences of the run's statistics, taken before the interlock
//! of the entry bundle and before the interlock of the caller's first bundle after
//! the call: a call's cycles include its entry's stalls and its return's branch
//! penalty, not the call's.

use crate::program::SymbolTable;
use crate::stats::Stats;
use std::fmt;

/// One profiled function's totals over its calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallCounts {
    pub name: String,
    pub calls: u64,
    pub cycles: u64,
    pub bundles: u64,
    pub ops: u64,
    pub nullified: u64,
    pub stalls: u64,
}

impl fmt::Display for CallCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "profile: {} calls={} cycles={} bundles={} ops={} nullified={} stalls={}",
            self.name, self.calls, self.cycles, self.bundles, self.ops, self.nullified, self.stalls
        )
    }
}

/// The open call: which function, its caller's address range, the statistics at
/// entry.
#[derive(Clone, Debug)]
struct Open {
    function: usize,
    caller: (u64, u64),
    at_entry: Stats,
}

/// The profiler's state.
#[derive(Clone, Debug)]
pub(crate) struct Profile {
    /// Entry addresses of the profiled functions, sorted, with their index.
    entries: Vec<(u64, usize)>,
    /// Address ranges of every function of the executable, sorted.
    functions: Vec<(u64, u64)>,
    totals: Vec<CallCounts>,
    open: Option<Open>,
    /// The address of the last bundle seen.
    previous: Option<u64>,
}

impl Profile {
    /// A profile of the functions `names`, looked up in `symbols`; an error names a
    /// function the executable does not define.
    pub fn new(names: &[String], symbols: &SymbolTable) -> Result<Profile, String> {
        let mut entries = Vec::new();
        let mut totals = Vec::new();
        for name in names {
            if totals.iter().any(|t: &CallCounts| &t.name == name) {
                continue;
            }
            let addr = symbols
                .function_address(name)
                .ok_or_else(|| format!("--profile: no function `{name}` in the executable"))?;
            entries.push((addr, totals.len()));
            totals.push(CallCounts {
                name: name.clone(),
                ..CallCounts::default()
            });
        }
        entries.sort_unstable();
        Ok(Profile {
            entries,
            functions: symbols.function_ranges(),
            totals,
            open: None,
            previous: None,
        })
    }

    /// The function range holding `addr`, or the single address when none does.
    fn range_of(&self, addr: u64) -> (u64, u64) {
        let n = self.functions.partition_point(|r| r.0 <= addr);
        match n.checked_sub(1).map(|i| self.functions[i]) {
            Some((start, end)) if addr < end => (start, end),
            _ => (addr, addr + 1),
        }
    }

    /// Called with each bundle's address before its interlock, and the statistics
    /// so far.
    #[inline]
    pub fn observe(&mut self, addr: u64, now: Stats) {
        if let Some(open) = &self.open
            && addr >= open.caller.0
            && addr < open.caller.1
        {
            let t = &mut self.totals[open.function];
            let e = open.at_entry;
            t.calls += 1;
            t.cycles += now.cycles - e.cycles;
            t.bundles += now.bundles - e.bundles;
            t.ops += now.ops - e.ops;
            t.nullified += now.nullified - e.nullified;
            t.stalls += now.stalls - e.stalls;
            self.open = None;
        }
        if self.open.is_none()
            && let Some(previous) = self.previous
            && let Ok(i) = self.entries.binary_search_by_key(&addr, |e| e.0)
        {
            // A jump back to the first bundle from inside the function is not a
            // call.
            let caller = self.range_of(previous);
            if !(addr >= caller.0 && addr < caller.1) {
                self.open = Some(Open {
                    function: self.entries[i].1,
                    caller,
                    at_entry: now,
                });
            }
        }
        self.previous = Some(addr);
    }

    /// The totals, in the order the functions were named; a call still open at the
    /// end of the run (the program exited inside it) is not counted.
    pub fn totals(&self) -> &[CallCounts] {
        &self.totals
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Symbol;

    fn sym(name: &str, addr: u64, size: u64) -> Symbol {
        Symbol {
            name: name.into(),
            addr,
            size,
            is_function: true,
        }
    }

    fn at(bundles: u64, cycles: u64) -> Stats {
        Stats {
            bundles,
            cycles,
            ops: 2 * bundles,
            ..Stats::default()
        }
    }

    #[test]
    fn counts_calls_with_their_callees_until_the_caller_resumes() {
        let table = SymbolTable::new(&[
            sym("main", 0x100, 0x40),
            sym("kernel", 0x200, 0x40),
            sym("helper", 0x300, 0x10),
        ]);
        let mut p = Profile::new(&["kernel".into()], &table).unwrap();
        // main calls kernel twice; kernel loops back to its first bundle and calls
        // helper.
        let trace = [
            0x100, 0x108, 0x200, 0x208, 0x200, 0x208, 0x300, 0x210, 0x110, // call 1: 6
            0x118, 0x200, 0x208, 0x120, // call 2: 2
        ];
        for (i, &addr) in trace.iter().enumerate() {
            p.observe(addr, at(i as u64, 3 * i as u64));
        }
        let t = &p.totals()[0];
        assert_eq!((t.calls, t.bundles, t.cycles, t.ops), (2, 8, 24, 16));
        assert_eq!(
            t.to_string(),
            "profile: kernel calls=2 cycles=24 bundles=8 ops=16 nullified=0 stalls=0"
        );
        assert!(
            Profile::new(&["nothing".into()], &table)
                .unwrap_err()
                .contains("no function `nothing`")
        );
    }

    #[test]
    fn a_profiled_callee_belongs_to_the_open_call() {
        let table = SymbolTable::new(&[
            sym("main", 0x100, 0x40),
            sym("outer", 0x200, 0x40),
            sym("inner", 0x300, 0x10),
        ]);
        let mut p = Profile::new(&["inner".into(), "outer".into()], &table).unwrap();
        let trace = [0x100, 0x200, 0x300, 0x208, 0x108, 0x300, 0x110];
        for (i, &addr) in trace.iter().enumerate() {
            p.observe(addr, at(i as u64, i as u64));
        }
        let inner = &p.totals()[0];
        let outer = &p.totals()[1];
        assert_eq!((outer.calls, outer.bundles), (1, 3));
        assert_eq!((inner.calls, inner.bundles), (1, 1));
    }
}

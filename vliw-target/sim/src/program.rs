//! What the simulator loads: segments, an entry point, symbols and source lines.
//! Built from an ELF executable (`Program::from_executable`) or directly by tests and
//! tools.

use vliw_elf::{Executable, LineTable, SymbolKind};

/// A loadable segment: `data` at `vaddr`, zero-filled up to `mem_size`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub vaddr: u64,
    pub mem_size: u64,
    pub data: Vec<u8>,
    pub read: bool,
    pub write: bool,
    /// Text: its bytes are decoded into bundles once, and it is never writable.
    pub execute: bool,
}

impl Segment {
    /// A text segment holding `words` (syllables, stored little-endian).
    pub fn text(vaddr: u64, words: &[u64]) -> Segment {
        let data: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        Segment {
            vaddr,
            mem_size: data.len() as u64,
            data,
            read: true,
            write: false,
            execute: true,
        }
    }

    /// A writable data segment.
    pub fn data(vaddr: u64, data: Vec<u8>, mem_size: u64) -> Segment {
        Segment {
            vaddr,
            mem_size: mem_size.max(data.len() as u64),
            data,
            read: true,
            write: true,
            execute: false,
        }
    }

    /// A read-only data segment.
    pub fn read_only(vaddr: u64, data: Vec<u8>) -> Segment {
        Segment {
            vaddr,
            mem_size: data.len() as u64,
            data,
            read: true,
            write: false,
            execute: false,
        }
    }

    pub fn end(&self) -> u64 {
        self.vaddr.saturating_add(self.mem_size)
    }
}

/// A symbol, used to name the function of a faulting or traced bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub addr: u64,
    pub size: u64,
    pub is_function: bool,
}

/// A loadable program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    pub entry: u64,
    pub segments: Vec<Segment>,
    pub symbols: Vec<Symbol>,
    /// Source lines of the code (DWARF `.debug_line`), for fault messages and the
    /// trace; empty without debug information.
    pub lines: LineTable,
    /// The call-frame sections (`--check-unwind`), if the program has them.
    pub frames: Option<crate::FrameSections>,
}

impl Program {
    /// The segments, entry point, (function, object and untyped) symbols and line
    /// table of an executable read by `vliw_elf::read_executable`. A line table that
    /// cannot be read is empty: it never stops a program from loading.
    pub fn from_executable(exe: &Executable) -> Program {
        let segments = exe
            .segments
            .iter()
            .map(|s| Segment {
                vaddr: s.vaddr,
                mem_size: s.mem_size,
                data: s.data.clone(),
                read: s.flags.read,
                write: s.flags.write,
                execute: s.flags.execute,
            })
            .collect();
        let symbols = exe
            .symbols
            .iter()
            .filter(|s| {
                matches!(
                    s.kind,
                    SymbolKind::Func | SymbolKind::Object | SymbolKind::NoType
                )
            })
            .map(|s| Symbol {
                name: s.name.clone(),
                addr: s.addr,
                size: s.size,
                is_function: s.kind == SymbolKind::Func,
            })
            .collect();
        let range = |name: &str| exe.section(name).map(|s| (s.addr, s.size));
        let frames = match (range(".eh_frame"), range(".eh_frame_hdr")) {
            (Some(eh_frame), Some(eh_frame_hdr)) => Some(crate::FrameSections {
                eh_frame,
                eh_frame_hdr,
            }),
            _ => None,
        };
        Program {
            entry: exe.entry,
            segments,
            symbols,
            lines: LineTable::from_executable(exe),
            frames,
        }
    }
}

/// Symbols sorted by address for lookups by binary search.
#[derive(Clone, Debug, Default)]
pub(crate) struct SymbolTable {
    functions: Vec<Symbol>,
    others: Vec<Symbol>,
}

impl SymbolTable {
    pub fn new(symbols: &[Symbol]) -> SymbolTable {
        let usable = |s: &&Symbol| !s.name.is_empty();
        let mut functions: Vec<Symbol> = symbols
            .iter()
            .filter(usable)
            .filter(|s| s.is_function)
            .cloned()
            .collect();
        let mut others: Vec<Symbol> = symbols
            .iter()
            .filter(usable)
            .filter(|s| !s.is_function)
            .cloned()
            .collect();
        // By address; at equal addresses the preferred one first: the largest, then
        // the one with the fewest leading underscores (a program's `_start` rather
        // than the linker's `__executable_start`), then by name, so that the choice
        // does not depend on the symbol table's order.
        let underscores = |s: &Symbol| s.name.bytes().take_while(|&b| b == b'_').count();
        let key = |s: &Symbol| {
            (
                s.addr,
                std::cmp::Reverse(s.size),
                underscores(s),
                s.name.clone(),
            )
        };
        functions.sort_by_key(key);
        others.sort_by_key(key);
        SymbolTable { functions, others }
    }

    /// The last symbol starting at or below `addr`, and whether it contains `addr`
    /// (a symbol of size 0 contains everything up to the next one).
    fn below(list: &[Symbol], addr: u64) -> Option<(&Symbol, bool)> {
        let n = list.partition_point(|s| s.addr <= addr);
        // Among the symbols at the same address the first (largest) one is preferred.
        let last = list.get(n.checked_sub(1)?)?;
        let first_at = list.partition_point(|s| s.addr < last.addr);
        let sym = &list[first_at];
        let contains = sym.size == 0 || addr - sym.addr < sym.size;
        Some((sym, contains))
    }

    /// The address of the function symbol `name`.
    pub fn function_address(&self, name: &str) -> Option<u64> {
        self.functions
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.addr)
    }

    /// The address ranges of the function symbols, sorted, without overlaps: a
    /// symbol of size 0 extends to the next function; of several at one address,
    /// the preferred one (the largest).
    pub fn function_ranges(&self) -> Vec<(u64, u64)> {
        let mut ranges: Vec<(u64, u64)> = Vec::new();
        for (i, s) in self.functions.iter().enumerate() {
            if ranges.last().is_some_and(|r| r.0 == s.addr) {
                continue;
            }
            let end = if s.size > 0 {
                s.addr.saturating_add(s.size)
            } else {
                self.functions[i + 1..]
                    .iter()
                    .find(|n| n.addr > s.addr)
                    .map_or(u64::MAX, |n| n.addr)
            };
            ranges.push((s.addr, end));
        }
        ranges
    }

    /// The function enclosing `addr` (or failing that any symbol enclosing it, or the
    /// nearest function or symbol below it) and the offset of `addr` from it.
    pub fn lookup(&self, addr: u64) -> Option<(&str, u64)> {
        let func = Self::below(&self.functions, addr);
        let other = Self::below(&self.others, addr);
        let sym = match (func, other) {
            (Some((f, true)), _) => f,
            (_, Some((o, true))) => o,
            (Some((f, false)), _) => f,
            (None, Some((o, false))) => o,
            (None, None) => return None,
        };
        Some((sym.name.as_str(), addr - sym.addr))
    }

    /// The function, or failing that the object, whose range holds `addr` (a
    /// function of size 0 extends to the next one), and the offset of `addr` in it:
    /// what `symbolize` answers, which never names a symbol far below the address.
    pub fn holding(&self, addr: u64) -> Option<(&str, u64)> {
        let func = Self::below(&self.functions, addr).filter(|(_, holds)| *holds);
        let sym = match func {
            Some((f, _)) => f,
            None => {
                // an object holds only its own bytes (a size-0 symbol, such as the
                // linker's absolute `__tls_align`, holds nothing)
                let (o, holds) = Self::below(&self.others, addr)?;
                if !holds || o.size == 0 {
                    return None;
                }
                o
            }
        };
        Some((sym.name.as_str(), addr - sym.addr))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(name: &str, addr: u64, size: u64, is_function: bool) -> Symbol {
        Symbol {
            name: name.into(),
            addr,
            size,
            is_function,
        }
    }

    #[test]
    fn lookup_prefers_the_enclosing_function() {
        let table = SymbolTable::new(&[
            sym("data", 0x20000, 0x100, false),
            sym("main", 0x10040, 0x40, true),
            sym("_start", 0x10000, 0x40, true),
            sym("label", 0x10048, 0, false),
            sym("tail", 0x10100, 0, false),
            sym("__executable_start", 0x10000, 0, false),
            sym("_etext", 0x10100, 0, false),
        ]);
        assert_eq!(table.lookup(0x10000), Some(("_start", 0)));
        assert_eq!(table.lookup(0x10050), Some(("main", 0x10)));
        assert_eq!(table.lookup(0x20010), Some(("data", 0x10)));
        // Not enclosed by a function: an enclosing untyped symbol wins, and of two
        // at one address the one with fewer leading underscores.
        assert_eq!(table.lookup(0x10108), Some(("tail", 8)));
        let tied = SymbolTable::new(&[
            sym("__executable_start", 0x10000, 0, false),
            sym("_start", 0x10000, 0, false),
        ]);
        assert_eq!(tied.lookup(0x10008), Some(("_start", 8)));
        assert_eq!(table.lookup(0xffff), None);
        // Enclosed by nothing: the nearest function below.
        assert_eq!(table.lookup(0x20200), Some(("main", 0x20200 - 0x10040)));
        assert_eq!(table.function_address("main"), Some(0x10040));
        assert_eq!(table.function_address("data"), None);
        assert_eq!(
            table.function_ranges(),
            vec![(0x10000, 0x10040), (0x10040, 0x10080)]
        );
        let open_ended = SymbolTable::new(&[
            sym("a", 0x100, 0, true),
            sym("b", 0x180, 0x10, true),
            sym("c", 0x200, 0, true),
        ]);
        assert_eq!(
            open_ended.function_ranges(),
            vec![(0x100, 0x180), (0x180, 0x190), (0x200, u64::MAX)]
        );
    }
}

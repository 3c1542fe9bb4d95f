//! Memory as the interpreters see it (the SSA IR's interpreter and the RVSDG's
//! evaluator, which must agree on every address): byte-addressed regions, a module laid
//! out in them, and the stack that holds the stack slots of each activation.
//!
//! Memory map (all little-endian, each region separate so that running off one traps):
//! - `0x0000_0000..0x0001_0000` unmapped (null pointers trap);
//! - functions get addresses `0x1000_0000 + 16 * i` (not readable; `call_indirect`
//!   resolves them): the module's functions in order, then its declared functions;
//! - data objects from `0x1_0000_0000` upward, in module order, aligned, 16-byte gaps;
//! - declared external data symbols get unmapped addresses from `0x3000_0000`;
//! - host allocations (`Memory::alloc`) from `0x4000_0000`;
//! - the stack ends at `0x7000_0000` (default size 1 MiB), growing down: each call
//!   allocates its stack slots and releases them on return.

use crate::entities::StackSlot;
use crate::function::StackSlotData;
use crate::interpreter::{Trap, TrapKind};
use crate::module::{DataKind, Module};
use cranelift_entity::PrimaryMap;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;

struct Region {
    bytes: Vec<u8>,
    writable: bool,
    name: String,
}

/// Byte-addressed memory made of separate regions.
pub struct Memory {
    regions: BTreeMap<u64, Region>,
    heap_next: u64,
}

pub const FUNC_BASE: u64 = 0x1000_0000;
pub const DATA_BASE: u64 = 0x1_0000_0000;
pub const EXTERN_DATA_BASE: u64 = 0x3000_0000;
pub const HEAP_BASE: u64 = 0x4000_0000;
pub const STACK_TOP: u64 = 0x7000_0000;

impl Memory {
    fn new() -> Self {
        Memory {
            regions: BTreeMap::new(),
            heap_next: HEAP_BASE,
        }
    }

    fn map(&mut self, base: u64, bytes: Vec<u8>, writable: bool, name: &str) {
        self.regions.insert(
            base,
            Region {
                bytes,
                writable,
                name: name.to_string(),
            },
        );
    }

    fn find(&self, addr: u64, len: u64) -> Result<(u64, &Region), Trap> {
        if let Some((&base, r)) = self.regions.range(..=addr).next_back() {
            let off = addr - base;
            if off
                .checked_add(len)
                .is_some_and(|end| end <= r.bytes.len() as u64)
            {
                return Ok((base, r));
            }
        }
        Err(Trap::new(
            TrapKind::OutOfBounds,
            format!("out-of-bounds access of {len} byte(s) at {addr:#x}"),
        ))
    }

    /// `len` bytes at `addr`.
    pub fn read(&self, addr: u64, len: u64) -> Result<&[u8], Trap> {
        let (base, r) = self.find(addr, len)?;
        let off = (addr - base) as usize;
        Ok(&r.bytes[off..off + len as usize])
    }

    /// Write `data` at `addr`.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Trap> {
        let (base, r) = self.find(addr, data.len() as u64)?;
        if !r.writable {
            return Err(Trap::new(
                TrapKind::ReadOnly,
                format!(
                    "write of {} byte(s) at {addr:#x} to read-only {}",
                    data.len(),
                    r.name
                ),
            ));
        }
        let off = (addr - base) as usize;
        let r = self.regions.get_mut(&base).expect("region exists");
        r.bytes[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }

    /// Set `len` bytes at `addr` to `byte` (checking the range before allocating
    /// anything, so that a huge length traps instead of exhausting the host).
    pub fn fill(&mut self, addr: u64, byte: u8, len: u64) -> Result<(), Trap> {
        self.find(addr, len)?;
        self.write(addr, &vec![byte; len as usize])
    }

    /// A little-endian unsigned integer of `size` bytes (1..=16).
    pub fn read_uint(&self, addr: u64, size: u32) -> Result<u128, Trap> {
        let b = self.read(addr, size as u64)?;
        let mut buf = [0u8; 16];
        buf[..b.len()].copy_from_slice(b);
        Ok(u128::from_le_bytes(buf))
    }

    /// Write the low `size` bytes of `v`, little-endian.
    pub fn write_uint(&mut self, addr: u64, size: u32, v: u128) -> Result<(), Trap> {
        self.write(addr, &v.to_le_bytes()[..size as usize])
    }

    /// Allocate a fresh zeroed writable region (for host functions, e.g. `malloc`).
    pub fn alloc(&mut self, size: u64, align: u64) -> u64 {
        let align = align.max(16);
        let base = self.heap_next.next_multiple_of(align);
        self.heap_next = base + size.max(1) + 16;
        self.map(base, vec![0; size as usize], true, "heap");
        base
    }

    /// The bytes of a NUL-terminated string at `addr` (without the NUL).
    pub fn read_cstr(&self, addr: u64) -> Result<Vec<u8>, Trap> {
        let (base, r) = self.find(addr, 1)?;
        let tail = &r.bytes[(addr - base) as usize..];
        match tail.iter().position(|&b| b == 0) {
            Some(n) => Ok(tail[..n].to_vec()),
            None => Err(Trap::new(
                TrapKind::OutOfBounds,
                format!("unterminated string at {addr:#x}"),
            )),
        }
    }
}

/// Where a module's symbols are, once laid out in memory.
pub struct Symbols<'m> {
    /// The address of every function, data object and declared symbol.
    addrs: HashMap<&'m str, u64>,
    /// The function at each function address: its name, and its index among the
    /// module's functions (`None` for a declared one).
    functions: HashMap<u64, (&'m str, Option<usize>)>,
}

impl<'m> Symbols<'m> {
    /// The address of a function or data symbol.
    pub fn address(&self, name: &str) -> Option<u64> {
        self.addrs.get(name).copied()
    }

    /// The function whose address is `addr`: its name, and its index among the module's
    /// functions (`None` for a declared one).
    pub fn function_at(&self, addr: u64) -> Option<(&'m str, Option<usize>)> {
        self.functions.get(&addr).copied()
    }
}

impl Memory {
    /// A memory holding `module`'s data objects (with relocations applied), and where
    /// its symbols are (see the memory map above). No stack yet: see [`Stack::new`].
    pub fn load(module: &Module) -> (Memory, Symbols<'_>) {
        let mut memory = Memory::new();
        let mut addrs: HashMap<&str, u64> = HashMap::default();
        let mut functions = HashMap::default();
        let mut next_fn = FUNC_BASE;
        for (i, f) in module.functions.iter().enumerate() {
            addrs.entry(&f.name).or_insert(next_fn);
            functions.insert(next_fn, (f.name.as_str(), Some(i)));
            next_fn += 16;
        }
        for d in &module.func_decls {
            if !addrs.contains_key(d.name.as_str()) {
                addrs.insert(&d.name, next_fn);
                functions.insert(next_fn, (d.name.as_str(), None));
                next_fn += 16;
            }
        }
        let mut next_data = DATA_BASE;
        for d in &module.data {
            let addr = next_data.next_multiple_of(d.align.clamp(1, 1 << 32));
            addrs.entry(&d.name).or_insert(addr);
            next_data = addr + d.bytes.len() as u64 + 16;
        }
        let mut next_ext = EXTERN_DATA_BASE;
        for d in &module.data_decls {
            addrs.entry(d).or_insert_with(|| {
                next_ext += 16;
                next_ext - 16
            });
        }
        for d in &module.data {
            let addr = addrs[d.name.as_str()];
            let mut bytes = d.bytes.clone();
            for r in &d.relocs {
                let target = addrs.get(r.symbol.as_str()).copied().unwrap_or(0);
                let v = target.wrapping_add(r.addend as u64);
                let off = r.offset as usize;
                if let Some(slot) = bytes.get_mut(off..off.saturating_add(8))
                    && slot.len() == 8
                {
                    slot.copy_from_slice(&v.to_le_bytes());
                }
            }
            memory.map(
                addr,
                bytes,
                d.kind != DataKind::ReadOnly,
                &format!("@{}", d.name),
            );
        }
        (memory, Symbols { addrs, functions })
    }
}

/// The stack: a region of memory ending at `STACK_TOP`, from which each activation
/// takes its stack slots (growing down) and gives them back when it returns.
pub struct Stack {
    base: u64,
    sp: u64,
}

impl Stack {
    /// Map a stack of `size` bytes (at most 1 GiB) in `memory`.
    pub fn new(memory: &mut Memory, size: u64) -> Stack {
        let mut stack = Stack {
            base: STACK_TOP,
            sp: STACK_TOP,
        };
        stack.resize(memory, size);
        stack
    }

    /// Replace the stack by an empty one of `size` bytes (at most 1 GiB).
    pub fn resize(&mut self, memory: &mut Memory, size: u64) {
        let base = STACK_TOP - size.min(1 << 30);
        memory.regions.remove(&self.base);
        memory.map(base, vec![0; size as usize], true, "the stack");
        self.base = base;
        self.sp = STACK_TOP;
    }

    /// The current top of the stack, to give back to [`Stack::release`].
    pub fn mark(&self) -> u64 {
        self.sp
    }

    /// Free everything allocated since `mark` was taken.
    pub fn release(&mut self, mark: u64) {
        self.sp = mark;
    }

    /// Allocate an activation's stack slots: their addresses, in order.
    pub fn push_frame(
        &mut self,
        slots: &PrimaryMap<StackSlot, StackSlotData>,
    ) -> Result<Vec<u64>, Trap> {
        let mut sp = self.sp;
        let mut addrs = Vec::with_capacity(slots.len());
        for (_, s) in slots.iter() {
            sp = sp.saturating_sub(s.size as u64) & !(s.align.max(1) as u64 - 1);
            addrs.push(sp);
        }
        if sp < self.base {
            return Err(Trap::new(TrapKind::StackOverflow, "stack memory exhausted"));
        }
        self.sp = sp;
        Ok(addrs)
    }
}

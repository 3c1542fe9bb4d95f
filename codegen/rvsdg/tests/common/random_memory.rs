//! Random programs for the memory optimizations' differential test: SSA IR modules
//! whose `@f(i64, i64, ptr) -> i64` stores to, loads from and copies between three
//! stack slots, a data object and the memory its pointer parameter points to (the
//! data object or a slot of its caller `@main`), through pointers at constant offsets,
//! `ptradd`s of constants and of variable indices, in branches and counted loops, with
//! calls of `@touch` (which writes and reads what a pointer points to: a slot whose
//! address it gets escapes) and of the host's `@trace`; its result adds up loaded
//! values and the slots' final contents. Now and then an access is out of its slot's
//! bounds (the interpreter's stack is one region: it reaches another slot), or
//! promises an alignment that its address may not have (it traps).
//!
//! Pointers also go through memory (a cell that holds a pointer with 8 bytes behind
//! it: what goes in escapes), and atomic additions and fences order what escapes.
//!
//! `@f`'s fourth parameter is `noalias`: a buffer of `@main`'s that nothing else
//! reaches during the call (the attribute's contract), which `@f` accesses in bounds
//! and without alignment promises (the memory state splitting takes such accesses not
//! to fault, as Rust's references do not); it may still escape (to `@touch`, into the
//! cell: what comes out of the cell is then derived from it).
//! Every slot is set before it is read, so that no run reads what an earlier
//! activation left on the stack (which removing a dead store may change).

#![allow(dead_code)] // each test file uses a part

use std::fmt::Write;

use super::random_cfg::Rng;

/// The slots of `@f`: (size, alignment).
const SLOTS: [(u32, u32); 3] = [(16, 8), (8, 8), (32, 4)];

struct Gen<'r> {
    rng: &'r mut Rng,
    out: String,
    next_value: usize,
    next_block: usize,
    /// Nodes left to make (bounds the size).
    budget: usize,
}

/// What a point of the program has at hand: i64 values and pointers.
#[derive(Clone)]
struct Scope {
    vals: Vec<String>,
    ptrs: Vec<Ptr>,
}

/// A pointer, with the bytes known to lie behind it (to keep most accesses in
/// bounds), and whether its offset in its object is a constant (an access out of
/// bounds through it is one the optimizations see; through a variable index, it
/// would break the provenance they assume, as Rust does: never made), and whether it
/// is derived from the `noalias` parameter (accessed in bounds, no alignment
/// promised).
#[derive(Clone)]
struct Ptr {
    name: String,
    room: u32,
    exact: bool,
    noalias: bool,
}

/// A random module (its text): `@main(i64, i64) -> i64` calls `@f` twice, once on
/// the data object `@g`, once on a slot of its own, both times with another slot of
/// its own as the `noalias` buffer.
pub fn random_memory_module(rng: &mut Rng) -> String {
    let mut g = Gen {
        rng,
        out: String::new(),
        next_value: 4,
        next_block: 1,
        budget: 0,
    };
    g.out.push_str(
        "declare function @trace(i32)\n\
         data @g: data align 8 = zero 48\n\n\
         function @touch(ptr, i64) export {\n\
             fn0 = @trace(i32)\n\
         block0(v0: ptr, v1: i64):\n\
             v2 = load.i32 v0+4\n\
             call fn0(v2)\n\
             store v1, v0\n\
             return\n\
         }\n\n\
         function @main(i64, i64) -> i64 export {\n\
             ss0 = stack_slot 24, align 8\n\
             ss1 = stack_slot 24, align 8\n\
             fn0 = @f(i64, i64, ptr, ptr) -> i64\n\
             gv0 = symbol @g\n\
         block0(v0: i64, v1: i64):\n\
             v2 = stack_addr ss0\n\
             v3 = iconst.i8 7\n\
             v4 = iconst.i64 24\n\
             memset v2, v3, v4\n\
             v12 = stack_addr ss1\n\
             v13 = iconst.i8 -3\n\
             memset v12, v13, v4\n\
             v5 = symbol_addr gv0\n\
             v6 = call fn0(v0, v1, v5, v12)\n\
             v7 = call fn0(v1, v6, v2, v12)\n\
             v8 = load.i64 v2+8\n\
             v9 = load.i64 v5+16\n\
             v10 = iadd v7, v8\n\
             v11 = iadd v10, v9\n\
             v14 = load.i64 v12\n\
             v15 = load.i64 v12+16\n\
             v16 = bxor v14, v15\n\
             v17 = iadd v11, v16\n\
             return v17\n\
         }\n\n",
    );
    g.function();
    g.out
}

impl Gen<'_> {
    fn value(&mut self) -> String {
        self.next_value += 1;
        format!("v{}", self.next_value - 1)
    }

    fn block(&mut self) -> String {
        self.next_block += 1;
        format!("block{}", self.next_block - 1)
    }

    fn line(&mut self, s: &str) {
        self.budget = self.budget.saturating_sub(1);
        let _ = writeln!(self.out, "    {s}");
    }

    fn pick_val(&mut self, s: &Scope) -> String {
        if s.vals.is_empty() || self.rng.chance(10) {
            let v = self.value();
            let k = self.rng.below(200) as i64 - 100;
            self.line(&format!("{v} = iconst.i64 {k}"));
            return v;
        }
        s.vals[self.rng.below(s.vals.len())].clone()
    }

    /// A pointer of the scope, or a new one: a slot at an offset, the data object, the
    /// parameter, a `ptradd` of a constant or a small variable index.
    fn pick_ptr(&mut self, s: &mut Scope) -> Ptr {
        if !s.ptrs.is_empty() && self.rng.chance(50) {
            return s.ptrs[self.rng.below(s.ptrs.len())].clone();
        }
        let v = self.value();
        let p = match self.rng.below(10) {
            0..5 => {
                let k = self.rng.below(SLOTS.len());
                let size = SLOTS[k].0;
                let off = 4 * self.rng.below(size as usize / 4) as u32;
                self.line(&format!("{v} = stack_addr ss{k}+{off}"));
                Ptr {
                    name: v,
                    room: size - off,
                    exact: true,
                    noalias: false,
                }
            }
            5 => {
                let off = 8 * self.rng.below(4) as u32;
                self.line(&format!("{v} = symbol_addr gv0+{off}"));
                Ptr {
                    name: v,
                    room: 48 - off,
                    exact: true,
                    noalias: false,
                }
            }
            6 => {
                // the parameters point to at least 24 bytes
                return if self.rng.chance(50) {
                    Ptr {
                        name: "v2".into(),
                        room: 24,
                        exact: false,
                        noalias: false,
                    }
                } else {
                    Ptr {
                        name: "v3".into(),
                        room: 24,
                        exact: false,
                        noalias: true,
                    }
                };
            }
            7 => {
                let base = self.pick_ptr(s);
                let c = self.value();
                let k = 4 * self.rng.below(base.room as usize / 4 + 1) as u32;
                self.line(&format!("{c} = iconst.i64 {k}"));
                self.line(&format!("{v} = ptradd {}, {c}", base.name));
                Ptr {
                    name: v,
                    room: base.room.saturating_sub(k),
                    exact: base.exact,
                    noalias: base.noalias,
                }
            }
            _ => {
                // a variable index: 0 or 4
                let base = self.pick_ptr(s);
                if base.room < 8 {
                    return base;
                }
                let x = self.pick_val(s);
                let (m, i) = (self.value(), self.value());
                self.line(&format!("{m} = iconst.i64 4"));
                self.line(&format!("{i} = band {x}, {m}"));
                self.line(&format!("{v} = ptradd {}, {i}", base.name));
                Ptr {
                    name: v,
                    room: base.room - 4,
                    exact: false,
                    noalias: base.noalias,
                }
            }
        };
        s.ptrs.push(p.clone());
        p
    }

    /// A type to access through `p` and its size: within its pointee, but for now and
    /// then one through a constant offset.
    fn pick_type(&mut self, p: &Ptr) -> Option<(&'static str, u32)> {
        let (t, n) = [("i8", 1), ("i32", 4), ("i64", 8), ("i64", 8)][self.rng.below(4)];
        if n > p.room && !(p.exact && self.rng.chance(5)) {
            return (p.room > 0).then_some(("i8", 1));
        }
        Some((t, n))
    }

    /// Memory flags of an access of `size` bytes through `p`: mostly none, some
    /// alignment promises (none through the `noalias` parameter).
    fn flags(&mut self, size: u32, p: &Ptr) -> String {
        if p.noalias {
            return String::new();
        }
        match self.rng.below(10) {
            0..5 => String::new(),
            5..9 => format!(" align {}", size.min(4)),
            _ => format!(" align {size}"),
        }
    }

    fn function(&mut self) {
        self.budget = 20 + self.rng.below(60);
        self.out.push_str(
            "function @f(i64, i64, ptr, ptr noalias) -> i64 export {\n\
                 ss0 = stack_slot 16, align 8\n\
                 ss1 = stack_slot 8, align 8\n\
                 ss2 = stack_slot 32, align 4\n\
                 ss3 = stack_slot 8, align 8\n\
                 fn0 = @touch(ptr, i64)\n\
                 fn1 = @trace(i32)\n\
                 gv0 = symbol @g\n\
             block0(v0: i64, v1: i64, v2: ptr, v3: ptr):\n",
        );
        let mut s = Scope {
            vals: vec!["v0".into(), "v1".into()],
            ptrs: vec![
                Ptr {
                    name: "v2".into(),
                    room: 24,
                    exact: false,
                    noalias: false,
                },
                Ptr {
                    name: "v3".into(),
                    room: 24,
                    exact: false,
                    noalias: true,
                },
            ],
        };
        // every slot starts set
        let byte = self.value();
        self.line(&format!("{byte} = iconst.i8 0"));
        for (k, (size, _)) in SLOTS.iter().enumerate() {
            let (p, n) = (self.value(), self.value());
            self.line(&format!("{p} = stack_addr ss{k}"));
            self.line(&format!("{n} = iconst.i64 {size}"));
            self.line(&format!("memset {p}, {byte}, {n}"));
        }
        // the pointer cell starts with the parameter
        let cell = self.value();
        self.line(&format!("{cell} = stack_addr ss3"));
        self.line(&format!("store v2, {cell}"));
        self.items(&mut s, 3);
        // the result: values and what the slots hold at the end
        let mut sum = self.pick_val(&s);
        for _ in 0..2 {
            let x = self.pick_val(&s);
            let t = self.value();
            self.line(&format!("{t} = iadd {sum}, {x}"));
            sum = t;
        }
        for (k, (size, _)) in SLOTS.iter().enumerate() {
            for off in (0..*size).step_by(8) {
                let (p, x, t) = (self.value(), self.value(), self.value());
                self.line(&format!("{p} = stack_addr ss{k}+{off}"));
                let ty = if off + 8 <= *size { "i64" } else { "i32" };
                self.line(&format!("{x} = load.{ty} {p}"));
                let x = if ty == "i64" {
                    x
                } else {
                    let e = self.value();
                    self.line(&format!("{e} = uextend.i64 {x}"));
                    e
                };
                self.line(&format!("{t} = iadd {sum}, {x}"));
                let r = self.value();
                let c = self.value();
                self.line(&format!("{c} = iconst.i64 5"));
                self.line(&format!("{r} = rotl {t}, {c}"));
                sum = r;
            }
        }
        self.line(&format!("return {sum}"));
        self.out.push_str("}\n");
    }

    fn items(&mut self, s: &mut Scope, depth: usize) {
        let n = 2 + self.rng.below(8);
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.item(s, depth);
        }
    }

    fn item(&mut self, s: &mut Scope, depth: usize) {
        match self.rng.below(112) {
            0..25 => {
                let p = self.pick_ptr(s);
                let Some((ty, size)) = self.pick_type(&p) else {
                    return;
                };
                let x = self.pick_val(s);
                let v = if ty == "i64" {
                    x
                } else {
                    let r = self.value();
                    self.line(&format!("{r} = ireduce.{ty} {x}"));
                    r
                };
                let flags = self.flags(size, &p);
                let off = self.imm(p.room, size);
                self.line(&format!("store{flags} {v}, {}{off}", p.name));
            }
            25..50 => {
                let p = self.pick_ptr(s);
                let Some((ty, size)) = self.pick_type(&p) else {
                    return;
                };
                let flags = self.flags(size, &p);
                let off = self.imm(p.room, size);
                let x = self.value();
                self.line(&format!("{x} = load.{ty}{flags} {}{off}", p.name));
                let x = if ty == "i64" {
                    x
                } else {
                    let e = self.value();
                    self.line(&format!("{e} = sextend.i64 {x}"));
                    e
                };
                s.vals.push(x);
            }
            50..58 => {
                let d = self.pick_ptr(s);
                let src = self.pick_ptr(s);
                let memset = self.rng.chance(30);
                let room = if memset { d.room } else { d.room.min(src.room) };
                let n = [4, 8][self.rng.below(2)].min(room);
                if n == 0 {
                    return;
                }
                let len = self.value();
                self.line(&format!("{len} = iconst.i64 {n}"));
                if memset {
                    let b = self.value();
                    let k = self.rng.below(256) as i64 - 128;
                    self.line(&format!("{b} = iconst.i8 {k}"));
                    self.line(&format!("memset {}, {b}, {len}", d.name));
                } else {
                    let op = ["memcpy", "memmove"][self.rng.below(2)];
                    self.line(&format!("{op} {}, {}, {len}", d.name, src.name));
                }
            }
            58..64 => {
                let p = self.pick_ptr(s);
                if p.room >= 8 {
                    let x = self.pick_val(s);
                    self.line(&format!("call fn0({}, {x})", p.name));
                }
            }
            64..68 => {
                let x = self.pick_val(s);
                let t = self.value();
                self.line(&format!("{t} = ireduce.i32 {x}"));
                self.line(&format!("call fn1({t})"));
            }
            68..80 => {
                let x = self.pick_val(s);
                let y = self.pick_val(s);
                let op = ["iadd", "imul", "bxor", "isub"][self.rng.below(4)];
                let v = self.value();
                self.line(&format!("{v} = {op} {x}, {y}"));
                s.vals.push(v);
            }
            80..90 if depth > 0 => self.branch(s, depth),
            90..100 if depth > 0 => self.lp(s, depth),
            100..106 => {
                // the pointer cell ss3: a pointer with 8 bytes behind it goes in (its
                // object escapes), one comes out (whatever it points to)
                let cell = self.value();
                self.line(&format!("{cell} = stack_addr ss3"));
                if self.rng.chance(50) {
                    let p = self.pick_ptr(s);
                    if p.room >= 8 {
                        self.line(&format!("store {}, {cell}", p.name));
                    }
                } else {
                    let q = self.value();
                    self.line(&format!("{q} = load.ptr {cell}"));
                    s.ptrs.push(Ptr {
                        name: q,
                        room: 8,
                        exact: false,
                        noalias: false,
                    });
                }
            }
            106..110 => {
                if self.rng.chance(50) {
                    self.line("fence");
                } else {
                    let (p, r) = (self.value(), self.value());
                    let x = self.pick_val(s);
                    self.line(&format!("{p} = symbol_addr gv0+8"));
                    self.line(&format!("{r} = atomic_rmw add {p}, {x}"));
                    s.vals.push(r);
                }
            }
            _ => {}
        }
    }

    /// The constant offset of an access: mostly 0, sometimes within the pointee.
    fn imm(&mut self, room: u32, size: u32) -> String {
        if room >= size + 4 && self.rng.chance(30) {
            let k = 4 * (1 + self.rng.below(((room - size) / 4) as usize));
            format!("+{k}")
        } else {
            String::new()
        }
    }

    fn branch(&mut self, s: &mut Scope, depth: usize) {
        let x = self.pick_val(s);
        let y = self.pick_val(s);
        let c = self.value();
        self.line(&format!("{c} = icmp slt {x}, {y}"));
        let (t, e, j) = (self.block(), self.block(), self.block());
        self.line(&format!("brif {c}, {t}, {e}"));
        for b in [&t, &e] {
            self.out.push_str(&format!("{b}:\n"));
            let mut inner = s.clone();
            self.items(&mut inner, depth - 1);
            self.line(&format!("jump {j}"));
        }
        self.out.push_str(&format!("{j}:\n"));
    }

    fn lp(&mut self, s: &mut Scope, depth: usize) {
        let (h, x) = (self.block(), self.block());
        let (zero, i) = (self.value(), self.value());
        self.line(&format!("{zero} = iconst.i64 0"));
        self.line(&format!("jump {h}({zero})"));
        self.out.push_str(&format!("{h}({i}: i64):\n"));
        let mut inner = s.clone();
        inner.vals.push(i.clone());
        self.items(&mut inner, depth - 1);
        let (one, next, bound, more) = (self.value(), self.value(), self.value(), self.value());
        self.line(&format!("{one} = iconst.i64 1"));
        self.line(&format!("{next} = iadd {i}, {one}"));
        let k = 1 + self.rng.below(4);
        self.line(&format!("{bound} = iconst.i64 {k}"));
        self.line(&format!("{more} = icmp slt {next}, {bound}"));
        self.line(&format!("brif {more}, {h}({next}), {x}"));
        self.out.push_str(&format!("{x}:\n"));
    }
}

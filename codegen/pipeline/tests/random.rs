//! Random differential testing: straight-line functions of random operations over
//! random types (every integer width, `i128`, floats), with random and edge-case
//! arguments, compiled and run on the simulator, compared with the IR interpreter.
//! Operations that would trap are made safe (divisors forced positive and odd), and a
//! NaN is made canonical before its bits are observed (the payload of a NaN is not
//! specified across implementations).
//!
//! Each program runs with the naive allocator, one operation per bundle and
//! list-scheduled (`sched=list`), and with the SSA allocator list-scheduled; scheduled
//! code runs on a strict simulator, where a latency stall is a fault.
//!
//! `RANDOM_PROGRAMS=N` sets the number of programs (default 150), `RANDOM_SEED=S` the
//! first seed.

mod common;

use common::*;
use vliw_ir::*;
use vliw_machine::{RegAlloc, Sched};
use vliw_pipeline::Options;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545f4914f6cdd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const INTS: [Type; 6] = [
    Type::I1,
    Type::I8,
    Type::I16,
    Type::I32,
    Type::I64,
    Type::I128,
];
const FLOATS: [Type; 2] = [Type::F32, Type::F64];

/// A random integer of type `ty`, often an edge value.
fn int_bits(rng: &mut Rng, ty: Type) -> u128 {
    let w = ty.bits();
    let raw = match rng.below(8) {
        0 => 0,
        1 => 1,
        2 => u128::MAX,                // -1
        3 => 1u128 << (w - 1),         // MIN
        4 => (1u128 << (w - 1)) - 1,   // MAX
        5 => rng.next() as u128 % 300, // small
        6 => (rng.next() as u128) << 64 | rng.next() as u128,
        _ => rng.next() as u128,
    };
    raw & ty.mask()
}

fn float_bits(rng: &mut Rng, ty: Type) -> u128 {
    let x: f64 = match rng.below(12) {
        0 => 0.0,
        1 => -0.0,
        2 => f64::INFINITY,
        3 => f64::NEG_INFINITY,
        4 => f64::NAN,
        5 => 1.5,
        6 => -2.5,
        7 => 1e30,
        8 => 5e-324,
        9 => (rng.next() % 2000) as f64 - 1000.0,
        10 => 0.5 + (rng.next() % 100) as f64,
        _ => f64::from_bits(rng.next()),
    };
    if ty == Type::F32 {
        (x as f32).to_bits() as u128
    } else {
        x.to_bits() as u128
    }
}

fn arg_value(rng: &mut Rng, ty: Type) -> DataValue {
    let bits = if ty.is_float() {
        float_bits(rng, ty)
    } else {
        int_bits(rng, ty)
    };
    DataValue::from_bits(ty, bits)
}

struct Gen<'a, 'f> {
    rng: &'a mut Rng,
    fb: FunctionBuilder<'f>,
    vals: Vec<Value>,
}

impl Gen<'_, '_> {
    fn ty(&self, v: Value) -> Type {
        self.fb.func.dfg.value_type(v)
    }

    fn of(&mut self, pred: impl Fn(Type) -> bool) -> Option<Value> {
        let c: Vec<Value> = self
            .vals
            .iter()
            .copied()
            .filter(|&v| pred(self.ty(v)))
            .collect();
        if c.is_empty() {
            None
        } else {
            Some(self.rng.pick(&c))
        }
    }

    fn iconst(&mut self, ty: Type) -> Value {
        let bits = int_bits(self.rng, ty);
        self.fb.ins().iconst_u128(ty, bits)
    }

    /// A value of type `ty`: an existing one, or a new constant.
    fn value(&mut self, ty: Type) -> Value {
        if !self.rng.chance(25)
            && let Some(v) = self.of(|t| t == ty)
        {
            return v;
        }
        if ty.is_float() {
            let bits = float_bits(self.rng, ty);
            return if ty == Type::F32 {
                self.fb.ins().f32const_bits(bits as u32)
            } else {
                self.fb.ins().f64const_bits(bits as u64)
            };
        }
        self.iconst(ty)
    }

    fn build(&mut self, data: InstructionData, ctrl: Option<Type>) -> Vec<Value> {
        let inst = self.fb.build(data, ctrl);
        self.fb.func.dfg.inst_results(inst).to_vec()
    }

    fn binary(&mut self, op: Opcode, a: Value, b: Value) -> Vec<Value> {
        self.build(
            InstructionData::Binary {
                opcode: op,
                args: [a, b],
            },
            None,
        )
    }

    fn unary(&mut self, op: Opcode, a: Value, ctrl: Option<Type>) -> Value {
        self.build(InstructionData::Unary { opcode: op, arg: a }, ctrl)[0]
    }

    /// A float whose NaNs are all the same NaN.
    fn canonical_nan(&mut self, x: Value) -> Value {
        let ty = self.ty(x);
        let nan = if ty == Type::F32 {
            self.fb.ins().f32const_bits(0x7fc0_0000)
        } else {
            self.fb.ins().f64const_bits(0x7ff8_0000_0000_0000)
        };
        let uno = self.fb.ins().fcmp(FloatCC::Uno, x, x);
        self.fb.ins().select(uno, nan, x)
    }

    fn step(&mut self) {
        use Opcode::*;
        let choice = self.rng.below(10);
        let out: Vec<Value> = match choice {
            0..=3 => {
                let ty = self.rng.pick(&INTS);
                let a = self.value(ty);
                let op = self.rng.pick(&[
                    Iadd,
                    Isub,
                    Imul,
                    Udiv,
                    Sdiv,
                    Urem,
                    Srem,
                    Umulhi,
                    Smulhi,
                    Band,
                    Bor,
                    Bxor,
                    Ishl,
                    Ushr,
                    Sshr,
                    Rotl,
                    Rotr,
                    Smin,
                    Smax,
                    Umin,
                    Umax,
                    UaddOverflow,
                    SaddOverflow,
                    UsubOverflow,
                    SsubOverflow,
                    UmulOverflow,
                    SmulOverflow,
                ]);
                let b = if matches!(op, Ishl | Ushr | Sshr | Rotl | Rotr) {
                    let at = self.rng.pick(&INTS);
                    self.value(at)
                } else {
                    self.value(ty)
                };
                let b = if matches!(op, Udiv | Sdiv | Urem | Srem) {
                    // positive, odd, never -1: no trap
                    let m = self.fb.ins().iconst(ty, 0x3f);
                    let one = self.fb.ins().iconst(ty, 1);
                    let t = self.fb.ins().band(b, m);
                    let t = self.fb.ins().bor(t, one);
                    if ty == Type::I1 { one } else { t }
                } else {
                    b
                };
                if matches!(op, Sdiv | Srem) && ty == Type::I1 {
                    // the only nonzero i1 divisor is -1: dividing its minimum traps
                    return;
                }
                self.binary(op, a, b)
            }
            4 => {
                let ty = self.rng.pick(&INTS);
                let a = self.value(ty);
                let mut ops = vec![
                    Opcode::Ineg,
                    Opcode::Bnot,
                    Opcode::Clz,
                    Opcode::Ctz,
                    Opcode::Popcnt,
                    Opcode::Bitrev,
                    Opcode::Iabs,
                ];
                if ty.bits() % 16 == 0 {
                    ops.push(Opcode::Bswap);
                }
                let op = self.rng.pick(&ops);
                vec![self.unary(op, a, None)]
            }
            5 => {
                // compares and selects
                let ty = self.rng.pick(&INTS);
                let a = self.value(ty);
                let b = self.value(ty);
                let cc = self.rng.pick(&IntCC::ALL);
                let c = self.fb.ins().icmp(cc, a, b);
                let st = self.rng.pick(&[
                    Type::I1,
                    Type::I8,
                    Type::I32,
                    Type::I64,
                    Type::I128,
                    Type::F32,
                    Type::F64,
                ]);
                let x = self.value(st);
                let y = self.value(st);
                let s = self.fb.ins().select(c, x, y);
                vec![c, s]
            }
            6 => {
                // integer conversions
                let from = self.rng.pick(&INTS);
                let a = self.value(from);
                let to = self.rng.pick(&INTS);
                if to.bits() > from.bits() {
                    let op = if self.rng.chance(50) {
                        Opcode::Uextend
                    } else {
                        Opcode::Sextend
                    };
                    vec![self.unary(op, a, Some(to))]
                } else if to.bits() < from.bits() {
                    vec![self.unary(Opcode::Ireduce, a, Some(to))]
                } else {
                    return;
                }
            }
            7 => {
                // float arithmetic
                let ty = self.rng.pick(&FLOATS);
                let a = self.value(ty);
                let b = self.value(ty);
                match self.rng.below(5) {
                    0 => {
                        let op = self
                            .rng
                            .pick(&[Fadd, Fsub, Fmul, Fdiv, Fmin, Fmax, Fcopysign, Frem]);
                        let r = self.binary(op, a, b)[0];
                        vec![if op == Frem { self.canonical_nan(r) } else { r }]
                    }
                    1 => {
                        let op = self
                            .rng
                            .pick(&[Fneg, Fabs, Sqrt, Floor, Ceil, Trunc, Nearest, Round]);
                        vec![self.unary(op, a, None)]
                    }
                    2 => {
                        let c = self.value(ty);
                        vec![self.fb.ins().fma(a, b, c)]
                    }
                    3 => {
                        let cc = self.rng.pick(&FloatCC::ALL);
                        vec![self.fb.ins().fcmp(cc, a, b)]
                    }
                    _ => {
                        let op = if ty == Type::F32 {
                            Opcode::Fpromote
                        } else {
                            Opcode::Fdemote
                        };
                        vec![self.unary(op, a, None)]
                    }
                }
            }
            8 => {
                // float <-> int conversions
                let ft = self.rng.pick(&FLOATS);
                let it = self.rng.pick(&INTS[1..]);
                if self.rng.chance(50) {
                    let a = self.value(ft);
                    let op = if self.rng.chance(50) {
                        Opcode::FcvtToSintSat
                    } else {
                        Opcode::FcvtToUintSat
                    };
                    vec![self.unary(op, a, Some(it))]
                } else {
                    let a = self.value(it);
                    let op = if self.rng.chance(50) {
                        Opcode::FcvtFromSint
                    } else {
                        Opcode::FcvtFromUint
                    };
                    vec![self.unary(op, a, Some(ft))]
                }
            }
            _ => {
                // bit casts
                match self.rng.below(4) {
                    0 => {
                        let a = self.value(Type::F32);
                        let a = self.canonical_nan(a);
                        vec![self.unary(Opcode::Bitcast, a, Some(Type::I32))]
                    }
                    1 => {
                        let a = self.value(Type::F64);
                        let a = self.canonical_nan(a);
                        vec![self.unary(Opcode::Bitcast, a, Some(Type::I64))]
                    }
                    2 => {
                        let a = self.value(Type::I32);
                        vec![self.unary(Opcode::Bitcast, a, Some(Type::F32))]
                    }
                    _ => {
                        let a = self.value(Type::I64);
                        vec![self.unary(Opcode::Bitcast, a, Some(Type::F64))]
                    }
                }
            }
        };
        self.vals.extend(out);
    }
}

/// A random function `@f` and its parameter types.
fn random_function(rng: &mut Rng) -> Function {
    let nparams = 1 + rng.below(12);
    let params: Vec<Type> = (0..nparams)
        .map(|_| {
            if rng.chance(25) {
                rng.pick(&FLOATS)
            } else {
                rng.pick(&INTS)
            }
        })
        .collect();
    let mut f = Function::new("f", Signature::new(&params, &[]), Linkage::Export);
    let nsteps = 5 + rng.below(30);
    let returns;
    {
        let mut fb = FunctionBuilder::new(&mut f);
        let entry = fb.create_block();
        let ps = fb.append_block_params_for_function_params(entry);
        fb.switch_to_block(entry);
        let mut g = Gen { rng, fb, vals: ps };
        for _ in 0..nsteps {
            g.step();
        }
        let nret = 1 + g.rng.below(10);
        let mut rets = Vec::new();
        let start = g.vals.len().saturating_sub(nret * 2);
        for i in 0..nret {
            let v = g.vals[(start + i * 2 + g.rng.below(2)).min(g.vals.len() - 1)];
            rets.push(v);
        }
        returns = rets.iter().map(|&v| g.ty(v)).collect::<Vec<_>>();
        g.fb.ins().return_(&rets);
    }
    f.signature.returns = returns;
    f
}

/// How many random programs, from which seed (`RANDOM_PROGRAMS`, `RANDOM_SEED`).
fn count_and_seed() -> (usize, u64) {
    let var = |name: &str| std::env::var(name).ok().and_then(|s| s.parse::<u64>().ok());
    (
        var("RANDOM_PROGRAMS").unwrap_or(150) as usize,
        var("RANDOM_SEED").unwrap_or(1),
    )
}

#[test]
fn random_programs_agree_with_the_interpreter() {
    let (count, seed) = count_and_seed();
    let mut failures = Vec::new();
    let mut runs = 0;
    for i in 0..count {
        let s = seed + i as u64;
        let mut rng = Rng(s.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let f = random_function(&mut rng);
        let mut module = Module::new();
        module.functions.push(f);
        if let Err(e) = verify_module(&module) {
            panic!("seed {s}: the generator made invalid IR: {e}\n{module}");
        }
        // the same arguments for both: the generator's state after the function
        let args_state = rng.0;
        // one op per bundle, and list-scheduled bundles run strict (no stall)
        for (regalloc, sched) in [
            (RegAlloc::Naive, Sched::Off),
            (RegAlloc::Naive, Sched::List),
            (RegAlloc::Ssa, Sched::List),
        ] {
            let mut options = Options::parse("verify=each").expect("options");
            options.backend.regalloc = regalloc;
            options.backend.sched = sched;
            let object = match compile(&module, &options) {
                Ok(o) => o,
                Err(e) => {
                    failures.push(format!("seed {s} ({regalloc:?}, {sched:?}): {e}\n{module}"));
                    continue;
                }
            };
            let sig = module.functions[0].signature.clone();
            let mut rng = Rng(args_state);
            for _ in 0..3 {
                let args: Vec<DataValue> =
                    sig.params.iter().map(|&t| arg_value(&mut rng, t)).collect();
                let expected = Interpreter::new(&module).call("f", &args);
                let expected = match expected {
                    Ok(v) => v,
                    Err(t) => panic!("seed {s}: the interpreter trapped: {t}\n{module}"),
                };
                runs += 1;
                let strict = sched == Sched::List;
                match run_on_machine_with(
                    std::slice::from_ref(&object),
                    "f",
                    &args,
                    &sig.returns,
                    sched,
                    strict,
                ) {
                    MachineResult::Values(got, _)
                        if got.len() == expected.len()
                            && got.iter().zip(&expected).all(|(g, e)| same_value(g, e)) => {}
                    other => {
                        failures.push(format!(
                            "seed {s} ({regalloc:?}, {sched:?}): args {args:?}\n  interpreter {expected:?}\n  machine     {other:?}\n{module}"
                        ));
                        break;
                    }
                }
            }
        }
    }
    eprintln!(
        "{count} random programs, {runs} runs, {} failed",
        failures.len()
    );
    if !failures.is_empty() {
        let shown: Vec<&String> = failures.iter().take(3).collect();
        panic!(
            "{} of {count} programs disagree; the first:\n{}",
            failures.len(),
            shown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n\n")
        );
    }
}

/// The machine IR of the random programs, at every phase of the three pipelines the
/// differential test runs, verifies for its phase and round-trips through its text.
#[test]
fn random_programs_machine_ir_verifies_and_round_trips_at_every_phase() {
    let (count, seed) = count_and_seed();
    for i in 0..count {
        let s = seed + i as u64;
        let mut rng = Rng(s.wrapping_mul(0x9e3779b97f4a7c15) | 1);
        let mut module = Module::new();
        module.functions.push(random_function(&mut rng));
        for (regalloc, sched) in [
            (RegAlloc::Naive, Sched::Off),
            (RegAlloc::Naive, Sched::List),
            (RegAlloc::Ssa, Sched::List),
        ] {
            let mut options = Options::default();
            options.backend.regalloc = regalloc;
            options.backend.sched = sched;
            if let Err(e) = check_machine_ir_phases(&module, &options) {
                panic!("seed {s} ({regalloc:?}, {sched:?}): {e}\n{module}");
            }
        }
    }
}

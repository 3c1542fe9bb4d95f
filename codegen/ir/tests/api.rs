//! The editing API that passes use: layout surgery, use replacement, block parameter
//! changes, cursor positions, source locations; and the interpreter's host interface.

use vliw_ir::*;

fn sig(params: &[Type], returns: &[Type]) -> Signature {
    Signature::new(params, returns)
}

/// `f(x) = x * 3 + 1` built with the builder.
fn build_affine() -> Function {
    let mut func = Function::new("f", sig(&[Type::I64], &[Type::I64]), Linkage::Export);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block();
    let x = b.append_block_param(entry, Type::I64);
    b.switch_to_block(entry);
    let three = b.ins().iconst(Type::I64, 3);
    let m = b.ins().imul(x, three);
    let one = b.ins().iconst(Type::I64, 1);
    let r = b.ins().iadd(m, one);
    b.ins().return_(&[r]);
    func
}

fn run1(func: &Function, arg: i64) -> i64 {
    let mut m = Module::new();
    m.functions.push(func.clone());
    let mut it = Interpreter::new(&m);
    match it.call(&func.name, &[DataValue::I64(arg)]).unwrap()[..] {
        [DataValue::I64(r)] => r,
        ref other => panic!("{other:?}"),
    }
}

#[test]
fn builder_and_cursor_insertion() {
    let mut func = build_affine();
    assert_eq!(run1(&func, 5), 16);
    // insert `x2 = x + x` before the multiplication and use it instead of x
    let entry = func.entry_block().unwrap();
    let insts: Vec<Inst> = func.layout.block_insts(entry).collect();
    let mul = insts[1];
    assert_eq!(func.dfg.opcode(mul), Opcode::Imul);
    let x = func.dfg.block_params(entry)[0];
    let mut b = FunctionBuilder::new(&mut func);
    b.goto_before(mul);
    let x2 = b.ins().iadd(x, x);
    b.func
        .dfg
        .map_inst_values(mul, |v| if v == x { x2 } else { v });
    verify_function(&func).unwrap();
    assert_eq!(run1(&func, 5), 31);
    assert_eq!(func.layout.prev_inst(mul), func.dfg.value_def(x2).inst());
}

#[test]
fn remove_and_replace_uses() {
    let mut func = build_affine();
    let entry = func.entry_block().unwrap();
    let insts: Vec<Inst> = func.layout.block_insts(entry).collect();
    let (mul, add) = (insts[1], insts[3]);
    let x = func.dfg.block_params(entry)[0];
    // drop the multiplication: every use of its result becomes x
    let m = func.dfg.first_result(mul);
    func.dfg.replace_uses(m, x);
    func.layout.remove_inst(mul);
    verify_function(&func).unwrap();
    assert_eq!(run1(&func, 5), 6);
    assert_eq!(func.dfg.inst_args(add)[0], x);
    assert!(!func.layout.is_inst_inserted(mul));
    // a use of a removed instruction's result is a verifier error
    func.dfg.inst_args_mut(add)[0] = m;
    let e = verify_function(&func).unwrap_err().to_string();
    assert!(
        e.contains("defined by an instruction not in the function"),
        "{e}"
    );
}

#[test]
fn split_block_and_insert_blocks() {
    let mut func = build_affine();
    let entry = func.entry_block().unwrap();
    let insts: Vec<Inst> = func.layout.block_insts(entry).collect();
    // split before `one = iconst 1`: entry jumps to the new block
    let tail = func.dfg.make_block();
    func.layout.insert_block_after(tail, entry);
    func.layout.split_block(tail, insts[2]);
    let mut b = FunctionBuilder::new(&mut func);
    b.goto_bottom(entry);
    b.ins().jump(tail, &[]);
    verify_function(&func).unwrap();
    assert_eq!(func.layout.blocks().collect::<Vec<_>>(), vec![entry, tail]);
    assert_eq!(func.layout.block_insts(tail).count(), 3);
    assert_eq!(run1(&func, 2), 7);
    // an empty block in the layout is an error; removing it fixes that
    let extra = func.dfg.make_block();
    func.layout.insert_block_before(extra, tail);
    assert!(
        verify_function(&func)
            .unwrap_err()
            .to_string()
            .contains("empty block")
    );
    func.layout.remove_block(extra);
    verify_function(&func).unwrap();
}

#[test]
fn block_params_change_with_branches() {
    let text = "function @f(i32, i32) -> i32 {
block0(v0: i32, v1: i32):
    jump block1(v0, v1)
block1(v2: i32, v3: i32):
    v4 = isub v2, v3
    return v4
}
";
    let mut func = parse_function(text).unwrap();
    let b1 = Block::from_u32(1);
    let jump = func.layout.last_inst(Block::from_u32(0)).unwrap();
    // remove the second parameter of block1 and the matching argument, using v1 instead
    let removed = func.dfg.remove_block_param(b1, 1);
    assert_eq!(func.dfg.value_def(removed), ValueDef::Detached);
    func.dfg.remove_branch_arg(jump, b1, 1);
    func.dfg.replace_uses(removed, Value::from_u32(1));
    verify_function(&func).unwrap_or_else(|e| panic!("{e}\n{func}"));
    // add a parameter at the front
    let p = func.dfg.insert_block_param(b1, 0, Type::I64);
    assert_eq!(func.dfg.value_def(p), ValueDef::Param(b1, 0));
    assert_eq!(
        func.dfg.value_def(Value::from_u32(2)),
        ValueDef::Param(b1, 1)
    );
    let e = verify_function(&func).unwrap_err().to_string();
    assert!(e.contains("block1 takes 2 argument(s), 1 given"), "{e}");
    func.dfg.remove_block_param(b1, 0);
    verify_function(&func).unwrap();
    let mut m = Module::new();
    m.functions.push(func);
    let r = Interpreter::new(&m)
        .call("f", &[DataValue::I32(10), DataValue::I32(3)])
        .unwrap();
    assert_eq!(r, vec![DataValue::I32(7)]);
}

#[test]
fn source_locations_print_and_parse() {
    let mut func = Function::new("f", sig(&[], &[Type::I32]), Linkage::Local);
    let file = func.add_file("src/main.rs");
    assert_eq!(func.add_file("src/main.rs"), file);
    let mut b = FunctionBuilder::new(&mut func);
    let entry = b.create_block();
    b.switch_to_block(entry);
    b.set_srcloc(SourceLoc::new(file, 3, 9));
    let v = b.ins().iconst(Type::I32, 7);
    b.set_srcloc(SourceLoc::default());
    b.ins().return_(&[v]);
    let text = func.to_string();
    assert!(text.contains("    file0 = \"src/main.rs\"\n"), "{text}");
    assert!(text.contains("    [0:3:9] v0 = iconst.i32 7\n"), "{text}");
    assert!(text.contains("\n    return v0\n"), "{text}");
    let back = parse_function(&text).unwrap();
    let first = back.layout.first_inst(back.entry_block().unwrap()).unwrap();
    assert_eq!(back.srclocs[first], SourceLoc::new(0, 3, 9));
    assert_eq!(back.to_string(), text);
}

#[test]
fn references_are_deduplicated() {
    let mut func = Function::new("f", sig(&[], &[]), Linkage::Local);
    let a = func.import_function("g", sig(&[Type::I32], &[]));
    let b = func.import_function("g", sig(&[Type::I32], &[]));
    let c = func.import_function("h", sig(&[], &[]));
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_eq!(func.import_global("x"), func.import_global("x"));
    assert_eq!(
        func.import_signature(sig(&[], &[])),
        func.import_signature(sig(&[], &[]))
    );
}

#[test]
fn data_values_parse_and_display() {
    assert_eq!(
        DataValue::parse(Type::I8, "-128"),
        Some(DataValue::I8(-128))
    );
    assert_eq!(DataValue::parse(Type::I8, "255"), Some(DataValue::I8(-1)));
    assert_eq!(DataValue::parse(Type::I8, "256"), None);
    assert_eq!(
        DataValue::parse(Type::I1, "true"),
        Some(DataValue::I1(true))
    );
    assert_eq!(
        DataValue::parse(Type::F32, "0x3f800000"),
        Some(DataValue::F32(1.0))
    );
    assert_eq!(
        DataValue::parse(Type::F64, "-0.0"),
        Some(DataValue::F64(-0.0))
    );
    assert_ne!(DataValue::F64(0.0), DataValue::F64(-0.0));
    assert_eq!(DataValue::F64(f64::NAN), DataValue::F64(f64::NAN));
    assert_eq!(
        DataValue::parse(Type::Ptr, "0x1000"),
        Some(DataValue::Ptr(4096))
    );
    assert_eq!(DataValue::I16(-5).to_string(), "-5");
    assert_eq!(DataValue::F32(f32::NAN).to_string(), "0x7fc00000");
    assert_eq!(DataValue::Ptr(4096).to_string(), "0x1000");
    assert_eq!(
        DataValue::parse(Type::I128, "-170141183460469231731687303715884105728"),
        Some(DataValue::I128(i128::MIN))
    );
}

#[test]
fn host_functions_use_memory() {
    // @main calls @malloc (a host function), stores through the pointer and reads back.
    let text = "declare function @malloc(i64) -> ptr
declare function @free(ptr)

function @main(i64) -> i64 {
    fn0 = @malloc(i64) -> ptr
    fn1 = @free(ptr)
block0(v0: i64):
    v1 = iconst.i64 16
    v2 = call fn0(v1)
    store v0, v2+8
    v3 = load.i64 v2+8
    call fn1(v2)
    return v3
}
";
    let m = parse_module(text).unwrap();
    verify_module(&m).unwrap();
    let mut freed = Vec::new();
    {
        let mut it = Interpreter::new(&m);
        it.add_host("malloc", |mem, args| {
            let DataValue::I64(n) = args[0] else {
                unreachable!()
            };
            Ok(vec![DataValue::Ptr(mem.alloc(n as u64, 8))])
        });
        it.add_host("free", |_, args| {
            freed.push(args[0]);
            Ok(vec![])
        });
        assert_eq!(
            it.call("main", &[DataValue::I64(99)]).unwrap(),
            vec![DataValue::I64(99)]
        );
        assert!(it.steps() > 0);
        // calling with the wrong argument types traps instead of panicking
        let e = it.call("main", &[DataValue::I32(1)]).unwrap_err();
        assert_eq!(e.kind, TrapKind::BadSignature);
    }
    assert_eq!(freed.len(), 1);
    // a host function returning the wrong types traps
    let mut it = Interpreter::new(&m);
    it.add_host("malloc", |_, _| Ok(vec![DataValue::I64(0)]));
    let e = it.call("main", &[DataValue::I64(1)]).unwrap_err();
    assert_eq!(e.kind, TrapKind::BadSignature);
    assert!(
        e.message
            .contains("host function @malloc returned (i64), the call expects (ptr)"),
        "{}",
        e.message
    );
}

#[test]
fn symbol_addresses_and_relocations() {
    let text = "data @a: rodata align 8 = \"12345678\"
data @p: data align 8 = { ptr @a+3 }
";
    let m = parse_module(text).unwrap();
    verify_module(&m).unwrap();
    let it = Interpreter::new(&m);
    let a = it.symbol_address("a").unwrap();
    let p = it.symbol_address("p").unwrap();
    assert_eq!(a % 8, 0);
    assert_eq!(it.memory.read_uint(p, 8).unwrap(), (a + 3) as u128);
    assert_eq!(it.memory.read(a, 8).unwrap(), b"12345678");
    assert!(it.memory.read(a, 9).is_err());
}

#[test]
fn the_profile_counts_each_instruction_run() {
    let text = "function @f(i32) -> i32 {
block0(v0: i32):
    v1 = iconst.i32 0
    jump block1(v0, v1)
block1(v2: i32, v3: i32):
    v4 = iadd v3, v2
    v5 = iconst.i32 1
    v6 = isub v2, v5
    v7 = icmp ne v6, v1
    brif v7, block1(v6, v4), block2
block2:
    return v4
}
";
    let m = parse_module(text).unwrap();
    verify_module(&m).unwrap();
    let f = &m.functions[0];
    let mut it = Interpreter::new(&m);
    it.call("f", &[DataValue::I32(3)]).unwrap();
    assert_eq!(
        it.profile().count(),
        0,
        "nothing counted before enable_profile"
    );
    it.enable_profile();
    assert_eq!(
        it.call("f", &[DataValue::I32(4)]).unwrap(),
        [DataValue::I32(10)]
    );
    let mut by_opcode = std::collections::BTreeMap::new();
    for (name, inst, n) in it.profile() {
        assert_eq!(name, "f");
        *by_opcode.entry(f.dfg.opcode(inst).to_string()).or_insert(0) += n;
    }
    let counts: Vec<(&str, u64)> = by_opcode.iter().map(|(k, &v)| (k.as_str(), v)).collect();
    assert_eq!(
        counts,
        [
            ("brif", 4),
            ("iadd", 4),
            ("icmp", 4),
            ("iconst", 5),
            ("isub", 4),
            ("jump", 1),
            ("return", 1)
        ]
    );
}

#[test]
fn a_block_moves_to_the_end_with_its_instructions() {
    let mut layout = Layout::new();
    let mut dfg = DataFlowGraph::new();
    let blocks: Vec<Block> = (0..3).map(|_| dfg.make_block()).collect();
    for &b in &blocks {
        layout.append_block(b);
    }
    let inst = dfg.make_inst(InstructionData::Jump {
        opcode: Opcode::Jump,
        dest: BlockCall::from(blocks[2]),
    });
    layout.append_inst(inst, blocks[0]);
    layout.move_block_to_end(blocks[0]);
    assert_eq!(
        layout.blocks().collect::<Vec<_>>(),
        [blocks[1], blocks[2], blocks[0]]
    );
    assert_eq!(layout.entry_block(), Some(blocks[1]));
    assert_eq!(layout.block_insts(blocks[0]).collect::<Vec<_>>(), [inst]);
    assert_eq!(layout.inst_block(inst), Some(blocks[0]));
    layout.move_block_to_end(blocks[0]); // already last
    layout.move_block_to_end(blocks[2]);
    assert_eq!(
        layout.blocks().collect::<Vec<_>>(),
        [blocks[1], blocks[0], blocks[2]]
    );
    assert_eq!(layout.prev_block(blocks[1]), None);
    assert_eq!(layout.next_block(blocks[2]), None);
}

//! A small command line over the IR, for debugging:
//!
//! ```text
//! cargo run -p vliw-ir --example ir -- print FILE.ir     # parse and print back
//! cargo run -p vliw-ir --example ir -- verify FILE.ir    # verifier errors, if any
//! cargo run -p vliw-ir --example ir -- run FILE.ir @f 1 2.5 0x10   # interpret @f
//! ```

use vliw_ir::*;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: ir (print|verify|run) FILE.ir [@function args...]");
        std::process::exit(2);
    }
    let text = std::fs::read_to_string(&args[1]).unwrap_or_else(|e| {
        eprintln!("{}: {e}", args[1]);
        std::process::exit(2)
    });
    let module = parse_module(&text).unwrap_or_else(|e| {
        eprintln!("{}:{e}", args[1]);
        std::process::exit(1)
    });
    match args[0].as_str() {
        "print" => print!("{module}"),
        "verify" => match verify_module(&module) {
            Ok(()) => println!("ok"),
            Err(e) => {
                println!("{e}");
                std::process::exit(1)
            }
        },
        "run" => {
            let name = args
                .get(2)
                .map(|s| s.trim_start_matches('@'))
                .unwrap_or("main");
            let Some(f) = module.function(name) else {
                eprintln!("no function @{name}");
                std::process::exit(2)
            };
            let vals: Vec<DataValue> = f
                .signature
                .params
                .iter()
                .zip(args.iter().skip(3))
                .map(|(&t, a)| {
                    DataValue::parse(t, a).unwrap_or_else(|| {
                        eprintln!("cannot read '{a}' as {t}");
                        std::process::exit(2)
                    })
                })
                .collect();
            let mut interp = Interpreter::new(&module);
            interp.add_host("write", |mem, a| {
                use std::io::Write;
                let (DataValue::Ptr(p), DataValue::I64(n)) = (a[1], a[2]) else {
                    return Err(Trap::new(TrapKind::Host, "write(i64, ptr, i64)"));
                };
                let _ = std::io::stdout().write_all(mem.read(p, n as u64)?);
                Ok(vec![DataValue::I64(n)])
            });
            match interp.call(name, &vals) {
                Ok(r) => println!(
                    "{}",
                    r.iter()
                        .map(|v| v.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                Err(t) => {
                    println!("trap: {t}");
                    std::process::exit(1)
                }
            }
        }
        c => {
            eprintln!("unknown command {c}");
            std::process::exit(2)
        }
    }
}

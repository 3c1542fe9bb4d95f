// Command-line arguments: count, each argument (without argv[0], whose path differs),
// numeric ones summed, flags recognised, args_os.
// args: alpha --verbose 42 -7 "quoted" ünïcödé x=y 3.5
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    println!("{} arguments", args.len());
    for (i, a) in args.iter().enumerate() {
        println!("  [{i}] {a:?} ({} bytes)", a.len());
    }
    let verbose = args.iter().any(|a| a == "--verbose");
    let sum: i64 = args.iter().filter_map(|a| a.parse::<i64>().ok()).sum();
    let floats: Vec<f64> = args.iter().filter(|a| a.contains('.')).filter_map(|a| a.parse().ok()).collect();
    println!("verbose {verbose} sum {sum} floats {floats:?}");
    let kv: Vec<(&str, &str)> = args.iter().filter_map(|a| a.split_once('=')).collect();
    println!("key-values {kv:?}");
    println!("args_os count {}", std::env::args_os().count());
    let has_argv0 = std::env::args().next().is_some();
    println!("argv[0] present {has_argv0}");
}

// Exit status from main's return: Result Err prints `Error: ...` on stderr and exits 1;
// std::process::ExitCode carries the code 42 here.
// expect-exit: 42
use std::process::ExitCode;

fn check(n: u32) -> Result<u32, String> {
    if n % 7 == 0 { Err(format!("{n} is a multiple of 7")) } else { Ok(n * 2) }
}

fn main() -> ExitCode {
    let mut failures = 0u8;
    for n in [3, 14, 5, 21, 28] {
        match check(n) {
            Ok(v) => println!("{n} -> {v}"),
            Err(e) => {
                eprintln!("error: {e}");
                failures += 1;
            }
        }
    }
    println!("failures {failures}");
    ExitCode::from(39 + failures)
}

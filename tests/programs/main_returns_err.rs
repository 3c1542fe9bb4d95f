// main returning Err: the Debug of the error on stderr as `Error: ...`, exit status 1.
// expect-exit: 1
// expect-stderr-contains: Error: Parse
#[allow(dead_code)]
#[derive(Debug)]
enum AppError {
    Parse(String),
}

fn parse_all(items: &[&str]) -> Result<Vec<i32>, AppError> {
    items.iter().map(|s| s.parse::<i32>().map_err(|e| AppError::Parse(format!("{s:?}: {e}")))).collect()
}

fn main() -> Result<(), AppError> {
    let good = parse_all(&["1", "2", "3"])?;
    println!("good {good:?}");
    let bad = parse_all(&["4", "five", "6"])?;
    println!("not reached {bad:?}");
    Ok(())
}

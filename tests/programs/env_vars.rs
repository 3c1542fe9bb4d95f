// Environment variables: one set by the test header, one absent, var vs var_os, and
// errors for a missing variable. (The suite runs both sides with only the header's vars.)
// env: VLIW_TEST_GREETING=hello world
// env: VLIW_TEST_NUMBER=42
use std::env;

fn main() {
    println!("greeting {:?}", env::var("VLIW_TEST_GREETING"));
    println!("number {:?}", env::var("VLIW_TEST_NUMBER").ok().and_then(|v| v.parse::<i32>().ok()).map(|n| n + 1));
    match env::var("VLIW_TEST_ABSENT") {
        Ok(v) => println!("absent is present?! {v}"),
        Err(e) => println!("absent: {e} / {e:?}"),
    }
    println!("var_os {:?} {:?}", env::var_os("VLIW_TEST_NUMBER"), env::var_os("VLIW_TEST_ABSENT"));
    let mut mine: Vec<(String, String)> = env::vars().filter(|(k, _)| k.starts_with("VLIW_TEST_")).collect();
    mine.sort();
    println!("vars {mine:?}");
    let fallback = env::var("VLIW_TEST_ABSENT").unwrap_or_else(|_| "default".to_string());
    println!("fallback {fallback}");
}

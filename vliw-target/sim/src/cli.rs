pub fn cli_main(_args: &[String]) -> i32 { 0 }

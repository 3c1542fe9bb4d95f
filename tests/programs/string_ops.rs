// &str and String operations: split variants, trim, find, replace, strip, parse pieces.
fn main() {
    let line = "  key1=value1; key2 = value two ;key3=  ;; last=1=2  ";
    println!("[{}] [{}] [{}]", line.trim(), line.trim_start(), line.trim_end());
    for part in line.split(';') {
        let part = part.trim();
        if part.is_empty() {
            println!("(empty)");
            continue;
        }
        match part.split_once('=') {
            Some((k, v)) => println!("{:?} => {:?}", k.trim(), v.trim()),
            None => println!("no '=' in {part:?}"),
        }
    }
    let csv = "a,b,,c,";
    println!("split {:?}", csv.split(',').collect::<Vec<_>>());
    println!("splitn {:?}", csv.splitn(3, ',').collect::<Vec<_>>());
    println!("rsplit {:?}", csv.rsplit(',').collect::<Vec<_>>());
    println!("split_terminator {:?}", csv.split_terminator(',').collect::<Vec<_>>());
    println!("split_whitespace {:?}", " a  b\tc\n d ".split_whitespace().collect::<Vec<_>>());
    println!("lines {:?}", "one\ntwo\r\nthree\n".lines().collect::<Vec<_>>());
    println!("split by closure {:?}", "a1b22c333d".split(|c: char| c.is_ascii_digit()).collect::<Vec<_>>());
    let hay = "the cat sat on the mat with the hat";
    println!("find the {:?} rfind the {:?} find dog {:?}", hay.find("the"), hay.rfind("the"), hay.find("dog"));
    println!("find char {:?} find closure {:?}", hay.find('m'), hay.find(|c: char| c == 'w'));
    println!("matches {:?}", hay.match_indices("at").collect::<Vec<_>>());
    println!("count at {}", hay.matches("at").count());
    println!("replace {}", hay.replace("the", "a"));
    println!("replacen {}", hay.replacen("the", "THE", 2));
    println!("starts {} ends {}", hay.starts_with("the"), hay.ends_with("hat"));
    println!("strip {:?} {:?}", hay.strip_prefix("the "), hay.strip_suffix("cat"));
    println!("trim_matches {:?}", "xxhixyx".trim_matches('x'));
    println!("trim_start_matches {:?}", "000120".trim_start_matches('0'));
    let mut s = String::from("hello");
    s.insert(0, '>');
    s.insert_str(1, "> ");
    s += " world";
    s.replace_range(4..8, "LL");
    println!("{s} cap>=len {}", s.capacity() >= s.len());
    s.truncate(5);
    println!("{s:?}");
    s.clear();
    println!("cleared {:?} empty {}", s, s.is_empty());
    let parts = ["x", "y", "z"];
    println!("{} {}", parts.concat(), parts.join(", "));
    println!("cmp {:?} {:?} eq_ignore_case {}", "abc".cmp("abd"), "b".cmp("abc"), "HeLLo".eq_ignore_ascii_case("hello"));
    let padded = format!("{:-^20}", " mid ");
    println!("{padded}");
    let chunks: Vec<String> = "abcdefghij".as_bytes().chunks(3).map(|c| String::from_utf8_lossy(c).into_owned()).collect();
    println!("{:?}", chunks);
}

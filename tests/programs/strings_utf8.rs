// UTF-8 strings: chars, bytes, char_indices, multi-byte characters, case mapping.
fn main() {
    let s = "Grüße, 世界! ñandú 🦀 ǅ";
    println!("{s}");
    println!("bytes {} chars {}", s.len(), s.chars().count());
    for (i, c) in s.char_indices().filter(|(_, c)| !c.is_ascii()) {
        println!("  {i:2}: {c} U+{:04X} len_utf8 {} utf16 {}", c as u32, c.len_utf8(), c.len_utf16());
    }
    let bytes: Vec<String> = "ü🦀".bytes().map(|b| format!("{b:02x}")).collect();
    println!("bytes of ü🦀: {}", bytes.join(" "));
    println!("upper {}", s.to_uppercase());
    println!("lower {}", s.to_lowercase());
    println!("ß upper {} ǅ lower {} İ lower {:?}", "ß".to_uppercase(), "ǅ".to_lowercase(), "İ".to_lowercase());
    let rev: String = s.chars().rev().collect();
    println!("reversed {rev}");
    println!("is_char_boundary(3) {} (4) {}", s.is_char_boundary(3), s.is_char_boundary(4));
    println!("get(0..3) {:?} get(0..4) {:?}", s.get(0..3), s.get(0..4));
    let mut t = String::new();
    for c in ['a', 'é', '中', '😀'] {
        t.push(c);
        t.push_str("|");
    }
    println!("{t} len {}", t.len());
    println!("pop {:?} remove(0) {:?} -> {t}", t.pop(), t.remove(0));
    let utf16: Vec<u16> = "a😀".encode_utf16().collect();
    println!("utf16 {:x?} back {:?}", utf16, String::from_utf16(&utf16));
    println!("escape_debug {} escape_default {} escape_unicode {}", "tab\t\"é\"".escape_debug(), "é\n".escape_default(), "ab".escape_unicode());
    let words = ["naïve", "café", "zoë", "apple", "Zebra"];
    let mut sorted = words.to_vec();
    sorted.sort();
    println!("byte order {:?}", sorted);
    sorted.sort_by_key(|w| w.to_lowercase());
    println!("case-insensitive {:?}", sorted);
    let c = char::from_u32(0x1F600);
    println!("{:?} {:?} {:?}", c, char::from_u32(0xD800), char::from_digit(7, 10));
    println!("repeat {}", "ab".repeat(3));
}

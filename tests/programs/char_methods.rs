// char methods: classification (ASCII and Unicode), digits in radixes, case conversion,
// conversions to/from u32 and u8, escapes, ordering, char ranges.
fn main() {
    let chars = ['a', 'Z', '5', ' ', '\n', '_', 'é', 'ß', 'Σ', '中', '٣', '🦀', '\u{0}', '\u{2028}', 'ǅ'];
    for c in chars {
        println!(
            "{:?} U+{:04X}: alpha {} num {} alnum {} ws {} upper {} lower {} ctrl {} ascii {} punct {} digit10 {:?} up {:?} low {:?}",
            c, c as u32, c.is_alphabetic(), c.is_numeric(), c.is_alphanumeric(), c.is_whitespace(), c.is_uppercase(),
            c.is_lowercase(), c.is_control(), c.is_ascii(), c.is_ascii_punctuation(), c.to_digit(10),
            c.to_uppercase().collect::<String>(), c.to_lowercase().collect::<String>()
        );
    }
    for (c, r) in [('f', 16), ('F', 16), ('z', 36), ('9', 8), ('7', 8), ('g', 16)] {
        println!("{c} radix {r}: {:?} is_digit {}", c.to_digit(r), c.is_digit(r));
    }
    println!("from_digit {:?} {:?} {:?}", char::from_digit(11, 16), char::from_digit(35, 36), char::from_digit(10, 10));
    println!("from u8 {:?} {:?} as u8 {}", char::from(65u8), char::from(0xe9u8), 'A' as u8 + 2);
    println!("ascii case {} {} {} eq_ignore {}", 'q'.to_ascii_uppercase(), 'Q'.to_ascii_lowercase(), 'é'.to_ascii_uppercase(), 'k'.eq_ignore_ascii_case(&'K'));
    println!("escapes {} {} {} {}", '\t'.escape_default(), '\''.escape_debug(), 'é'.escape_unicode(), '🦀'.escape_default());
    println!("ordering {} {} {:?}", 'a' < 'b', 'Z' < 'a', 'é'.cmp(&'z'));
    let alphabet: String = ('a'..='z').step_by(5).collect();
    let greek: String = ('α'..='ε').collect();
    println!("{alphabet} {greek} count {}", ('\u{0}'..='\u{10FFFF}').count());
    let mut buf = [0u8; 4];
    let s = '€'.encode_utf8(&mut buf);
    println!("encode_utf8 {} {:?} len {}", s, s.as_bytes(), s.len());
    let mut wide = [0u16; 2];
    println!("encode_utf16 {:x?}", '𝄞'.encode_utf16(&mut wide));
    let caesar: String = "Hello, World!".chars().map(|c| {
        if c.is_ascii_alphabetic() {
            let base = if c.is_ascii_lowercase() { b'a' } else { b'A' };
            (((c as u8 - base + 13) % 26) + base) as char
        } else {
            c
        }
    }).collect();
    println!("rot13 {caesar}");
    println!("{:?} {:?}", char::MAX, char::REPLACEMENT_CHARACTER);
}

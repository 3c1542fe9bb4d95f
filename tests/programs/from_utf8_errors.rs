// Invalid UTF-8: from_utf8 errors (valid_up_to, error_len), from_utf8_lossy, char boundaries.
fn show(bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(s) => println!("{bytes:x?} ok {s:?}"),
        Err(e) => println!("{bytes:x?} err: {e} (valid_up_to {}, error_len {:?})", e.valid_up_to(), e.error_len()),
    }
}

fn main() {
    show(b"plain");
    show(&[0x68, 0xc3, 0xa9]);
    show(&[0x68, 0xc3]);
    show(&[0xff, 0x41]);
    show(&[0x41, 0xe2, 0x82]);
    show(&[0xe2, 0x28, 0xa1]);
    show(&[0xf0, 0x9f, 0xa6, 0x80]);
    show(&[0xed, 0xa0, 0x80]);
    show(&[0xc0, 0x80]);
    show(&[0xf4, 0x90, 0x80, 0x80]);
    let bad = vec![b'a', 0x80, b'b', 0xf0, 0x9f, b'c'];
    println!("lossy {}", String::from_utf8_lossy(&bad));
    match String::from_utf8(bad) {
        Ok(_) => println!("unexpected"),
        Err(e) => {
            println!("String::from_utf8: {e}");
            let back = e.into_bytes();
            println!("bytes back {:?}", back);
        }
    }
    let mut chunks = Vec::new();
    for chunk in b"ab\xffcd\xe2\x82\xacef\xf0".utf8_chunks() {
        chunks.push(format!("{:?}+{:x?}", chunk.valid(), chunk.invalid()));
    }
    println!("chunks {}", chunks.join(" "));
    let r: Result<char, _> = "é".parse::<char>();
    let r2: Result<char, _> = "ab".parse::<char>();
    println!("{:?} {:?}", r, r2.map_err(|e| e.to_string()));
    println!("{:?}", char::from_u32(0x110000));
    println!("{:?}", u8::try_from('é').map_err(|e| e.to_string()));
}

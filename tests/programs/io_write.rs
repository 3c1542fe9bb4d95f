// std::io::Write to stdout and stderr: writeln!, write_all, explicit locks, flush,
// BufWriter, print! without newline then a newline, interleaving of the two streams
// (each is compared separately).
use std::io::{self, BufWriter, Write};

fn main() -> io::Result<()> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    writeln!(out, "locked stdout line {}", 1)?;
    out.write_all(b"raw bytes\n")?;
    write!(out, "partial ")?;
    write!(out, "line")?;
    writeln!(out)?;
    out.flush()?;
    drop(out);
    let mut err = io::stderr();
    writeln!(err, "stderr line {:>5}", 2)?;
    err.write_all("ünïcode on stderr\n".as_bytes())?;
    eprint!("eprint ");
    eprintln!("eprintln");
    {
        let mut bw = BufWriter::new(io::stdout());
        for i in 0..50 {
            write!(bw, "{i:02}{}", if i % 10 == 9 { "\n" } else { " " })?;
        }
        bw.flush()?;
    }
    let mut v: Vec<u8> = Vec::new();
    writeln!(v, "into a Vec<u8>: {:?}", (1, 2))?;
    io::stdout().write_all(&v)?;
    let n = io::stdout().write(b"short write\n")?;
    println!("wrote {n} bytes");
    let mut cursor = io::Cursor::new(Vec::new());
    write!(cursor, "cursor {}", 3.5)?;
    println!("{:?} position {}", String::from_utf8_lossy(cursor.get_ref()), cursor.position());
    print!("no newline at the very end");
    Ok(())
}

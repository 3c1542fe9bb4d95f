// std::fs in a directory of the program's own: on the host its current directory,
// on the simulator a host directory mapped at `/` (`vliw-run --dir DIR::/`): files
// and directories created, written, appended to, read, seeked, listed, renamed
// and removed, metadata, and the errors std gives the same kind on both.
// scratch-dir: yes

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The entries of `dir`, sorted (the host's order is its file system's), with `/`
/// after directories.
fn list(dir: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let t = e.file_type().unwrap();
            let mark = if t.is_dir() { "/" } else if t.is_file() { "" } else { "?" };
            format!("{}{mark}", e.file_name().to_str().unwrap())
        })
        .collect();
    names.sort();
    names
}

fn kind<T>(r: io::Result<T>) -> String {
    match r {
        Ok(_) => "ok".to_string(),
        Err(e) => format!("{:?}", e.kind()),
    }
}

fn main() -> io::Result<()> {
    println!("empty at first: {:?}", list("."));
    fs::create_dir("data")?;
    fs::create_dir_all("data/nested/deeper")?;
    fs::write("data/hello.txt", "hello, world\n")?;
    println!("read: {:?}", fs::read_to_string("data/hello.txt")?);

    let mut f = OpenOptions::new().append(true).open("data/hello.txt")?;
    writeln!(f, "second line")?;
    drop(f);
    for (i, line) in BufReader::new(File::open("data/hello.txt")?)
        .lines()
        .enumerate()
    {
        println!("line {i}: {}", line?);
    }

    let mut f = File::open("data/hello.txt")?;
    f.seek(SeekFrom::Start(7))?;
    let mut word = [0u8; 5];
    f.read_exact(&mut word)?;
    println!("at 7: {:?}", std::str::from_utf8(&word).unwrap());
    println!("5 before the end: {}", f.seek(SeekFrom::End(-5))?);
    println!("position: {}", f.stream_position()?);
    let mut rest = String::new();
    f.read_to_string(&mut rest)?;
    println!("rest: {rest:?}");
    println!("write to a read-only file fails: {}", f.write(b"x").is_err());

    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open("data/numbers.bin")?;
    for i in 0u32..1000 {
        f.write_all(&i.to_le_bytes())?;
    }
    f.seek(SeekFrom::Start(400))?;
    f.write_all(&u32::MAX.to_le_bytes())?;
    f.seek(SeekFrom::Current(-8))?;
    let mut three = [0u8; 12];
    f.read_exact(&mut three)?;
    let words: Vec<u32> = three
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    println!("words 99..102: {words:?}");
    let m = f.metadata()?;
    println!(
        "numbers.bin: len {} file {} dir {} symlink {}",
        m.len(),
        m.is_file(),
        m.is_dir(),
        m.file_type().is_symlink()
    );
    drop(f);
    File::create("data/numbers.bin")?.write_all(b"xy")?;
    println!("after File::create: {}", fs::metadata("data/numbers.bin")?.len());
    let m = fs::metadata("data/nested")?;
    println!(
        "nested: dir {} file {} modified known {}",
        m.is_dir(),
        m.is_file(),
        m.modified().is_ok()
    );
    println!("symlink_metadata: dir {}", fs::symlink_metadata("data/nested")?.is_dir());
    println!("data: {:?}", list("data"));

    fs::rename("data/hello.txt", "data/nested/hello.txt")?;
    fs::rename("data/nested/deeper", "data/deep")?;
    fs::write("data/replaced.txt", "old")?;
    fs::write("data/new.txt", "new")?;
    fs::rename("data/new.txt", "data/replaced.txt")?;
    println!("after renames: {:?} {:?}", list("data"), list("data/nested"));
    println!("replaced: {:?}", fs::read_to_string("data/replaced.txt")?);

    println!("open missing: {}", kind(File::open("data/missing.txt")));
    println!("create_dir existing: {}", kind(fs::create_dir("data")));
    println!(
        "create_new existing: {}",
        kind(
            OpenOptions::new()
                .write(true)
                .create_new(true)
                .open("data/numbers.bin")
        )
    );
    println!("remove missing: {}", kind(fs::remove_file("data/missing.txt")));
    println!("rename missing: {}", kind(fs::rename("data/missing", "data/x")));
    println!("metadata missing: {}", kind(fs::metadata("data/missing")));
    println!("remove_dir of a full one fails: {}", fs::remove_dir("data/nested").is_err());
    println!("remove_file of a dir fails: {}", fs::remove_file("data/nested").is_err());
    println!("read_dir of a file fails: {}", fs::read_dir("data/numbers.bin").is_err());
    println!(
        "exists: {} {}",
        Path::new("data/deep").exists(),
        Path::new("data/nested/deeper").exists()
    );

    let big: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
    fs::write("data/big", &big)?;
    let back = fs::read("data/big")?;
    println!("big: {} bytes, same {}", back.len(), back == big);

    fs::remove_file("data/big")?;
    fs::remove_dir("data/deep")?;
    fs::remove_dir_all("data")?;
    println!("after removal: {:?}", list("."));
    Ok(())
}

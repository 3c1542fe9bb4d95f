//! The file system calls over mapped host directories (`fs.rs`), called through
//! `System` as the `syscall` operation calls them: the sandbox (`..`, absolute
//! paths, symbolic links), bad pointers, descriptor exhaustion, no `--dir`.

use super::*;
use crate::fs::{DirMapping, FileSystem};
use crate::memory::Memory;
use crate::program::SymbolTable;
use crate::syscall::{SysResult, System};
use std::fs;
use std::path::Path;
use vliw_isa::abi::syscall::*;

/// Strings and buffers of the tests live in one writable data segment.
const MEM_SIZE: u64 = 0x4000;
/// Scratch addresses in it.
const PATH_A: u64 = DATA;
const PATH_B: u64 = DATA + 0x1000;
const BUF: u64 = DATA + 0x2000;

/// A guest: memory and the system-call state, with `dirs` mapped.
struct Guest {
    mem: Memory,
    sys: System,
    symbols: SymbolTable,
    io: CaptureIo,
}

impl Guest {
    fn new(dirs: &[(&Path, &str)]) -> Guest {
        let dirs: Vec<DirMapping> = dirs
            .iter()
            .map(|(h, g)| DirMapping {
                host: h.to_path_buf(),
                guest: g.to_string(),
            })
            .collect();
        let segments = [
            Segment::text(TEXT, &assemble(&[&["nop"]])),
            Segment::data(DATA, Vec::new(), MEM_SIZE),
        ];
        let io = CaptureIo::default();
        Guest {
            mem: Memory::new(&segments, 64 << 10, 1 << 20).unwrap(),
            sys: System::new(
                Box::new(io.clone()),
                Some(1),
                FileSystem::new(&dirs).unwrap(),
            ),
            symbols: SymbolTable::new(&[]),
            io,
        }
    }

    fn call(&mut self, number: i64, args: &[u64]) -> i64 {
        let mut a = [0u64; 6];
        a[..args.len()].copy_from_slice(args);
        match self.sys.call(number, &a, &mut self.mem, 0, &self.symbols) {
            SysResult::Value(v) => v as i64,
            SysResult::Exit(_) => panic!("exit"),
        }
    }

    /// Writes `path` with its NUL at `at`.
    fn put(&mut self, at: u64, path: &str) {
        let mut bytes = path.as_bytes().to_vec();
        bytes.push(0);
        assert!(self.mem.write_bytes(at, &bytes));
    }

    fn open(&mut self, path: &str, flags: i64) -> i64 {
        self.put(PATH_A, path);
        self.call(OPEN, &[PATH_A, flags as u64, 0o644])
    }

    fn path_call(&mut self, number: i64, path: &str, arg: u64) -> i64 {
        self.put(PATH_A, path);
        self.call(number, &[PATH_A, arg])
    }

    fn rename(&mut self, old: &str, new: &str) -> i64 {
        self.put(PATH_A, old);
        self.put(PATH_B, new);
        self.call(RENAME, &[PATH_A, PATH_B])
    }

    fn write(&mut self, fd: i64, data: &[u8]) -> i64 {
        assert!(self.mem.write_bytes(BUF, data));
        self.call(WRITE, &[fd as u64, BUF, data.len() as u64])
    }

    fn read(&mut self, fd: i64, len: u64) -> Result<Vec<u8>, i64> {
        let n = self.call(READ, &[fd as u64, BUF, len]);
        if n < 0 {
            return Err(-n);
        }
        Ok(self.mem.slice(BUF, n as u64).unwrap().to_vec())
    }

    /// `stat` (or `lstat`) of `path`: (mode, size), or the errno.
    fn stat(&mut self, path: &str, follow: bool) -> Result<(u64, u64), i64> {
        let n = self.path_call(if follow { STAT } else { LSTAT }, path, BUF);
        if n < 0 {
            return Err(-n);
        }
        Ok((self.word(BUF + 24), self.word(BUF + 56)))
    }

    fn word(&self, addr: u64) -> u64 {
        self.mem.read(addr, 8).unwrap()
    }

    /// The names of a directory by `getdents`, `len` bytes at a time.
    fn list(&mut self, path: &str, len: u64) -> Result<Vec<(String, u8)>, i64> {
        let fd = self.open(path, O_RDONLY | O_DIRECTORY);
        if fd < 0 {
            return Err(-fd);
        }
        let mut names = Vec::new();
        loop {
            let n = self.call(GETDENTS, &[fd as u64, BUF, len]);
            if n < 0 {
                return Err(-n);
            }
            if n == 0 {
                break;
            }
            let bytes = self.mem.slice(BUF, n as u64).unwrap().to_vec();
            let mut at = 0;
            while at < bytes.len() {
                let reclen = u16::from_le_bytes([bytes[at + 16], bytes[at + 17]]) as usize;
                assert_eq!(reclen % 8, 0, "records keep 8-byte alignment");
                let name = &bytes[at + 19..at + reclen];
                let end = name.iter().position(|&b| b == 0).unwrap();
                names.push((
                    String::from_utf8(name[..end].to_vec()).unwrap(),
                    bytes[at + 18],
                ));
                at += reclen;
            }
        }
        assert_eq!(self.call(CLOSE, &[fd as u64]), 0);
        Ok(names)
    }
}

fn neg(errno: i64) -> i64 {
    -errno
}

const S_IFMT: u64 = 0o170000;
const S_IFREG: u64 = 0o100000;
const S_IFDIR: u64 = 0o040000;
const S_IFLNK: u64 = 0o120000;

/// A host tree: `outside.txt` next to the mapped directory `root/`, which holds
/// `sub/inner.txt`.
fn tree() -> (tempfile::TempDir, std::path::PathBuf) {
    let t = tempfile::tempdir().unwrap();
    fs::write(t.path().join("outside.txt"), "secret").unwrap();
    let root = t.path().join("root");
    fs::create_dir_all(root.join("sub")).unwrap();
    fs::write(root.join("sub/inner.txt"), "inner").unwrap();
    (t, root)
}

#[test]
fn without_dirs_no_file_exists() {
    let mut g = Guest::new(&[]);
    assert_eq!(g.open("/etc/passwd", O_RDONLY), neg(ENOENT));
    assert_eq!(g.open("x", O_RDWR | O_CREAT), neg(ENOENT));
    assert_eq!(g.stat("/", true), Err(ENOENT));
    assert_eq!(g.path_call(MKDIR, "d", 0o755), neg(ENOENT));
    assert_eq!(g.call(READ, &[3, BUF, 4]), neg(EBADF));
    assert_eq!(g.call(CLOSE, &[3]), neg(EBADF));
    assert_eq!(
        g.call(CLOSE, &[1]),
        0,
        "closing a standard stream does nothing"
    );
}

#[test]
fn files_are_created_written_read_seeked_and_listed() {
    let (_t, root) = tree();
    let mut g = Guest::new(&[(&root, ".")]);
    let fd = g.open("a.txt", O_WRONLY | O_CREAT | O_TRUNC);
    assert_eq!(fd, 3, "the lowest free descriptor");
    assert_eq!(g.write(fd, b"hello world"), 11);
    assert_eq!(g.read(fd, 4), Err(EBADF), "opened for writing only");
    assert_eq!(g.call(FSYNC, &[fd as u64]), 0);
    assert_eq!(g.call(CLOSE, &[fd as u64]), 0);
    assert_eq!(
        fs::read_to_string(root.join("a.txt")).unwrap(),
        "hello world"
    );

    let fd = g.open("/a.txt", O_RDONLY);
    assert_eq!(g.read(fd, 5).unwrap(), b"hello");
    assert_eq!(g.call(LSEEK, &[fd as u64, 6, SEEK_SET as u64]), 6);
    assert_eq!(g.read(fd, 100).unwrap(), b"world");
    assert_eq!(g.read(fd, 100).unwrap(), b"", "end of file");
    assert_eq!(
        g.call(LSEEK, &[fd as u64, -5i64 as u64, SEEK_END as u64]),
        6
    );
    assert_eq!(
        g.call(LSEEK, &[fd as u64, -2i64 as u64, SEEK_CUR as u64]),
        4
    );
    assert_eq!(
        g.call(LSEEK, &[fd as u64, -1i64 as u64, SEEK_SET as u64]),
        neg(EINVAL)
    );
    assert_eq!(g.call(LSEEK, &[fd as u64, 0, 7]), neg(EINVAL));
    assert_eq!(g.write(fd, b"x"), neg(EBADF), "opened for reading only");
    assert_eq!(g.call(FSTAT, &[fd as u64, BUF]), 0);
    assert_eq!(g.word(BUF + 24) & S_IFMT, S_IFREG);
    assert_eq!(g.word(BUF + 56), 11);
    assert_eq!(g.call(CLOSE, &[fd as u64]), 0);
    assert_eq!(g.call(CLOSE, &[fd as u64]), neg(EBADF), "closed twice");

    let fd = g.open("a.txt", O_WRONLY | O_APPEND);
    assert_eq!(g.write(fd, b"!"), 1);
    g.call(CLOSE, &[fd as u64]);
    assert_eq!(
        fs::read_to_string(root.join("a.txt")).unwrap(),
        "hello world!"
    );
    assert_eq!(g.open("a.txt", O_WRONLY | O_CREAT | O_EXCL), neg(EEXIST));
    assert_eq!(g.open("missing", O_RDONLY), neg(ENOENT));
    assert_eq!(g.open("a.txt", 3), neg(EINVAL), "no such access mode");

    assert_eq!(g.path_call(MKDIR, "d", 0o755), 0);
    assert_eq!(g.path_call(MKDIR, "d", 0o755), neg(EEXIST));
    assert_eq!(g.stat("d", true).unwrap().0 & S_IFMT, S_IFDIR);
    assert_eq!(g.stat("sub/inner.txt", false), Ok((g.word(BUF + 24), 5)));
    assert_eq!(g.rename("a.txt", "d/b.txt"), 0);
    assert!(root.join("d/b.txt").is_file() && !root.join("a.txt").exists());
    // 40 bytes hold one record at a time: the listing goes on over calls.
    for len in [40, 4096] {
        assert_eq!(
            g.list(".", len).unwrap(),
            [("d".to_string(), 4), ("sub".to_string(), 4)]
        );
    }
    assert_eq!(g.list("d", 8), Err(EINVAL), "no record fits");
    assert_eq!(g.list("d/b.txt", 4096), Err(ENOTDIR));
    let dir = g.open("d", O_RDONLY);
    assert_eq!(g.read(dir, 4), Err(EISDIR));
    assert_eq!(g.call(FSTAT, &[dir as u64, BUF]), 0);
    assert_eq!(g.word(BUF + 24) & S_IFMT, S_IFDIR);
    g.call(CLOSE, &[dir as u64]);
    assert_eq!(g.open("d", O_RDWR), neg(EISDIR));
    assert_eq!(g.path_call(RMDIR, "d", 0), neg(ENOTEMPTY));
    assert_eq!(g.path_call(UNLINK, "d", 0), neg(EISDIR));
    assert_eq!(g.path_call(RMDIR, "d/b.txt", 0), neg(ENOTDIR));
    assert_eq!(g.path_call(UNLINK, "d/b.txt", 0), 0);
    assert_eq!(g.path_call(RMDIR, "d", 0), 0);
    assert!(!root.join("d").exists());
    // A mapped directory's root stays.
    assert_eq!(g.path_call(RMDIR, "/", 0), neg(EBUSY));
    assert_eq!(g.rename(".", "x"), neg(EBUSY));
    assert_eq!(g.path_call(MKDIR, "/", 0o755), neg(EEXIST));
    assert!(root.is_dir());
    assert!(g.io.stdout().is_empty());
}

#[test]
fn dot_dot_and_absolute_paths_stay_inside() {
    let (t, root) = tree();
    let outside = t.path().join("outside.txt");
    let mut g = Guest::new(&[(&root, "/data")]);
    for path in [
        "/data/../outside.txt",
        "/data/sub/../../outside.txt",
        "../outside.txt",
        "../../../../outside.txt",
        outside.to_str().unwrap(),
        "/outside.txt",
        "/",
        "/dat",
    ] {
        assert_eq!(g.open(path, O_RDONLY), neg(ENOENT), "{path}");
        assert_eq!(g.stat(path, true), Err(ENOENT), "{path}");
        assert_eq!(g.path_call(UNLINK, path, 0), neg(ENOENT), "{path}");
    }
    assert_eq!(g.open("/data/../data/sub/inner.txt", O_RDONLY), 3);
    assert_eq!(g.read(3, 10).unwrap(), b"inner");
    assert_eq!(
        g.open("/data/../escape.txt", O_WRONLY | O_CREAT),
        neg(ENOENT)
    );
    assert_eq!(
        g.rename("/data/sub/inner.txt", "/data/../stolen"),
        neg(ENOENT)
    );
    assert_eq!(g.path_call(MKDIR, "/data/../newdir", 0o755), neg(ENOENT));
    assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");
    let mut names: Vec<_> = fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["outside.txt", "root"], "nothing new outside");

    // Nested mappings: the longest guest prefix wins; renames between them are refused.
    let other = t.path().join("other");
    fs::create_dir(&other).unwrap();
    fs::write(other.join("o.txt"), "o").unwrap();
    let mut g = Guest::new(&[(&root, "."), (&other, "sub/mnt")]);
    assert_eq!(g.stat("sub/mnt/o.txt", true).map(|s| s.1), Ok(1));
    assert_eq!(g.stat("/sub/inner.txt", true).map(|s| s.1), Ok(5));
    assert_eq!(g.rename("sub/mnt/o.txt", "o.txt"), neg(EXDEV));
    assert_eq!(g.path_call(RMDIR, "sub/mnt", 0), neg(EBUSY));
}

#[cfg(unix)]
#[test]
fn symbolic_links_cannot_leave_the_directory() {
    use std::os::unix::fs::symlink;
    let (t, root) = tree();
    let outside = t.path().join("outside.txt");
    symlink("../outside.txt", root.join("rel_out")).unwrap();
    symlink(&outside, root.join("abs_out")).unwrap();
    symlink("..", root.join("up")).unwrap();
    symlink(t.path(), root.join("abs_up")).unwrap();
    symlink("../new_outside.txt", root.join("dangling_out")).unwrap();
    symlink("sub/inner.txt", root.join("rel_in")).unwrap();
    symlink(root.join("sub"), root.join("abs_in")).unwrap();
    symlink("../sub/../sub", root.join("sub/self")).unwrap();
    symlink("loop_b", root.join("loop_a")).unwrap();
    symlink("loop_a", root.join("loop_b")).unwrap();
    let mut g = Guest::new(&[(&root, ".")]);

    for path in [
        "rel_out",
        "abs_out",
        "up/outside.txt",
        "abs_up/outside.txt",
        "sub/../up/outside.txt",
    ] {
        assert_eq!(g.open(path, O_RDONLY), neg(EACCES), "{path}");
        assert_eq!(g.open(path, O_RDWR | O_TRUNC), neg(EACCES), "{path}");
        assert_eq!(g.stat(path, true), Err(EACCES), "{path}");
    }
    assert_eq!(g.open("dangling_out", O_WRONLY | O_CREAT), neg(EACCES));
    assert_eq!(g.path_call(MKDIR, "up/made", 0o755), neg(EACCES));
    assert_eq!(g.rename("sub/inner.txt", "up/stolen"), neg(EACCES));
    assert_eq!(g.path_call(UNLINK, "up/outside.txt", 0), neg(EACCES));
    assert_eq!(g.list("up", 4096), Err(EACCES));
    assert_eq!(g.open("loop_a", O_RDONLY), neg(ELOOP));

    // Links that stay inside work, and lstat sees the link itself.
    let fd = g.open("rel_in", O_RDONLY);
    assert_eq!(g.read(fd, 10).unwrap(), b"inner");
    assert_eq!(g.stat("abs_in/inner.txt", true).map(|s| s.1), Ok(5));
    assert_eq!(g.stat("sub/self/self/inner.txt", true).map(|s| s.1), Ok(5));
    assert_eq!(g.stat("rel_out", false).map(|s| s.0 & S_IFMT), Ok(S_IFLNK));
    let listing = g.list(".", 4096).unwrap();
    assert!(
        listing.contains(&("rel_out".to_string(), 10)),
        "{listing:?}"
    );
    // Removing or renaming a link touches the link, not its target.
    assert_eq!(g.rename("abs_out", "renamed"), 0);
    assert_eq!(g.path_call(UNLINK, "renamed", 0), 0);
    assert_eq!(g.path_call(UNLINK, "rel_out", 0), 0);
    assert_eq!(
        g.open("dangling_out", O_WRONLY | O_CREAT | O_EXCL),
        neg(EEXIST)
    );

    assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");
    assert!(!t.path().join("new_outside.txt").exists());
    assert!(!t.path().join("made").exists() && !t.path().join("stolen").exists());
}

#[test]
fn bad_pointers_and_lengths_are_efault() {
    let (_t, root) = tree();
    let mut g = Guest::new(&[(&root, "/")]);
    let end = DATA + MEM_SIZE;
    // A path without its NUL before the end of the segment.
    assert!(g.mem.write_bytes(end - 3, b"abc"));
    for addr in [0, 8, end - 3, u64::MAX - 1, TEXT + 0x100000] {
        assert_eq!(
            g.call(OPEN, &[addr, O_RDONLY as u64, 0]),
            neg(EFAULT),
            "{addr:#x}"
        );
        assert_eq!(g.call(STAT, &[addr, BUF]), neg(EFAULT));
        assert_eq!(g.call(MKDIR, &[addr, 0o755]), neg(EFAULT));
        assert_eq!(g.call(UNLINK, &[addr]), neg(EFAULT));
        assert_eq!(g.call(RMDIR, &[addr]), neg(EFAULT));
        assert_eq!(g.call(RENAME, &[addr, BUF]), neg(EFAULT));
    }
    let fd = g.open("sub/inner.txt", O_RDWR);
    assert_eq!(fd, 3);
    let fd = fd as u64;
    assert_eq!(g.call(READ, &[fd, 0, 4]), neg(EFAULT));
    assert_eq!(
        g.call(READ, &[fd, TEXT, 4]),
        neg(EFAULT),
        "text is not writable"
    );
    assert_eq!(g.call(READ, &[fd, end - 2, 4]), neg(EFAULT));
    assert_eq!(g.call(READ, &[fd, BUF, u64::MAX]), neg(EFAULT));
    assert_eq!(g.call(WRITE, &[fd, end - 2, 4]), neg(EFAULT));
    assert_eq!(g.call(WRITE, &[fd, u64::MAX, 2]), neg(EFAULT));
    assert_eq!(g.call(FSTAT, &[fd, end - 8]), neg(EFAULT));
    assert_eq!(g.call(FSTAT, &[fd, TEXT]), neg(EFAULT));
    g.put(PATH_A, "sub");
    assert_eq!(g.call(STAT, &[PATH_A, end - 8]), neg(EFAULT));
    let dir = g.call(OPEN, &[PATH_A, O_RDONLY as u64, 0]) as u64;
    assert_eq!(g.call(GETDENTS, &[dir, end - 8, 4096]), neg(EFAULT));
    assert_eq!(g.call(GETDENTS, &[dir, 0, 4096]), neg(EFAULT));
    assert_eq!(g.call(GETDENTS, &[dir, BUF, 0]), neg(EINVAL));
    // Too long: a path and a component.
    let long = "a/".repeat(2100);
    assert!(g.mem.write_bytes(DATA, long.as_bytes()));
    assert_eq!(g.call(OPEN, &[DATA, O_RDONLY as u64, 0]), neg(ENAMETOOLONG));
    g.put(PATH_A, &"n".repeat(300));
    assert_eq!(
        g.call(OPEN, &[PATH_A, O_RDONLY as u64, 0]),
        neg(ENAMETOOLONG)
    );
    // Descriptors that are not files.
    for fd in [2, 99, u64::MAX, -3i64 as u64] {
        assert!(g.call(FSTAT, &[fd, BUF]) < 0, "{fd}");
        assert!(g.call(GETDENTS, &[fd, BUF, 64]) < 0, "{fd}");
        assert!(g.call(FSYNC, &[fd]) < 0, "{fd}");
    }
    assert_eq!(g.call(LSEEK, &[1, 0, 0]), neg(ESPIPE));
    assert_eq!(g.call(READ, &[1, BUF, 4]), neg(EBADF));
    assert_eq!(g.call(WRITE, &[0, BUF, 4]), neg(EBADF));
    assert_eq!(
        fs::read_to_string(root.join("sub/inner.txt")).unwrap(),
        "inner"
    );
}

#[test]
fn descriptors_run_out_with_emfile() {
    let (_t, root) = tree();
    let mut g = Guest::new(&[(&root, "/")]);
    let mut fds = Vec::new();
    loop {
        let fd = g.open("sub/inner.txt", O_RDONLY);
        if fd < 0 {
            assert_eq!(fd, neg(EMFILE));
            break;
        }
        fds.push(fd);
    }
    assert_eq!(fds, (3..MAX_FDS).collect::<Vec<_>>());
    assert_eq!(g.open("sub", O_RDONLY), neg(EMFILE), "directories too");
    assert_eq!(g.open("new", O_WRONLY | O_CREAT), neg(EMFILE));
    assert!(
        !root.join("new").exists(),
        "nothing created when no descriptor is free"
    );
    assert_eq!(g.call(CLOSE, &[40]), 0);
    assert_eq!(
        g.open("sub/inner.txt", O_RDONLY),
        40,
        "the freed descriptor"
    );
    assert_eq!(g.read(40, 5).unwrap(), b"inner");
}

#[test]
fn a_missing_host_directory_is_an_error() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("f");
    fs::write(&file, "").unwrap();
    for host in [t.path().join("missing"), file] {
        let e = FileSystem::new(&[DirMapping {
            host,
            guest: "/".into(),
        }])
        .err()
        .unwrap();
        assert!(e.starts_with("--dir "), "{e}");
    }
}

/// A program opens a file of a mapped directory and copies it to stdout, through
/// `syscall` operations.
#[test]
fn a_program_reads_a_mapped_file() {
    let (_t, root) = tree();
    let mut t = Test::new(&[
        &["movi r3 = 0x20000", "movi r4 = 0", "movi r5 = 0"],
        &["syscall 16"],
        &["mov r20 = r3", "movi r4 = 0x20100", "movi r5 = 64"],
        &["syscall 2"],
        &["mov r5 = r3", "movi r3 = 1", "movi r4 = 0x20100"],
        &["syscall 1"],
        &["mov r3 = r20"],
        &["syscall 17"],
        &["syscall 0"],
    ])
    .data(b"/data/sub/inner.txt\0");
    t.options.dirs = vec![DirMapping::parse(&format!("{}::/data", root.display())).unwrap()];
    let r = t.run();
    assert_eq!(r.exit_code(), 0);
    assert_eq!(r.stdout(), "inner");
    assert_eq!(r.reg(20), 3);
}

//! Host directories for the guest: `vliw-run --dir HOST[::GUEST]` (as wasmtime's
//! preopens) and the file system calls over them (docs/isa.md §7, *Files*).
//!
//! **The guest's namespace.** Guest paths are absolute or relative to the guest's
//! current directory, which is `/` (what std's hermit layer reports as
//! `env::current_dir()`). A mapping's GUEST path (HOST as given when absent) is
//! taken the same way, so `--dir .` maps the host's current directory at `/` and
//! `--dir data` maps `./data` at `/data`. A guest path is normalized lexically (`.`
//! and empty components dropped, `..` removes the previous component and stays at
//! `/`) and then belongs to the mapping with the longest GUEST prefix; a path under
//! no mapping does not exist (`-ENOENT`). So `..` never leaves a mapping: it can
//! only lead to another mapping or to nothing.
//!
//! **Symbolic links** inside a mapped directory are followed by the simulator
//! itself, one component at a time (never by the host), and only while they stay
//! inside the mapped directory: a link whose target (relative, or absolute under
//! the mapped directory's canonical path) leaves it gives `-EACCES`; more than
//! `MAX_LINKS` links in one path `-ELOOP`. `lstat`, `unlink`, `rmdir`, `mkdir`,
//! `rename` and `open` with `O_CREAT | O_EXCL` do not follow a final link. The
//! guest cannot create links (no call does), so what the checks saw is what the host
//! operation uses: the host directory is assumed not to be changed concurrently by
//! another host process.
//!
//! Only regular files and directories can be opened (`-EACCES` for devices, FIFOs
//! and sockets, which could block the simulator); a mapping's root cannot be
//! removed or renamed (`-EBUSY`); a rename between mappings is `-EXDEV`. Host errors
//! become their errno (Linux's numbers). Every guest buffer and string is checked
//! through `Memory` (`-EFAULT`), so nothing here panics or faults.

use crate::memory::Memory;
use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use vliw_isa::abi::syscall::*;

/// Symbolic links followed in the resolution of one path (Linux's limit).
pub const MAX_LINKS: u32 = 40;
/// The first descriptor of a file (0, 1 and 2 are the standard streams).
const FIRST_FD: i64 = 3;
/// `d_type` of a directory entry.
const DT_UNKNOWN: u8 = 0;
const DT_DIR: u8 = 4;
const DT_REG: u8 = 8;
const DT_LNK: u8 = 10;
/// Offset of `d_name` in a `dirent64` record.
const DIRENT_NAME: usize = 19;

/// One `--dir HOST[::GUEST]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirMapping {
    /// The host directory, as given.
    pub host: PathBuf,
    /// The guest path, as given (relative to `/`).
    pub guest: String,
}

impl DirMapping {
    /// Parses `HOST[::GUEST]`.
    pub fn parse(spec: &str) -> Result<DirMapping, String> {
        let (host, guest) = match spec.split_once("::") {
            Some((h, g)) => (h, g),
            None => (spec, spec),
        };
        if host.is_empty() || guest.is_empty() {
            return Err(format!("`{spec}` is not HOST[::GUEST]"));
        }
        Ok(DirMapping {
            host: PathBuf::from(host),
            guest: guest.to_string(),
        })
    }
}

/// A mapped directory.
struct Mount {
    /// The normalized guest path's components.
    guest: Vec<Vec<u8>>,
    /// The host directory, canonical.
    root: PathBuf,
    /// As given on the command line, for absolute link targets written that way.
    given: PathBuf,
}

enum Open {
    File {
        file: File,
        read: bool,
        write: bool,
    },
    Dir {
        path: PathBuf,
        /// Read at the first `getdents`, sorted by name.
        entries: Option<Vec<DirEntry>>,
        next: usize,
    },
}

struct DirEntry {
    name: Vec<u8>,
    ino: u64,
    kind: u8,
}

/// A guest path resolved to a host path inside a mount.
struct Resolved {
    mount: usize,
    /// Components below the mount's root (empty: the root itself).
    rel: Vec<OsString>,
    host: PathBuf,
}

/// The mapped directories and the open descriptors.
pub(crate) struct FileSystem {
    mounts: Vec<Mount>,
    /// Descriptor `FIRST_FD + i` is `open[i]`.
    open: Vec<Option<Open>>,
}

type SysResult = Result<u64, i64>;

impl FileSystem {
    /// Checks the mappings (each HOST must be a directory) and takes their canonical
    /// paths.
    pub fn new(dirs: &[DirMapping]) -> Result<FileSystem, String> {
        let mut mounts = Vec::new();
        for d in dirs {
            let root = fs::canonicalize(&d.host)
                .map_err(|e| format!("--dir {}: {e}", d.host.display()))?;
            if !root.is_dir() {
                return Err(format!("--dir {}: not a directory", d.host.display()));
            }
            let given = std::path::absolute(&d.host).unwrap_or_else(|_| root.clone());
            let guest = normalize(d.guest.as_bytes())
                .into_iter()
                .map(<[u8]>::to_vec)
                .collect();
            mounts.push(Mount { guest, root, given });
        }
        Ok(FileSystem {
            mounts,
            open: Vec::new(),
        })
    }

    /// Whether `fd` is an open file or directory of this table.
    pub fn is_open(&self, fd: u64) -> bool {
        self.entry(fd).is_some()
    }

    fn entry(&self, fd: u64) -> Option<&Open> {
        let i = (fd as i64).checked_sub(FIRST_FD)?;
        self.open.get(usize::try_from(i).ok()?)?.as_ref()
    }

    fn entry_mut(&mut self, fd: u64) -> Result<&mut Open, i64> {
        let i = (fd as i64).checked_sub(FIRST_FD).ok_or(EBADF)?;
        let i = usize::try_from(i).map_err(|_| EBADF)?;
        self.open.get_mut(i).and_then(Option::as_mut).ok_or(EBADF)
    }

    /// A file system call (`number` one of `OPEN..=FSYNC`): the value for r3 or
    /// `-errno`.
    pub fn call(&mut self, number: i64, args: &[u64; 6], mem: &mut Memory) -> u64 {
        let [a0, a1, a2, ..] = *args;
        let result = match number {
            OPEN => self.open(mem, a0, a1 as i64, a2 as u32),
            CLOSE => self.close(a0),
            LSEEK => self.lseek(a0, a1 as i64, a2 as i64),
            FSTAT => self.fstat(mem, a0, a1),
            STAT => self.stat(mem, a0, a1, true),
            LSTAT => self.stat(mem, a0, a1, false),
            GETDENTS => self.getdents(mem, a0, a1, a2),
            MKDIR => self.mkdir(mem, a0, a1 as u32),
            RMDIR => self.rmdir(mem, a0),
            UNLINK => self.unlink(mem, a0),
            RENAME => self.rename(mem, a0, a1),
            FSYNC => self.fsync(a0),
            _ => Err(ENOSYS),
        };
        match result {
            Ok(v) => v,
            Err(errno) => (-errno) as u64,
        }
    }

    /// Whether `number` is one of the calls of `call`.
    pub fn handles(number: i64) -> bool {
        (OPEN..=FSYNC).contains(&number)
    }

    /// `read` of a descriptor of this table.
    pub fn read(&mut self, fd: u64, buf: &mut [u8]) -> SysResult {
        match self.entry_mut(fd)? {
            Open::File {
                file, read: true, ..
            } => file.read(buf).map(|n| n as u64).map_err(|e| errno(&e)),
            Open::File { .. } => Err(EBADF),
            Open::Dir { .. } => Err(EISDIR),
        }
    }

    /// `write` to a descriptor of this table.
    pub fn write(&mut self, fd: u64, data: &[u8]) -> SysResult {
        match self.entry_mut(fd)? {
            Open::File {
                file, write: true, ..
            } => file.write(data).map(|n| n as u64).map_err(|e| errno(&e)),
            Open::File { .. } => Err(EBADF),
            Open::Dir { .. } => Err(EBADF),
        }
    }

    fn open(&mut self, mem: &Memory, path: u64, flags: i64, mode: u32) -> SysResult {
        let path = guest_string(mem, path)?;
        let (read, write) = match flags & O_ACCMODE {
            O_RDONLY => (true, false),
            O_WRONLY => (false, true),
            O_RDWR => (true, true),
            _ => return Err(EINVAL),
        };
        let create = flags & O_CREAT != 0;
        let exclusive = create && flags & O_EXCL != 0;
        let slot = self.free_slot()?;
        let r = self.resolve(&path, !exclusive)?;
        let open = match fs::symlink_metadata(&r.host) {
            Ok(_) if exclusive => return Err(EEXIST),
            Ok(m) if m.is_dir() => {
                if write || flags & O_TRUNC != 0 {
                    return Err(EISDIR);
                }
                Open::Dir {
                    path: r.host,
                    entries: None,
                    next: 0,
                }
            }
            Ok(_) if flags & O_DIRECTORY != 0 => return Err(ENOTDIR),
            Ok(m) if !m.is_file() => return Err(EACCES),
            Err(e) if e.kind() == io::ErrorKind::NotFound && !create => return Err(ENOENT),
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(errno(&e)),
            _ => {
                let mut options = fs::OpenOptions::new();
                options
                    .read(read)
                    .write(write)
                    .append(flags & O_APPEND != 0)
                    .truncate(write && flags & O_TRUNC != 0);
                if exclusive {
                    options.create_new(true);
                } else if create {
                    options.create(true);
                }
                if create && !write {
                    // The host refuses O_CREAT without write access; Linux does not.
                    options.write(true);
                }
                set_mode(&mut options, mode);
                let file = options.open(&r.host).map_err(|e| errno(&e))?;
                Open::File { file, read, write }
            }
        };
        if slot == self.open.len() {
            self.open.push(None);
        }
        self.open[slot] = Some(open);
        Ok(FIRST_FD as u64 + slot as u64)
    }

    /// The lowest free slot, or `EMFILE`.
    fn free_slot(&self) -> Result<usize, i64> {
        let slot = self
            .open
            .iter()
            .position(Option::is_none)
            .unwrap_or(self.open.len());
        if FIRST_FD + slot as i64 >= MAX_FDS {
            return Err(EMFILE);
        }
        Ok(slot)
    }

    fn close(&mut self, fd: u64) -> SysResult {
        if fd <= 2 {
            // The standard streams stay open.
            return Ok(0);
        }
        self.entry_mut(fd)?;
        let i = (fd as i64 - FIRST_FD) as usize;
        self.open[i] = None;
        while self.open.last().is_some_and(Option::is_none) {
            self.open.pop();
        }
        Ok(0)
    }

    fn lseek(&mut self, fd: u64, offset: i64, whence: i64) -> SysResult {
        if fd <= 2 {
            return Err(ESPIPE);
        }
        match self.entry_mut(fd)? {
            Open::File { file, .. } => {
                let to = match whence {
                    SEEK_SET if offset >= 0 => SeekFrom::Start(offset as u64),
                    SEEK_CUR => SeekFrom::Current(offset),
                    SEEK_END => SeekFrom::End(offset),
                    _ => return Err(EINVAL),
                };
                let pos = file.seek(to).map_err(|e| errno(&e))?;
                // Positions past i64::MAX cannot be returned.
                i64::try_from(pos).map(|p| p as u64).map_err(|_| EINVAL)
            }
            // Rewinding a directory reads it again.
            Open::Dir { entries, next, .. } if whence == SEEK_SET && offset == 0 => {
                *entries = None;
                *next = 0;
                Ok(0)
            }
            Open::Dir { .. } => Err(EINVAL),
        }
    }

    fn fstat(&mut self, mem: &mut Memory, fd: u64, buf: u64) -> SysResult {
        if fd <= 2 {
            return Err(EINVAL);
        }
        let meta = match self.entry_mut(fd)? {
            Open::File { file, .. } => file.metadata(),
            Open::Dir { path, .. } => fs::symlink_metadata(path),
        }
        .map_err(|e| errno(&e))?;
        write_stat(mem, buf, &meta)
    }

    fn stat(&mut self, mem: &mut Memory, path: u64, buf: u64, follow: bool) -> SysResult {
        let path = guest_string(mem, path)?;
        if mem.slice_mut(buf, STAT_SIZE).is_none() {
            return Err(EFAULT);
        }
        let r = self.resolve(&path, follow)?;
        // The resolution followed every link that may be followed: the host must
        // follow none.
        let meta = fs::symlink_metadata(&r.host).map_err(|e| errno(&e))?;
        write_stat(mem, buf, &meta)
    }

    fn getdents(&mut self, mem: &mut Memory, fd: u64, buf: u64, len: u64) -> SysResult {
        let (path, entries, next) = match self.entry_mut(fd)? {
            Open::Dir {
                path,
                entries,
                next,
            } => (path, entries, next),
            Open::File { .. } => return Err(ENOTDIR),
        };
        if len == 0 {
            return Err(EINVAL);
        }
        let out = mem.slice_mut(buf, len).ok_or(EFAULT)?;
        if entries.is_none() {
            *entries = Some(list_dir(path)?);
        }
        let entries = entries.as_ref().unwrap();
        let mut at = 0;
        while let Some(e) = entries.get(*next) {
            let reclen = (DIRENT_NAME + e.name.len() + 1).next_multiple_of(8);
            if at + reclen > out.len() {
                break;
            }
            let rec = &mut out[at..at + reclen];
            rec.fill(0);
            rec[0..8].copy_from_slice(&e.ino.to_le_bytes());
            rec[8..16].copy_from_slice(&(*next as i64 + 1).to_le_bytes());
            rec[16..18].copy_from_slice(&(reclen as u16).to_le_bytes());
            rec[18] = e.kind;
            rec[DIRENT_NAME..DIRENT_NAME + e.name.len()].copy_from_slice(&e.name);
            at += reclen;
            *next += 1;
        }
        if at == 0 && *next < entries.len() {
            // Not even one entry fits.
            return Err(EINVAL);
        }
        Ok(at as u64)
    }

    fn mkdir(&mut self, mem: &Memory, path: u64, mode: u32) -> SysResult {
        let path = guest_string(mem, path)?;
        let r = self.resolve(&path, false)?;
        if r.rel.is_empty() {
            return Err(EEXIST);
        }
        let mut builder = fs::DirBuilder::new();
        set_dir_mode(&mut builder, mode);
        builder.create(&r.host).map_err(|e| errno(&e))?;
        Ok(0)
    }

    fn rmdir(&mut self, mem: &Memory, path: u64) -> SysResult {
        let path = guest_string(mem, path)?;
        let r = self.resolve(&path, false)?;
        if r.rel.is_empty() {
            return Err(EBUSY);
        }
        let meta = fs::symlink_metadata(&r.host).map_err(|e| errno(&e))?;
        if !meta.is_dir() {
            return Err(ENOTDIR);
        }
        fs::remove_dir(&r.host).map_err(|e| errno(&e))?;
        Ok(0)
    }

    fn unlink(&mut self, mem: &Memory, path: u64) -> SysResult {
        let path = guest_string(mem, path)?;
        let r = self.resolve(&path, false)?;
        let meta = fs::symlink_metadata(&r.host).map_err(|e| errno(&e))?;
        if meta.is_dir() {
            return Err(EISDIR);
        }
        fs::remove_file(&r.host).map_err(|e| errno(&e))?;
        Ok(0)
    }

    fn rename(&mut self, mem: &Memory, old: u64, new: u64) -> SysResult {
        let old = guest_string(mem, old)?;
        let new = guest_string(mem, new)?;
        let from = self.resolve(&old, false)?;
        let to = self.resolve(&new, false)?;
        if from.rel.is_empty() || to.rel.is_empty() {
            return Err(EBUSY);
        }
        if from.mount != to.mount {
            return Err(EXDEV);
        }
        fs::symlink_metadata(&from.host).map_err(|e| errno(&e))?;
        fs::rename(&from.host, &to.host).map_err(|e| errno(&e))?;
        Ok(0)
    }

    fn fsync(&mut self, fd: u64) -> SysResult {
        match self.entry_mut(fd)? {
            Open::File { file, .. } => file.sync_all().map_err(|e| errno(&e))?,
            Open::Dir { .. } => {}
        }
        Ok(0)
    }

    /// The host path of a guest path inside a mount; `follow_last`: a symbolic link
    /// as the last component is followed too.
    fn resolve(&self, path: &[u8], follow_last: bool) -> Result<Resolved, i64> {
        let components = normalize(path);
        let mount = self
            .mounts
            .iter()
            .enumerate()
            .filter(|(_, m)| components.starts_with_slices(&m.guest))
            .max_by_key(|(_, m)| m.guest.len())
            .map(|(i, _)| i)
            .ok_or(ENOENT)?;
        let m = &self.mounts[mount];
        let mut todo: Vec<OsString> = components[m.guest.len()..]
            .iter()
            .rev()
            .map(|c| os_string(c))
            .collect();
        let mut done: Vec<OsString> = Vec::new();
        let mut links = 0;
        // `todo` is a stack: its last element is the next component.
        while let Some(c) = todo.pop() {
            if c == ".." {
                // Only from a link's target: the guest's own `..` were normalized.
                done.pop().ok_or(EACCES)?;
                continue;
            }
            if c == "." || c.is_empty() {
                continue;
            }
            if c.len() > 255 {
                return Err(ENAMETOOLONG);
            }
            let host = join(&m.root, &done).join(&c);
            if todo.is_empty() && !follow_last {
                done.push(c);
                break;
            }
            match fs::symlink_metadata(&host) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(ELOOP);
                    }
                    let target = fs::read_link(&host).map_err(|e| errno(&e))?;
                    let rest: &Path = if target.is_absolute() {
                        done.clear();
                        target
                            .strip_prefix(&m.root)
                            .or_else(|_| target.strip_prefix(&m.given))
                            .map_err(|_| EACCES)?
                    } else {
                        &target
                    };
                    let parts: Vec<OsString> = rest
                        .as_os_str()
                        .as_encoded_bytes()
                        .split(|&b| b == b'/')
                        .map(os_string)
                        .collect();
                    todo.extend(parts.into_iter().rev());
                }
                Ok(_) => done.push(c),
                // The rest cannot exist either: the host operation reports it.
                Err(e) if e.kind() == io::ErrorKind::NotFound => done.push(c),
                Err(e) => return Err(errno(&e)),
            }
        }
        Ok(Resolved {
            mount,
            host: join(&m.root, &done),
            rel: done,
        })
    }
}

/// The components of a guest path made absolute against `/` and normalized
/// lexically.
fn normalize(path: &[u8]) -> Vec<&[u8]> {
    let mut out: Vec<&[u8]> = Vec::new();
    for c in path.split(|&b| b == b'/') {
        match c {
            b"" | b"." => {}
            b".." => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

trait StartsWithSlices {
    fn starts_with_slices(&self, prefix: &[Vec<u8>]) -> bool;
}

impl StartsWithSlices for Vec<&[u8]> {
    fn starts_with_slices(&self, prefix: &[Vec<u8>]) -> bool {
        self.len() >= prefix.len() && self.iter().zip(prefix).all(|(a, b)| *a == b.as_slice())
    }
}

fn join(root: &Path, parts: &[OsString]) -> PathBuf {
    let mut p = root.to_path_buf();
    for c in parts {
        p.push(c);
    }
    p
}

/// A NUL-terminated string of guest memory (at most `PATH_MAX` bytes with its
/// NUL), without the NUL; an empty one does not name a file.
fn guest_string(mem: &Memory, addr: u64) -> Result<Vec<u8>, i64> {
    let mut out = Vec::new();
    for i in 0..PATH_MAX {
        let a = addr.checked_add(i).ok_or(EFAULT)?;
        match mem.read(a, 1).ok_or(EFAULT)? as u8 {
            0 if out.is_empty() => return Err(ENOENT),
            0 => return Ok(out),
            b => out.push(b),
        }
    }
    Err(ENAMETOOLONG)
}

fn list_dir(path: &Path) -> Result<Vec<DirEntry>, i64> {
    let mut entries = Vec::new();
    for e in fs::read_dir(path).map_err(|e| errno(&e))? {
        let e = e.map_err(|e| errno(&e))?;
        let kind = match e.file_type() {
            Ok(t) if t.is_symlink() => DT_LNK,
            Ok(t) if t.is_dir() => DT_DIR,
            Ok(t) if t.is_file() => DT_REG,
            _ => DT_UNKNOWN,
        };
        let ino = e.metadata().map(|m| ino(&m)).unwrap_or(0);
        entries.push(DirEntry {
            name: e.file_name().as_encoded_bytes().to_vec(),
            ino,
            kind,
        });
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(entries)
}

/// The record of `stat` (`STAT_SIZE` bytes, docs/isa.md).
fn write_stat(mem: &mut Memory, buf: u64, meta: &fs::Metadata) -> SysResult {
    let out = mem.slice_mut(buf, STAT_SIZE).ok_or(EFAULT)?;
    for (i, word) in stat_words(meta).iter().enumerate() {
        out[i * 8..i * 8 + 8].copy_from_slice(&word.to_le_bytes());
    }
    Ok(0)
}

#[cfg(unix)]
fn stat_words(m: &fs::Metadata) -> [u64; 16] {
    use std::os::unix::fs::MetadataExt;
    [
        m.dev(),
        m.ino(),
        m.nlink(),
        u64::from(m.mode()),
        u64::from(m.uid()),
        u64::from(m.gid()),
        m.rdev(),
        m.size(),
        m.blksize(),
        m.blocks(),
        m.atime() as u64,
        m.atime_nsec() as u64,
        m.mtime() as u64,
        m.mtime_nsec() as u64,
        m.ctime() as u64,
        m.ctime_nsec() as u64,
    ]
}

#[cfg(not(unix))]
fn stat_words(m: &fs::Metadata) -> [u64; 16] {
    let kind = if m.is_dir() { 0o040000 } else { 0o100000 };
    let perm = if m.permissions().readonly() {
        0o444
    } else {
        0o644
    };
    let secs = |t: io::Result<std::time::SystemTime>| {
        t.ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or((0, 0), |d| (d.as_secs(), u64::from(d.subsec_nanos())))
    };
    let (a, an) = secs(m.accessed());
    let (mo, mn) = secs(m.modified());
    [
        0,
        0,
        1,
        kind | perm,
        0,
        0,
        0,
        m.len(),
        4096,
        m.len().div_ceil(512),
        a,
        an,
        mo,
        mn,
        mo,
        mn,
    ]
}

#[cfg(unix)]
fn ino(m: &fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(m)
}

#[cfg(not(unix))]
fn ino(_: &fs::Metadata) -> u64 {
    0
}

#[cfg(unix)]
fn set_mode(options: &mut fs::OpenOptions, mode: u32) {
    std::os::unix::fs::OpenOptionsExt::mode(options, mode & 0o777);
}

#[cfg(not(unix))]
fn set_mode(_: &mut fs::OpenOptions, _: u32) {}

#[cfg(unix)]
fn set_dir_mode(builder: &mut fs::DirBuilder, mode: u32) {
    std::os::unix::fs::DirBuilderExt::mode(builder, mode & 0o777);
}

#[cfg(not(unix))]
fn set_dir_mode(_: &mut fs::DirBuilder, _: u32) {}

fn os_string(bytes: &[u8]) -> OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        OsStr::from_bytes(bytes).to_os_string()
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// The errno of a host error: its own number on Linux, else by its kind.
fn errno(e: &io::Error) -> i64 {
    if cfg!(target_os = "linux")
        && let Some(n) = e.raw_os_error()
    {
        return i64::from(n);
    }
    use io::ErrorKind::*;
    match e.kind() {
        NotFound => ENOENT,
        PermissionDenied => EACCES,
        AlreadyExists => EEXIST,
        NotADirectory => ENOTDIR,
        IsADirectory => EISDIR,
        DirectoryNotEmpty => ENOTEMPTY,
        InvalidInput => EINVAL,
        ReadOnlyFilesystem => EROFS,
        StorageFull => ENOSPC,
        FileTooLarge => EFBIG,
        CrossesDevices => EXDEV,
        TooManyLinks => EMLINK,
        InvalidFilename => ENAMETOOLONG,
        ResourceBusy => EBUSY,
        _ => EIO,
    }
}

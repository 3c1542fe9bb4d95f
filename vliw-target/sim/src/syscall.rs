//! System calls (`vliw_isa::abi::syscall`): `syscall N` with arguments r3..r8 (read
//! with the bundle's other operands) and the result in r3. The call itself is
//! performed after the bundle's writes; its result takes the syscall's slot among
//! them (a later slot's write to r3 wins). Failures return
//! `-errno`; an unknown number returns `-ENOSYS`. Nothing here faults: a bad buffer
//! is `-EFAULT`. Files of the mapped host directories: `fs.rs`.

use crate::fs::FileSystem;
use crate::io::Io;
use crate::memory::Memory;
use crate::program::SymbolTable;
use crate::rng::Rng;
pub(crate) use vliw_isa::abi::syscall::{self, EBADF, EFAULT, EINVAL, ENOENT, ENOSYS};

/// Returned when the host stream fails.
pub use vliw_isa::abi::syscall::EIO;

/// What a system call did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SysResult {
    /// The value for r3.
    Value(u64),
    /// `exit`: the run ends with this status.
    Exit(i32),
}

/// The state system calls use besides memory and the cycle counter.
pub(crate) struct System {
    pub io: Box<dyn Io + Send>,
    /// The mapped host directories and the open files (`fs.rs`).
    fs: FileSystem,
    rng: Rng,
    /// A fixed seed also fixes the real-time clock at 0.
    seeded: bool,
    /// Nanoseconds both clocks were advanced while every guest thread slept or
    /// waited with a timeout (the scheduler skips that time instead of spending
    /// cycles on it).
    pub idle_ns: u64,
}

fn err(errno: i64) -> SysResult {
    SysResult::Value((-errno) as u64)
}

fn value(result: Result<u64, i64>) -> SysResult {
    match result {
        Ok(v) => SysResult::Value(v),
        Err(errno) => err(errno),
    }
}

impl System {
    pub fn new(io: Box<dyn Io + Send>, seed: Option<u64>, fs: FileSystem) -> System {
        System {
            io,
            fs,
            rng: Rng::new(seed),
            seeded: seed.is_some(),
            idle_ns: 0,
        }
    }

    pub fn call(
        &mut self,
        number: i64,
        args: &[u64; 6],
        mem: &mut Memory,
        cycle: u64,
        symbols: &SymbolTable,
    ) -> SysResult {
        let [a0, a1, a2, ..] = *args;
        match number {
            syscall::EXIT => SysResult::Exit((a0 & 0xff) as i32),
            syscall::WRITE => {
                let file = self.fs.is_open(a0);
                if a0 != 1 && a0 != 2 && !file {
                    return err(EBADF);
                }
                if a2 == 0 {
                    return SysResult::Value(0);
                }
                let Some(data) = mem.slice(a1, a2) else {
                    return err(EFAULT);
                };
                if file {
                    return value(self.fs.write(a0, data));
                }
                match self.io.write(a0 as u32, data) {
                    Ok(n) => SysResult::Value(n as u64),
                    Err(_) => err(EIO),
                }
            }
            syscall::READ => {
                let file = self.fs.is_open(a0);
                if a0 != 0 && !file {
                    return err(EBADF);
                }
                if a2 == 0 {
                    return SysResult::Value(0);
                }
                let Some(buf) = mem.slice_mut(a1, a2) else {
                    return err(EFAULT);
                };
                if file {
                    return value(self.fs.read(a0, buf));
                }
                match self.io.read(buf) {
                    Ok(n) => SysResult::Value(n as u64),
                    Err(_) => err(EIO),
                }
            }
            syscall::BRK => SysResult::Value(mem.brk(a0)),
            syscall::CLOCK => match a0 {
                0 => SysResult::Value(cycle.saturating_add(self.idle_ns)),
                1 if self.seeded => SysResult::Value(self.idle_ns),
                1 => SysResult::Value(
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|d| d.as_nanos() as u64)
                        .unwrap_or(0)
                        .saturating_add(self.idle_ns),
                ),
                _ => err(EINVAL),
            },
            syscall::RANDOM => {
                if a1 == 0 {
                    return SysResult::Value(0);
                }
                let Some(buf) = mem.slice_mut(a0, a1) else {
                    return err(EFAULT);
                };
                self.rng.fill(buf);
                SysResult::Value(a1)
            }
            syscall::CYCLES => SysResult::Value(cycle),
            syscall::SYMBOLIZE => {
                let Some((name, offset)) = symbols.holding(a0) else {
                    return err(ENOENT);
                };
                let text = if offset == 0 {
                    name.to_string()
                } else {
                    format!("{name}+{offset:#x}")
                };
                let n = text.len().min(a2 as usize);
                if n > 0 {
                    let Some(buf) = mem.slice_mut(a1, n as u64) else {
                        return err(EFAULT);
                    };
                    buf.copy_from_slice(&text.as_bytes()[..n]);
                }
                SysResult::Value(text.len() as u64)
            }
            n if FileSystem::handles(n) => SysResult::Value(self.fs.call(n, args, mem)),
            _ => err(ENOSYS),
        }
    }
}

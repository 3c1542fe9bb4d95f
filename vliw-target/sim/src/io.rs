//! The guest's standard streams, behind a trait so that tests can capture them.
//!
//! `HostIo` forwards to the host's stdin, stdout and stderr. Guest stdout is
//! buffered; it is flushed when the guest writes to stderr or reads stdin, and at
//! the end of the run (exit or fault), so that the order of lines on a terminal is
//! the order in which the guest wrote them. `CaptureIo` keeps everything in memory.

use std::io::{self, BufWriter, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The guest's streams: fd 0 (`read`), fd 1 and 2 (`write`). The simulator checks
/// the file descriptor and the buffer before calling.
pub trait Io {
    /// Writes `data` to fd 1 (stdout) or 2 (stderr); returns the bytes written.
    fn write(&mut self, fd: u32, data: &[u8]) -> io::Result<usize>;
    /// Reads stdin into `buf`; 0 at the end of input.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize>;
    /// Called when the run ends.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The host's streams.
pub struct HostIo {
    stdout: BufWriter<io::Stdout>,
    unbuffered: bool,
    /// Whether the guest's stderr output ends with a newline (or is empty), so that
    /// the runner's own messages start on a line of their own.
    stderr_at_line_start: Arc<AtomicBool>,
}

impl HostIo {
    /// `unbuffered`: flush stdout after every write (e.g. while tracing, so that the
    /// program's output and the trace interleave correctly).
    pub fn new(unbuffered: bool) -> HostIo {
        HostIo {
            stdout: BufWriter::with_capacity(64 * 1024, io::stdout()),
            unbuffered,
            stderr_at_line_start: Arc::new(AtomicBool::new(true)),
        }
    }

    /// A flag that stays true while the guest's stderr output ends with a newline.
    pub fn stderr_at_line_start(&self) -> Arc<AtomicBool> {
        self.stderr_at_line_start.clone()
    }
}

impl Io for HostIo {
    fn write(&mut self, fd: u32, data: &[u8]) -> io::Result<usize> {
        if fd == 2 {
            self.stdout.flush()?;
            let mut stderr = io::stderr().lock();
            stderr.write_all(data)?;
            stderr.flush()?;
            if let Some(&last) = data.last() {
                self.stderr_at_line_start
                    .store(last == b'\n', Ordering::Relaxed);
            }
        } else {
            self.stdout.write_all(data)?;
            if self.unbuffered {
                self.stdout.flush()?;
            }
        }
        Ok(data.len())
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.stdout.flush()?;
        io::stdin().lock().read(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.stdout.flush()
    }
}

/// The guest's output and input, in memory.
#[derive(Clone, Debug, Default)]
pub struct Captured {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Output to both streams in the order written, stderr included.
    pub interleaved: Vec<u8>,
    pub stdin: Vec<u8>,
    /// How much of `stdin` has been read.
    pub stdin_pos: usize,
}

/// Captures the guest's streams; clones share the same buffers, so keep one clone
/// to look at the output after giving the other to the simulator.
#[derive(Clone, Debug, Default)]
pub struct CaptureIo(Arc<Mutex<Captured>>);

impl CaptureIo {
    pub fn new(stdin: &[u8]) -> CaptureIo {
        CaptureIo(Arc::new(Mutex::new(Captured {
            stdin: stdin.to_vec(),
            ..Captured::default()
        })))
    }

    pub fn lock(&self) -> MutexGuard<'_, Captured> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub fn stdout(&self) -> Vec<u8> {
        self.lock().stdout.clone()
    }

    pub fn stderr(&self) -> Vec<u8> {
        self.lock().stderr.clone()
    }
}

impl Io for CaptureIo {
    fn write(&mut self, fd: u32, data: &[u8]) -> io::Result<usize> {
        let mut c = self.lock();
        if fd == 2 {
            c.stderr.extend_from_slice(data);
        } else {
            c.stdout.extend_from_slice(data);
        }
        c.interleaved.extend_from_slice(data);
        Ok(data.len())
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut c = self.lock();
        let pos = c.stdin_pos;
        let n = buf.len().min(c.stdin.len() - pos);
        buf[..n].copy_from_slice(&c.stdin[pos..pos + n]);
        c.stdin_pos += n;
        Ok(n)
    }
}

//! Random bytes for the `random` system call: the host's entropy, or a
//! deterministic generator when a seed is given (`vliw-run --seed N`).

use std::fs::File;
use std::io::Read;

/// SplitMix64: small, fast, and good enough for a guest's hash seeds and tests.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let bytes = self.next().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }
}

pub(crate) enum Rng {
    Seeded(SplitMix64),
    /// `/dev/urandom`, opened on first use; a time-seeded generator if it cannot be.
    Host(Option<File>, Option<SplitMix64>),
}

impl Rng {
    pub fn new(seed: Option<u64>) -> Rng {
        match seed {
            Some(seed) => Rng::Seeded(SplitMix64(seed)),
            None => Rng::Host(None, None),
        }
    }

    pub fn fill(&mut self, buf: &mut [u8]) {
        match self {
            Rng::Seeded(g) => g.fill(buf),
            Rng::Host(file, fallback) => {
                if fallback.is_none() {
                    if file.is_none() {
                        *file = File::open("/dev/urandom").ok();
                    }
                    if let Some(f) = file
                        && f.read_exact(buf).is_ok()
                    {
                        return;
                    }
                    let now = std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|d| d.as_nanos() as u64)
                        .unwrap_or(0);
                    *fallback = Some(SplitMix64(now ^ std::process::id() as u64));
                }
                fallback.as_mut().expect("set above").fill(buf);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_bytes() {
        let (mut a, mut b) = (Rng::new(Some(7)), Rng::new(Some(7)));
        let (mut x, mut y) = ([0u8; 13], [0u8; 13]);
        a.fill(&mut x);
        b.fill(&mut y);
        assert_eq!(x, y);
        assert_ne!(x, [0; 13]);
        let mut c = Rng::new(Some(8));
        c.fill(&mut y);
        assert_ne!(x, y);
    }
}

//! The frame of a function once laid out (`crate::frame::lower_frame` computes it).

use core::fmt;

use cranelift_entity::EntityRef;

use super::{FrameSlot, PReg};

/// Where everything in a frame is.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FrameLayout {
    /// Bytes the prologue subtracts from `sp` (a multiple of `align`).
    pub size: u64,
    /// Alignment of `sp` after the prologue: 16, or more when realigned.
    pub align: u64,
    /// `sp` is rounded down to `align` and `fp` holds the entry `sp`.
    pub realigned: bool,
    /// Offset from `sp` of each frame slot, indexed by `FrameSlot`.
    pub slot_offsets: Vec<u64>,
    /// Saved registers and their offsets from `sp`.
    pub saves: Vec<(PReg, u64)>,
    /// Bytes of the outgoing area at `sp`.
    pub outgoing_bytes: u64,
}

/// `frame 80 bytes, align 16, outgoing 24 bytes, saves [r63: 64, r40: 72], slots
/// [fs0: 32, fs1: 48]` (`realigned` after the alignment when it is); the line of the
/// text form.
impl fmt::Display for FrameLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "frame {} bytes, align {}", self.size, self.align)?;
        if self.realigned {
            f.write_str(", realigned")?;
        }
        write!(f, ", outgoing {} bytes, saves [", self.outgoing_bytes)?;
        for (i, (r, o)) in self.saves.iter().enumerate() {
            write!(f, "{}{r}: {o}", if i > 0 { ", " } else { "" })?;
        }
        f.write_str("], slots [")?;
        for (i, o) in self.slot_offsets.iter().enumerate() {
            write!(
                f,
                "{}{}: {o}",
                if i > 0 { ", " } else { "" },
                FrameSlot::new(i)
            )?;
        }
        f.write_str("]")
    }
}

//! Value types.

use core::fmt;

/// The type of an SSA value.
///
/// Integers carry no signedness (operations say how they read their operands). `Ptr` is
/// a 64-bit address; it is its own type so that alias analysis and printing can tell
/// addresses from integers. It is *not* an integer type: pointer arithmetic is
/// `ptradd`, conversions to and from `i64` are `bitcast`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Type {
    I1,
    I8,
    I16,
    I32,
    I64,
    I128,
    F32,
    F64,
    Ptr,
}

impl Type {
    /// Every type, in a fixed order.
    pub const ALL: [Type; 9] = [
        Type::I1,
        Type::I8,
        Type::I16,
        Type::I32,
        Type::I64,
        Type::I128,
        Type::F32,
        Type::F64,
        Type::Ptr,
    ];

    /// Width in bits (1 for `I1`, 64 for `Ptr`).
    pub fn bits(self) -> u32 {
        match self {
            Type::I1 => 1,
            Type::I8 => 8,
            Type::I16 => 16,
            Type::I32 | Type::F32 => 32,
            Type::I64 | Type::F64 | Type::Ptr => 64,
            Type::I128 => 128,
        }
    }

    /// Size in memory in bytes (`I1` rounds up to 1, though it cannot be loaded or stored).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    /// `I1`..`I128` (not `Ptr`).
    pub fn is_int(self) -> bool {
        matches!(
            self,
            Type::I1 | Type::I8 | Type::I16 | Type::I32 | Type::I64 | Type::I128
        )
    }

    /// `F32` or `F64`.
    pub fn is_float(self) -> bool {
        matches!(self, Type::F32 | Type::F64)
    }

    /// `Ptr`.
    pub fn is_ptr(self) -> bool {
        self == Type::Ptr
    }

    /// Types that can be loaded and stored: everything but `I1`.
    pub fn is_memory(self) -> bool {
        self != Type::I1
    }

    /// The integer type of the given width, if there is one.
    pub fn int(bits: u32) -> Option<Type> {
        Some(match bits {
            1 => Type::I1,
            8 => Type::I8,
            16 => Type::I16,
            32 => Type::I32,
            64 => Type::I64,
            128 => Type::I128,
            _ => return None,
        })
    }

    /// Mask of the type's bits in a `u128`.
    pub fn mask(self) -> u128 {
        if self.bits() == 128 {
            u128::MAX
        } else {
            (1u128 << self.bits()) - 1
        }
    }

    /// The text name (`i32`, `f64`, `ptr`).
    pub fn name(self) -> &'static str {
        match self {
            Type::I1 => "i1",
            Type::I8 => "i8",
            Type::I16 => "i16",
            Type::I32 => "i32",
            Type::I64 => "i64",
            Type::I128 => "i128",
            Type::F32 => "f32",
            Type::F64 => "f64",
            Type::Ptr => "ptr",
        }
    }

    /// Parse a text name.
    pub fn from_name(s: &str) -> Option<Type> {
        Type::ALL.iter().copied().find(|t| t.name() == s)
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

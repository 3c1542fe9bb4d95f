//! The configurable machine: issue width, functional units, latencies.
//!
//! The opcode table (`opcode.rs`) says which unit and which latency class each
//! operation uses; this configuration says how many units there are and how many
//! cycles each class takes, so schedules can be compared across machines.

use std::fmt;

/// Functional units. Every operation occupies one issue slot and one unit of its kind
/// (the `limm` extension syllable occupies an issue slot only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Integer arithmetic, logic, shifts, compares, predicate logic, select, moves.
    Alu,
    /// Integer multiply and divide.
    Mul,
    /// Loads, stores, atomics.
    Mem,
    /// Floating point arithmetic, conversions and compares.
    Fpu,
    /// Branches, calls, returns, system calls, traps.
    Branch,
}

impl Unit {
    pub const ALL: [Unit; 5] = [Unit::Alu, Unit::Mul, Unit::Mem, Unit::Fpu, Unit::Branch];
    pub const COUNT: usize = 5;

    pub fn name(self) -> &'static str {
        match self {
            Unit::Alu => "alu",
            Unit::Mul => "mul",
            Unit::Mem => "mem",
            Unit::Fpu => "fpu",
            Unit::Branch => "branch",
        }
    }
}

/// Latency classes: the number of cycles from an operation's issue until its result
/// can be read without a stall.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LatencyClass {
    Alu,
    Compare,
    Multiply,
    Divide,
    Load,
    Float,
    FloatCompare,
    FloatDivide,
}

impl LatencyClass {
    pub const ALL: [LatencyClass; 8] = [
        LatencyClass::Alu,
        LatencyClass::Compare,
        LatencyClass::Multiply,
        LatencyClass::Divide,
        LatencyClass::Load,
        LatencyClass::Float,
        LatencyClass::FloatCompare,
        LatencyClass::FloatDivide,
    ];
    pub const COUNT: usize = 8;

    pub fn name(self) -> &'static str {
        match self {
            LatencyClass::Alu => "alu",
            LatencyClass::Compare => "compare",
            LatencyClass::Multiply => "multiply",
            LatencyClass::Divide => "divide",
            LatencyClass::Load => "load",
            LatencyClass::Float => "float",
            LatencyClass::FloatCompare => "float-compare",
            LatencyClass::FloatDivide => "float-divide",
        }
    }
}

/// Most cycles a machine may let one `nop N` take.
pub const MAX_NOP: u32 = 64;

/// Largest issue width the encoding tools and the simulator accept.
pub const MAX_WIDTH: usize = 16;

/// A machine configuration. `Default` is the documented 4-wide machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MachineConfig {
    /// Syllables per bundle.
    pub width: usize,
    /// Units of each kind, indexed by `Unit as usize`.
    pub units: [u32; Unit::COUNT],
    /// Cycles per latency class, indexed by `LatencyClass as usize`.
    pub latencies: [u32; LatencyClass::COUNT],
    /// Extra cycles after a taken branch, call, return or indirect jump.
    pub taken_branch_penalty: u32,
    /// The most cycles one `nop N` may take (1: only the one-cycle `nop`).
    pub max_nop: u32,
    /// Whether the shift-and-add operations (`sh1add`, `sh2add`, `sh3add`) exist:
    /// `shift-add=0` is the machine before that extension.
    pub shift_add: bool,
}

impl Default for MachineConfig {
    fn default() -> Self {
        MachineConfig {
            width: 4,
            // two branch units: a bundle may end in two guarded branches, the first
            // taken in slot order winning (Hexagon's dual jumps; `branch=1` is the
            // machine before that extension)
            units: [4, 2, 2, 2, 2],
            latencies: [1, 1, 3, 20, 3, 4, 2, 16],
            taken_branch_penalty: 1,
            max_nop: 8,
            shift_add: true,
        }
    }
}

impl MachineConfig {
    pub fn unit_count(&self, unit: Unit) -> u32 {
        self.units[unit as usize]
    }
    pub fn latency(&self, class: LatencyClass) -> u32 {
        self.latencies[class as usize]
    }

    /// Applies comma-separated `KEY=VALUE` overrides, e.g.
    /// `width=8,alu=8,mem=4,latency.load=2,branch-penalty=0`.
    pub fn apply_overrides(&mut self, spec: &str) -> Result<(), String> {
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) = item
                .split_once('=')
                .ok_or_else(|| format!("machine option `{item}` is not KEY=VALUE"))?;
            let value: u32 = value.trim().parse().map_err(|_| {
                format!("machine option `{key}`: `{value}` is not a non-negative integer")
            })?;
            let key = key.trim();
            if key == "width" {
                if value == 0 || value as usize > MAX_WIDTH {
                    return Err(format!(
                        "machine option `width` must be 1..={MAX_WIDTH}, got {value}"
                    ));
                }
                self.width = value as usize;
            } else if key == "branch-penalty" {
                self.taken_branch_penalty = value;
            } else if key == "max-nop" {
                if value == 0 || value > MAX_NOP {
                    return Err(format!(
                        "machine option `max-nop` must be 1..={MAX_NOP}, got {value}"
                    ));
                }
                self.max_nop = value;
            } else if key == "shift-add" {
                if value > 1 {
                    return Err(format!("machine option `shift-add` is 0 or 1, got {value}"));
                }
                self.shift_add = value == 1;
            } else if let Some(class) = key.strip_prefix("latency.") {
                let class = LatencyClass::ALL
                    .into_iter()
                    .find(|c| c.name() == class)
                    .ok_or_else(|| {
                        format!(
                            "unknown latency class `{class}` (known: {})",
                            latency_names()
                        )
                    })?;
                if value == 0 {
                    return Err(format!("machine option `{key}` must be at least 1"));
                }
                self.latencies[class as usize] = value;
            } else if let Some(unit) = Unit::ALL.into_iter().find(|u| u.name() == key) {
                if value == 0 {
                    return Err(format!(
                        "machine option `{key}`: a machine needs at least one {key} unit"
                    ));
                }
                self.units[unit as usize] = value;
            } else {
                return Err(format!(
                    "unknown machine option `{key}` (known: width, branch-penalty, max-nop, shift-add, {}, latency.{{{}}})",
                    Unit::ALL.map(Unit::name).join(", "),
                    latency_names()
                ));
            }
        }
        Ok(())
    }

    pub fn from_overrides(spec: &str) -> Result<MachineConfig, String> {
        let mut config = MachineConfig::default();
        config.apply_overrides(spec)?;
        Ok(config)
    }
}

fn latency_names() -> String {
    LatencyClass::ALL.map(LatencyClass::name).join(", ")
}

impl fmt::Display for MachineConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "width={}", self.width)?;
        for unit in Unit::ALL {
            write!(f, ",{}={}", unit.name(), self.unit_count(unit))?;
        }
        for class in LatencyClass::ALL {
            write!(f, ",latency.{}={}", class.name(), self.latency(class))?;
        }
        write!(f, ",branch-penalty={}", self.taken_branch_penalty)?;
        write!(f, ",max-nop={}", self.max_nop)?;
        write!(f, ",shift-add={}", u8::from(self.shift_add))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_round_trip_through_display() {
        let config = MachineConfig::from_overrides(
            "width=8, alu=6, latency.load=5,branch-penalty=0,shift-add=0",
        )
        .unwrap();
        assert_eq!(config.width, 8);
        assert_eq!(config.unit_count(Unit::Alu), 6);
        assert_eq!(config.latency(LatencyClass::Load), 5);
        assert_eq!(
            MachineConfig::from_overrides(&config.to_string()).unwrap(),
            config
        );
    }

    #[test]
    fn bad_overrides_are_explained() {
        assert!(
            MachineConfig::from_overrides("width=0")
                .unwrap_err()
                .contains("1..=16")
        );
        assert!(
            MachineConfig::from_overrides("latency.foo=1")
                .unwrap_err()
                .contains("unknown latency class")
        );
        assert!(
            MachineConfig::from_overrides("bogus=1")
                .unwrap_err()
                .contains("unknown machine option")
        );
        assert!(
            MachineConfig::from_overrides("alu")
                .unwrap_err()
                .contains("KEY=VALUE")
        );
    }
}

//! Comparing two functions by what the text form keeps: the round-trip tests check
//! that parsing a printed function gives the same function.

use super::{MachFunction, Reg};

impl MachFunction {
    /// Whether `other` is this function up to what the text form does not record:
    /// the ids of operations (their order and bundles are compared), operations out
    /// of the layout, and virtual registers and blocks that nothing names. The first
    /// difference otherwise.
    pub fn same_as(&self, other: &MachFunction) -> Result<(), String> {
        let differ = |what: &str| Err(format!("{}: {what} differ", self.name));
        if self.name != other.name || self.linkage != other.linkage {
            return differ("names or linkages");
        }
        if self.layout != other.layout {
            return differ("block layouts");
        }
        if self.slots != other.slots {
            return differ("frame slots");
        }
        if self.jump_tables.values().ne(other.jump_tables.values()) {
            return differ("jump tables");
        }
        if self.outgoing_words != other.outgoing_words || self.files != other.files {
            return differ("outgoing areas or files");
        }
        if self.frame != other.frame {
            return differ("frames");
        }
        let class = |f: &MachFunction, r: Reg| match r {
            Reg::Virtual(v) => f.vregs.get(v).copied(),
            Reg::Physical(p) => Some(p.class()),
        };
        for &b in &self.layout {
            if self.blocks[b].params != other.blocks[b].params {
                return Err(format!("{}: {b}: parameters differ", self.name));
            }
            for &p in &self.blocks[b].params {
                if class(self, p.into()) != class(other, p.into()) {
                    return Err(format!("{}: {b}: classes of {p} differ", self.name));
                }
            }
            if self.block_len(b) != other.block_len(b) {
                return Err(format!("{}: {b}: numbers of operations differ", self.name));
            }
            for (i, (x, y)) in self.block_insts(b).zip(other.block_insts(b)).enumerate() {
                if x != y {
                    return Err(format!(
                        "{}: {b}: operation {i} differs: `{}` against `{}` ({x:?} against {y:?})",
                        self.name,
                        self.display_inst(x),
                        other.display_inst(y)
                    ));
                }
                for r in x.all_uses().chain(x.all_defs()) {
                    if class(self, r) != class(other, r) {
                        return Err(format!(
                            "{}: {b}: classes of {r:?} differ in `{}`",
                            self.name,
                            self.display_inst(x)
                        ));
                    }
                }
            }
        }
        for s in self.slots.values() {
            if let super::FrameSlotKind::Spill(v) = s.kind
                && class(self, v.into()) != class(other, v.into())
            {
                return Err(format!("{}: classes of {v} differ", self.name));
            }
        }
        // bundles: the same positions in each block
        let positions = |f: &MachFunction| -> Option<Vec<Vec<usize>>> {
            let bundles = f.bundles.as_ref()?;
            Some(
                f.layout
                    .iter()
                    .flat_map(|&b| {
                        let position: rustc_hash::FxHashMap<_, usize> = f
                            .block_inst_ids(b)
                            .iter()
                            .enumerate()
                            .map(|(i, &id)| (id, i))
                            .collect();
                        bundles.block(b).iter().map(move |bundle| {
                            bundle
                                .iter()
                                .map(|id| position.get(id).copied().unwrap_or(usize::MAX))
                                .collect()
                        })
                    })
                    .collect(),
            )
        };
        if positions(self) != positions(other) {
            return differ("bundles");
        }
        if other.vregs.len() > self.vregs.len() || other.blocks.len() > self.blocks.len() {
            return differ("numbers of registers or blocks");
        }
        Ok(())
    }
}

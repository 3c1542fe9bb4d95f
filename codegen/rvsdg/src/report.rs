//! What the RVSDG passes did: named counters (`stats`), added up over the module.

/// Counters by name, in the order they first counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    counters: Vec<(&'static str, u64)>,
}

impl Report {
    pub fn count(&mut self, name: &'static str, n: u64) {
        match self.counters.iter_mut().find(|c| c.0 == name) {
            Some(c) => c.1 += n,
            None => self.counters.push((name, n)),
        }
    }

    pub fn get(&self, name: &str) -> u64 {
        self.counters
            .iter()
            .find(|c| c.0 == name)
            .map_or(0, |c| c.1)
    }

    pub fn counters(&self) -> &[(&'static str, u64)] {
        &self.counters
    }
}

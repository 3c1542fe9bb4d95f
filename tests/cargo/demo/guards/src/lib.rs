//! A dependency of the demo crate that its profiles build at the other opt level
//! (`[profile.release.package.guards]` at 0, `[profile.dev.package.guards]` at 3):
//! the demo's binary unwinds through these frames, which drop their guards on the
//! way.

/// This crate's opt level: the profile overrides the level but not
/// `debug_assertions`, which tells the profiles apart.
const LEVEL: &str = if cfg!(debug_assertions) { "opt-level 3" } else { "opt-level 0" };

/// Prints its name and the opt level of the crate that made it when dropped.
pub struct Guard(pub &'static str, pub &'static str);

impl Drop for Guard {
    fn drop(&mut self) {
        println!("  drop {} ({})", self.0, self.1);
    }
}

/// Calls `f` with a guard alive in this frame and one in a nested frame (not
/// generic, so that the code is this crate's, built at its opt level).
#[inline(never)]
pub fn with_guards(f: &mut dyn FnMut()) {
    let _outer = Guard("guards::with_guards", LEVEL);
    nested(f)
}

#[inline(never)]
fn nested(f: &mut dyn FnMut()) {
    let _inner = Guard("guards::nested", LEVEL);
    f()
}

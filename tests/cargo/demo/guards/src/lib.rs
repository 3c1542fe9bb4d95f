//! A dependency of the demo crate that its release profile builds at opt-level 0
//! (`[profile.release.package.guards]`): the demo's binary, built at opt-level 3,
//! unwinds through these frames, which drop their guards on the way.

/// Prints its name when dropped.
pub struct Guard(pub &'static str);

impl Drop for Guard {
    fn drop(&mut self) {
        println!("  drop {}", self.0);
    }
}

/// Calls `f` with a guard alive in this frame and one in a nested frame (not
/// generic, so that the code is this crate's, built at its opt level).
#[inline(never)]
pub fn with_guards(f: &mut dyn FnMut()) {
    let _outer = Guard("guards::with_guards (opt-level 0)");
    nested(f)
}

#[inline(never)]
fn nested(f: &mut dyn FnMut()) {
    let _inner = Guard("guards::nested (opt-level 0)");
    f()
}

// A panic unwinding into a hand-written function without call-frame information
// (asm/no_cfi.s, assembled by the build script for VLIW-64): `cargo-vliw run --bin
// nocfi` must end with the runtime's fatal error naming that function and its
// status 70, not loop or crash the simulator. On the host it only says so.
#[cfg(target_arch = "vliw64")]
unsafe extern "C-unwind" {
    fn no_cfi_trampoline(callback: extern "C-unwind" fn());
}

#[cfg(target_arch = "vliw64")]
extern "C-unwind" fn panics() {
    panic!("unwinding toward a frame without CFI");
}

fn main() {
    println!("calling through a function without CFI");
    #[cfg(target_arch = "vliw64")]
    {
        let r = std::panic::catch_unwind(|| unsafe { no_cfi_trampoline(panics) });
        println!("caught: {}", r.is_err());
    }
}

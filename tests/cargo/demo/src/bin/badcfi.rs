// A panic unwinding into a hand-written function whose call-frame information does
// not describe its frame (asm/bad_cfi.s: the caller it gives is the frame itself):
// `cargo-vliw run --bin badcfi` must end with the runtime's fatal error naming that
// function and its status 70, not loop. On the host it only says so.
#[cfg(target_arch = "vliw64")]
unsafe extern "C-unwind" {
    fn bad_cfi_trampoline(callback: extern "C-unwind" fn());
}

#[cfg(target_arch = "vliw64")]
extern "C-unwind" fn panics() {
    panic!("unwinding toward a frame with wrong CFI");
}

fn main() {
    println!("calling through a function with wrong CFI");
    #[cfg(target_arch = "vliw64")]
    {
        let r = std::panic::catch_unwind(|| unsafe { bad_cfi_trampoline(panics) });
        println!("caught: {}", r.is_err());
    }
}

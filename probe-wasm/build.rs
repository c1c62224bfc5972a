//! The wasm's stack: 256 KiB instead of the toolchain's 1 MiB, because the whole stack is
//! part of every tab's memory (issue 23's budget). The probe's deepest recursion is
//! nested relative `data-nsp-key` paths; measured on such a page (issue 23), 4,000
//! levels pass and 5,000 fail with either stack, because V8's own stack limit for the
//! frames stops the 1 MiB one at the same depth. Rust lays the stack out first in linear
//! memory, so an overflow traps (an access below address 0) and overwrites nothing.
fn main() {
    if std::env::var("CARGO_CFG_TARGET_FAMILY").as_deref() == Ok("wasm") {
        println!("cargo:rustc-link-arg-cdylib=-zstack-size=262144");
    }
    println!("cargo:rerun-if-changed=build.rs");
}

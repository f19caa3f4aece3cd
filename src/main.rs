//! `debugger`: see the README. `main` stays thin: everything lives in the library.
//!
//! No Rust `main`: the C runtime calls the `main` below directly, skipping std's runtime set-up,
//! whose main-thread stack-overflow handler was a fifth of what `debugger --version` executed.
//! `debugger::cli::startup` does the rest of that set-up itself and says what was dropped and why.

// The test harness brings its own `main`.
#![cfg_attr(not(test), no_main)]

/// The process entry point, called by the C runtime. The arguments are read through
/// `std::env::args`, which glibc hands std before `main` runs.
#[cfg(not(test))]
#[unsafe(no_mangle)]
pub extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    debugger::cli::startup::run()
}

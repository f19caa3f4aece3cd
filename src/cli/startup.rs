//! The process around a command: what runs before `cli::main` and after it.
//!
//! `src/main.rs` is `#![no_main]`: the C runtime calls our `main` directly, not through Rust
//! std's `lang_start`. Every CLI call is a fresh process, so what `lang_start` does is paid on
//! every call, and one step of it was a fifth of what `debugger --version` executed: for the
//! main thread's stack-overflow handler, std asks glibc for the thread's stack bounds, and glibc's
//! `pthread_getattr_np` finds them by reading `/proc/self/maps` and parsing every line with
//! `sscanf` (114k of the 585k instructions callgrind counted).
//!
//! What `lang_start` did, and what became of each part:
//!
//! - **Standard descriptors.** A closed stdin, stdout or stderr is reopened on `/dev/null`, so a
//!   socket or file opened later can never land on descriptor 1 and receive our output. Kept:
//!   `platform::prepare_process`, std's own check (one `poll`).
//! - **SIGPIPE ignored.** A write to a closed pipe (`debugger --help | head -1`) returns `EPIPE`,
//!   which the printers ignore, instead of killing the process; the daemon relies on the same to
//!   outlive an adapter or reaper that has died. Kept: `platform::prepare_process`. Children still start
//!   with SIGPIPE at its default: std's `Command` resets it unless a `-Zon-broken-pipe` flag was
//!   used, and none is.
//! - **stdout flushed at exit.** [`run`] ends through `std::process::exit`, which flushes std's
//!   stdout buffer just as returning from a std `main` does.
//! - **Panics.** The panic hook still prints the message (it runs before unwinding starts), and
//!   the process exits with 101, as a std `main` that panics does. An unwind may not leave an
//!   `extern "C"` function (the process would abort), so [`run`] catches it. A `RUST_BACKTRACE`
//!   backtrace also shows the C runtime's frames below `main`.
//! - **Dropped: the stack-overflow handler.** A stack overflow still hits the guard page and ends
//!   the process with SIGSEGV, on the main thread and on the daemon's threads alike (std gives
//!   spawned threads the handler's signal stack only when this init ran), but without the
//!   "thread 'main' has overflowed its stack" message.
//! - **Dropped: the main thread's name.** Panic messages say `thread '<unnamed>'` for it, not
//!   `thread 'main'`.
//!
//! `std::env::args` still works: on glibc, std captures `argc` and `argv` from `.init_array`,
//! before any `main`.

/// Runs this process: sets up what std's runtime would, runs the command line (the CLI, the
/// daemon or the reaper) and exits with its status. Call it once, from `main`, before any other
/// thread exists.
pub fn run() -> ! {
    // SAFETY: called once, first thing on the only thread, so nothing else reads the standard
    // descriptors or the signal dispositions meanwhile.
    unsafe {
        crate::platform::prepare_process();
    }
    let code = std::panic::catch_unwind(super::main).unwrap_or(101);
    crate::common::timeline::mark("exiting");
    std::process::exit(code)
}

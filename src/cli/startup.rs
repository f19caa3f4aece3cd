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
//!   `reopen_closed_standard_fds`, std's own check (one `poll`).
//! - **SIGPIPE ignored.** A write to a closed pipe (`debugger --help | head -1`) returns `EPIPE`,
//!   which the printers ignore, instead of killing the process; the daemon relies on the same to
//!   outlive an adapter or reaper that has died. Kept: `ignore_sigpipe`. Children still start
//!   with SIGPIPE at its default: std's `Command` resets it unless a `-Zon-broken-pipe` flag was
//!   used, and none is.
//! - **stdout flushed at exit.** [`run`] ends through `std::process::exit`, which flushes std's
//!   stdout buffer just as returning from a std `main` does.
//! - **Panics.** The panic hook still prints the message (it runs before unwinding starts), and
//!   the process exits with 101 as before. An unwind may not leave an `extern "C"` function (the
//!   process would abort), so [`run`] catches it. A `RUST_BACKTRACE` backtrace now also shows the
//!   C runtime's frames below `main`.
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
        reopen_closed_standard_fds();
        ignore_sigpipe();
    }
    let code = std::panic::catch_unwind(super::main).unwrap_or(101);
    std::process::exit(code)
}

/// Opens `/dev/null` on each of descriptors 0, 1 and 2 that is closed, as std's runtime does:
/// `open` returns the lowest free descriptor, so each fills the lowest closed one.
///
/// # Safety
///
/// Must run before anything else opens a descriptor or uses the standard streams.
unsafe fn reopen_closed_standard_fds() {
    let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
        fd,
        events: 0,
        revents: 0,
    });
    // SAFETY: `fds` is a valid array of three pollfd; a zero timeout does not block.
    while unsafe { libc::poll(fds.as_mut_ptr(), 3, 0) } == -1 {
        match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) => continue,
            // poll itself cannot run (descriptor limit, memory): fall back to asking one by one.
            _ => {
                for fd in 0..3 {
                    // SAFETY: F_GETFD on any descriptor number is harmless.
                    if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
                        && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF)
                    {
                        // SAFETY: as below.
                        unsafe { open_dev_null() };
                    }
                }
                return;
            }
        }
    }
    for pfd in fds {
        if pfd.revents & libc::POLLNVAL != 0 {
            // SAFETY: the descriptor is closed, so the open takes its number.
            unsafe { open_dev_null() };
        }
    }
}

/// Opens `/dev/null` read-write on the lowest free descriptor; aborts when it cannot, as std
/// does: printing to a standard stream that is not open would be unsound for std's handles.
///
/// # Safety
///
/// As [`reopen_closed_standard_fds`].
unsafe fn open_dev_null() {
    // SAFETY: a valid NUL-terminated path.
    if unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) } == -1 {
        std::process::abort();
    }
}

/// Sets SIGPIPE to ignored, as std's runtime does by default.
///
/// # Safety
///
/// Must run while the process has one thread.
unsafe fn ignore_sigpipe() {
    // SAFETY: SIG_IGN is a valid disposition for SIGPIPE.
    if unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) } == libc::SIG_ERR {
        std::process::abort();
    }
}

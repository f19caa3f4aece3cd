//! What a debugpy session leaves out of its start (issue 22), observed in the running program and
//! in debugpy's own logs: pydevd's socket to the adapter runs without Nagle's delay, and debugpy's
//! description of its environment (every installed package listed, at each process's start) is
//! skipped where no log keeps it and still written where one does. And the program's Python is
//! the one chosen in the program's folder, not where the adapter started (which a warm adapter
//! would otherwise change).
//!
//! Every test fails (never skips) when debugpy is missing: `.ci/run` installs it with pip.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{Session, eventually, fixture_path, require_debugpy};

/// Starts app.py with a breakpoint on `square` and runs to it.
#[track_caller]
fn stopped_in_square(s: &Session) {
    s.start(&fixture_path("python/app.py"), &["--break", "square"]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "square", "{stop}");
}

#[test]
fn pydevd_answers_without_nagles_delay() {
    require_debugpy();
    let s = Session::new();
    stopped_in_square(&s);
    let option = s.value_of(
        "__import__('pydevd').get_global_debugger().writer.sock.getsockopt(\
         __import__('socket').IPPROTO_TCP, __import__('socket').TCP_NODELAY)",
    );
    assert_ne!(option, "0", "Nagle's algorithm is still on\n{}", s.log());
}

#[test]
fn the_program_skips_debugpys_environment_report_without_a_log() {
    require_debugpy();
    let s = Session::new();
    stopped_in_square(&s);
    // debugpy's own is in its log.py; with no log, the program's is a builtin that does nothing
    // (no Python function of ours, which a stop on entry would stop in).
    let replaced =
        s.value_of("__import__('debugpy.common.log', fromlist=['log']).describe_environment is id");
    assert_eq!(replaced, "True", "{}", s.log());
    // The program ran as it does without the replacement.
    let value = s.value_of("n");
    assert_eq!(value, "3");
}

/// The text of the first file in `dir` whose name starts with `prefix`.
fn log_text(dir: &Path, prefix: &str) -> String {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_name().to_string_lossy().starts_with(prefix))
        .filter_map(|entry| std::fs::read_to_string(entry.path()).ok())
        .next()
        .unwrap_or_default()
}

#[test]
fn debugpys_environment_report_is_still_written_into_a_log() {
    require_debugpy();
    let logs = tempfile::tempdir().expect("tempdir");
    let s = Session::with_config(&format!(
        "[daemon]\ngrace_period_secs = 60\n[adapters.debugpy]\nargs = [\"--log-dir\", {:?}]\n",
        logs.path().display().to_string()
    ));
    stopped_in_square(&s);
    let described = |prefix: &str, header: &str| {
        eventually(Duration::from_secs(30), || {
            let text = log_text(logs.path(), prefix);
            text.contains(header) && text.contains("Installed packages:")
        })
    };
    assert!(
        described("debugpy.adapter", "debugpy.adapter startup environment:"),
        "{}",
        log_text(logs.path(), "debugpy.adapter")
    );
    assert!(
        described("debugpy.server", "Pre-launch environment:"),
        "{}",
        log_text(logs.path(), "debugpy.server")
    );
}

/// A stand-in for pyenv's shim (a shell script, hence Unix only), which hands the version it
/// chose on to what it runs through `PYENV_VERSION`: one inherited is kept, else it is chosen by
/// the folder it runs in (pyenv reads `.python-version` there).
#[cfg(unix)]
#[test]
fn the_programs_python_is_chosen_in_its_folder_not_where_the_adapter_started() {
    require_debugpy();
    let real = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs");
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    let dir = tempfile::tempdir().expect("tempdir");
    let shim = dir.path().join("python3");
    std::fs::write(
        &shim,
        format!(
            "#!/bin/sh\nexport PYENV_VERSION=\"${{PYENV_VERSION:-chosen-in-$(pwd -P)}}\"\nexec {real:?} \"$@\"\n"
        ),
    )
    .expect("write the stand-in");
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755))
            .expect("chmod the stand-in");
    }
    let s = Session::with_config(&format!(
        "[daemon]\ngrace_period_secs = 60\n[adapters.debugpy]\npath = {:?}\n",
        shim.display().to_string()
    ));
    // The daemon, and the adapter it starts, run in `/`; the program in the caller's folder.
    let app = fixture_path("python/app.py");
    let started = s
        .command()
        .env_remove("PYENV_VERSION")
        .args([
            "--json",
            "start",
            "--no-wait",
            app.to_str().expect("utf-8"),
            "--break",
            "square",
        ])
        .output()
        .expect("start");
    assert!(started.status.success(), "{started:?}");
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "square", "{stop}");
    let version = s.value_of("__import__('os').environ.get('PYENV_VERSION')");
    let folder = std::fs::canonicalize(&s.cwd).expect("the caller's folder");
    assert_eq!(
        version,
        format!("'chosen-in-{}'", folder.display()),
        "{}",
        s.log()
    );
}

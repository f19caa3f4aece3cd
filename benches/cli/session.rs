//! The bench's handle on one debug session driven through the real CLI, built on the integration
//! tests' [`Session`] so both run the binary in the same private environment (session name,
//! runtime dir 0700, state dir, config) and stop the daemon when dropped.
//!
//! What the bench adds is what timing needs: every call is timed from spawn to exit with its
//! output captured through pipes, as an agent shelling out pays it; a failure is an error
//! carrying the command's stderr, not a panic, so the remaining sessions are still stopped; the
//! binary may be another build (`DEBUGGER_BENCH_BIN`); and one IPC request can be sent from this
//! process to split a call into the CLI process's share and the daemon's.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use debugger::common::paths;
use debugger::ipc::client::{DaemonClient, SessionPaths};
use debugger::ipc::protocol::{Command as IpcCommand, ResumeAction, WaitSpec};

use crate::common::Session;
use crate::stats::{Stats, time_n};
use crate::{BenchResult, WAIT_LIMIT};

/// The daemon's default output buffer (8 MiB), written into each session's config explicitly
/// so the flood's memory bound is stated against a known buffer.
pub const BUFFER_BYTES: u64 = 8 * 1024 * 1024;

/// A session of the measured binary.
pub struct CliSession {
    session: Session,
    bin: PathBuf,
}

impl CliSession {
    pub fn new(bin: &Path) -> CliSession {
        CliSession::with_config(bin, "")
    }

    /// A session whose config also holds `extra` (TOML: an adapter's path, say).
    pub fn with_config(bin: &Path, extra: &str) -> CliSession {
        CliSession {
            session: Session::with_config(&format!(
                "[output]\nbuffer_bytes = {BUFFER_BYTES}\n{extra}"
            )),
            bin: bin.to_path_buf(),
        }
    }

    /// Runs the session's commands in `dir` instead of its private folder: a project built there
    /// once, which every session must find as it was built (a fresh copy's files are newer than
    /// the build, and cargo rebuilds them).
    pub fn run_in(&mut self, dir: &Path) {
        self.session.cwd = dir.to_path_buf();
    }

    /// The session's daemons keep a warm adapter for `secs` seconds (the tests' and the bench's
    /// sessions keep none otherwise).
    pub fn keep_warm_adapter(&mut self, secs: &str) {
        self.session.warm_secs = secs.to_string();
    }

    /// Adds `toml` to the session's config file (e.g. an adapter's path).
    pub fn add_config(&self, toml: &str) -> BenchResult<()> {
        let path = self.session.dir.path().join("config.toml");
        let mut text = std::fs::read_to_string(&path).map_err(|e| format!("read {path:?}: {e}"))?;
        text.push_str(toml);
        std::fs::write(&path, text).map_err(|e| format!("write {path:?}: {e}").into())
    }

    /// `debugger ARGS` in the session's environment. The tests' daemon logs at debug level for
    /// their failure messages; the bench turns that off, since writing the log is not part of
    /// what a call costs a user.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = self.session.command_running(&self.bin);
        command
            .args(args)
            .env_remove("DEBUGGER_LOG")
            .env_remove("RUST_LOG");
        command
    }

    /// Runs `debugger ARGS` and fails with its stderr unless it exits 0.
    pub fn run(&self, args: &[&str]) -> BenchResult<Output> {
        Ok(self.timed(args)?.1)
    }

    /// Runs `debugger ARGS`, timing the whole process, and fails unless it exits 0.
    pub fn timed(&self, args: &[&str]) -> BenchResult<(Duration, Output)> {
        let mut command = self.command(args);
        let began = Instant::now();
        let out = command
            .output()
            .map_err(|e| format!("run debugger {}: {e}", args.join(" ")))?;
        let elapsed = began.elapsed();
        if !out.status.success() {
            return Err(format!(
                "'debugger {}' (session {}) failed with {}: {}{}",
                shorten(&args.join(" ")),
                self.session.name,
                out.status,
                String::from_utf8_lossy(&out.stderr).trim(),
                String::from_utf8_lossy(&out.stdout).trim()
            )
            .into());
        }
        Ok((elapsed, out))
    }

    /// `debugger --json ARGS`, returning `data`.
    pub fn run_json(&self, args: &[&str]) -> BenchResult<Value> {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let out = self.run(&all)?;
        let value: Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("'debugger {}' printed no JSON: {e}", args.join(" ")))?;
        if value["ok"] != json!(true) {
            return Err(format!("'debugger {}' failed: {value}", args.join(" ")).into());
        }
        Ok(value["data"].clone())
    }

    /// `warmup` untimed calls of `debugger ARGS`, then the statistics of `runs` timed ones.
    pub fn stats_n(&self, runs: usize, warmup: usize, args: &[&str]) -> BenchResult<Stats> {
        Ok(Stats::of(time_n(runs, warmup, || Ok(self.timed(args)?.0))?))
    }

    /// One request to the daemon from this process (a fresh connection, as a CLI call makes),
    /// timed: the daemon's and the adapter's share of a call, without the CLI process.
    pub fn ipc(&self, command: IpcCommand) -> BenchResult<Duration> {
        let runtime_dir = self.session.runtime_dir();
        let name = &self.session.name;
        let paths = SessionPaths {
            socket: paths::socket_path(&runtime_dir, name),
            lock: paths::lock_path(&runtime_dir, name),
        };
        let began = Instant::now();
        let mut client = DaemonClient::connect_at(&paths)
            .map_err(|e| format!("connect to session {name}: {}", e.message))?;
        client
            .request(command)
            .map_err(|e| format!("request to session {name}: {}", e.message))?;
        Ok(began.elapsed())
    }

    pub fn daemon_pid(&self) -> BenchResult<u32> {
        let status = self.run_json(&["status"])?;
        status["daemon_pid"]
            .as_u64()
            .and_then(|pid| u32::try_from(pid).ok())
            .ok_or_else(|| format!("status names no daemon_pid: {status}").into())
    }

    /// Stops the session now with the measured binary (dropping it stops it too, later).
    pub fn stop(&self) {
        let _ = self.command(&["stop"]).output();
    }
}

/// `path` as a CLI argument.
pub fn path_str(path: &Path) -> BenchResult<&str> {
    path.to_str()
        .ok_or_else(|| format!("not UTF-8: {}", path.display()).into())
}

/// Fails unless the call's stdout contains `needle`: a timed call that did not do what it was
/// meant to would time the wrong thing.
pub fn expect_contains(out: &Output, needle: &str, what: &str) -> BenchResult<()> {
    let text = String::from_utf8_lossy(&out.stdout);
    if text.contains(needle) {
        Ok(())
    } else {
        Err(format!("{what}: expected '{needle}' in the output, got: {text}").into())
    }
}

/// A command line cut to 200 bytes for an error message (1,000 breakpoint locations are not).
fn shorten(text: &str) -> String {
    if text.len() <= 200 {
        text.to_string()
    } else {
        let mut cut = 200;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}… ({} bytes)", &text[..cut], text.len())
    }
}

/// The IPC twin of `next --wait`: a step over that answers once the program stops again.
pub fn next_and_wait() -> IpcCommand {
    IpcCommand::Resume {
        action: ResumeAction::Next,
        wait: Some(WaitSpec {
            timeout_secs: WAIT_LIMIT.as_secs_f64(),
            locals: None,
            prints: Vec::new(),
        }),
    }
}

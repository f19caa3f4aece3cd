//! The integration-test harness: run the real `debugger` binary against real adapters, each test
//! in its own session name and private runtime directory so the suite runs in parallel.
//!
//! Tests that need an adapter (lldb-dap, debugpy, Delve, GDB 14+) fail (never skip) when it is missing:
//! `.ci/run` installs them.

#![allow(dead_code)]

pub mod delve;
pub mod java;
pub mod maven;
pub mod node;
pub mod probe;
pub mod python;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde_json::Value;

pub mod test_project;
pub mod typescript_build;

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_debugger"))
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Fails the test with instructions when lldb-dap is not installed.
pub fn require_lldb_dap() {
    let found = debugger::adapters::lldb::find_on_system();
    assert!(
        found.is_some(),
        "lldb-dap is required for this test and was not found; install it with 'apt-get install lldb-19' (.ci/run does)"
    );
}

/// Fails the test with instructions when `python3` cannot import debugpy.
/// Python 3 itself: what the pdb adapter (our own, inside the program's interpreter) needs.
pub fn require_python() {
    let output = Command::new("python3")
        .args(["-c", "import sys; assert sys.version_info >= (3, 8)"])
        .stdin(Stdio::null())
        .output();
    assert!(
        output.as_ref().is_ok_and(|o| o.status.success()),
        "Python 3.8 or later is required for this test as python3 ({output:?}); .ci/run installs it"
    );
}

pub fn require_debugpy() {
    let output = Command::new("python3")
        .args(["-c", "import debugpy"])
        .stdin(Stdio::null())
        .output();
    let works = output.as_ref().is_ok_and(|o| o.status.success());
    assert!(
        works,
        "debugpy is required for this test: `python3 -c \"import debugpy\"` failed ({}); \
         install it with 'python3 -m pip install debugpy' (.ci/run does)",
        match &output {
            Ok(o) => String::from_utf8_lossy(&o.stderr).trim().to_string(),
            Err(e) => e.to_string(),
        }
    );
}

/// Fails the test with instructions when Delve or Go is not installed, or when the Delve found
/// cannot read what this Go builds (Debian 12's Delve 1.20 beside Go 1.26).
pub fn require_delve() {
    use debugger::adapters::delve::{self, toolchain};
    let dlv = delve::find(&Default::default());
    let go = toolchain::GoToolchain::find();
    assert!(
        dlv.is_some() && go.is_some(),
        "Delve (dlv) and Go (go) are required for this test and were not both found \
         (dlv: {dlv:?}, go: {go:?}); scripts/install-test-deps.sh installs them (.ci/run does)"
    );
    let delve_version = dlv
        .as_deref()
        .and_then(delve::version)
        .as_deref()
        .and_then(toolchain::DelveVersion::parse);
    let go_version = go.and_then(|go| go.version);
    if let (Some(delve_version), Some(go_version)) = (delve_version, go_version) {
        assert!(
            !delve_version.too_old_for(go_version),
            "Delve {delve_version} at {dlv:?} cannot debug what Go {go_version} builds; \
             scripts/install-test-deps.sh installs one that can (.ci/run does)"
        );
    }
}

/// Fails the test with instructions when no full JDK (java, javac, jdk.jdi) is found.
pub fn require_jdk() -> debugger::adapters::java::jdk::JdkReport {
    let report = debugger::adapters::java::jdk::check();
    assert!(
        report.found,
        "a JDK 17 or newer is required for this test: {}; scripts/install-test-deps.sh installs \
         one (.ci/run does)",
        report.detail
    );
    report
}

/// Fails the test with instructions when `php` with Xdebug is not installed.
pub fn require_php() {
    let version = Command::new("php")
        .arg("-v")
        .stdin(Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    assert!(
        version.as_ref().is_ok_and(|v| v.contains("Xdebug v3")),
        "PHP with Xdebug 3 is required for this test (php -v said {version:?}); install it with \
         'apt-get install php-cli php-xdebug' (scripts/install-test-deps.sh does)"
    );
}

/// Fails the test with instructions when `node` is not installed (or does not run).
pub fn require_node() {
    let found = debugger::adapters::node::find(&Default::default());
    let works = found.as_ref().is_some_and(|node| {
        Command::new(node)
            .arg("--version")
            .stdin(Stdio::null())
            .output()
            .is_ok_and(|o| o.status.success())
    });
    assert!(
        works,
        "Node.js is required for this test and `node --version` did not run (found: {found:?}); \
         install it with 'apt-get install nodejs' (.ci/run does)"
    );
}

/// Fails the test with instructions when no Ruby with the debug gem is installed.
pub fn require_ruby() {
    let found = debugger::adapters::ruby::find(&Default::default());
    let version = found.as_deref().and_then(debugger::adapters::ruby::version);
    assert!(
        version.is_some(),
        "Ruby with its debug gem is required for this test (found: {found:?}); install it with \
         'apt-get install ruby' (scripts/install-test-deps.sh does)"
    );
}

/// A GDB with DAP (14 or newer): `$DEBUGGER_TEST_GDB`, else `gdb` on PATH if it is new enough, else
/// the private one scripts/install-test-gdb.sh fetches (Debian 12's own GDB 13 has no DAP). Fails
/// the test with instructions when there is none.
pub fn require_gdb() -> PathBuf {
    let prefix = std::env::var_os("DEBUGGER_TEST_GDB_PREFIX")
        .map_or_else(|| PathBuf::from("/opt/debugger-test/gdb"), PathBuf::from);
    let candidates = [
        std::env::var_os("DEBUGGER_TEST_GDB").map(PathBuf::from),
        which::which("gdb").ok(),
        Some(prefix.join("bin/gdb")),
    ];
    let found = candidates
        .into_iter()
        .flatten()
        .find(|gdb| debugger::adapters::gdb::speaks_dap(gdb));
    found.unwrap_or_else(|| {
        panic!(
            "a GDB with DAP (14 or newer) is required for this test and was not found; \
             run scripts/install-test-gdb.sh (.ci/run does), or set DEBUGGER_TEST_GDB"
        )
    })
}

/// Runs `command` to its end, and fails the test, killing it, if it still runs after `limit`:
/// a hang fails here instead of hanging the suite. The child is waited on by a thread of its
/// own, and the limit is a receive's deadline, so nothing polls.
#[track_caller]
pub fn run_within(mut command: Command, limit: Duration) -> Run {
    let shown = format!("{:?}", command.get_args().collect::<Vec<_>>());
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn debugger");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(output) => Run::from(output.expect("collect output")),
        Err(_) => {
            let _ = debugger::platform::kill(pid);
            panic!("`debugger {shown}` still ran after {limit:?}: hung");
        }
    }
}

/// Whether `pid` is a live process: a zombie waiting for its reaper counts as gone (the
/// library's own check, `platform::is_running`).
pub fn alive(pid: impl Into<u64>) -> bool {
    u32::try_from(pid.into()).is_ok_and(debugger::platform::is_running)
}

/// The threads `threads --json`'s data (`{"threads": [...]}`) marks as selected.
pub fn selected_threads(listed: &Value) -> Vec<&Value> {
    listed["threads"]
        .as_array()
        .expect("threads")
        .iter()
        .filter(|t| t["selected"] == true)
        .collect()
}

/// Runs `run` (its program, arguments and environment) under GDB in `dir` until it dies of a
/// signal, and writes its core with `gcore` to `dir/name`. Fails the test when no core comes of
/// it.
pub fn gcore(run: &Command, dir: &Path, name: &str) -> PathBuf {
    let core = dir.join(name);
    let mut gdb = Command::new(require_gdb());
    gdb.args(["-batch", "-nx", "-ex", "run", "-ex"])
        .arg(format!("gcore {}", core.display()))
        .arg("--args")
        .arg(run.get_program())
        .args(run.get_args())
        .current_dir(dir)
        .stdin(Stdio::null());
    for (key, value) in run.get_envs() {
        match value {
            Some(value) => gdb.env(key, value),
            None => gdb.env_remove(key),
        };
    }
    let output = gdb.output().expect("run gdb");
    assert!(
        core.is_file(),
        "gcore wrote no core of {:?}: {}",
        run.get_program(),
        String::from_utf8_lossy(&output.stdout)
    );
    core
}

/// Polls `check` until it holds or `limit` passes; returns whether it held.
pub fn eventually(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if check() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The line of `marker` (e.g. "@apply_body") in a fixture file.
pub fn line_of(fixture: &str, marker: &str) -> u32 {
    line_in(&repo_root().join("fixtures").join(fixture), marker)
}

/// The line of `marker` in the source file `path`.
pub fn line_in(path: &Path, marker: &str) -> u32 {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let index = text
        .lines()
        .position(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("marker {marker} not in {}", path.display()));
    index as u32 + 1
}

pub fn fixture_path(fixture: &str) -> PathBuf {
    repo_root().join("fixtures").join(fixture)
}

/// `/abs/path/fixtures/FIXTURE:LINE` for the line carrying `marker`: a breakpoint location.
pub fn at(fixture: &str, marker: &str) -> String {
    format!(
        "{}:{}",
        fixture_path(fixture).display(),
        line_of(fixture, marker)
    )
}

/// Asserts a stop is in `function` at the line of `marker` in the fixture `fixture`.
#[track_caller]
pub fn assert_stop_at(stop: &Value, fixture: &str, function: &str, marker: &str) {
    assert_eq!(stop["frame"]["function"], function, "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(fixture, marker), "{stop}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert!(file.ends_with(fixture), "expected {fixture}: {stop}");
}

/// The variable `name` in a `locals` (or `context`) answer.
#[track_caller]
pub fn variable<'a>(variables: &'a Value, name: &str) -> &'a Value {
    variables
        .as_array()
        .expect("variables")
        .iter()
        .find(|v| v["name"] == name)
        .unwrap_or_else(|| panic!("no variable {name} in {variables}"))
}

/// A `backtrace` answer's frames as (function, line), innermost first.
pub fn frame_lines(backtrace: &Value) -> Vec<(&str, u64)> {
    backtrace["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .map(|f| {
            (
                f["function"].as_str().unwrap_or(""),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// Builds a fixture once per test process and returns the executable.
///
/// `fixture` is the path under fixtures/ (`c/ledger.c`, `cpp/shapes.cpp`, `rust/counter.rs`).
pub fn build(fixture: &str) -> PathBuf {
    build_source(&fixture_path(fixture))
}

/// Builds the C, C++ or Rust program `source` once per test process and returns the executable,
/// named after the source's stem.
pub fn build_source(source: &Path) -> PathBuf {
    static BUILT: OnceLock<Mutex<std::collections::HashMap<PathBuf, PathBuf>>> = OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let mut built = built.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(path) = built.get(source) {
        return path.clone();
    }
    let fixture = source.display().to_string();
    let source = source.to_path_buf();
    let stem = source
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("fixture")
        .to_string();
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fixtures");
    std::fs::create_dir_all(&out_dir).expect("create fixture dir");
    // A private name first, then an atomic rename: several test binaries may build at once.
    let tmp = out_dir.join(format!("{stem}.{}.tmp", std::process::id()));
    let output = out_dir.join(&stem);
    let mut command = match source.extension().and_then(|e| e.to_str()) {
        Some("c") => {
            let mut c = Command::new("cc");
            c.args(["-g", "-O0", "-pthread", "-o"])
                .arg(&tmp)
                .arg(&source);
            c
        }
        Some("cpp") => {
            let mut c = Command::new("c++");
            c.args(["-g", "-O0", "-o"]).arg(&tmp).arg(&source);
            c
        }
        Some("rs") => {
            let mut c = Command::new("rustc");
            c.args(["-g", "-C", "opt-level=0", "-o"])
                .arg(&tmp)
                .arg(&source);
            c
        }
        other => panic!("unknown fixture kind {other:?}"),
    };
    let status = command.status().expect("run the compiler");
    assert!(status.success(), "building {fixture} failed");
    std::fs::rename(&tmp, &output).expect("rename fixture");
    built.insert(source, output.clone());
    output
}

/// A Go build cache and GOPATH of our own, so builds work whatever HOME is (and are reused
/// across test runs).
fn go_env_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("go-env");
    std::fs::create_dir_all(dir.join("cache")).expect("create GOCACHE");
    std::fs::create_dir_all(dir.join("path")).expect("create GOPATH");
    dir
}

/// Sets the Go environment on a command that runs `go` (or starts a daemon whose Delve will).
pub fn with_go_env(command: &mut Command) -> &mut Command {
    let dir = go_env_dir();
    command
        .env("GOCACHE", dir.join("cache"))
        .env("GOPATH", dir.join("path"))
        .env("GOFLAGS", "")
        .env("GO111MODULE", "on")
}

/// Builds the Go package holding `fixture` (e.g. `go/ledger/main.go`) once per test process,
/// without optimisations or inlining (as Delve wants), and returns the binary.
pub fn build_go(fixture: &str) -> PathBuf {
    build_go_package(fixture_path(fixture).parent().expect("fixture dir"))
}

/// Builds the Go package in the folder `package` once per test process, as [`build_go`] does,
/// and returns the binary, named `go-` and the folder's name.
pub fn build_go_package(package: &Path) -> PathBuf {
    static BUILT: OnceLock<Mutex<std::collections::HashMap<PathBuf, PathBuf>>> = OnceLock::new();
    let mut built = BUILT
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(path) = built.get(package) {
        return path.clone();
    }
    let fixture = package.display().to_string();
    let package = package.to_path_buf();
    let name = package
        .file_name()
        .and_then(|n| n.to_str())
        .expect("package name")
        .to_string();
    let out_dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fixtures");
    std::fs::create_dir_all(&out_dir).expect("create fixture dir");
    // A private name first, then an atomic rename: several test binaries may build at once.
    let tmp = out_dir.join(format!("go-{name}.{}.tmp", std::process::id()));
    let output = out_dir.join(format!("go-{name}"));
    let result = with_go_env(Command::new("go").current_dir(&package))
        .args(["build", "-gcflags=all=-N -l", "-o"])
        .arg(&tmp)
        .arg(".")
        .output()
        .expect("run go build");
    assert!(
        result.status.success(),
        "building {fixture} failed: {}",
        String::from_utf8_lossy(&result.stderr)
    );
    std::fs::rename(&tmp, &output).expect("rename fixture");
    built.insert(package, output.clone());
    output
}

/// The scripted mock adapter (examples/mock_adapter.rs), which `cargo test` builds.
pub fn mock_adapter() -> PathBuf {
    let path = bin()
        .parent()
        .expect("target dir")
        .join("examples")
        .join("mock_adapter");
    assert!(
        path.is_file(),
        "the mock adapter is not built at {}; `cargo test` builds examples (or run `cargo build --examples`)",
        path.display()
    );
    path
}

/// The result of one CLI run.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The run of a finished command (or of a child collected with `wait_with_output`).
    pub fn from(output: Output) -> Run {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Asserts success and returns stdout.
    #[track_caller]
    pub fn ok(&self) -> &str {
        assert_eq!(
            self.code, 0,
            "command failed:\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        &self.stdout
    }

    /// The `error` object of a failed `--json` run, checked to have a code, message and hint.
    #[track_caller]
    pub fn failure(&self) -> Value {
        let value = self.json();
        assert_eq!(value["ok"], false, "expected a failure: {value}");
        let error = value["error"].clone();
        for field in ["code", "message", "hint"] {
            assert!(
                !error[field].as_str().unwrap_or("").is_empty(),
                "error without {field}: {value}"
            );
        }
        error
    }

    /// Parses stdout as the one JSON object of `--json`.
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(self.stdout.trim()).unwrap_or_else(|e| {
            panic!(
                "stdout is not one JSON object ({e}):\n{}\nstderr: {}",
                self.stdout, self.stderr
            )
        })
    }
}

/// One test's debug session: its own name, runtime dir, state dir and config.
pub struct Session {
    pub name: String,
    pub dir: tempfile::TempDir,
    /// The directory commands run in (the "caller's" working directory).
    pub cwd: PathBuf,
    /// `DEBUGGER_WARM_ADAPTER_SECS` for the daemons this session's commands spawn: "0" (none
    /// kept, so a `stop` ends the daemon) unless a test is about warm adapters.
    pub warm_secs: String,
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// Seconds an execution command's `--wait` may take: a first stop under Delve or GDB, or a Go
/// build, is slow on a loaded machine.
pub const WAIT_SECS: &str = "60";

impl Session {
    pub fn new() -> Session {
        Session::with_config("[daemon]\ngrace_period_secs = 60\n")
    }

    /// A session whose config file holds `config` (TOML).
    pub fn with_config(config: &str) -> Session {
        let dir = tempfile::tempdir().expect("tempdir");
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let name = format!("t{}-{n}", std::process::id());
        std::fs::write(dir.path().join("config.toml"), config).expect("write config");
        let runtime = dir.path().join("run");
        debugger::platform::create_private_dir(&runtime).expect("runtime dir");
        let cwd = dir.path().join("work");
        std::fs::create_dir(&cwd).expect("work dir");
        Session {
            name,
            cwd,
            dir,
            warm_secs: "0".to_string(),
        }
    }

    /// A session whose adapter `mock` is the scripted mock adapter running `script`, with `extra`
    /// TOML appended to the config (e.g. short timeouts).
    /// A session whose GDB is one with DAP (the system's, or the one the test set-up fetched).
    pub fn with_gdb() -> Session {
        Session::with_config(&format!(
            "[daemon]\ngrace_period_secs = 60\n[adapters.gdb]\npath = {:?}\n",
            require_gdb().display().to_string()
        ))
    }

    pub fn with_mock(script: &Value, extra: &str) -> Session {
        let s = Session::with_config("");
        let script_path = s.dir.path().join("script.json");
        std::fs::write(&script_path, script.to_string()).expect("write script");
        let config = format!(
            "[daemon]\ngrace_period_secs = 60\n{extra}\n[adapters.mock]\ncommand = {:?}\nargs = [\"--script\", {:?}]\n",
            mock_adapter().display().to_string(),
            script_path.display().to_string(),
        );
        std::fs::write(s.dir.path().join("config.toml"), config).expect("write config");
        s
    }

    /// Starts a program under the mock adapter (the program path is not used by it).
    #[track_caller]
    pub fn start_mock(&self) -> Run {
        self.run(&[
            "--json",
            "start",
            "--no-wait",
            "--adapter",
            "mock",
            "/bin/true",
        ])
    }

    pub fn runtime_dir(&self) -> PathBuf {
        self.dir.path().join("run")
    }

    pub fn state_dir(&self) -> PathBuf {
        self.dir.path().join("state")
    }

    pub fn command(&self) -> Command {
        self.command_running(&bin())
    }

    /// [`Session::command`] with another `debugger` binary: the bench times any build of it
    /// (`DEBUGGER_BENCH_BIN`) in this same private environment.
    pub fn command_running(&self, program: &Path) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(&self.cwd)
            .env("DEBUGGER_SESSION", &self.name)
            .env("DEBUGGER_RUNTIME_DIR", self.runtime_dir())
            .env("DEBUGGER_STATE_DIR", self.state_dir())
            .env("DEBUGGER_CONFIG", self.dir.path().join("config.toml"))
            .env("DEBUGGER_LOG", "debug")
            .env("DEBUGGER_WARM_ADAPTER_SECS", &self.warm_secs)
            .stdin(Stdio::null());
        command
    }

    /// Runs `debugger ARGS...` and waits for it.
    pub fn run(&self, args: &[&str]) -> Run {
        Run::from(self.command().args(args).output().expect("run debugger"))
    }

    /// Runs with `--json` and returns the parsed object.
    #[track_caller]
    pub fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        self.run(&all).json()
    }

    /// Runs with `--json`, asserts `ok`, and returns `data`.
    #[track_caller]
    pub fn data(&self, args: &[&str]) -> Value {
        let value = self.json(args);
        assert_eq!(value["ok"], Value::Bool(true), "{args:?} failed: {value}");
        value["data"].clone()
    }

    /// The value `print EXPR` shows.
    #[track_caller]
    pub fn value_of(&self, expression: &str) -> String {
        self.data(&["print", expression])["value"]
            .as_str()
            .expect("value")
            .to_string()
    }

    /// Starts `program` with extra start arguments and returns the start data. It answers at
    /// once (`--no-wait`), leaving the first stop unshown for the test's own `continue --wait`
    /// or `await` to report; `tests/first_stop.rs` tests the start that waits for it.
    #[track_caller]
    pub fn start(&self, program: &Path, extra: &[&str]) -> Value {
        let program = program.to_str().expect("utf-8 path");
        let mut args = vec!["start", "--no-wait", program];
        args.extend_from_slice(extra);
        self.data(&args)
    }

    /// `start PROGRAM ARGS...` as a user types it, waiting for the first stop (or the end) and
    /// returning its data: what `tests/first_stop.rs` tests.
    #[track_caller]
    pub fn start_waiting(&self, program: &Path, extra: &[&str]) -> Value {
        let mut args = vec!["start", program.to_str().expect("utf-8 path")];
        args.extend_from_slice(extra);
        self.data(&args)
    }

    /// [`Session::start`] on the adapter `adapter` (`--adapter`), asserting it is the one used.
    #[track_caller]
    pub fn start_on(&self, adapter: &str, program: &Path, extra: &[&str]) -> Value {
        let mut args = vec!["--adapter", adapter];
        args.extend_from_slice(extra);
        let started = self.start(program, &args);
        assert_eq!(started["adapter"], adapter, "{started}");
        started
    }

    /// Runs an execution command (`continue`, `next`, `step`, `finish`) with `--wait` and
    /// returns the stop it reports.
    #[track_caller]
    pub fn stop_after(&self, command: &str) -> Value {
        self.data(&[command, "--wait", "--timeout", WAIT_SECS])["stop"].clone()
    }

    /// The program's captured output once it holds every one of `needles`: output events can
    /// trail a stop or the exit a little, so `output` is polled for up to `limit`.
    #[track_caller]
    pub fn output_containing(&self, needles: &[&str], limit: Duration) -> String {
        let mut text = String::new();
        let found = eventually(limit, || {
            text = self.data(&["output"])["text"]
                .as_str()
                .unwrap_or("")
                .to_string();
            needles.iter().all(|n| text.contains(n))
        });
        let missing: Vec<&&str> = needles.iter().filter(|n| !text.contains(**n)).collect();
        assert!(found, "no {missing:?} in the output: {text:?}");
        text
    }

    /// The daemon's log, for failure messages.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.state_dir().join(format!("daemon-{}.log", self.name)))
            .unwrap_or_default()
    }

    /// How many requests that wait on the program (`await`, `continue --wait`, `output
    /// --follow`'s reads) have reached the daemon so far, as its log tells.
    pub fn waits_seen(&self) -> usize {
        self.log()
            .matches(debugger::daemon::server::WAITING)
            .count()
    }

    /// Waits until the daemon has seen `count` requests that wait on the program (see
    /// [`Session::waits_seen`]): a client started to wait is then waiting.
    #[track_caller]
    pub fn wait_for_waits(&self, count: usize) {
        let seen = eventually(Duration::from_secs(30), || self.waits_seen() >= count);
        assert!(
            seen,
            "the daemon saw {} waiting requests, not {count}:\n{}",
            self.waits_seen(),
            self.log()
        );
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // Best effort: end the daemon so no adapter or debuggee outlives the test; a second
        // `stop` ends a warm adapter the first one left.
        let _ = self.command().arg("stop").output();
        if self.warm_secs != "0" {
            let _ = self.command().arg("stop").output();
        }
    }
}

/// The lines of Rust source that hold code, numbered from 1, each cut at its `//` comment: what
/// the source-layout tests scan (a plain scan, not a parser).
pub fn code_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let code = line.split("//").next().unwrap_or("");
        (!code.trim().is_empty()).then_some((i + 1, code))
    })
}

/// Every `.rs` file of the crate's `src/`, sorted, each with its name from the crate root
/// (`src/daemon/mod.rs`, with `/` on every system): what the source-layout tests read.
pub fn source_files() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    let mut folders = vec![root.join("src")];
    while let Some(folder) = folders.pop() {
        let entries =
            std::fs::read_dir(&folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(root)
                .expect("under the crate root")
                .to_string_lossy()
                .replace('\\', "/");
            (name, path)
        })
        .collect()
}

/// The processes whose command line names something under `dir` (a test's own directory, which
/// its programs are copied into so that one left running can be told from other tests'), as
/// `PID: COMMAND LINE`. Linux's /proc only: empty elsewhere.
pub fn processes_under(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            cmdline
                .contains(&needle)
                .then(|| format!("{}: {cmdline}", e.file_name().to_string_lossy()))
        })
        .collect()
}

/// A child process, as Linux's /proc tells it.
pub struct ChildProcess {
    pub pid: u32,
    /// Its command name (`comm`).
    pub name: String,
    /// Its state letter (`R`, `S`, `Z` for a zombie).
    pub state: String,
}

/// The children of `parent`. Linux's /proc only: empty elsewhere.
pub fn children_of(parent: u32) -> Vec<ChildProcess> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let (head, rest) = stat.rsplit_once(')')?;
            let name = head.split_once('(')?.1.to_string();
            let mut fields = rest.split_whitespace();
            let state = fields.next()?.to_string();
            let ppid: u32 = fields.next()?.parse().ok()?;
            (ppid == parent).then_some(ChildProcess { pid, name, state })
        })
        .collect()
}

/// The standard library's `json/decoder.py`, as `python3` finds it, and the line of
/// `JSONDecoder.decode` that calls `raw_decode` (which `json.loads` reaches).
pub fn json_decoder_line() -> (PathBuf, u32) {
    let output = Command::new("python3")
        .args(["-c", "import json.decoder as d; print(d.__file__)"])
        .stdin(Stdio::null())
        .output()
        .expect("run python3");
    assert!(output.status.success(), "{output:?}");
    let path = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let index = text
        .lines()
        .position(|l| l.trim() == "obj, end = self.raw_decode(s, idx=_w(s, 0).end())")
        .unwrap_or_else(|| panic!("no raw_decode call in {}", path.display()));
    (path, index as u32 + 1)
}

/// A loopback port nobody listens on right now, for a debuggee told to listen on it.
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    listener.local_addr().expect("local address").port()
}

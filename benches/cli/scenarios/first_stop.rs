//! The time to a first stop, per adapter (issue 22): the same one-shot question (break in a
//! function, print a local, end) asked three ways in the same rounds, interleaved:
//!
//! - `probe PROGRAM --break F --print X`, with the timeline on (see `timeline.rs`);
//! - the adapter's own debugger in batch mode (`lldb -b`, `gdb -batch`, `python -m pdb -c`,
//!   `dlv exec --init`), the target `probe` is set against;
//! - `start PROGRAM --break F` to its first stop (it answers with it), with the timeline on, and for lldb-dap the
//!   same launch driven in-process (the adapter's own time, `inprocess.rs`).
//!
//! Rows go in the main table; the two timelines (probe, start) are printed after it,
//! one column per adapter. Each adapter is a scenario of its own (`first-stop-lldb`, ...), so
//! `first-stop` runs them all and `first-stop-gdb` one.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::Context;
use super::dbgp_client;
use crate::BenchResult;
use crate::common::{
    build, build_go, fixture_path, line_of, require_gdb, require_php, require_ruby, with_go_env,
};
use crate::session::{CliSession, expect_contains, path_str};
use crate::stats::Stats;
use crate::timeline::MarkFile;

/// One adapter's question and its batch-mode twin.
struct Question {
    /// The column and row name.
    name: &'static str,
    /// `--adapter NAME` when the program alone would not pick it.
    adapter: Option<&'static str>,
    program: PathBuf,
    /// Where it breaks: a function, or FILE:LINE.
    function: String,
    /// What `--print` asks, and the value it must show.
    print: &'static str,
    value: &'static str,
    /// Extra session config (GDB's path).
    config: String,
    /// The native debugger's batch run of the same question, and the ratio to meet.
    batch: Option<(Native, &'static str, f64)>,
}

/// How the runtime's own debugger answers the question without a terminal.
enum Native {
    /// A batch command line (`lldb -b`, `rdbg -e`), its stdout the answer.
    Batch(Command),
    /// A client of the runtime's debug protocol run in the bench (PHP's DBGp), its answer.
    Client(Box<dyn FnMut() -> BenchResult<String>>),
}

impl Native {
    fn answer(&mut self, dir: &Path) -> BenchResult<String> {
        match self {
            Native::Batch(batch) => {
                let out = batch
                    .current_dir(dir)
                    .stdin(Stdio::null())
                    .output()
                    .map_err(|e| format!("run {batch:?}: {e}"))?;
                Ok(String::from_utf8_lossy(&out.stdout).into_owned())
            }
            Native::Client(client) => client(),
        }
    }
}

pub fn lldb(ctx: &mut Context) -> BenchResult<()> {
    let program = build("c/ledger.c");
    let lldb = sibling_lldb(ctx.inproc.lldb_path())?;
    let mut batch = Command::new(&lldb);
    batch
        .args(["-b", "-o", "b apply", "-o", "run", "-o", "frame variable"])
        .args(["-o", "p amount", "-o", "kill"])
        .arg(&program);
    let question = Question {
        name: "lldb-dap",
        adapter: None,
        program,
        function: "apply".to_string(),
        print: "amount",
        value: "0",
        config: String::new(),
        batch: Some((Native::Batch(batch), "lldb -b", 1.1)),
    };
    ask(ctx, question)
}

pub fn gdb(ctx: &mut Context) -> BenchResult<()> {
    let program = build("c/ledger.c");
    let gdb = require_gdb();
    let batch = gdb_batch(&program);
    let question = Question {
        name: "GDB",
        adapter: Some("gdb"),
        program,
        function: "apply".to_string(),
        print: "amount",
        value: "0",
        config: format!("[adapters.gdb]\npath = {:?}\n", gdb.display().to_string()),
        batch: Some((Native::Batch(batch), "gdb -batch", 1.1)),
    };
    ask(ctx, question)
}

/// `gdb -batch` (GDB 16, the one the probes run) stopping in `apply` of fixtures/c/ledger.c,
/// showing the frame's locals and printing `amount`: the batch run GDB's probes are set against.
pub(super) fn gdb_batch(ledger: &Path) -> Command {
    let mut batch = Command::new(require_gdb());
    batch
        .args(["-batch", "-ex", "break apply", "-ex", "run"])
        .args(["-ex", "info locals", "-ex", "print amount", "-ex", "kill"])
        .arg(ledger);
    batch
}

/// `python -m pdb` answering the question (break in `function`, print `print`): the batch run
/// both Python adapters are set against.
pub(super) fn python_batch(program: &Path, function: &str, print: &str) -> Command {
    let mut batch = Command::new("python3");
    batch
        .args([
            "-m",
            "pdb",
            "-c",
            &format!("break {function}"),
            "-c",
            "continue",
        ])
        .args(["-c", &format!("p {print}"), "-c", "quit"])
        .arg(program);
    batch
}

/// A Python question on `adapter`: break in `function` of `fixture`, print `print` (which must
/// show `value`), set against `python -m pdb` asking the same.
fn python_question(
    name: &'static str,
    adapter: &'static str,
    fixture: &str,
    (function, print, value): (&str, &'static str, &'static str),
) -> Question {
    let program = fixture_path(fixture);
    Question {
        name,
        adapter: Some(adapter),
        batch: Some((
            Native::Batch(python_batch(&program, function, print)),
            "python -m pdb",
            1.2,
        )),
        program,
        function: function.to_string(),
        print,
        value,
        config: String::new(),
    }
}

/// Our own Python adapter, the one `probe` picks for a `.py`.
pub fn pdb(ctx: &mut Context) -> BenchResult<()> {
    let question = python_question("pdb", "pdb", "python/app.py", ("square", "n", "3"));
    ask(ctx, question)
}

/// The pdb adapter's tracing cost: the same question after 200,000 calls, which every
/// settrace debugger sees one by one (ours traces line by line only frames that can stop).
pub fn pdb_after_calls(ctx: &mut Context) -> BenchResult<()> {
    let question = python_question(
        "pdb, 200k calls first",
        "pdb",
        "python/hot_calls.py",
        ("report", "total", "19999900000"),
    );
    ask(ctx, question)
}

pub fn debugpy(ctx: &mut Context) -> BenchResult<()> {
    let question = python_question("debugpy", "debugpy", "python/app.py", ("square", "n", "3"));
    ask(ctx, question)
}

pub fn delve(ctx: &mut Context) -> BenchResult<()> {
    let program = build_go("go/ledger/main.go");
    let script = ctx.work.path().join("dlv-init");
    std::fs::write(&script, "break main.add\ncontinue\nprint a\nexit\n")?;
    let mut batch = Command::new("dlv");
    with_go_env(&mut batch)
        .args(["exec", "--allow-non-terminal-interactive=true", "--init"])
        .arg(&script)
        .arg(&program);
    let question = Question {
        name: "Delve",
        adapter: None,
        program,
        function: "main.add".to_string(),
        print: "a",
        value: "0",
        config: String::new(),
        batch: Some((Native::Batch(batch), "dlv exec --init", 1.2)),
    };
    ask(ctx, question)
}

pub fn node(ctx: &mut Context) -> BenchResult<()> {
    let question = Question {
        name: "node",
        adapter: None,
        program: fixture_path("javascript/app.js"),
        function: "accumulate".to_string(),
        print: "n",
        value: "0",
        config: String::new(),
        batch: None,
    };
    ask(ctx, question)
}

/// Ruby under rdbg: a breakpoint by file:line in fixtures/ruby/app.rb's loop, set against the
/// debug gem's own console run without a terminal (`rdbg -e 'b FILE:LINE' -e c -e 'p item'
/// -e q!`), which stops at the script's first line, runs its `-e` commands there, and ends.
pub fn ruby(ctx: &mut Context) -> BenchResult<()> {
    require_ruby();
    let fixture = "ruby/app.rb";
    let program = fixture_path(fixture);
    let line = line_of(fixture, "@total_add");
    let rdbg = Command::new("ruby")
        .args(["-e", "print Gem.bin_path('debug', 'rdbg')"])
        .output()
        .map_err(|e| format!("run ruby: {e}"))?;
    let mut batch = Command::new("ruby");
    batch
        .arg(String::from_utf8_lossy(&rdbg.stdout).as_ref())
        .args(["--no-color", "-e"])
        .arg(format!("b {}:{line}", path_str(&program)?))
        .args(["-e", "c", "-e", "p item", "-e", "q!", "--"])
        .arg(&program);
    // Ours is given the bare name, as a user types it; rdbg 1.4 needs the full path.
    let location = format!("app.rb:{line}");
    let question = Question {
        name: "rdbg",
        adapter: None,
        program,
        function: location,
        print: "item",
        value: "1",
        config: String::new(),
        batch: Some((Native::Batch(batch), "rdbg -e", 1.2)),
    };
    ask(ctx, question)
}

/// PHP under Xdebug: a breakpoint by file:line in fixtures/php/account.php, set against a
/// minimal DBGp client doing the same (`dbgp_client.rs`).
pub fn php(ctx: &mut Context) -> BenchResult<()> {
    require_php();
    let fixture = "php/account.php";
    let program = fixture_path(fixture);
    let line = line_of(fixture, "@apply_body");
    let php = which::which("php").map_err(|e| format!("php: {e}"))?;
    let script = program.clone();
    let client = move || dbgp_client::first_stop(&php, &script, line, "$amount");
    let question = Question {
        name: "Xdebug",
        adapter: None,
        program,
        function: format!("account.php:{line}"),
        print: "$amount",
        value: "5",
        config: String::new(),
        batch: Some((Native::Client(Box::new(client)), "DBGp client", 1.2)),
    };
    ask(ctx, question)
}

/// lldb's own CLI beside lldb-dap (`lldb-dap-19` → `lldb-19`).
fn sibling_lldb(dap: &Path) -> BenchResult<PathBuf> {
    let name = dap
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or("lldb-dap's path has no name")?
        .replacen("lldb-dap", "lldb", 1);
    let lldb = dap.with_file_name(name);
    if lldb.is_file() {
        return Ok(lldb);
    }
    which::which("lldb").map_err(|_| format!("no lldb beside {}", dap.display()).into())
}

/// What one adapter's rounds collected.
#[derive(Default)]
struct Samples {
    probe: Vec<Duration>,
    batch: Vec<Duration>,
    launch: Vec<Duration>,
    inproc: Vec<Duration>,
}

fn ask(ctx: &mut Context, mut question: Question) -> BenchResult<()> {
    let program = path_str(&question.program)?.to_string();
    let marks = MarkFile::new(ctx.work.path(), question.name);
    let mut probe_args = vec!["probe", &program, "--break", &question.function];
    probe_args.extend(["--print", question.print]);
    let mut start_args = vec!["start", &program, "--break", &question.function];
    if let Some(adapter) = question.adapter {
        probe_args.extend(["--adapter", adapter]);
        start_args.extend(["--adapter", adapter]);
    }
    // `print:  amount (long) = 0`, the type as the adapter names it.
    let expected = format!("= {}", question.value);
    let mut samples = Samples::default();
    for round in 0..ctx.plan.launches + 1 {
        let measured = round > 0;
        // probe
        let session = CliSession::with_config(ctx.bin(), &question.config);
        marks.clear();
        let run = marks.run(session.command(&probe_args), "")?;
        ok(&run.output, "probe")?;
        expect_contains(&run.output, &expected, "probe's --print")?;
        drop(session);
        if measured {
            samples.probe.push(run.elapsed);
            ctx.probe_timelines.add(question.name, &run.marks);
        }
        // the native batch run
        if let Some((native, label, _)) = &mut question.batch {
            let began = Instant::now();
            let answer = native.answer(ctx.work.path())?;
            if measured {
                samples.batch.push(began.elapsed());
            }
            if !answer.contains(question.value) {
                return Err(format!("{label} did not print {}: {answer}", question.value).into());
            }
        }
        // start, which answers with the first stop
        let session = CliSession::with_config(ctx.bin(), &question.config);
        marks.clear();
        let start = marks.run(session.command(&start_args), "start: ")?;
        ok(&start.output, "start")?;
        // `start` answers with the first stop, as gdb's `run` does.
        expect_contains(&start.output, &question.function, "start to the breakpoint")?;
        drop(session);
        if measured {
            samples.launch.push(start.elapsed);
            ctx.launch_timelines.add(question.name, &start.marks);
        }
        if question.name == "lldb-dap" {
            let inproc = ctx
                .inproc
                .launch_to_breakpoint(&question.program, &question.function)?;
            if measured {
                samples.inproc.push(inproc);
            }
        }
    }
    rows(ctx, &question, samples);
    Ok(())
}

fn ok(out: &std::process::Output, what: &str) -> BenchResult<()> {
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{what} failed with {}: {}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr).trim(),
        String::from_utf8_lossy(&out.stdout).trim()
    )
    .into())
}

fn rows(ctx: &mut Context, question: &Question, samples: Samples) {
    let name = question.name;
    let probe = Stats::of(samples.probe);
    match &question.batch {
        Some((_, label, target)) => {
            let batch = Stats::of(samples.batch);
            let ratio = probe.median_ratio(&batch);
            ctx.table.row(
                &format!("{name}: probe --break {} --print", question.function),
                &probe,
                &format!("{ratio:.2}× {label}"),
                &format!("≤ {target}× {label}"),
                Some(ratio <= *target),
            );
            ctx.table.row(
                &format!("  {label}, same question"),
                &batch,
                "the native debugger's batch mode",
                "—",
                None,
            );
        }
        None => ctx.table.row(
            &format!("{name}: probe --break {} --print", question.function),
            &probe,
            "no batch mode to set it against",
            "—",
            None,
        ),
    }
    let launch = Stats::of(samples.launch);
    if samples.inproc.is_empty() {
        let ratio = launch.median_ratio(&probe);
        ctx.table.row(
            &format!("  {name}: start --break, to its first stop"),
            &launch,
            &format!("{ratio:.2}× probe"),
            "—",
            None,
        );
    } else {
        let inproc = Stats::of(samples.inproc);
        let ratio = launch.median_ratio(&inproc);
        ctx.table.row(
            &format!("  {name}: start --break, to its first stop"),
            &launch,
            &format!("{ratio:.2}× in-process"),
            "≤ 1.1× in-process",
            Some(ratio <= 1.1),
        );
        ctx.table.row(
            "    in-process launch to breakpoint",
            &inproc,
            "spawn → … → stopped → stackTrace(1)",
            "—",
            None,
        );
    }
}

//! The JVM against `jdb`, the JDK's own debugger (issue 38), on fixtures/java/bench/Ledger.java
//! compiled with `javac -g`, asked the same questions in the same rounds:
//!
//! - `java-first-stop`: `probe --break Ledger.java:LINE --print amount -- java -cp DIR Ledger`
//!   against jdb launching the same class and answering `stop at`, `run`, `locals`,
//!   `print amount`, `cont`; and `start --break` to its first stop beside them;
//! - `java-step`: `next --wait` against jdb's `next`, each stepping a loop no number of steps
//!   finishes, alternately;
//! - `java-locals`: `locals` on a frame holding a 10,000-element `ArrayList` and a 10,000-entry
//!   `HashMap`, with the bytes it printed, and jdb's `locals` on the same frame.
//!
//! jdb is driven through its stdin and stdout, not a terminal: each command is written when
//! the output it waits for has appeared (the deferred breakpoint's note, the `Breakpoint hit:`
//! or `Step completed:` line followed by the `main[1] ` prompt), never after a sleep. Its own
//! JVM's start is part of what it costs, as the CLI's process start is part of ours.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use super::Context;
use crate::common::{fixture_path, line_of, require_jdk};
use crate::session::{CliSession, expect_contains, next_and_wait, path_str};
use crate::stats::Stats;
use crate::timeline::MarkFile;
use crate::{BenchResult, WAIT_LIMIT};

const FIXTURE: &str = "java/bench/Ledger.java";
/// The prompt jdb prints while the main thread is suspended.
const SUSPENDED: &str = "main[1] ";

/// The fixture compiled, and the JDK's tools: the one `debugger` runs (`JAVA_HOME`, else
/// `java` on PATH) and its own `jdb`.
struct Jvm {
    classes: PathBuf,
    jdb: PathBuf,
}

impl Jvm {
    fn build(ctx: &Context) -> BenchResult<Jvm> {
        let home = require_jdk().home.ok_or("no JDK folder was found")?;
        let classes = ctx.work.path().join("java-classes");
        let status = Command::new(home.join("bin/javac"))
            .args(["-g", "-d"])
            .arg(&classes)
            .arg(fixture_path(FIXTURE))
            .status()
            .map_err(|e| format!("run javac: {e}"))?;
        if !status.success() {
            return Err(format!("javac {FIXTURE} failed ({status})").into());
        }
        Ok(Jvm {
            classes,
            jdb: home.join("bin/jdb"),
        })
    }

    /// `-- java -cp DIR Ledger ARGS…`, the program as `debugger` is given it.
    fn command_line<'a>(&'a self, args: &[&'a str]) -> BenchResult<Vec<&'a str>> {
        let mut all = vec!["--", "java", "-cp", path_str(&self.classes)?, "Ledger"];
        all.extend_from_slice(args);
        Ok(all)
    }

    /// jdb launching the fixture with `args`, its deferred breakpoint at `line` set, run to it.
    fn jdb_at(&self, line: u32, args: &[&str]) -> BenchResult<Jdb> {
        let mut jdb = Jdb::launch(&self.jdb, &self.classes, args)?;
        jdb.ask(&format!("stop at Ledger:{line}"), &["loaded.", "> "])?;
        jdb.ask("run", &["Breakpoint hit:", SUSPENDED])?;
        Ok(jdb)
    }
}

/// One jdb process, its output read by a thread of its own so every wait can time out.
struct Jdb {
    child: Child,
    stdin: ChildStdin,
    chunks: Receiver<Vec<u8>>,
    seen: Vec<u8>,
    /// Where the next expected text is looked for: what earlier answers printed is passed.
    from: usize,
}

impl Jdb {
    fn launch(jdb: &Path, classes: &Path, args: &[&str]) -> BenchResult<Jdb> {
        let mut child = Command::new(jdb)
            .arg("-classpath")
            .arg(classes)
            .arg("Ledger")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("run {}: {e}", jdb.display()))?;
        let stdin = child.stdin.take().ok_or("jdb has no stdin")?;
        let mut stdout = child.stdout.take().ok_or("jdb has no stdout")?;
        let (send, chunks) = channel();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 16 * 1024];
            while let Ok(n @ 1..) = stdout.read(&mut buffer) {
                if send.send(buffer[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let mut jdb = Jdb {
            child,
            stdin,
            chunks,
            seen: Vec::new(),
            from: 0,
        };
        jdb.expect("> ")?;
        Ok(jdb)
    }

    /// Writes `command`, then waits for each of `replies` in turn.
    fn ask(&mut self, command: &str, replies: &[&str]) -> BenchResult<()> {
        writeln!(self.stdin, "{command}").map_err(|e| format!("write to jdb: {e}"))?;
        self.stdin
            .flush()
            .map_err(|e| format!("write to jdb: {e}"))?;
        for reply in replies {
            self.expect(reply)?;
        }
        Ok(())
    }

    /// Reads until `text` appears after what was matched before, and moves past it.
    fn expect(&mut self, text: &str) -> BenchResult<()> {
        let deadline = Instant::now() + WAIT_LIMIT;
        loop {
            let found = self.seen[self.from..]
                .windows(text.len())
                .position(|w| w == text.as_bytes());
            if let Some(at) = found {
                self.from += at + text.len();
                return Ok(());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.chunks.recv_timeout(left) {
                Ok(chunk) => self.seen.extend_from_slice(&chunk),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!("jdb did not print {text:?}: {}", self.text()).into());
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!("jdb ended before {text:?}: {}", self.text()).into());
                }
            }
        }
    }

    /// What was printed since `from`, the answer of the last command asked.
    fn answer_since(&self, from: usize) -> String {
        String::from_utf8_lossy(&self.seen[from..self.from]).into_owned()
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.seen).into_owned()
    }

    /// `cont` to the program's end, and jdb's.
    fn run_to_end(mut self) -> BenchResult<()> {
        self.ask("cont", &["The application exited"])?;
        // The reader thread ends at jdb's end of output; jdb's exit follows.
        while self.chunks.recv_timeout(WAIT_LIMIT).is_ok() {}
        self.child
            .wait()
            .map_err(|e| format!("wait for jdb: {e}"))?;
        Ok(())
    }
}

impl Drop for Jdb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The same one-shot question (break in `apply`, show the locals, print `amount`, end) asked
/// by `probe`, by jdb, and by `start --break` to its first stop, interleaved round by round.
pub fn first_stop(ctx: &mut Context) -> BenchResult<()> {
    let jvm = Jvm::build(ctx)?;
    let line = line_of(FIXTURE, "@apply");
    let location = format!("Ledger.java:{line}");
    let program = jvm.command_line(&[])?;
    let mut probe_args = vec!["probe", "--break", &location, "--print", "amount"];
    probe_args.extend_from_slice(&program);
    let mut start_args = vec!["start", "--break", &location];
    start_args.extend_from_slice(&program);
    let marks = MarkFile::new(ctx.work.path(), "java");
    let (mut probes, mut jdbs, mut starts) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ctx.plan.launches + 1 {
        let measured = round > 0;
        let session = ctx.session();
        marks.clear();
        let run = marks.run(session.command(&probe_args), "")?;
        if !run.output.status.success() {
            return Err(format!(
                "probe failed: {}{}",
                String::from_utf8_lossy(&run.output.stderr),
                String::from_utf8_lossy(&run.output.stdout)
            )
            .into());
        }
        expect_contains(&run.output, "amount (long) = 0", "probe's --print")?;
        drop(session);

        let began = Instant::now();
        let mut jdb = jvm.jdb_at(line, &[])?;
        jdb.ask("locals", &["Local variables:", SUSPENDED])?;
        jdb.ask("print amount", &[" amount = 0", SUSPENDED])?;
        jdb.run_to_end()?;
        let jdb_time = began.elapsed();

        let session = ctx.session();
        let start = marks.run(session.command(&start_args), "start: ")?;
        expect_contains(&start.output, "Ledger.apply", "start to the breakpoint")?;
        drop(session);
        if measured {
            probes.push(run.elapsed);
            ctx.probe_timelines.add("java", &run.marks);
            jdbs.push(jdb_time);
            starts.push(start.elapsed);
            ctx.launch_timelines.add("java", &start.marks);
        }
    }
    let (probe, jdb, start) = (Stats::of(probes), Stats::of(jdbs), Stats::of(starts));
    let ratio = probe.median_ratio(&jdb);
    let table = &mut ctx.table;
    table.row(
        "java: probe --break Ledger.java:L --print",
        &probe,
        &format!("{ratio:.2}× jdb"),
        "≤ 1.1× jdb",
        Some(ratio <= 1.1),
    );
    table.row(
        "  jdb, same question (stdin, prompt by prompt)",
        &jdb,
        "the JDK's own debugger",
        "—",
        None,
    );
    table.row(
        "  java: start --break, to its first stop",
        &start,
        &format!("{:.2}× probe", start.median_ratio(&probe)),
        "—",
        None,
    );
    Ok(())
}

/// `next --wait` in Ledger's endless loop against jdb's `next` in another run of it, stepped
/// alternately so each side idles between its steps alike; and the CLI's step without its
/// process (the daemon round trip).
pub fn step(ctx: &mut Context) -> BenchResult<()> {
    let jvm = Jvm::build(ctx)?;
    let line = line_of(FIXTURE, "@loop");
    let location = format!("Ledger.java:{line}");
    let mut args = vec!["start", "--break", &location];
    args.extend_from_slice(&jvm.command_line(&["loop"])?);
    let session = ctx.session();
    let out = session.run(&args)?;
    expect_contains(&out, "Ledger.loop", "start to the loop")?;
    // Each round of the loop would stop at the breakpoint again, a hit rather than a step.
    session.run(&["breakpoint", "remove", "--all"])?;
    let mut jdb = jvm.jdb_at(line, &["loop"])?;
    jdb.ask(&format!("clear Ledger:{line}"), &["Removed:", SUSPENDED])?;
    let [cli, ipc, native] = steps(ctx, &session, &mut jdb)?.map(Stats::of);
    drop(jdb);
    drop(session);

    let ms = |stats: &Stats| stats.median.as_secs_f64() * 1000.0;
    let over = ms(&cli) - ms(&native);
    let table = &mut ctx.table;
    table.row(
        "java: next --wait",
        &cli,
        &format!("{over:+.2} ms vs jdb next"),
        "≤ jdb next + 2 ms",
        Some(over <= 2.0),
    );
    table.row(
        "  java: next --wait's daemon round trip (no CLI process)",
        &ipc,
        &format!("{:+.2} ms vs jdb next", ms(&ipc) - ms(&native)),
        "—",
        None,
    );
    table.row(
        "  jdb next → Step completed → prompt",
        &native,
        "the JVM's step through JDI",
        "—",
        None,
    );
    Ok(())
}

fn steps(ctx: &Context, session: &CliSession, jdb: &mut Jdb) -> BenchResult<[Vec<Duration>; 3]> {
    let plan = &ctx.plan;
    let mut samples: [Vec<Duration>; 3] = Default::default();
    for round in 0..plan.warmup + plan.steps {
        let (cli, out) = session.timed(&["next", "--wait"])?;
        expect_contains(&out, "Stepped", "next --wait")?;
        let ipc = session.ipc(next_and_wait())?;
        let began = Instant::now();
        jdb.ask("next", &["Step completed:", SUSPENDED])?;
        let native = began.elapsed();
        if round >= plan.warmup {
            for (all, time) in samples.iter_mut().zip([cli, ipc, native]) {
                all.push(time);
            }
        }
    }
    Ok(samples)
}

/// `locals` where the frame holds a 10,000-element ArrayList and a 10,000-entry HashMap: its
/// time and how much it printed, beside jdb's `locals` on the same frame (which names each
/// collection by its class and id, showing none of its elements).
pub fn big_locals(ctx: &mut Context) -> BenchResult<()> {
    let jvm = Jvm::build(ctx)?;
    let line = line_of(FIXTURE, "@big_ready");
    let location = format!("Ledger.java:{line}");
    let mut args = vec!["start", "--break", &location];
    args.extend_from_slice(&jvm.command_line(&["big"])?);
    let session = ctx.session();
    let out = session.run(&args)?;
    expect_contains(&out, "Ledger.big", "start to the full frame")?;
    let mut jdb = jvm.jdb_at(line, &["big"])?;
    let plan = ctx.plan;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let (mut shown, mut jdb_shown) = ((0, 0), 0);
    for round in 0..plan.warmup + plan.heavy {
        let (elapsed, out) = session.timed(&["locals"])?;
        expect_contains(&out, "… 9990 more", "locals shows the first elements")?;
        shown = (out.stdout.len(), out.stdout.split(|b| *b == b'\n').count());
        let from = jdb.from;
        let began = Instant::now();
        jdb.ask("locals", &["Local variables:", SUSPENDED])?;
        let native = began.elapsed();
        jdb_shown = jdb.answer_since(from).len();
        if round >= plan.warmup {
            ours.push(elapsed);
            theirs.push(native);
        }
    }
    drop(jdb);
    drop(session);
    let (ours, theirs) = (Stats::of(ours), Stats::of(theirs));
    let capped = shown.0 < 64 * 1024;
    let table = &mut ctx.table;
    table.row(
        "java: locals, ArrayList + HashMap of 10,000",
        &ours,
        &format!("{} lines, {} bytes shown", shown.1, shown.0),
        "≤ 50 ms, capped",
        Some(ours.median <= Duration::from_millis(50) && capped),
    );
    table.row(
        "  jdb locals, same frame",
        &theirs,
        &format!("{jdb_shown} bytes, no elements"),
        "—",
        None,
    );
    Ok(())
}

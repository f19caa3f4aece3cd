//! Java on a library nobody here wrote: Apache commons-lang3 from Maven Central, called by the
//! small `fixtures/java/library` program (a Maven project, built offline once
//! `scripts/install-test-deps.sh` fetched the library). Breakpoints by the library's bare file
//! names, in classes not loaded yet; steps into its methods; its values, each checked against
//! what the JDK's own debugger, `jdb`, shows at the same line of the same program.
//!
//! jdb is driven through pipes: each command is written once the output it waits for has come.
//!
//! Every test fails (never skips) when no JDK or Maven is found: `.ci/run` installs them.

mod common;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use common::java::step_with;
use common::maven::{self, MavenBuild};
use common::{Session, repo_root, require_jdk};
use serde_json::Value;

/// Lines of commons-lang3 3.17.0, the version the fixture pins.
const CENTER_STRLEN: u32 = 616; // StringUtils.center: `final int strLen = str.length();`
const CENTER_LEFT_PAD: u32 = 621; // `str = leftPad(str, strLen + pads / 2, padChar);`
const RANGE_CONTAINS: u32 = 245; // Range.contains: `if (element == null) {`

const MAIN_CLASS: &str = "demo.Labels";

fn labels() -> MavenBuild {
    maven::build(&repo_root().join("fixtures/java/library"))
}

/// `start --break AT -- java -cp CLASSPATH demo.Labels`, answered with its first stop.
#[track_caller]
fn start_at(s: &Session, project: &MavenBuild, at: &str) -> Value {
    let started = s.data(&[
        "start",
        "--break",
        at,
        "--",
        "java",
        "-cp",
        &project.classpath,
        MAIN_CLASS,
    ]);
    assert_eq!(started["adapter"], "java", "{started}");
    started["stop"].clone()
}

/// The stop's frame as `(function, line)`.
fn place(stop: &Value) -> (String, u64) {
    (
        stop["frame"]["function"].as_str().unwrap_or("").to_owned(),
        stop["frame"]["line"].as_u64().unwrap_or(0),
    )
}

/// Our locals as jdb writes them: name to value, a `char` without its quotes (jdb prints `*`
/// where Java source and we write `'*'`).
fn our_locals(s: &Session) -> BTreeMap<String, String> {
    let locals = s.data(&["locals"]);
    locals["variables"]
        .as_array()
        .expect("variables")
        .iter()
        .filter(|v| v["name"] != "this")
        .map(|v| {
            let value = v["value"].as_str().unwrap_or("");
            let value = match v["type"].as_str() {
                Some("char") => value.trim_matches('\''),
                _ => value,
            };
            (
                v["name"].as_str().unwrap_or("").to_owned(),
                value.to_owned(),
            )
        })
        .collect()
}

/// jdb on the same program, driven prompt by prompt.
struct Jdb {
    child: Child,
    stdin: ChildStdin,
    output: Receiver<String>,
    unread: String,
}

impl Jdb {
    fn launch(project: &MavenBuild) -> Jdb {
        let jdk = require_jdk();
        let jdb = jdk.home.expect("the JDK's folder").join("bin/jdb");
        let mut child = Command::new(jdb)
            .args(["-classpath", &project.classpath, MAIN_CLASS])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("jdb is part of the JDK");
        let stdin = child.stdin.take().expect("jdb's stdin");
        let mut stdout = child.stdout.take().expect("jdb's stdout");
        let (sender, output) = channel();
        std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = stdout.read(&mut chunk) {
                if sender
                    .send(String::from_utf8_lossy(&chunk[..n]).into_owned())
                    .is_err()
                {
                    break;
                }
            }
        });
        let mut jdb = Jdb {
            child,
            stdin,
            output,
            unread: String::new(),
        };
        jdb.until("> ");
        jdb
    }

    /// The output up to and including `marker`, within 60 s.
    #[track_caller]
    fn until(&mut self, marker: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(at) = self.unread.find(marker) {
                let rest = self.unread.split_off(at + marker.len());
                return std::mem::replace(&mut self.unread, rest);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(chunk) => self.unread.push_str(&chunk),
                Err(_) => panic!("jdb never wrote {marker:?}; it wrote:\n{}", self.unread),
            }
        }
    }

    /// Writes `command` and returns what jdb answered up to `marker`.
    #[track_caller]
    fn ask(&mut self, command: &str, marker: &str) -> String {
        writeln!(self.stdin, "{command}").expect("write to jdb");
        self.until(marker)
    }

    /// Runs the program to the breakpoint at `class:line`.
    #[track_caller]
    fn run_to(&mut self, class: &str, line: u32) {
        self.ask(
            &format!("stop at {class}:{line}"),
            "It will be set after the class is loaded.",
        );
        self.ask("run", "Breakpoint hit:");
        self.until("main[1] ");
    }

    /// `locals`: the method's arguments and local variables, name to value.
    #[track_caller]
    fn locals(&mut self) -> BTreeMap<String, String> {
        self.ask("locals", "main[1] ")
            .lines()
            .filter_map(|line| line.split_once(" = "))
            .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
            .collect()
    }

    /// `print EXPRESSION`'s value, as jdb writes it.
    #[track_caller]
    fn print(&mut self, expression: &str) -> String {
        let answer = self.ask(&format!("print {expression}"), "main[1] ");
        let prefix = format!("{expression} = ");
        answer
            .lines()
            .find_map(|line| line.trim().strip_prefix(&prefix))
            .unwrap_or_else(|| panic!("jdb's answer to print {expression}: {answer}"))
            .to_owned()
    }

    fn step(&mut self, command: &str) {
        self.ask(command, "Step completed:");
        self.until("main[1] ");
    }
}

impl Drop for Jdb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The real-program check: a breakpoint by the library's bare file name binds when the
/// class loads, the locals match jdb's at the same line, `next` walks the library's lines as
/// jdb's does, `step` goes into the library's own callee and `finish` reports what it returned.
#[test]
fn the_library_breaks_by_its_bare_file_name_steps_in_and_its_values_match_jdb() {
    let project = labels();
    let s = Session::new();
    let stop = start_at(&s, &project, &format!("StringUtils.java:{CENTER_STRLEN}"));
    assert_eq!(
        place(&stop),
        ("StringUtils.center".to_owned(), u64::from(CENTER_STRLEN)),
        "{stop}"
    );
    let mut jdb = Jdb::launch(&project);
    jdb.run_to("org.apache.commons.lang3.StringUtils", CENTER_STRLEN);
    let ours = our_locals(&s);
    assert_eq!(ours, jdb.locals());
    assert_eq!(ours.get("str").map(String::as_str), Some("\"alpha\""));

    // 616 → 617 → 618 → 621: `if (pads <= 0)` is false, so its `return` is not a stop.
    let mut stop = Value::Null;
    for _ in 0..3 {
        stop = step_with(&s, "next");
        jdb.step("next");
    }
    assert_eq!(stop["frame"]["line"], CENTER_LEFT_PAD, "{stop}");
    let ours = our_locals(&s);
    assert_eq!(ours, jdb.locals());
    assert_eq!(
        (ours.get("strLen"), ours.get("pads")),
        (Some(&"5".to_owned()), Some(&"4".to_owned()))
    );
    assert_eq!(
        s.value_of("strLen + pads / 2"),
        jdb.print("strLen + pads / 2")
    );

    let stop = step_with(&s, "step");
    assert_eq!(place(&stop).0, "StringUtils.leftPad", "{stop}");
    jdb.step("step");
    assert_eq!(our_locals(&s), jdb.locals());

    let finished = step_with(&s, "finish");
    assert_eq!(place(&finished).0, "StringUtils.center", "{finished}");
    assert_eq!(finished["return_value"], "\"**alpha\"", "{finished}");
}

/// A library object at a breakpoint in a generic method of a class not loaded at the start:
/// `this` by its `toString()`, its fields and a call through its comparator, as jdb prints
/// them; a boxed argument by its value, where jdb's `locals` names only the box.
#[test]
fn a_library_object_reads_as_jdb_prints_it() {
    let project = labels();
    let s = Session::new();
    let stop = start_at(&s, &project, &format!("Range.java:{RANGE_CONTAINS}"));
    assert_eq!(
        place(&stop),
        ("Range.contains".to_owned(), u64::from(RANGE_CONTAINS)),
        "{stop}"
    );
    let mut jdb = Jdb::launch(&project);
    jdb.run_to("org.apache.commons.lang3.Range", RANGE_CONTAINS);

    assert_eq!(jdb.print("this"), "\"[4..5]\"");
    assert_eq!(s.value_of("this"), "[4..5]");
    for (expression, jdb_writes) in [
        ("this.minimum", "\"4\""),
        ("this.maximum", "\"5\""),
        ("element", "\"5\""),
        ("comparator.compare(element, minimum)", "1"),
    ] {
        assert_eq!(jdb.print(expression), jdb_writes, "jdb: print {expression}");
        // jdb writes a boxed value by its toString(), quoted; we unbox it.
        assert_eq!(
            s.value_of(expression),
            jdb_writes.trim_matches('"'),
            "print {expression}"
        );
    }
    let element = jdb.locals();
    assert!(
        element["element"].starts_with("instance of java.lang.Integer"),
        "{element:?}"
    );
    let ours = s.data(&["locals"]);
    let element = common::variable(&ours["variables"], "element");
    assert_eq!(
        (element["value"].as_str(), element["type"].as_str()),
        (Some("5"), Some("java.lang.Integer")),
        "{ours}"
    );
}

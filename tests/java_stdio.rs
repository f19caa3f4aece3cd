//! A Java program's standard streams under the built-in `java` adapter, as `debuggee_io.rs`
//! checks them for the others: stdin empty unless `--stdin FILE` feeds it, and stdout a
//! terminal only with `--tty`, in each form a JVM is started from (a single source file, a jar,
//! a `java` command line after `--`). The JVM's stderr stays a pipe of ours (it tells why a JVM
//! that ends before it connects ended), as Node's does.
//!
//! Every test fails (never skips) when no JDK is found: `.ci/run` installs them.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::java::step_with;
use common::{Session, fixture_path, line_of, require_jdk};
use serde_json::Value;

const STREAMS: &str = "java/Streams.java";

/// The fixture built once into classes and a jar, and copied as a single source file.
struct Built {
    dir: tempfile::TempDir,
}

impl Built {
    fn new() -> Built {
        let jdk = require_jdk();
        let bin = jdk.home.expect("the JDK's folder").join("bin");
        let dir = tempfile::tempdir().expect("tempdir");
        let source = dir.path().join("Streams.java");
        std::fs::copy(fixture_path(STREAMS), &source).expect("copy the fixture");
        let classes = dir.path().join("classes");
        let javac = Command::new(bin.join("javac"))
            .args(["-g", "-d"])
            .arg(&classes)
            .arg(&source)
            .status()
            .expect("run javac");
        assert!(javac.success(), "javac failed");
        let jar = Command::new(bin.join("jar"))
            .args(["--create", "--file"])
            .arg(dir.path().join("streams.jar"))
            .args(["--main-class", "Streams", "-C"])
            .arg(&classes)
            .arg(".")
            .status()
            .expect("run jar");
        assert!(jar.success(), "jar failed");
        Built { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Each form a JVM is started from, as `start`'s program and arguments before the
    /// program's own.
    fn forms(&self) -> Vec<(&'static str, Vec<String>)> {
        let text = |p: PathBuf| p.to_str().expect("utf-8 path").to_string();
        vec![
            ("source", vec![text(self.path("Streams.java")), "--".into()]),
            ("jar", vec![text(self.path("streams.jar")), "--".into()]),
            (
                "command line",
                vec![
                    "--".into(),
                    "java".into(),
                    "-cp".into(),
                    text(self.path("classes")),
                    "Streams".into(),
                ],
            ),
        ]
    }
}

/// `start --no-wait EXTRA... FORM... MODE`, from the session's own folder, run to its end;
/// returns its stdout.
#[track_caller]
fn stdout_of(s: &Session, form: &[String], mode: &str, extra: &[&str]) -> String {
    let mut args = vec!["start", "--no-wait"];
    args.extend_from_slice(extra);
    args.extend(form.iter().map(String::as_str));
    args.push(mode);
    let started = s.data(&args);
    assert_eq!(started["adapter"], "java", "{started}");
    let end = s.data(&["await", "--timeout", "60"]);
    assert_eq!(end["reason"], "exited", "{end}\n{}", s.log());
    let output = s.data(&["output"]);
    s.run(&["stop"]);
    stream_text(&output, "stdout")
}

/// The text of every segment of `stream` in an `output --json` answer, joined.
fn stream_text(output: &Value, stream: &str) -> String {
    output["segments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["stream"] == stream)
        .filter_map(|s| s["text"].as_str())
        .collect()
}

#[test]
fn stdin_is_empty_unless_a_file_is_given_in_every_form() {
    let built = Built::new();
    let s = Session::new();
    std::fs::write(s.cwd.join("input.txt"), "hello from a file\nsecond line\n").expect("write");
    for (name, form) in built.forms() {
        assert_eq!(
            stdout_of(&s, &form, "stdin", &[]),
            "stdin: (eof)\n",
            "{name}"
        );
        assert_eq!(
            stdout_of(&s, &form, "stdin", &["--stdin", "input.txt"]),
            "stdin: hello from a file\nstdin: second line\nstdin: (eof)\n",
            "{name}"
        );
    }
}

#[test]
fn stdout_is_a_terminal_only_with_tty_in_every_form() {
    let built = Built::new();
    let s = Session::new();
    for (name, form) in built.forms() {
        assert_eq!(
            stdout_of(&s, &form, "tty", &[]),
            "isatty: in=0 out=0 err=0\n",
            "{name}"
        );
        // stdin is the `--stdin` file or empty, never the terminal; stderr stays our pipe.
        assert_eq!(
            stdout_of(&s, &form, "tty", &["--tty"]),
            "isatty: in=0 out=1 err=0\n",
            "{name}"
        );
    }
}

/// A program stopped while it reads its stdin file: the line read is a local, and the rest
/// of the file is still there after the stop.
#[test]
fn a_stop_in_a_program_reading_its_stdin_file_shows_the_line_read() {
    let built = Built::new();
    let s = Session::new();
    std::fs::write(s.cwd.join("input.txt"), "first\nsecond\n").expect("write");
    let location = format!("Streams.java:{}", line_of(STREAMS, "@read_line"));
    let program = built.path("Streams.java");
    let started = s.data(&[
        "start",
        "--no-wait",
        "--stdin",
        "input.txt",
        "--break",
        &location,
        program.to_str().expect("utf-8 path"),
        "--",
        "stdin",
    ]);
    assert_eq!(started["adapter"], "java", "{started}");
    let stop = step_with(&s, "continue");
    assert_eq!(stop["frame"]["function"], "Streams.main", "{stop}");
    assert_eq!(s.value_of("line"), "\"first\"");
    s.data(&["breakpoint", "remove", "--all"]);
    let end = step_with(&s, "continue");
    assert_eq!(end["reason"], "exited", "{end}");
    let text = s.output_containing(&["stdin: (eof)"], Duration::from_secs(30));
    assert!(text.contains("stdin: first\nstdin: second\n"), "{text}");
}

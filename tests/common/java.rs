//! Sessions on the built-in java adapter (`java.rs`): the shop fixture built as a project of
//! its own (sources under `src/main/java`, classes compiled by `javac -g` into `target/classes`),
//! started from a folder that is not the program's, and the checks of a stop they share.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::{Session, WAIT_SECS, fixture_path, line_of, require_jdk};

pub const MAIN: &str = "java/com/shop/Main.java";
pub const CART: &str = "java/com/shop/Cart.java";
pub const LATE: &str = "java/com/shop/Late.java";
pub const GREETER: &str = "java/Greeter.java";

/// A second JDK, for a test through `JAVA_HOME` (`.ci/run` installs it).
pub const TEMURIN_25: &str = "/usr/lib/jvm/temurin-25-jdk-amd64";

/// The shop fixture as a project: its sources copied under `src/main/java`, compiled with
/// `javac -g` into `target/classes`.
pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    pub fn build() -> Project {
        let jdk = require_jdk();
        let dir = tempfile::tempdir().expect("tempdir");
        let package = dir.path().join("src/main/java/com/shop");
        std::fs::create_dir_all(&package).expect("mkdir");
        let mut sources = Vec::new();
        for fixture in [MAIN, CART, LATE] {
            let from = fixture_path(fixture);
            let to = package.join(from.file_name().expect("file name"));
            std::fs::copy(&from, &to).expect("copy the fixture");
            sources.push(to);
        }
        let javac = jdk.home.expect("the JDK's folder").join("bin/javac");
        let status = Command::new(javac)
            .args(["-g", "-d"])
            .arg(dir.path().join("target/classes"))
            .args(&sources)
            .status()
            .expect("run javac");
        assert!(status.success(), "javac failed");
        Project { dir }
    }

    pub fn classes(&self) -> PathBuf {
        self.dir.path().join("target/classes")
    }

    /// The project's copy of a fixture's source file.
    pub fn source(&self, fixture: &str) -> PathBuf {
        let name = Path::new(fixture).file_name().expect("file name");
        self.dir.path().join("src/main/java/com/shop").join(name)
    }

    /// `start --no-wait EXTRA... -- java -cp target/classes com.shop.Main ARGS...`, from the
    /// session's own folder.
    #[track_caller]
    pub fn start(&self, s: &Session, extra: &[&str], args: &[&str]) -> Value {
        let classes = self.classes();
        let classes = classes.to_str().expect("utf-8 path");
        let mut all = vec!["start", "--no-wait"];
        all.extend_from_slice(extra);
        all.extend_from_slice(&["--", "java", "-cp", classes, "com.shop.Main"]);
        all.extend_from_slice(args);
        let started = s.data(&all);
        assert_eq!(started["adapter"], "java", "{started}");
        started
    }

    /// Asserts the stop is in `function` at the line of `marker` in the project's copy of
    /// `fixture`.
    #[track_caller]
    pub fn assert_at(&self, stop: &Value, fixture: &str, function: &str, marker: &str) {
        assert_eq!(stop["frame"]["function"], function, "{stop}");
        assert_eq!(stop["frame"]["line"], line_of(fixture, marker), "{stop}");
        let file = stop["frame"]["file"].as_str().unwrap_or("");
        assert_eq!(Path::new(file), self.source(fixture), "{stop}");
    }
}

/// `FILE:LINE` of `marker` in `fixture`, by the file's bare name.
pub fn bare(fixture: &str, marker: &str) -> String {
    let name = Path::new(fixture)
        .file_name()
        .expect("file name")
        .to_string_lossy()
        .into_owned();
    format!("{name}:{}", line_of(fixture, marker))
}

/// Runs an execution command with `--wait` and returns the stop, asserting it succeeded.
#[track_caller]
pub fn step_with(s: &Session, command: &str) -> Value {
    let value = s.json(&[command, "--wait", "--timeout", WAIT_SECS]);
    assert_eq!(
        value["ok"],
        true,
        "{command} failed: {value}\nlog:\n{}",
        s.log()
    );
    value["data"]["stop"].clone()
}

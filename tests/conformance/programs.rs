//! The conformance programs, one per language (`tests/fixtures/conformance/<lang>/`): where each
//! one's source is, how it is built, and how it runs outside the debugger.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::common::test_project::copy_dir;
use crate::common::{
    self, build_go_package, build_source, line_in, maven, repo_root, typescript_build,
};

/// A language of the suite, and so its program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    C,
    Rust,
    Python,
    Go,
    JavaScript,
    TypeScript,
    Java,
    Kotlin,
    Php,
    Ruby,
}

impl Language {
    /// The source file whose lines carry the markers, and where breakpoints are set.
    pub fn source(self) -> PathBuf {
        let file = match self {
            Language::C => "c/conformance.c",
            Language::Rust => "rust/conformance_rs.rs",
            Language::Python => "python/conformance.py",
            Language::Go => "go/main.go",
            Language::JavaScript => "javascript/conformance.js",
            Language::TypeScript => "typescript/conformance.ts",
            Language::Java => "java/Conformance.java",
            Language::Kotlin => "kotlin/src/main/kotlin/Conformance.kt",
            Language::Php => "php/conformance.php",
            Language::Ruby => "ruby/conformance.rb",
        };
        folder().join(file)
    }

    /// The program to debug, built first where it needs building (once per test process).
    pub fn program(self) -> PathBuf {
        match self {
            Language::C | Language::Rust => build_source(&self.source()),
            Language::Go => build_go_package(&folder().join("go")),
            // A single source file, which `java` compiles as it starts it.
            Language::Python
            | Language::JavaScript
            | Language::Java
            | Language::Php
            | Language::Ruby => self.source(),
            Language::TypeScript => compiled_typescript(),
            // A runnable jar, as a Maven project makes one: its manifest names the main class
            // and the standard library beside it.
            Language::Kotlin => maven::build(&folder().join("kotlin"))
                .dir
                .join("target/conformance-1.jar"),
        }
    }

    /// A variable of the program by its name as the language writes it in an expression
    /// (`amount`, PHP's `$amount`).
    pub fn var(self, name: &str) -> String {
        match self {
            Language::Php => format!("${name}"),
            _ => name.to_string(),
        }
    }

    /// The line of `marker` in the source.
    pub fn line(self, marker: &str) -> u32 {
        line_in(&self.source(), marker)
    }

    /// `SOURCE:LINE` of `marker`: a breakpoint location.
    pub fn at(self, marker: &str) -> String {
        format!("{}:{}", self.source().display(), self.line(marker))
    }

    /// The test beside the program, run by `debugger test` through the language's own runner;
    /// `@test_body` marks the line of its one test a breakpoint stops at.
    pub fn test_file(self) -> PathBuf {
        let file = match self {
            Language::C => "c/conformance_test.c",
            Language::Rust => "rust/conformance_test.rs",
            Language::Python => "python/test_conformance.py",
            Language::Go => "go/main_test.go",
            Language::JavaScript => "javascript/conformance.test.js",
            Language::TypeScript => "typescript/conformance.test.ts",
            // A JUnit test in the Maven project around the program (`java/pom.xml`).
            Language::Java => "java/test/ConformanceTest.java",
            // A JUnit test in the Maven project the program is built by (`kotlin/pom.xml`).
            Language::Kotlin => "kotlin/src/test/kotlin/ConformanceTest.kt",
            // A PHPUnit test in the `tests/` folder beside the program.
            Language::Php => "php/tests/ConformanceTest.php",
            // No Ruby test runner yet: the row names `test` a known bug.
            Language::Ruby => "ruby/conformance.rb",
        };
        folder().join(file)
    }

    /// Makes `dir` the language's test project (a copy of its folder; for TypeScript with the
    /// fixture's `tsx`, which Node 20 needs to run a `.ts` file) and returns the selector that
    /// picks its one test: C's is the test executable, built first.
    pub fn test_project(self, dir: &Path) -> String {
        let mut source_folder = self.test_file().parent().expect("a folder").to_path_buf();
        match self {
            // The Maven project, and the PHP one, is the folder above the test's.
            Language::Java | Language::Php => {
                source_folder.pop();
            }
            // ... and Kotlin's is above `src/test/kotlin`.
            Language::Kotlin => source_folder = folder().join("kotlin"),
            _ => {}
        }
        if self != Language::C {
            copy_dir(&source_folder, dir);
        }
        match self {
            Language::C => build_source(&self.test_file())
                .to_str()
                .expect("utf-8 path")
                .to_string(),
            Language::Rust => "apply_adds".into(),
            Language::Python => "test_conformance.py::ConformanceTest::test_apply".into(),
            Language::Go => "TestApply".into(),
            Language::JavaScript => "conformance.test.js::apply adds".into(),
            Language::Java => "ConformanceTest#applyAdds".into(),
            Language::Kotlin => "ConformanceTest#applyAdds".into(),
            Language::Php => "ConformanceTest::testApplyAdds".into(),
            Language::Ruby => "conformance.rb".into(),
            Language::TypeScript => {
                let tools = typescript_build::tool("tsx");
                let modules = tools
                    .parent()
                    .and_then(Path::parent)
                    .expect("node_modules/.bin/tsx");
                let link = dir.join("node_modules");
                if !link.exists() {
                    #[cfg(unix)]
                    let linked = std::os::unix::fs::symlink(modules, &link);
                    #[cfg(windows)]
                    let linked = std::os::windows::fs::symlink_dir(modules, &link);
                    linked.expect("link node_modules");
                }
                "conformance.test.ts::apply adds".into()
            }
        }
    }

    /// A command that runs the program outside the debugger with the argument `mode`.
    pub fn run(self, mode: &str) -> Command {
        let program = self.program();
        let mut command = match self {
            Language::Php => {
                let mut c = Command::new("php");
                c.arg(program);
                c
            }
            Language::Python => {
                let mut c = Command::new("python3");
                c.arg(program);
                c
            }
            // rdbg attaches to a program started with the debug gem's server open, on the UNIX
            // socket it names by the program's pid.
            Language::Ruby => {
                let mut c = Command::new("ruby");
                c.args(["-r", "debug/open_nonstop"]).arg(program);
                c
            }
            Language::JavaScript | Language::TypeScript => {
                let mut c = Command::new("node");
                c.arg(program);
                c
            }
            // A JVM is attached to through its JDWP agent, which it must be started with.
            Language::Java | Language::Kotlin => {
                let mut c = Command::new("java");
                c.arg("-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0");
                if self == Language::Kotlin {
                    c.arg("-jar");
                }
                c.arg(program);
                c
            }
            Language::C | Language::Rust | Language::Go => Command::new(program),
        };
        command.arg(mode);
        command
    }
}

fn folder() -> PathBuf {
    repo_root().join("tests/fixtures/conformance")
}

/// `conformance.ts` compiled by the TypeScript fixture's own `tsc`, its map beside it.
fn compiled_typescript() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            common::require_node();
            let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
                .join("conformance-ts")
                .join(std::process::id().to_string());
            let mut tsc = Command::new(typescript_build::tool("tsc"));
            tsc.args([
                "--sourceMap",
                "--strict",
                "--target",
                "es2020",
                "--module",
                "commonjs",
                "--outDir",
            ])
            .arg(&out)
            .arg(Language::TypeScript.source());
            typescript_build::run(tsc, "tsc");
            out.join("conformance.js")
        })
        .clone()
}

/// Whether `path`, a frame's file, is the language's source.
pub fn is_source(language: Language, path: &str) -> bool {
    Path::new(path).file_name() == language.source().file_name()
}

//! A Gradle project's JUnit 5 tests (`junit.rs` runs them), found by the build script
//! (`build.gradle`, `build.gradle.kts`) in the working directory or above it: Gradle builds the
//! tests (`testClasses`) and writes the test class path, with the JUnit console launcher of the
//! project's JUnit Platform version, through an init script of ours (`gradle/init.gradle`),
//! so the project's own build files are never edited. The project's wrapper (`gradlew`, in its
//! folder or one above it) runs the build when there is one, else `gradle` on PATH.
//!
//! Untested here: no Gradle that runs on a JDK 17 can be installed on the machines this is
//! built and tested on (Debian's is Gradle 4.4; Gradle's own distributions are not reachable).
//! What the init script writes is read by [`read_written`], which is tested.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use super::junit::Built;
use super::{Project, run_tool};
use crate::common::error::ErrorBody;
use crate::platform::Os;

/// The runner as reports name it.
pub(super) const RUNNER: &str = "JUnit (Gradle)";

/// The build scripts that make a folder a Gradle project.
const BUILD_SCRIPTS: [&str; 2] = ["build.gradle", "build.gradle.kts"];

/// The init script: registers `debuggerTestClasspath` in the project whose folder is the
/// `debugger.project` property, which writes three lines to the file in `debugger.out`.
const INIT_SCRIPT: &str = include_str!("gradle/init.gradle");

/// The task the init script registers.
const TASK: &str = "debuggerTestClasspath";

/// Where the init script and its answer are written, under the project's build folder.
const INIT_FILE: &str = "build/debugger-test-init.gradle";
const WRITTEN_FILE: &str = "build/debugger-test-classpath.txt";

/// The Gradle project `dir` is in: the nearest folder with a build script, from `dir` up.
pub(super) fn project_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|folder| BUILD_SCRIPTS.iter().any(|s| folder.join(s).is_file()))
        .map(Path::to_path_buf)
}

/// Gradle: the build's wrapper (`gradlew` in the project's folder or above it, where the
/// settings file of a build of several projects is), else `gradle` on PATH.
fn gradle(root: &Path) -> Process {
    let wrapper = root
        .ancestors()
        .map(|folder| folder.join(Os::CURRENT.batch("gradlew")))
        .find(|wrapper| wrapper.is_file());
    let mut command = match wrapper {
        Some(wrapper) => Process::new(wrapper),
        None => Process::new(Os::CURRENT.batch("gradle")),
    };
    command.current_dir(root).args([
        "-q",
        "--console=plain",
        // The task reads the project at its run, which a configuration cache forbids.
        "--no-configuration-cache",
    ]);
    command
}

/// What the init script wrote.
#[derive(Debug, PartialEq, Eq)]
struct Written {
    test_roots: Vec<PathBuf>,
    classpath: Vec<PathBuf>,
    launcher: Option<PathBuf>,
}

/// The init script's three lines: the test classes' folders, the test runtime class path
/// (each path-separated), and the console launcher's jar (empty when the tests have no JUnit
/// Platform).
fn read_written(text: &str) -> Result<Written, ErrorBody> {
    let mut lines = text.lines();
    let mut paths = || -> Result<Vec<PathBuf>, ErrorBody> {
        let line = lines
            .next()
            .ok_or_else(|| ErrorBody::internal("Gradle wrote less than the init script writes"))?;
        Ok(std::env::split_paths(line.trim())
            .filter(|p| !p.as_os_str().is_empty())
            .collect())
    };
    let test_roots = paths()?;
    let classpath = paths()?;
    let launcher = paths()?.into_iter().next();
    Ok(Written {
        test_roots,
        classpath,
        launcher,
    })
}

/// Builds the tests and reads their class path, with the console launcher on its end.
pub(super) fn build(project: &Project<'_>) -> Result<Built, ErrorBody> {
    let root = project_root(project.root).ok_or_else(|| {
        ErrorBody::usage(
            format!(
                "no build.gradle or build.gradle.kts in {} or above it",
                project.root.display()
            ),
            "run 'debugger test' in a Gradle project",
        )
    })?;
    let init = root.join(INIT_FILE);
    let written_file = root.join(WRITTEN_FILE);
    if let Some(folder) = init.parent() {
        std::fs::create_dir_all(folder)
            .map_err(|e| ErrorBody::internal(format!("cannot make {}: {e}", folder.display())))?;
    }
    std::fs::write(&init, INIT_SCRIPT)
        .map_err(|e| ErrorBody::internal(format!("cannot write {}: {e}", init.display())))?;
    let _ = std::fs::remove_file(&written_file);
    let mut command = gradle(&root);
    command
        .arg("--init-script")
        .arg(&init)
        .arg(format!("-Ddebugger.project={}", root.display()))
        .arg(format!("-Ddebugger.out={}", written_file.display()))
        .arg(TASK);
    run_tool(command, "gradle testClasses")?;
    let text = std::fs::read_to_string(&written_file).map_err(|e| {
        ErrorBody::usage(
            format!(
                "Gradle wrote no test class path to {}: {e}",
                written_file.display()
            ),
            "debugger test runs the tests of a project that applies Gradle's Java plugin \
             (Kotlin's JVM plugin applies it too)",
        )
    })?;
    let written = read_written(&text)?;
    let launcher = written.launcher.ok_or_else(|| {
        ErrorBody::usage(
            "the project's tests have no JUnit Platform on their class path",
            "debugger test runs JUnit 5 (or newer) tests: add \
             testImplementation(\"org.junit.jupiter:junit-jupiter:VERSION\") and \
             testRuntimeOnly(\"org.junit.platform:junit-platform-launcher\")",
        )
    })?;
    let mut entries = written.classpath;
    entries.push(launcher);
    let classpath = std::env::join_paths(&entries)
        .map_err(|e| ErrorBody::internal(format!("the test class path cannot be joined: {e}")))?
        .to_string_lossy()
        .into_owned();
    let java = crate::adapters::test_runtimes::java(project.config)?;
    Ok(Built {
        runner: RUNNER,
        test_roots: written
            .test_roots
            .into_iter()
            .filter(|folder| folder.is_dir())
            .collect(),
        root,
        java,
        classpath,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_init_scripts_lines_are_the_test_folders_the_class_path_and_the_launcher() {
        let dir = tempfile::tempdir().expect("tempdir");
        let at = |p: &str| dir.path().join(p);
        let join = |paths: &[PathBuf]| {
            std::env::join_paths(paths)
                .expect("join")
                .into_string()
                .expect("utf-8")
        };
        let roots = [
            at("build/classes/java/test"),
            at("build/classes/kotlin/test"),
        ];
        let classpath = [
            at("build/classes/java/test"),
            at("build/classes/java/main"),
            at("caches/junit-jupiter-api-5.14.4.jar"),
        ];
        let launcher = at("caches/junit-platform-console-standalone-1.14.4.jar");
        let text = format!(
            "{}\n{}\n{}\n",
            join(&roots),
            join(&classpath),
            launcher.display()
        );
        assert_eq!(
            read_written(&text).expect("three lines"),
            Written {
                test_roots: roots.to_vec(),
                classpath: classpath.to_vec(),
                launcher: Some(launcher),
            }
        );
        let text = format!("{}\n{}\n\n", join(&roots), join(&classpath));
        assert_eq!(read_written(&text).expect("no launcher").launcher, None);
        assert!(read_written("one line\n").is_err());
    }

    #[test]
    fn the_project_is_the_nearest_folder_with_a_build_script() {
        let dir = tempfile::tempdir().expect("tempdir");
        let project = dir.path().join("app");
        let tests = project.join("src/test/java/com/shop");
        std::fs::create_dir_all(&tests).expect("mkdir");
        std::fs::write(dir.path().join("settings.gradle.kts"), "").expect("write");
        std::fs::write(project.join("build.gradle.kts"), "").expect("write");
        assert_eq!(project_root(&tests), Some(project.clone()));
        assert_eq!(project_root(dir.path()), None);
    }

    #[test]
    fn the_init_script_registers_the_task_the_build_runs() {
        assert!(INIT_SCRIPT.contains(&format!("register('{TASK}')")));
        assert!(INIT_SCRIPT.contains("debugger.project"));
        assert!(INIT_SCRIPT.contains("debugger.out"));
    }
}

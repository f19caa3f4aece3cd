//! A Maven project's JUnit 5 tests (`junit.rs` runs them), found by the `pom.xml` in the
//! working directory or above it: Maven builds the tests (`test-compile`) and says the test
//! class path, in one run, and fetches the JUnit console launcher of the project's JUnit
//! Platform version into the local repository the project's jars are in when it is not there.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use super::junit::Built;
use super::{Project, run_tool};
use crate::common::error::ErrorBody;
use crate::platform::Os;

/// The runner as reports name it.
pub(super) const RUNNER: &str = "JUnit (Maven)";

/// The Maven plugin that writes the test class path, at a version pinned so a run needs no
/// look-up of the newest.
const DEPENDENCY_PLUGIN: &str = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1";

/// Where the class path is written, under the build folder.
const CLASSPATH_FILE: &str = "target/debugger-test-classpath.txt";

/// The Maven project `dir` is in: the nearest folder with a `pom.xml`, from `dir` up.
pub(super) fn project_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|folder| folder.join("pom.xml").is_file())
        .map(Path::to_path_buf)
}

/// Maven: the project's own wrapper when it has one, else `mvn` on PATH.
fn maven(root: &Path) -> Process {
    let wrapper = root.join(Os::CURRENT.script("mvnw"));
    let mut command = if wrapper.is_file() {
        Process::new(wrapper)
    } else {
        Process::new(Os::CURRENT.script("mvn"))
    };
    command.current_dir(root).args(["-q", "-B"]);
    command
}

/// Builds the tests and reads their class path, with the console launcher on its end.
pub(super) fn build(project: &Project<'_>) -> Result<Built, ErrorBody> {
    let root = project_root(project.root).ok_or_else(|| {
        ErrorBody::usage(
            format!("no pom.xml in {} or above it", project.root.display()),
            "run 'debugger test' in a Maven project",
        )
    })?;
    let mut command = maven(&root);
    command.args([
        "test-compile".to_string(),
        format!("{DEPENDENCY_PLUGIN}:build-classpath"),
        format!("-Dmdep.outputFile={CLASSPATH_FILE}"),
        "-Dmdep.includeScope=test".to_string(),
    ]);
    run_tool(command, "mvn test-compile")?;
    let written = root.join(CLASSPATH_FILE);
    let dependencies = std::fs::read_to_string(&written).map_err(|e| {
        ErrorBody::internal(format!(
            "Maven wrote no class path to {}: {e}",
            written.display()
        ))
    })?;
    let dependencies: Vec<PathBuf> = std::env::split_paths(dependencies.trim()).collect();
    let launcher = console_launcher(&root, &dependencies)?;
    let mut entries = vec![
        root.join("target/test-classes"),
        root.join("target/classes"),
    ];
    entries.extend(dependencies);
    entries.push(launcher);
    let classpath = std::env::join_paths(&entries)
        .map_err(|e| ErrorBody::internal(format!("the test class path cannot be joined: {e}")))?
        .to_string_lossy()
        .into_owned();
    let java = crate::adapters::test_runtimes::java(project.config)?;
    Ok(Built {
        runner: RUNNER,
        test_roots: vec![root.join("target/test-classes")],
        root,
        java,
        classpath,
    })
}

/// The console launcher of the JUnit Platform version the class path has: the jar in the
/// local repository its `junit-platform-commons` jar is in, fetched by Maven when it is not
/// there yet.
fn console_launcher(root: &Path, classpath: &[PathBuf]) -> Result<PathBuf, ErrorBody> {
    let commons = classpath
        .iter()
        .find(|jar| {
            jar.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("junit-platform-commons-"))
        })
        .ok_or_else(|| {
            ErrorBody::usage(
                "the project's tests have no JUnit Platform on their class path",
                "debugger test runs JUnit 5 (or newer) tests: add org.junit.jupiter:junit-jupiter \
                 as a test dependency",
            )
        })?;
    // <repository>/org/junit/platform/junit-platform-commons/VERSION/the.jar
    let version_folder = commons.parent();
    let version = version_folder
        .and_then(Path::file_name)
        .and_then(|v| v.to_str())
        .ok_or_else(|| ErrorBody::internal("the JUnit Platform jar has no version folder"))?;
    let jar = version_folder
        .and_then(Path::parent)
        .and_then(Path::parent)
        .map(|platform| {
            platform
                .join("junit-platform-console-standalone")
                .join(version)
                .join(format!("junit-platform-console-standalone-{version}.jar"))
        })
        .ok_or_else(|| ErrorBody::internal("the JUnit Platform jar is not in a repository"))?;
    if !jar.is_file() {
        let mut command = maven(root);
        command.args([
            format!("{DEPENDENCY_PLUGIN}:get"),
            format!("-Dartifact=org.junit.platform:junit-platform-console-standalone:{version}"),
            "-Dtransitive=false".to_string(),
        ]);
        run_tool(command, "mvn dependency:get (the JUnit console launcher)")?;
    }
    if jar.is_file() {
        Ok(jar)
    } else {
        Err(ErrorBody::internal(format!(
            "Maven fetched the JUnit console launcher, but not to {}",
            jar.display()
        )))
    }
}

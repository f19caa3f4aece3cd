//! JVM programs built as their users build them: a fixture's Maven project (Kotlin through
//! Maven's kotlin plugin and `kotlin-stdlib`, Java on a library from Maven Central) copied out of
//! the repository and compiled offline, since `scripts/install-test-deps.sh` fetched what it
//! needs, with its class path written beside the classes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use super::require_jdk;
use super::test_project::copy_dir;

/// A built Kotlin project.
#[derive(Debug, Clone)]
pub struct MavenBuild {
    /// The copy of the project.
    pub dir: PathBuf,
    /// `target/classes:` the dependencies' jars (`kotlin-stdlib`, `commons-lang3`), as `java -cp` takes it.
    pub classpath: String,
}

impl MavenBuild {
    pub fn classes(&self) -> PathBuf {
        self.dir.join("target/classes")
    }

    /// The copy's source file `name`, under `src/main/kotlin` or else `src/main/java`.
    pub fn source(&self, name: &str) -> PathBuf {
        let kotlin = self.dir.join("src/main/kotlin").join(name);
        if kotlin.exists() {
            kotlin
        } else {
            self.dir.join("src/main/java").join(name)
        }
    }
}

/// The Maven project `fixture` (a folder under the repository) built once per test process
/// and name: `mvn -o package dependency:build-classpath`.
pub fn build(fixture: &Path) -> MavenBuild {
    static BUILT: OnceLock<Mutex<Vec<(PathBuf, MavenBuild)>>> = OnceLock::new();
    let built = BUILT.get_or_init(Mutex::default);
    let mut built = built.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, done)) = built.iter().find(|(f, _)| f == fixture) {
        return done.clone();
    }
    require_jdk();
    let name = fixture.file_name().expect("a folder name");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("maven")
        .join(name)
        .join(std::process::id().to_string());
    copy_dir(fixture, &dir);
    let output = Command::new("mvn")
        .args([
            "-o",
            "-q",
            "-B",
            "package",
            "-DskipTests",
            "dependency:build-classpath",
            "-Dmdep.outputFile=target/classpath.txt",
        ])
        .current_dir(&dir)
        .output()
        .expect("Maven is required for the JVM tests: scripts/install-test-deps.sh installs it");
    assert!(
        output.status.success(),
        "mvn failed in {} (scripts/install-test-deps.sh fetches what it needs):\n{}{}",
        dir.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let dependencies =
        std::fs::read_to_string(dir.join("target/classpath.txt")).expect("Maven's class path");
    let classes = dir.join("target/classes");
    let classpath = std::env::join_paths(
        std::iter::once(classes).chain(std::env::split_paths(dependencies.trim())),
    )
    .expect("a class path")
    .into_string()
    .expect("utf-8 class path");
    let done = MavenBuild { dir, classpath };
    built.push((fixture.to_path_buf(), done.clone()));
    done
}

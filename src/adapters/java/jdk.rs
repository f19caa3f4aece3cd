//! Which JDK is here, as the JVM's own tools pick it: `JAVA_HOME` when set (Maven and Gradle go
//! by it), else the `java` on PATH, followed through its links (Debian's alternatives) to the
//! JDK's folder. The JVM adapter speaks JDWP to the program's own JVM, so it needs only the
//! `jdk.jdwp.agent` module, which every JDK and most runtimes carry; `javac` is told as well, since
//! a project's build needs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;

use crate::adapters::install::{self, Software};
use crate::adapters::search::env_var;
use crate::platform::Os;

/// What `doctor` says of the JDK.
#[derive(Debug, Clone, Serialize)]
pub struct JdkReport {
    /// A `java` with the JDWP agent (`jdk.jdwp.agent`) was found: the JVM adapter can run.
    pub found: bool,
    /// The JDK's folder (the one that holds `bin/java`).
    pub home: Option<PathBuf>,
    /// `JAVA_HOME` as set, or null.
    pub java_home: Option<String>,
    /// The first line of `java -version` (`openjdk version "17.0.15" 2025-04-15`).
    pub version: Option<String>,
    pub javac: bool,
    /// The `jdk.jdwp.agent` module, which the JVM adapter speaks to.
    pub jdwp: bool,
    pub detail: String,
    pub fix: Option<String>,
}

impl JdkReport {
    /// The report for a check that panicked (a bug): no JDK is claimed.
    pub fn failed_check() -> JdkReport {
        JdkReport {
            found: false,
            home: None,
            java_home: None,
            version: None,
            javac: false,
            jdwp: false,
            detail: "the check failed".into(),
            fix: None,
        }
    }
}

/// Looks for the JDK and says what it has (one `java -version`, about 50 ms).
pub fn check() -> JdkReport {
    let java_home = env_var("JAVA_HOME").map(|v| v.to_string_lossy().into_owned());
    let on_path = which::which(Os::CURRENT.executable("java")).ok();
    judge(java_home, on_path, version_line)
}

fn judge(
    java_home: Option<String>,
    on_path: Option<PathBuf>,
    version_line: impl Fn(&Path) -> Option<String>,
) -> JdkReport {
    let install = install::install_hint(Software::Jdk, Os::CURRENT);
    let mut report = JdkReport {
        found: false,
        home: None,
        java_home: java_home.clone(),
        version: None,
        javac: false,
        jdwp: false,
        detail: String::new(),
        fix: None,
    };
    let (home, how) = match (&java_home, &on_path) {
        (Some(home), _) => (PathBuf::from(home), "JAVA_HOME"),
        (None, Some(java)) => match home_of(java) {
            Some(home) => (home, "java on PATH; JAVA_HOME is not set"),
            None => {
                report.detail = format!("{} is not in a JDK's bin folder", java.display());
                report.fix = Some(format!(
                    "set JAVA_HOME to a JDK 17 or newer, or install one: {install}"
                ));
                return report;
            }
        },
        (None, None) => {
            report.detail = "no JDK: no java on PATH and JAVA_HOME is not set (the JVM adapter \
                             needs a JDK 17 or newer)"
                .into();
            report.fix = Some(format!("install a JDK: {install}"));
            return report;
        }
    };
    let java = home.join("bin").join(Os::CURRENT.executable("java"));
    if !java.is_file() {
        report.detail = format!("JAVA_HOME={} has no bin/java", home.display());
        report.fix = Some("set JAVA_HOME to a JDK's folder (the one holding bin/java)".into());
        return report;
    }
    report.version = version_line(&java);
    report.javac = home
        .join("bin")
        .join(Os::CURRENT.executable("javac"))
        .is_file();
    report.jdwp = has_module(&home, "jdk.jdwp.agent");
    report.home = Some(home.clone());
    let version = report
        .version
        .as_deref()
        .unwrap_or("a JDK of unknown version");
    report.found = report.jdwp;
    let javac = if report.javac {
        "javac is there too"
    } else {
        "no javac: a runtime, which runs programs but builds none"
    };
    report.detail = if report.jdwp {
        format!(
            "{version} at {} ({how}): its JDWP agent is what the java adapter speaks to; {javac}",
            home.display()
        )
    } else {
        format!(
            "{version} at {} ({how}) has no jdk.jdwp.agent module: Java cannot be debugged with it",
            home.display()
        )
    };
    if !report.found {
        report.fix = Some(format!(
            "point JAVA_HOME at a JDK 17 or newer, or install one: {install}"
        ));
    }
    report
}

/// The JDK folder a `java` belongs to: its links followed (`/usr/bin/java` is Debian's
/// alternative), then up from `bin`.
fn home_of(java: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(java).ok()?;
    let bin = real.parent()?;
    (bin.file_name()? == "bin").then(|| bin.parent().map(Path::to_path_buf))?
}

/// The feature release (`25` of `25.0.3`) of the JDK a `java` belongs to, from its `release`
/// file; `None` where it has none (a bare runtime image, an odd install).
pub fn feature_version(java: &Path) -> Option<u32> {
    let release = std::fs::read_to_string(home_of(java)?.join("release")).ok()?;
    let version = release
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))?
        .trim_matches('"');
    // `1.8.0_402` is release 8; `25.0.3`, `25-ea` and `25` are 25.
    let mut parts = version.split(['.', '-', '_', '+']);
    match parts.next()?.parse().ok()? {
        1 => parts.next()?.parse().ok(),
        feature => Some(feature),
    }
}

/// Whether the JDK has `module`: its `release` file lists its modules; a JDK without one is
/// asked (`java --list-modules`).
fn has_module(home: &Path, module: &str) -> bool {
    if let Ok(release) = std::fs::read_to_string(home.join("release"))
        && let Some(modules) = release.lines().find_map(|l| l.strip_prefix("MODULES="))
    {
        return modules
            .trim_matches('"')
            .split_whitespace()
            .any(|m| m == module);
    }
    Command::new(home.join("bin").join(Os::CURRENT.executable("java")))
        .arg("--list-modules")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|o| {
            String::from_utf8_lossy(&o.stdout).lines().any(|line| {
                line.strip_prefix(module)
                    .is_some_and(|v| v.starts_with('@'))
            })
        })
}

/// The first line `java -version` prints (on stderr).
pub(crate) fn version_line(java: &Path) -> Option<String> {
    let output = Command::new(java)
        .arg("-version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.starts_with("Picked up"))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JDK folder with `bin/java`, maybe `bin/javac`, and a `release` file listing `modules`.
    fn fake_jdk(root: &Path, javac: bool, modules: &str) -> PathBuf {
        let home = root.join("jdk");
        std::fs::create_dir_all(home.join("bin")).expect("mkdir");
        std::fs::write(home.join("bin").join(Os::CURRENT.executable("java")), "").expect("java");
        if javac {
            std::fs::write(home.join("bin").join(Os::CURRENT.executable("javac")), "")
                .expect("javac");
        }
        std::fs::write(home.join("release"), format!("MODULES=\"{modules}\"\n")).expect("release");
        home
    }

    const VERSION: &str = "openjdk version \"17.0.15\" 2025-04-15";

    #[test]
    fn a_full_jdk_from_java_home_is_found() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = fake_jdk(dir.path(), true, "java.base jdk.jdi jdk.jdwp.agent");
        let report = judge(Some(home.display().to_string()), None, |_| {
            Some(VERSION.to_string())
        });
        assert!(report.found && report.javac && report.jdwp, "{report:?}");
        assert_eq!(
            report.detail,
            format!(
                "{VERSION} at {} (JAVA_HOME): its JDWP agent is what the java adapter speaks \
                 to; javac is there too",
                home.display()
            )
        );
        assert_eq!(report.fix, None);
    }

    #[test]
    fn a_runtime_without_the_jdwp_agent_is_told_as_such() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = fake_jdk(dir.path(), false, "java.base java.logging");
        let report = judge(Some(home.display().to_string()), None, |_| None);
        assert!(!report.found && !report.javac && !report.jdwp, "{report:?}");
        assert!(
            report
                .detail
                .ends_with("has no jdk.jdwp.agent module: Java cannot be debugged with it"),
            "{}",
            report.detail
        );
        assert!(report.fix.is_some_and(|fix| fix.contains("JAVA_HOME")));
        // A runtime with the agent debugs, and says it builds nothing.
        let jre = fake_jdk(&dir.path().join("jre"), false, "java.base jdk.jdwp.agent");
        let report = judge(Some(jre.display().to_string()), None, |_| None);
        assert!(report.found && !report.javac, "{report:?}");
        assert!(
            report
                .detail
                .ends_with("no javac: a runtime, which runs programs but builds none")
        );
    }

    #[test]
    fn no_java_at_all_says_how_to_get_one() {
        let report = judge(None, None, |_| None);
        assert!(!report.found);
        assert!(report.detail.starts_with("no JDK"), "{}", report.detail);
        assert!(
            report
                .fix
                .is_some_and(|fix| fix.starts_with("install a JDK"))
        );
        let dir = tempfile::tempdir().expect("tempdir");
        let broken = judge(Some(dir.path().display().to_string()), None, |_| None);
        assert!(
            broken.detail.ends_with("has no bin/java"),
            "{}",
            broken.detail
        );
    }

    #[test]
    fn the_feature_release_is_read_from_the_release_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = fake_jdk(dir.path(), true, "java.base");
        let java = home.join("bin").join(Os::CURRENT.executable("java"));
        for (written, feature) in [("25.0.3", Some(25)), ("1.8.0_402", Some(8)), ("x", None)] {
            std::fs::write(
                home.join("release"),
                format!("JAVA_VERSION=\"{written}\"\n"),
            )
            .expect("release");
            assert_eq!(feature_version(&java), feature, "{written}");
        }
    }

    /// Debian's `/usr/bin/java` is a link through `/etc/alternatives` into the JDK.
    #[cfg(unix)]
    #[test]
    fn java_on_path_is_followed_to_its_jdk() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = fake_jdk(dir.path(), true, "java.base jdk.jdwp.agent");
        let link = dir.path().join("java");
        std::os::unix::fs::symlink(home.join("bin/java"), &link).expect("symlink");
        let report = judge(None, Some(link), |_| Some(VERSION.to_string()));
        assert!(report.found, "{report:?}");
        assert_eq!(report.home, std::fs::canonicalize(&home).ok());
        assert!(
            report
                .detail
                .contains("(java on PATH; JAVA_HOME is not set)")
        );
    }
}

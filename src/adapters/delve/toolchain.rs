//! Which Go is here, where `go install` puts what it builds, and whether a Delve can read the
//! programs that Go builds.
//!
//! Each Delve release reads the Go releases of its time and refuses newer ones ("Version of Delve
//! is too old for Go version …"): Debian 12's Delve 1.20 cannot debug what Go 1.26 builds. Users
//! get a current Delve with `go install`, which puts it in `$(go env GOBIN)` or
//! `$(go env GOPATH)/bin`, a folder often not on PATH; so that folder is searched too, and where
//! several Delves are found, the one that reads this Go wins.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::adapters::ToolchainCheck;
use crate::adapters::install::{self, Software};
use crate::ipc::protocol::LaunchSpec;
use crate::platform::Os;

/// A Go release, `1.MINOR.PATCH` (Go 1 is the only major there is).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct GoVersion {
    pub minor: u32,
    pub patch: u32,
}

impl GoVersion {
    /// Reads `go1.26.8`, `go1.22` or `go1.21rc2` (as `go env GOVERSION` prints them); a
    /// development build (`devel go1.27-…`) has no release number and reads as none.
    pub fn parse(text: &str) -> Option<GoVersion> {
        let rest = text.trim().strip_prefix("go1.")?;
        let mut parts = rest.split('.');
        let minor = leading_number(parts.next()?)?;
        let patch = parts.next().and_then(leading_number).unwrap_or(0);
        Some(GoVersion { minor, patch })
    }
}

impl fmt::Display for GoVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}.{}", self.minor, self.patch)
    }
}

/// A Delve release, `1.MINOR.PATCH`, as `dlv version` prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DelveVersion {
    pub minor: u32,
    pub patch: u32,
}

impl DelveVersion {
    /// Reads `1.27.2`.
    pub fn parse(text: &str) -> Option<DelveVersion> {
        let rest = text.trim().strip_prefix("1.")?;
        let mut parts = rest.split('.');
        let minor = leading_number(parts.next()?)?;
        let patch = parts.next().and_then(leading_number).unwrap_or(0);
        Some(DelveVersion { minor, patch })
    }

    /// The newest Go minor this Delve reads. Since 1.20, Delve's minor follows the Go release it
    /// was made for (1.27 reads up to Go 1.27); before, 1.9 read up to Go 1.19, 1.8 up to 1.18.
    pub fn newest_go_minor(self) -> u32 {
        if self.minor >= 20 {
            self.minor
        } else {
            self.minor + 10
        }
    }

    /// Whether Delve refuses programs of this Go as too new for it.
    pub fn too_old_for(self, go: GoVersion) -> bool {
        go.minor > self.newest_go_minor()
    }
}

impl fmt::Display for DelveVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}.{}", self.minor, self.patch)
    }
}

fn leading_number(text: &str) -> Option<u32> {
    let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The `go` command here, with what one `go env` told of it.
#[derive(Clone, Debug)]
pub struct GoToolchain {
    pub executable: PathBuf,
    /// `None` for a development build.
    pub version: Option<GoVersion>,
    /// Where `go install` puts commands: `GOBIN`, else the first `GOPATH` entry's `bin`.
    pub install_dir: Option<PathBuf>,
}

impl GoToolchain {
    /// The `go` on PATH, asked once (`go env GOVERSION GOBIN GOPATH`, about 10 ms), so that
    /// `go env -w` settings and Go's own defaults count as they do for `go install`.
    pub fn find() -> Option<GoToolchain> {
        let executable = which::which("go").ok()?;
        let output = Command::new(&executable)
            .args(["env", "GOVERSION", "GOBIN", "GOPATH"])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())?;
        let text = String::from_utf8_lossy(&output.stdout);
        let mut lines = text.lines();
        let (version, gobin, gopath) = (lines.next(), lines.next(), lines.next());
        Some(GoToolchain {
            version: version.and_then(GoVersion::parse),
            install_dir: install_dir(gobin.unwrap_or(""), gopath.unwrap_or("")),
            executable,
        })
    }
}

/// GOROOT as `go env` tells it in the program's environment (one short process), for telling
/// the standard library's files from the program's.
pub fn goroot(spec: &LaunchSpec) -> Option<PathBuf> {
    let output = Command::new("go")
        .args(["env", "GOROOT"])
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&spec.cwd)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&output.stdout);
    let root = text.trim();
    (!root.is_empty()).then(|| PathBuf::from(root))
}

/// `GOBIN` when set, else `bin` in the first `GOPATH` entry (the one `go install` writes to).
fn install_dir(gobin: &str, gopath: &str) -> Option<PathBuf> {
    if !gobin.trim().is_empty() {
        return Some(PathBuf::from(gobin.trim()));
    }
    let first = std::env::split_paths(gopath.trim()).next()?;
    (!first.as_os_str().is_empty()).then(|| first.join("bin"))
}

/// Of the Delves found (in search order), the one to use: the first that reads `go`'s programs,
/// else the first. `version` says a Delve's version (one short process each, asked only when
/// there is a choice to make).
pub fn choose(
    candidates: Vec<PathBuf>,
    go: Option<GoVersion>,
    version: impl Fn(&Path) -> Option<DelveVersion>,
) -> Option<PathBuf> {
    let mut unique: Vec<PathBuf> = Vec::new();
    for candidate in candidates {
        let same = |known: &PathBuf| {
            known == &candidate
                || std::fs::canonicalize(known).ok() == std::fs::canonicalize(&candidate).ok()
        };
        if candidate.is_file() && !unique.iter().any(same) {
            unique.push(candidate);
        }
    }
    if unique.len() > 1
        && let Some(go) = go
        && let Some(reads) = unique
            .iter()
            .find(|dlv| version(dlv).is_some_and(|v| !v.too_old_for(go)))
    {
        return Some(reads.clone());
    }
    unique.into_iter().next()
}

/// The fix for a Delve too old for the Go here.
pub const UPGRADE_FIX: &str =
    "run 'debugger setup delve', which runs 'go install github.com/go-delve/delve/cmd/dlv@latest'";

/// What `doctor` says of the Go beside the Delve at `dlv`: which Go, and whether this Delve reads
/// its programs (Delve's own check refuses a Go newer than it knows).
pub fn check(dlv: &Path) -> ToolchainCheck {
    let delve = super::version(dlv).as_deref().and_then(DelveVersion::parse);
    judge(GoToolchain::find(), delve)
}

fn judge(go: Option<GoToolchain>, delve: Option<DelveVersion>) -> ToolchainCheck {
    let Some(go) = go else {
        return ToolchainCheck {
            name: "go",
            path: None,
            version: None,
            ok: false,
            detail: "no Go on PATH: Delve debugs Go binaries built elsewhere, but cannot build a \
                     .go file, a package or its tests"
                .into(),
            fix: Some(format!(
                "install Go: {}",
                install::install_hint(Software::Go, Os::CURRENT)
            )),
        };
    };
    let version = go.version.map(|v| v.to_string());
    let at = go.executable.display();
    let (ok, detail, fix) = match (go.version, delve) {
        (Some(go), Some(delve)) if delve.too_old_for(go) => (
            false,
            format!(
                "Go {go} at {at}, but Delve {delve} is too old for it: it reads programs of Go \
                 1.{} and older, and refuses this Go's ('Version of Delve is too old for Go \
                 version {go}')",
                delve.newest_go_minor()
            ),
            Some(UPGRADE_FIX.to_string()),
        ),
        (Some(go), Some(delve)) => (
            true,
            format!(
                "Go {go} at {at} (Delve {delve} reads Go up to 1.{})",
                delve.newest_go_minor()
            ),
            None,
        ),
        (Some(go), None) => (true, format!("Go {go} at {at}"), None),
        (None, _) => (true, format!("a development build of Go at {at}"), None),
    };
    ToolchainCheck {
        name: "go",
        path: Some(go.executable.clone()),
        version,
        ok,
        detail,
        fix,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_versions_read_as_go_env_prints_them() {
        assert_eq!(
            GoVersion::parse("go1.26.8"),
            Some(GoVersion {
                minor: 26,
                patch: 8
            })
        );
        assert_eq!(
            GoVersion::parse("go1.22"),
            Some(GoVersion {
                minor: 22,
                patch: 0
            })
        );
        assert_eq!(
            GoVersion::parse("go1.21rc2"),
            Some(GoVersion {
                minor: 21,
                patch: 0
            })
        );
        assert_eq!(
            GoVersion::parse("devel go1.27-4f3a2b X:nocoverageredesign"),
            None
        );
        assert_eq!(
            GoVersion::parse("go1.26.8").map(|v| v.to_string()),
            Some("1.26.8".into())
        );
    }

    #[test]
    fn each_delve_reads_the_go_of_its_time() {
        let go = |minor| GoVersion { minor, patch: 0 };
        let debian = DelveVersion::parse("1.20.2").expect("version");
        assert!(debian.too_old_for(go(26)));
        assert!(!debian.too_old_for(go(19)));
        let pinned = DelveVersion::parse("1.27.2").expect("version");
        assert!(!pinned.too_old_for(go(26)));
        assert!(!pinned.too_old_for(go(27)));
        assert!(pinned.too_old_for(go(28)));
        let before_the_renumbering = DelveVersion::parse("1.9.1").expect("version");
        assert_eq!(before_the_renumbering.newest_go_minor(), 19);
        assert_eq!(DelveVersion::parse("Version: x"), None);
    }

    #[test]
    fn go_install_writes_to_gobin_else_the_first_gopath() {
        assert_eq!(
            install_dir("/opt/gobin\n", "/home/ada/go"),
            Some(PathBuf::from("/opt/gobin"))
        );
        let gopath = std::env::join_paths(["/home/ada/go", "/srv/go"]).expect("join");
        assert_eq!(
            install_dir("", &gopath.to_string_lossy()),
            Some(PathBuf::from("/home/ada/go/bin"))
        );
        assert_eq!(install_dir("", ""), None);
    }

    #[test]
    fn the_delve_that_reads_this_go_wins_over_an_older_one_first_on_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let old = dir.path().join("usr-bin-dlv");
        let new = dir.path().join("go-bin-dlv");
        std::fs::write(&old, "").expect("write");
        std::fs::write(&new, "").expect("write");
        let version =
            |path: &Path| DelveVersion::parse(if path == old { "1.20.2" } else { "1.27.2" });
        let go = GoVersion::parse("go1.26.8");
        let missing = dir.path().join("nowhere-dlv");
        let candidates = vec![missing.clone(), old.clone(), new.clone(), old.clone()];
        assert_eq!(choose(candidates.clone(), go, version), Some(new.clone()));
        // Go's version unknown, or no Delve reads it: the search order decides.
        assert_eq!(choose(candidates.clone(), None, version), Some(old.clone()));
        let all_old = |_: &Path| DelveVersion::parse("1.20.2");
        assert_eq!(choose(candidates, go, all_old), Some(old.clone()));
        // One Delve: no version is asked for.
        let never = |_: &Path| -> Option<DelveVersion> { panic!("asked for a version") };
        assert_eq!(choose(vec![new.clone(), missing], go, never), Some(new));
    }

    #[test]
    fn doctor_names_the_go_and_says_when_delve_is_too_old_for_it() {
        let go = GoToolchain {
            executable: PathBuf::from("/usr/local/go/bin/go"),
            version: GoVersion::parse("go1.26.8"),
            install_dir: None,
        };
        let fine = judge(Some(go.clone()), DelveVersion::parse("1.27.2"));
        assert!(fine.ok, "{fine:?}");
        assert_eq!(
            fine.detail,
            "Go 1.26.8 at /usr/local/go/bin/go (Delve 1.27.2 reads Go up to 1.27)"
        );
        let old = judge(Some(go), DelveVersion::parse("1.20.2"));
        assert!(!old.ok);
        assert!(
            old.detail
                .contains("Delve 1.20.2 is too old for it: it reads programs of Go 1.20 and older"),
            "{}",
            old.detail
        );
        assert_eq!(old.fix.as_deref(), Some(UPGRADE_FIX));
        let none = judge(None, DelveVersion::parse("1.27.2"));
        assert!(
            !none.ok && none.detail.starts_with("no Go on PATH"),
            "{none:?}"
        );
        assert!(none.fix.is_some_and(|fix| fix.starts_with("install Go: ")));
    }
}

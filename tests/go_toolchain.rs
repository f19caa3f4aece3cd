//! Which Delve and which Go the debugger uses, as a Go user's machine has them: a Delve that
//! `go install` put in `$(go env GOBIN)` or `$(go env GOPATH)/bin`, on PATH or not; an older
//! Delve from the system's packages first on PATH; and what `doctor` and `setup delve` say of
//! them. Also doctor's `java` line.
//!
//! One test builds and debugs a program with the oldest Go the README claims, fetched through the
//! Go module proxy (`GOTOOLCHAIN`, as scripts/install-test-deps.sh does beforehand).
//!
//! The older Delve is a stand-in script that answers `dlv version` as Debian 12's Delve 1.20.2
//! does: what the lookup and `doctor` read of a Delve is its version. The sessions run the real
//! Delve and Go; every test fails, never skips, when either is missing (`.ci/run` installs them).

#![cfg(unix)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Run, Session, at, fixture_path, require_delve, require_jdk, with_go_env};
use serde_json::Value;

/// The oldest Go the README claims, the oldest the pinned Delve (1.27) reads.
const OLDEST_GO: &str = "go1.25.0";

/// The real Delve this machine has (installed by scripts/install-test-deps.sh).
fn real_dlv() -> PathBuf {
    require_delve();
    debugger::adapters::delve::find(&Default::default()).expect("dlv")
}

/// The folder of the `go` on PATH.
fn go_dir() -> PathBuf {
    let go = which::which("go").expect("go on PATH");
    go.parent().expect("go's folder").to_path_buf()
}

/// `go env NAME` as this test process sees it.
fn go_env(name: &str) -> String {
    let output = Command::new("go")
        .args(["env", name])
        .output()
        .expect("run go env");
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// A folder holding a `dlv` that says it is Debian 12's Delve 1.20.2.
fn old_delve(root: &Path) -> PathBuf {
    let dir = root.join("old-delve");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let dlv = dir.join("dlv");
    std::fs::write(
        &dlv,
        "#!/bin/sh\n[ \"$1\" = version ] && printf 'Delve Debugger\\nVersion: 1.20.2\\nBuild: $Id: e0c278ad $\\n' && exit 0\nexit 1\n",
    )
    .expect("write dlv");
    std::fs::set_permissions(&dlv, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

/// A folder holding `dlv`, a link to the real one: where `go install` would have put it.
fn go_installed_delve(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).expect("mkdir");
    let dlv = dir.join("dlv");
    std::os::unix::fs::symlink(real_dlv(), &dlv).expect("symlink");
    dlv
}

/// PATH with `first` (if any) ahead of Go's folder and the system's, and none of the folders a
/// Delve was installed in here.
fn path_without_delve(first: Option<&Path>) -> String {
    let mut dirs: Vec<PathBuf> = first.map(Path::to_path_buf).into_iter().collect();
    dirs.extend([go_dir(), PathBuf::from("/usr/bin"), PathBuf::from("/bin")]);
    let dlv_dir = real_dlv().parent().map(Path::to_path_buf);
    dirs.retain(|dir| Some(dir) != dlv_dir.as_ref() || first == Some(dir.as_path()));
    std::env::join_paths(dirs)
        .expect("join PATH")
        .to_string_lossy()
        .into_owned()
}

/// `debugger ARGS` with PATH, HOME and the Go variables set (`vars`), the Go caches kept.
fn run_with(s: &Session, vars: &[(&str, &str)], args: &[&str]) -> Run {
    let mut command = s.command();
    with_go_env(&mut command);
    command
        .env_remove("GOBIN")
        .env("GOMODCACHE", go_env("GOMODCACHE"))
        .env("GOCACHE", go_env("GOCACHE"));
    for (name, value) in vars {
        command.env(name, value);
    }
    Run::from(command.args(args).output().expect("run debugger"))
}

fn delve_report(doctor: &Value) -> Value {
    doctor["adapters"]
        .as_array()
        .expect("adapters")
        .iter()
        .find(|a| a["name"] == "delve")
        .cloned()
        .unwrap_or_else(|| panic!("no delve in {doctor}"))
}

#[test]
fn doctor_names_the_go_and_the_delve_that_reads_it() {
    require_delve();
    let s = Session::new();
    let data = s.data(&["doctor"]);
    let delve = delve_report(&data);
    assert_eq!(delve["found"], true, "{delve}");
    let toolchain = &delve["toolchain"];
    assert_eq!(toolchain["name"], "go", "{delve}");
    assert_eq!(toolchain["ok"], true, "{delve}");
    let go_version = go_env("GOVERSION");
    assert_eq!(
        toolchain["version"].as_str().map(|v| format!("go{v}")),
        Some(go_version.clone()),
        "{delve}"
    );
    let doctor = s.run(&["doctor"]);
    let text = doctor.ok();
    let go_line = text
        .lines()
        .find(|l| l.starts_with("ok       go "))
        .unwrap_or_else(|| panic!("no go line:\n{text}"));
    assert!(
        go_line.contains(go_version.trim_start_matches("go")) && go_line.contains("reads Go up to"),
        "{go_line}"
    );
}

#[test]
fn a_delve_that_go_install_put_off_path_is_found_in_gobin_and_in_gopath() {
    let s = Session::new();
    let root = tempfile::tempdir().expect("tempdir");
    let home = root.path().join("home");
    std::fs::create_dir_all(&home).expect("mkdir");
    let path = path_without_delve(None);

    let gobin = root.path().join("gobin");
    let in_gobin = go_installed_delve(&gobin);
    let vars = [
        ("PATH", path.as_str()),
        ("HOME", home.to_str().expect("utf-8")),
        ("GOBIN", gobin.to_str().expect("utf-8")),
    ];
    let delve = delve_report(&run_with(&s, &vars, &["--json", "doctor"]).json()["data"]);
    assert_eq!(delve["found"], true, "{delve}");
    assert_eq!(delve["path"], in_gobin.display().to_string(), "{delve}");

    let gopath = root.path().join("gopath");
    let in_gopath = go_installed_delve(&gopath.join("bin"));
    let vars = [
        ("PATH", path.as_str()),
        ("HOME", home.to_str().expect("utf-8")),
        ("GOPATH", gopath.to_str().expect("utf-8")),
    ];
    let delve = delve_report(&run_with(&s, &vars, &["--json", "doctor"]).json()["data"]);
    assert_eq!(delve["path"], in_gopath.display().to_string(), "{delve}");
}

/// Debian 12's Delve first on PATH and a current one from `go install` off it: the session runs
/// on the one that reads this Go's programs, and stops where it was asked to.
#[test]
fn an_older_delve_first_on_path_gives_way_to_the_one_that_reads_this_go() {
    let s = Session::new();
    let root = tempfile::tempdir().expect("tempdir");
    let old = old_delve(root.path());
    let gobin = root.path().join("gobin");
    let current = go_installed_delve(&gobin);
    let path = path_without_delve(Some(&old));
    let vars = [
        ("PATH", path.as_str()),
        ("GOBIN", gobin.to_str().expect("utf-8")),
    ];
    let delve = delve_report(&run_with(&s, &vars, &["--json", "doctor"]).json()["data"]);
    assert_eq!(delve["path"], current.display().to_string(), "{delve}");
    assert_eq!(delve["toolchain"]["ok"], true, "{delve}");

    let program = fixture_path("go/ledger");
    let location = at("go/ledger/main.go", "@add_body");
    let start = run_with(
        &s,
        &vars,
        &[
            "--json",
            "start",
            program.to_str().expect("utf-8"),
            "--break",
            &location,
            "--wait",
            "60",
        ],
    )
    .json();
    assert_eq!(start["ok"], true, "{start}\nlog:\n{}", s.log());
    // `start` answers with the first stop.
    let stop = &start["data"]["stop"];
    assert_eq!(stop["frame"]["function"], "main.add", "{start}");
}

/// Only a Delve too old for this Go: doctor finds it, and says plainly that it cannot read this
/// Go's programs and what fixes that.
#[test]
fn doctor_warns_of_a_delve_too_old_for_the_go_with_the_fix() {
    require_delve();
    let s = Session::new();
    let root = tempfile::tempdir().expect("tempdir");
    let home = root.path().join("home");
    std::fs::create_dir_all(&home).expect("mkdir");
    let old = old_delve(root.path());
    let path = path_without_delve(Some(&old));
    let empty_gobin = root.path().join("empty-gobin");
    let vars = [
        ("PATH", path.as_str()),
        ("HOME", home.to_str().expect("utf-8")),
        ("GOBIN", empty_gobin.to_str().expect("utf-8")),
    ];
    let delve = delve_report(&run_with(&s, &vars, &["--json", "doctor"]).json()["data"]);
    assert_eq!(
        delve["path"],
        old.join("dlv").display().to_string(),
        "{delve}"
    );
    assert_eq!(delve["version"], "1.20.2", "{delve}");
    let toolchain = &delve["toolchain"];
    assert_eq!(toolchain["ok"], false, "{delve}");
    let detail = toolchain["detail"].as_str().unwrap_or("");
    assert!(
        detail.contains("Delve 1.20.2 is too old for it: it reads programs of Go 1.20 and older"),
        "{detail}"
    );
    assert!(
        toolchain["fix"]
            .as_str()
            .is_some_and(|f| f.contains("debugger setup delve") && f.contains("go install")),
        "{toolchain}"
    );
    let text = run_with(&s, &vars, &["doctor"]);
    assert!(
        text.stdout
            .lines()
            .any(|l| l.starts_with("problem  go ") && l.contains("too old")),
        "{text:?}"
    );
}

/// `setup delve` with a Go here builds Delve with `go install` into GOBIN, even when an older
/// Delve is first on PATH, and the lookup then uses the new one.
#[test]
fn setup_delve_installs_with_go_install_where_the_delve_found_is_too_old() {
    require_delve();
    let s = Session::new();
    let root = tempfile::tempdir().expect("tempdir");
    let home = root.path().join("home");
    std::fs::create_dir_all(&home).expect("mkdir");
    let old = old_delve(root.path());
    let gobin = root.path().join("gobin");
    let path = path_without_delve(Some(&old));
    let vars = [
        ("PATH", path.as_str()),
        ("HOME", home.to_str().expect("utf-8")),
        ("GOBIN", gobin.to_str().expect("utf-8")),
    ];
    let out = run_with(&s, &vars, &["--json", "setup", "delve"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.contains("too old for Go") && out.stderr.contains("go install"),
        "setup says why and what it runs: {out:?}"
    );
    let result = &out.json()["data"]["adapters"][0];
    assert_eq!(result["status"], "installed", "{result}");
    assert_eq!(
        result["path"],
        gobin.join("dlv").display().to_string(),
        "{result}"
    );
    let delve = delve_report(&run_with(&s, &vars, &["--json", "doctor"]).json()["data"]);
    assert_eq!(delve["path"], gobin.join("dlv").display().to_string());
    assert_eq!(delve["toolchain"]["ok"], true, "{delve}");
    // A second setup has nothing to do.
    let again = run_with(&s, &vars, &["--json", "setup", "delve"]).json();
    assert_eq!(
        again["data"]["adapters"][0]["status"], "already_installed",
        "{again}"
    );
}

#[test]
fn doctor_names_the_jdk_and_what_it_has() {
    let jdk = require_jdk();
    let s = Session::new();
    let data = s.data(&["doctor"]);
    let java = &data["java"];
    assert_eq!(java["found"], true, "{java}");
    assert_eq!(java["javac"], true, "{java}");
    assert_eq!(java["jdwp"], true, "{java}");
    assert_eq!(java["home"].as_str().map(PathBuf::from), jdk.home, "{java}");
    assert!(
        java["version"]
            .as_str()
            .is_some_and(|v| v.contains("version \"")),
        "{java}"
    );
    let doctor = s.run(&["doctor"]);
    let text = doctor.ok();
    assert!(
        text.lines().any(|l| l.starts_with("ok       jdk ")
            && l.contains("its JDWP agent is what the java adapter speaks to")),
        "{text}"
    );

    // JAVA_HOME wins, as it does for Maven and Gradle; one without a java is a problem to fix.
    let empty = tempfile::tempdir().expect("tempdir");
    let out = Run::from(
        s.command()
            .env("JAVA_HOME", empty.path())
            .arg("doctor")
            .output()
            .expect("run debugger"),
    );
    let at = out
        .stdout
        .lines()
        .position(|l| l.starts_with("problem  jdk ") && l.ends_with("has no bin/java"))
        .unwrap_or_else(|| panic!("no java problem line:\n{}", out.stdout));
    assert!(
        out.stdout
            .lines()
            .nth(at + 1)
            .is_some_and(|l| l.contains("fix: set JAVA_HOME")),
        "{}",
        out.stdout
    );
}

/// A program built by the oldest Go the README claims is debugged: as a binary (`exec`), and as a
/// package Delve builds with that Go (`GOTOOLCHAIN` reaches Delve's `go build` through the
/// caller's environment).
#[test]
fn the_oldest_go_the_readme_claims_builds_programs_that_delve_debugs() {
    require_delve();
    let s = Session::new();
    let out_dir = tempfile::tempdir().expect("tempdir");
    let binary = out_dir.path().join("ledger-oldest-go");
    let caches = [
        ("GOTOOLCHAIN", OLDEST_GO.to_string()),
        ("GOMODCACHE", go_env("GOMODCACHE")),
        ("GOCACHE", go_env("GOCACHE")),
    ];
    let build = Command::new("go")
        .args(["build", "-gcflags=all=-N -l", "-o"])
        .arg(&binary)
        .arg(".")
        .current_dir(fixture_path("go/ledger"))
        .envs(caches.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("run go build");
    assert!(
        build.status.success(),
        "go build with {OLDEST_GO} failed: {}",
        String::from_utf8_lossy(&build.stderr)
    );
    let built_by = Command::new("go")
        .args(["version"])
        .arg(&binary)
        .output()
        .expect("run go version");
    assert!(
        String::from_utf8_lossy(&built_by.stdout).contains(&format!(": {OLDEST_GO}")),
        "{built_by:?}"
    );

    let location = at("go/ledger/main.go", "@add_body");
    let vars: Vec<(&str, &str)> = caches.iter().map(|(k, v)| (*k, v.as_str())).collect();
    for program in [binary.clone(), fixture_path("go/ledger")] {
        let program = program.to_str().expect("utf-8");
        let start = run_with(
            &s,
            &vars,
            &[
                "--json", "start", program, "--break", &location, "--wait", "60",
            ],
        )
        .json();
        assert_eq!(start["ok"], true, "{start}\nlog:\n{}", s.log());
        // `start` answers with the first stop.
        let stop = &start["data"]["stop"];
        assert_eq!(stop["frame"]["function"], "main.add", "{program}: {start}");
        let sum = s.data(&["print", "a + b"]);
        assert_eq!(sum["value"], "0", "{program}: {sum}");
        s.data(&["stop"]);
    }
}

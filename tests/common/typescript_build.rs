//! The TypeScript fixture built as its tests need it: compiled by its own `tsc` (a map beside
//! each file) and bundled and minified by its own esbuild (the map inline), each once per test
//! process, into a folder of that process (`scripts/install-test-deps.sh` installs the tools).

use std::path::PathBuf;
use std::process::Command;

use super::{fixture_path, require_node};

/// One of the fixture's tools, which must be installed.
pub fn tool(name: &str) -> PathBuf {
    let path = fixture_path("typescript/node_modules/.bin").join(name);
    assert!(
        path.exists(),
        "{} is missing: run scripts/install-test-deps.sh (npm ci in fixtures/typescript)",
        path.display()
    );
    path
}

/// Runs `command` and asserts it succeeded.
pub fn run(mut command: Command, what: &str) {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        output.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Where this test process builds the fixture: `folder` under the tests' temp dir.
fn build_dir(folder: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(folder)
        .join(std::process::id().to_string())
}

/// The fixture's project compiled by `tsc` into `folder`'s `dist`; the path of `entry`'s
/// output there (`app.js`).
pub fn compile(folder: &str, entry: &str) -> PathBuf {
    require_node();
    let out = build_dir(folder).join("dist");
    let mut tsc = Command::new(tool("tsc"));
    tsc.arg("-p")
        .arg(fixture_path("typescript/tsconfig.json"))
        .arg("--outDir")
        .arg(&out);
    run(tsc, "tsc");
    out.join(entry)
}

/// The program whose entry is the fixture file `source` (`typescript/src/app.ts`) in one
/// minified file under `folder`'s `bundle`, named `output`, its map inline.
pub fn bundle(folder: &str, source: &str, output: &str) -> PathBuf {
    require_node();
    let out = build_dir(folder).join("bundle").join(output);
    let mut esbuild = Command::new(tool("esbuild"));
    esbuild
        .arg(fixture_path(source))
        .args([
            "--bundle",
            "--minify",
            "--sourcemap=inline",
            "--platform=node",
            "--log-level=warning",
        ])
        .arg(format!("--outfile={}", out.display()));
    run(esbuild, "esbuild");
    out
}

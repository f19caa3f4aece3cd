//! Backtraces sized for a reader: runs of the runtime's own frames (Rust's `core::ops::function`
//! shims and `std::rt`, Python's `importlib._bootstrap`, node's module loader, Go's
//! `runtime.main`, the JDK's classes) fold into one line in `backtrace` and in a probe's stack;
//! `--all-frames` shows them, and JSON keeps every frame, marked `machinery`.

mod common;

use common::{
    Session, build, build_go, fixture_path, line_of, require_delve, require_jdk, require_lldb_dap,
    require_node, require_python, with_go_env,
};
use serde_json::Value;

/// `bt` and `bt --all-frames` as text, and `bt`'s JSON frames.
fn backtraces(s: &Session) -> (String, String, Vec<Value>) {
    let folded = s.run(&["backtrace", "--limit", "100"]).ok().to_string();
    let all = s
        .run(&["backtrace", "--limit", "100", "--all-frames"])
        .ok()
        .to_string();
    let frames = s.data(&["backtrace", "--limit", "100"])["frames"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    (folded, all, frames)
}

/// The frames JSON marks as `machinery`, by mark.
fn marked(frames: &[Value], mark: &str) -> usize {
    frames.iter().filter(|f| f["machinery"] == mark).count()
}

#[test]
fn rust_shims_fold_into_one_line_and_all_frames_shows_them() {
    require_lldb_dap();
    let s = Session::new();
    let at = format!("counter.rs:{}", line_of("rust/counter.rs", "@bump_body"));
    s.start(&build("rust/counter.rs"), &["--break", &at]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
    let (folded, all, frames) = backtraces(&s);
    assert!(folded.contains("counter::Counter::bump"), "{folded}");
    assert!(folded.contains("counter::main"), "{folded}");
    assert!(folded.contains("frames in core/std"), "{folded}");
    assert!(folded.contains("--all-frames"), "{folded}");
    assert!(!folded.contains("core::ops::function"), "{folded}");
    assert!(all.contains("core::ops::function"), "{all}");
    assert!(!all.contains("frames in core/std"), "{all}");
    assert!(marked(&frames, "rust_std") >= 2, "{frames:?}");
    // The program's frames are never marked.
    assert!(frames[0].get("machinery").is_none(), "{frames:?}");
}

#[test]
fn python_import_machinery_folds_under_pdb() {
    require_python();
    let s = Session::new();
    let at = format!(
        "settings.py:{}",
        line_of("python/importing/settings.py", "@settings_limit")
    );
    s.start(
        &fixture_path("python/importing/main.py"),
        &["--adapter", "pdb", "--break", &at],
    );
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
    let (folded, all, frames) = backtraces(&s);
    assert!(folded.contains("frames in runpy/importlib"), "{folded}");
    assert!(!folded.contains("_find_and_load"), "{folded}");
    assert!(all.contains("_find_and_load"), "{all}");
    assert!(folded.contains("main.py"), "{folded}");
    assert!(marked(&frames, "python_runtime") >= 2, "{frames:?}");
}

#[test]
fn node_module_loader_frames_fold_and_json_keeps_them() {
    require_node();
    let s = Session::new();
    let at = format!(
        "settings.js:{}",
        line_of("javascript/requiring/settings.js", "@settings_limit")
    );
    s.start(
        &fixture_path("javascript/requiring/main.js"),
        &["--break", &at],
    );
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
    let (folded, all, frames) = backtraces(&s);
    assert!(folded.contains("frames in node:internal"), "{folded}");
    assert!(folded.contains("main.js"), "{folded}");
    assert!(all.contains("node:internal/modules/cjs/loader"), "{all}");
    assert!(marked(&frames, "node_internals") >= 2, "{frames:?}");
}

#[test]
fn go_runtime_frames_fold_in_a_probe_stack() {
    require_delve();
    let s = Session::new();
    let at = format!(
        "format.go:{}",
        line_of("go/namesake/format.go", "@describe_body")
    );
    let program = build_go("go/namesake/main.go");
    let output = with_go_env(&mut s.command())
        .args(["probe", program.to_str().expect("utf-8"), "--break", &at])
        .output()
        .expect("run probe");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("main.describe"), "{text}");
    assert!(text.contains("frames in the Go runtime"), "{text}");
    assert!(!text.contains("runtime.goexit"), "{text}");
}

/// A JVM stack: the stream's machinery between `work` and `main`, and below `main` the source
/// launcher's reflective call, fold as the JDK's; `--all-frames` and JSON keep them, named in
/// full.
#[test]
fn jdk_frames_fold_between_and_below_the_programs() {
    require_jdk();
    let s = Session::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let program = dir.path().join("Workers.java");
    std::fs::copy(fixture_path("java/Workers.java"), &program).expect("copy the fixture");
    let at = format!(
        "Workers.java:{}",
        line_of("java/Workers.java", "@work_body")
    );
    s.start(&program, &["--break", &at]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["reason"], "breakpoint", "{stop}");
    let (folded, all, frames) = backtraces(&s);
    assert!(folded.contains("Workers.work"), "{folded}");
    assert!(folded.contains("Workers.main"), "{folded}");
    assert!(folded.contains("frames in the JDK"), "{folded}");
    assert!(!folded.contains("java.util.stream"), "{folded}");
    assert!(
        !folded.contains("java.lang.reflect.Method.invoke"),
        "{folded}"
    );
    assert!(all.contains("java.util.stream."), "{all}");
    assert!(all.contains("java.lang.reflect.Method.invoke"), "{all}");
    assert!(marked(&frames, "jvm_runtime") >= 4, "{frames:?}");
    assert!(frames[0].get("machinery").is_none(), "{frames:?}");
    let main = frames
        .iter()
        .find(|f| f["function"] == "Workers.main")
        .expect("main's frame");
    assert!(main.get("machinery").is_none(), "{frames:?}");
}

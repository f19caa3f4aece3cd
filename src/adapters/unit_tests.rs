//! Unit tests of adapter choice and request extras (the search for versioned executables, which
//! needs Unix file modes, is tested in mod.rs's own test module).

use super::*;

#[test]
fn configured_request_fields_are_laid_over_any_adapters() {
    let config = Config::parse(
        "[adapters.debugpy.launch]\nbreakOnSystemExit = [0]\njustMyCode = false\n[adapters.debugpy.attach]\nlogToFile = true\n",
    )
    .expect("parse");
    let extras = RequestExtras::from_config(&config.adapter("debugpy"));
    let launch = extras.apply(
        "launch",
        serde_json::json!({"program": "/a.py", "justMyCode": true}),
    );
    assert_eq!(launch["program"], "/a.py");
    assert_eq!(launch["justMyCode"], false);
    assert_eq!(launch["breakOnSystemExit"], serde_json::json!([0]));
    let attach = extras.apply("attach", serde_json::json!({"pid": 1}));
    assert_eq!(attach["logToFile"], true);
    assert!(attach.get("justMyCode").is_none());
}

#[test]
fn programs_pick_their_adapter() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = Config::default();
    let py = dir.path().join("app.py");
    std::fs::write(&py, "print(1)\n").expect("write");
    assert_eq!(detect(&py, &config).ok(), Some("debugpy"));
    assert_eq!(
        detect(&dir.path().join("main.go"), &config).ok(),
        Some("delve")
    );
    assert_eq!(
        detect(&dir.path().join("app.mjs"), &config).ok(),
        Some("node")
    );
    let script = dir.path().join("tool");
    std::fs::write(&script, "#!/usr/bin/env python3\nprint(1)\n").expect("write");
    assert_eq!(detect(&script, &config).ok(), Some("debugpy"));
    let pkg = dir.path().join("pkg");
    std::fs::create_dir(&pkg).expect("mkdir");
    std::fs::write(pkg.join("main.go"), "package main\n").expect("write");
    assert_eq!(detect(&pkg, &config).ok(), Some("delve"));
    let go_binary = dir.path().join("gobin");
    let mut bytes = b"\x7fELF".to_vec();
    bytes.extend_from_slice(&[0; 108]);
    bytes.extend_from_slice(GO_BUILD_INFO_MAGIC);
    bytes.extend_from_slice(&[8, 2]);
    bytes.extend_from_slice(&[0; 32]);
    std::fs::write(&go_binary, &bytes).expect("write");
    assert_eq!(detect(&go_binary, &config).ok(), Some("delve"));
    // A program that merely holds the magic as a constant (a debugger does) is no Go binary.
    let holder = dir.path().join("holder");
    let at = 112 + GO_BUILD_INFO_MAGIC.len();
    bytes[at..at + 2].copy_from_slice(b"go");
    std::fs::write(&holder, &bytes).expect("write");
    assert_ne!(detect(&holder, &config).ok(), Some("delve"));
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "hello").expect("write");
    let err = detect(&text, &config).expect_err("no adapter fits text");
    assert!(err.hint.contains("debugpy (Python)"), "{err:?}");
}

#[test]
fn aliases_name_their_adapter() {
    assert_eq!(kind("python").map(|k| k.name), Some("debugpy"));
    assert_eq!(kind("dlv").map(|k| k.name), Some("delve"));
    assert_eq!(kind("go").map(|k| k.name), Some("delve"));
    assert_eq!(kind("js").map(|k| k.name), Some("node"));
    assert_eq!(kind("lldb-dap").map(|k| k.name), Some("lldb"));
    assert!(kind("nosuch").is_none());
}

#[test]
fn unknown_adapter_lists_the_known_ones() {
    let err = resolve(Some("nosuch"), &Config::default(), None, false)
        .err()
        .expect("must fail");
    assert_eq!(err.code, ErrorCode::Usage);
    assert!(err.hint.contains("lldb"), "{err:?}");
}

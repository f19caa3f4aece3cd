//! The breakpoint table's rules: hit counts as users write them, entries kept across re-sends.

use super::placing::ambiguity;
use super::*;

#[test]
fn hit_conditions_read_as_dap_and_gdb_users_write_them() {
    assert_eq!(HitRule::parse("3"), Some(HitRule::AtLeast(3)));
    assert_eq!(HitRule::parse(">= 2"), Some(HitRule::AtLeast(2)));
    assert_eq!(HitRule::parse(">2"), Some(HitRule::AtLeast(3)));
    assert_eq!(HitRule::parse("==4"), Some(HitRule::Exactly(4)));
    assert_eq!(HitRule::parse("%2"), Some(HitRule::Every(2)));
    assert_eq!(HitRule::parse("%0"), None);
    assert_eq!(HitRule::parse("x"), None);
    assert!(!HitRule::AtLeast(3).allows(2));
    assert!(HitRule::AtLeast(3).allows(4));
    assert!(HitRule::Every(2).allows(4));
}

/// An absolute path on the OS the test runs on: `/app/x` here, `C:/app/x` on Windows, where a
/// path without a drive is not absolute.
fn abs(path: &str) -> PathBuf {
    PathBuf::from(if cfg!(windows) {
        format!("C:{path}")
    } else {
        path.to_string()
    })
}

/// Node's URL for [`abs`]`(path)`.
fn url(path: &str) -> String {
    if cfg!(windows) {
        format!("file:///C:{path}")
    } else {
        format!("file://{path}")
    }
}

#[test]
fn a_relative_file_names_the_loaded_script_it_is_a_suffix_of() {
    let mut scripts = Scripts::default();
    scripts.add("1", &url("/app/lib/util.js"));
    scripts.add("2", &url("/app/vendor/util.js"));
    scripts.add("3", &url("/app/main.js"));
    let target = |path: &str| FileTarget::of(Path::new(path), &scripts);
    assert_eq!(target("main.js"), FileTarget::File(abs("/app/main.js")));
    assert_eq!(
        target("./lib/util.js"),
        FileTarget::File(abs("/app/lib/util.js"))
    );
    let elsewhere = abs("/elsewhere/main.js");
    assert_eq!(
        FileTarget::of(&elsewhere, &scripts),
        FileTarget::File(elsewhere.clone())
    );
    assert_eq!(
        target("ain.js"),
        FileTarget::Suffix(PathBuf::from("ain.js"))
    );
    assert_eq!(target(".."), FileTarget::Nothing);
    assert_eq!(
        target("util.js"),
        FileTarget::Ambiguous {
            suffix: PathBuf::from("util.js"),
            candidates: vec![abs("/app/lib/util.js"), abs("/app/vendor/util.js")],
        }
    );
}

#[test]
fn an_ambiguous_name_lists_its_candidates_and_a_longer_name() {
    let two = [abs("/app/lib/util.js"), abs("/app/vendor/util.js")];
    let lib_util = Path::new("lib").join("util.js");
    assert_eq!(
        ambiguity(Path::new("util.js"), &two),
        format!(
            "2 loaded scripts are named util.js: {}, {}; give more of the path, e.g. {}",
            two[0].display(),
            two[1].display(),
            lib_util.display()
        )
    );
    let many: Vec<PathBuf> = (0..12)
        .map(|n| abs(&format!("/p{n:02}/x/util.js")))
        .collect();
    let message = ambiguity(Path::new("x/util.js"), &many);
    assert!(
        message.starts_with(&format!(
            "12 loaded scripts are named x/util.js: {}, ",
            many[0].display()
        )),
        "{message}"
    );
    assert!(
        message.contains(&format!("{}, and 2 more;", many[9].display())),
        "{message}"
    );
    assert!(!message.contains("/p10/"), "{message}");
    let hint = Path::new("p00").join("x").join("util.js");
    assert!(
        message.ends_with(&format!("e.g. {}", hint.display())),
        "{message}"
    );
}

#[test]
fn a_breakpoint_short_of_its_count_is_not_a_stop() {
    let mut table = Breakpoints::default();
    table.functions.push(Entry {
        dap_id: 1,
        wish: Wish {
            place: Place::Function("f".into()),
            condition: None,
        },
        hit_rule: Some(HitRule::AtLeast(2)),
        hits: 0,
        v8_ids: vec!["v8:1".into()],
        searched: HashSet::new(),
        resolved: None,
        message: None,
        by_suffix: false,
        mapped_in: HashSet::new(),
        candidates: BTreeSet::new(),
        refused: false,
    });
    let first = table.hit(&["v8:1".into()]);
    assert!(!first.stop);
    let second = table.hit(&["v8:1".into()]);
    assert!(second.stop);
    assert_eq!(second.dap_ids, vec![1]);
    let foreign = table.hit(&["v8:other".into()]);
    assert!(foreign.stop);
}

/// A breakpoint is written as the hand-built JSON was: `source` only where a file is known,
/// `line` where it landed or was asked for, `message` only when there is one.
#[test]
fn breakpoints_are_written_as_the_session_reads_them() {
    let entry = |place: Place, resolved: Option<(PathBuf, u32)>, message: Option<&str>| Entry {
        dap_id: 4,
        wish: Wish {
            place,
            condition: None,
        },
        hit_rule: None,
        hits: 0,
        v8_ids: Vec::new(),
        searched: HashSet::new(),
        resolved,
        message: message.map(str::to_string),
        by_suffix: false,
        mapped_in: HashSet::new(),
        candidates: BTreeSet::new(),
        refused: false,
    };
    let written = |breakpoint| serde_json::to_value(breakpoint).unwrap_or_default();
    let app = abs("/app/a.js");
    assert_eq!(
        written(entry(Place::Line(3), Some((app.clone(), 5)), None).to_dap(None)),
        json!({ "id": 4, "verified": true, "source": { "path": app }, "line": 5 })
    );
    assert_eq!(
        written(entry(Place::Line(3), None, Some("not loaded")).to_dap(Some(&app))),
        json!({ "id": 4, "verified": false, "source": { "path": app }, "line": 3, "message": "not loaded" })
    );
    assert_eq!(
        written(entry(Place::Function("f".into()), None, None).to_dap(None)),
        json!({ "id": 4, "verified": false })
    );
}

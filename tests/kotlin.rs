//! Kotlin under the built-in `java` adapter: the Kotlin shop fixture (`fixtures/kotlin/shop`, a
//! Maven project built by Maven's kotlin plugin) started as its `java` command line
//! (`-cp target/classes:kotlin-stdlib.jar MainKt`) from a folder that is not the program's.
//! Breakpoints by `Main.kt:LINE` and by function name (`main`, a top-level `fun`, a class's
//! method, a companion object's); a data class by its properties, Kotlin's `String`, `List`,
//! `Map` and a nullable value; `print` of Kotlin-looking expressions that are valid Java.
//!
//! Every test fails (never skips) when no JDK or Maven is found: `.ci/run` installs them, and
//! `scripts/install-test-deps.sh` fetches the Kotlin plugin and standard library.

mod common;

use std::path::Path;

use common::java::step_with;
use common::maven::{self, MavenBuild};
use common::{Session, line_of, repo_root, variable};
use serde_json::Value;

const MAIN: &str = "kotlin/shop/src/main/kotlin/Main.kt";

fn shop() -> MavenBuild {
    maven::build(&repo_root().join("fixtures/kotlin/shop"))
}

/// `start --no-wait EXTRA... -- java -cp CLASSPATH MainKt`, from the session's own folder.
#[track_caller]
fn start(s: &Session, project: &MavenBuild, extra: &[&str]) -> Value {
    let mut all = vec!["start", "--no-wait"];
    all.extend_from_slice(extra);
    all.extend_from_slice(&["--", "java", "-cp", &project.classpath, "MainKt"]);
    let started = s.data(&all);
    assert_eq!(started["adapter"], "java", "{started}");
    started
}

/// `Main.kt:LINE` of `marker`, by the file's bare name.
fn at(marker: &str) -> String {
    format!("Main.kt:{}", line_of(MAIN, marker))
}

#[track_caller]
fn assert_at(stop: &Value, project: &MavenBuild, function: &str, marker: &str) {
    assert_eq!(stop["frame"]["function"], function, "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(MAIN, marker), "{stop}");
    let file = stop["frame"]["file"].as_str().unwrap_or("");
    assert_eq!(Path::new(file), project.source("Main.kt"), "{stop}");
}

/// `start --adapter kotlin MainKt --classpath CLASSPATH`: the class `kotlinc` makes of
/// `Main.kt`'s top level, named with its class path rather than in a `java` command line.
#[test]
fn a_kotlin_main_class_runs_from_the_classpath_given() {
    let project = shop();
    let s = Session::new();
    let started = s.data(&[
        "start",
        "--no-wait",
        "--adapter",
        "kotlin",
        "MainKt",
        "--classpath",
        &project.classpath,
        "--break",
        &at("@verdict"),
    ]);
    assert_eq!(started["adapter"], "java", "{started}");
    let stop = step_with(&s, "continue");
    assert_at(&stop, &project, "MainKt.main", "@verdict");
    assert_eq!(s.value_of("total"), "8");
}

/// A line of `main` by the file's bare name: the frame names the project's `Main.kt` (found
/// under `src/main/kotlin` from the class path), and the values read as Kotlin's.
#[test]
fn a_kotlin_line_breaks_by_its_bare_file_name_and_shows_kotlin_values() {
    let project = shop();
    let s = Session::new();
    let started = start(&s, &project, &["--break", &at("@verdict")]);
    assert_eq!(started["breakpoints"][0]["verified"], false, "{started}");
    let stop = step_with(&s, "continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_at(&stop, &project, "MainKt.main", "@verdict");

    let locals = s.data(&["locals"])["variables"].clone();
    assert_eq!(variable(&locals, "total")["value"], "8", "{locals}");
    assert_eq!(variable(&locals, "cart")["type"], "Cart", "{locals}");
    // Kotlin's List and Map are java.util's, shown by their elements.
    assert_eq!(s.value_of("names"), r#"["apple", "pear"]"#);
    assert_eq!(s.value_of("prices"), r#"{"apple"=3, "pear"=5}"#);
    // Field paths and calls, written as Java: a property is its private field or its getter.
    assert_eq!(s.value_of("cart.owner"), "\"ada\"");
    assert_eq!(s.value_of("cart.getOwner().length()"), "3");
    assert_eq!(s.value_of("cart.items.size()"), "2");
    assert_eq!(s.value_of("prices.get(\"pear\") + total"), "13");
    // A companion's `const val` is a static field of its class.
    assert_eq!(s.value_of("Cart.LIMIT"), "100");
    // A nullable property that holds null, and one that holds a String.
    assert_eq!(s.value_of("cart.items.get(0).note"), "null");
    assert_eq!(s.value_of("cart.items.get(1).getNote()"), "\"ripe\"");

    let end = step_with(&s, "continue");
    assert_eq!(end["reason"], "exited", "{end}");
    let text = s.output_containing(
        &["fine: 8 for 2 items, 2 prices"],
        std::time::Duration::from_secs(30),
    );
    assert!(text.contains("fine"), "{text}");
}

/// A data class shows its properties, by name, as its children, and its `toString()` as its
/// value.
#[test]
fn a_data_class_shows_its_properties() {
    let project = shop();
    let s = Session::new();
    start(&s, &project, &["--break", &at("@add_body")]);
    let stop = step_with(&s, "continue");
    assert_at(&stop, &project, "Cart.add", "@add_body");
    let locals = s.data(&["locals"])["variables"].clone();
    let item = variable(&locals, "item");
    assert_eq!(item["type"], "Item", "{item}");
    assert_eq!(
        item["value"], "Item(name=apple, price=3, note=null)",
        "{item}"
    );
    let children = &item["children"];
    assert_eq!(variable(children, "name")["value"], "\"apple\"", "{item}");
    assert_eq!(variable(children, "price")["value"], "3", "{item}");
    assert_eq!(variable(children, "note")["value"], "null", "{item}");
    let this = variable(&locals, "this");
    assert_eq!(
        variable(&this["children"], "owner")["value"],
        "\"ada\"",
        "{this}"
    );
}

/// Function breakpoints as a Kotlin user names functions: `main`, a top-level `fun`
/// (`describe`, in `MainKt`), a class's method (`Cart.total`) and a companion object's
/// (`Cart.forOwner`), each stopping once, in the order the program calls them.
#[test]
fn kotlin_functions_break_by_their_names() {
    let project = shop();
    let s = Session::new();
    start(
        &s,
        &project,
        &[
            "--break",
            "main",
            "--break",
            "Cart.forOwner",
            "--break",
            "Cart.total",
            "--break",
            "describe",
        ],
    );
    let mut seen = Vec::new();
    loop {
        let stop = step_with(&s, "continue");
        if stop["reason"] != "breakpoint" {
            assert_eq!(stop["reason"], "exited", "{stop}");
            break;
        }
        seen.push(stop["frame"]["function"].as_str().unwrap_or("").to_string());
    }
    assert_eq!(
        seen,
        [
            "MainKt.main",
            "Cart$Companion.forOwner",
            "Cart.total",
            "MainKt.describe"
        ]
    );
}

/// A `when` and a lambda's body are lines like any other.
#[test]
fn a_when_branch_and_a_lambda_body_stop() {
    let project = shop();
    let s = Session::new();
    start(
        &s,
        &project,
        &[
            "--break",
            &at("@total_body"),
            "--break",
            &at("@describe_else"),
        ],
    );
    let stop = step_with(&s, "continue");
    assert_at(&stop, &project, "Cart.total", "@total_body");
    let stop = step_with(&s, "continue");
    assert_eq!(
        stop["frame"]["line"],
        line_of(MAIN, "@describe_else"),
        "{stop}"
    );
    assert_eq!(s.value_of("total"), "8");
}

/// `next` over a call of an inline function (`sumOf`, whose body Kotlin copies into `total`
/// with lines numbered past the end of `Main.kt`) stops only at `Main.kt`'s own lines: the
/// lambda's body, then the line after.
#[test]
fn next_steps_over_the_lines_kotlin_inlined() {
    let project = shop();
    let s = Session::new();
    start(&s, &project, &["--break", &at("@total_body")]);
    let stop = step_with(&s, "continue");
    assert_at(&stop, &project, "Cart.total", "@total_body");
    let file_lines = std::fs::read_to_string(project.source("Main.kt"))
        .expect("Main.kt")
        .lines()
        .count() as u64;
    let target = u64::from(line_of(MAIN, "@total_return"));
    let mut lines = Vec::new();
    while lines.last() != Some(&target) {
        assert!(lines.len() < 8, "no stop at line {target}: {lines:?}");
        let stop = step_with(&s, "next");
        assert_eq!(stop["reason"], "step", "{stop}");
        assert_eq!(stop["frame"]["function"], "Cart.total", "{stop}");
        let line = stop["frame"]["line"].as_u64().unwrap_or(0);
        assert!(
            (1..=file_lines).contains(&line),
            "a stop at line {line} of a {file_lines}-line Main.kt: {stop}"
        );
        lines.push(line);
    }
}

//! Java under the built-in `java` adapter (our JDWP client, speaking to the program's own JVM):
//! the shop fixture compiled with `javac -g` into a project of its own and started as a `java`
//! command line from a folder that is not the program's; breakpoints by a bare file name, in a
//! class not loaded yet, in an inner class and a lambda; next, step and finish; locals, `this`
//! and the stack; `print` of Java expressions, collections by their elements, `set`;
//! conditions, hit counts and logpoints; the program's output and exit code. A single source
//! file and a jar run on Temurin 25 through `JAVA_HOME`.
//!
//! Every test fails (never skips) when no JDK is found: `.ci/run` installs them.

mod common;

use std::path::Path;
use std::time::Duration;

use common::java::*;
use common::{Session, fixture_path, line_of, variable};

/// The issue's first scenario: break by a bare file name, continue, read locals, `this` and
/// the stack, then run to the exit code with the program's output.
#[test]
fn a_bare_file_name_breaks_and_the_stop_shows_locals_stack_output_and_exit_code() {
    let project = Project::build();
    let s = Session::new();
    let started = project.start(&s, &["--break", &bare(CART, "@sum_line")], &[]);
    assert_eq!(started["breakpoints"][0]["verified"], false, "{started}");

    let stop = step_with(&s, "continue");
    assert_eq!(stop["reason"], "breakpoint", "{stop}");
    assert_eq!(stop["breakpoint_ids"], serde_json::json!([1]), "{stop}");
    project.assert_at(&stop, CART, "Cart.total", "@sum_line");
    assert_eq!(stop["thread_name"], "main", "{stop}");

    let locals = s.data(&["locals"])["variables"].clone();
    let sum = variable(&locals, "sum");
    assert_eq!(
        (sum["value"].as_str(), sum["type"].as_str()),
        (Some("0"), Some("int"))
    );
    let line = variable(&locals, "line");
    assert_eq!(line["type"], "com.shop.Cart$Line", "{locals}");
    let this = variable(&locals, "this");
    assert_eq!(this["type"], "com.shop.Cart", "{locals}");
    assert_eq!(s.value_of("this.owner"), "\"alice\"");
    assert_eq!(s.value_of("line.count"), "3");
    assert_eq!(s.value_of("counts.length"), "2");
    // A static field by its class's simple name, resolved from the frame's package.
    assert_eq!(s.value_of("Cart.LIMIT"), "10");

    let backtrace = s.data(&["backtrace"]);
    let frames: Vec<(&str, u64)> = backtrace["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .map(|f| {
            (
                f["function"].as_str().unwrap_or(""),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        frames,
        [
            ("Cart.total", u64::from(line_of(CART, "@sum_line"))),
            ("Main.main", u64::from(line_of(MAIN, "@total_call")))
        ],
        "{backtrace}"
    );
    assert_eq!(
        backtrace["frames"][1]["file"].as_str().map(Path::new),
        Some(project.source(MAIN).as_path()),
        "{backtrace}"
    );

    s.data(&["breakpoint", "remove", "--all"]);
    let end = step_with(&s, "continue");
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 3, "{end}");
    let text = s.output_containing(&["names=APPLE,PEAR"], Duration::from_secs(30));
    assert!(text.contains("total=630\n"), "{text}");
}

/// `Late` loads only when the program is given an argument: its breakpoint is pending at the
/// start, binds as the class loads (a class-prepare event, not polling), and stops there.
#[test]
fn a_breakpoint_in_a_class_not_loaded_yet_binds_when_it_loads() {
    let project = Project::build();
    let s = Session::new();
    let late = project.source(LATE);
    let location = format!("{}:{}", late.display(), line_of(LATE, "@late"));
    let started = project.start(&s, &["--break", &location], &["x"]);
    assert_eq!(started["breakpoints"][0]["verified"], false, "{started}");
    let stop = step_with(&s, "continue");
    project.assert_at(&stop, LATE, "Late.describe", "@late");
    let listed = s.data(&["breakpoint", "list"]);
    assert_eq!(listed["breakpoints"][0]["verified"], true, "{listed}");
    assert_eq!(s.value_of("total"), "630");
}

/// A line in a nested class's method, and one in a lambda's body, bind by the outer file's
/// name and stop where they are.
#[test]
fn lines_in_an_inner_class_and_a_lambda_stop() {
    let project = Project::build();
    let s = Session::new();
    project.start(
        &s,
        &[
            "--break",
            &bare(CART, "@cost"),
            "--break",
            &format!("shop/{}", bare(CART, "@lambda")),
        ],
        &[],
    );
    let stop = step_with(&s, "continue");
    project.assert_at(&stop, CART, "Cart$Line.cost", "@cost");
    assert_eq!(s.value_of("price"), "150");
    s.data(&["breakpoint", "remove", "1"]);
    let stop = step_with(&s, "continue");
    project.assert_at(&stop, CART, "Cart.lambda$names$0", "@lambda");
    assert_eq!(s.value_of("line.item"), "\"apple\"");
}

/// next stays in the method, step goes into the call (not into the JDK), finish comes back.
#[test]
fn next_step_and_finish_move_by_lines_of_the_programs_own_code() {
    let project = Project::build();
    let s = Session::new();
    project.start(&s, &["--break", &bare(MAIN, "@add_apple")], &[]);
    let stop = step_with(&s, "continue");
    project.assert_at(&stop, MAIN, "Main.main", "@add_apple");
    let stop = step_with(&s, "step");
    project.assert_at(&stop, CART, "Cart.add", "@add_body");
    assert_eq!(s.value_of("item"), "\"apple\"");
    // JDWP's step out ends at the next line boundary in the caller: the line after the call.
    let stop = step_with(&s, "finish");
    assert_eq!(stop["frame"]["function"], "Main.main", "{stop}");
    assert_eq!(
        stop["frame"]["line"],
        line_of(MAIN, "@add_apple") + 1,
        "{stop}"
    );
    // Over `cart.total()` and the JDK's string concatenation alike.
    let stop = step_with(&s, "next");
    project.assert_at(&stop, MAIN, "Main.main", "@total_call");
    let stop = step_with(&s, "next");
    project.assert_at(&stop, MAIN, "Main.main", "@print_total");
    assert_eq!(s.value_of("total"), "630");
}

/// A program given as its main class's name with `--classpath`: it runs from the class path,
/// breaks by a bare file name with its sources found from there, and exits with its code. With
/// no `--adapter`, the class path alone picks the java adapter; another adapter refuses it.
#[test]
fn a_main_class_runs_from_the_classpath_given() {
    let project = Project::build();
    let s = Session::new();
    let classes = project.classes();
    let classes = classes.to_str().expect("utf-8 path");
    let location = bare(CART, "@sum_line");
    let started = s.data(&[
        "start",
        "--no-wait",
        "--adapter",
        "java",
        "com.shop.Main",
        "--classpath",
        classes,
        "--break",
        &location,
    ]);
    assert_eq!(started["adapter"], "java", "{started}");
    let stop = step_with(&s, "continue");
    project.assert_at(&stop, CART, "Cart.total", "@sum_line");
    s.data(&["breakpoint", "remove", "--all"]);
    let end = step_with(&s, "continue");
    assert_eq!(end["exit_code"], 3, "{end}");
    s.run(&["stop"]);

    let detected = s.data(&[
        "start",
        "com.shop.Main",
        "--classpath",
        classes,
        "--wait",
        "60",
    ]);
    assert_eq!(detected["adapter"], "java", "{detected}");
    s.run(&["stop"]);

    let refused = s
        .run(&[
            "--json",
            "start",
            "--adapter",
            "debugpy",
            "com.shop.Main",
            "--classpath",
            classes,
        ])
        .failure();
    assert_eq!(refused["code"], "usage", "{refused}");
}

/// A single source file (`java Greeter.java`) on Temurin 25, picked through `JAVA_HOME` and
/// told from the `.java` extension alone.
#[test]
fn a_single_source_file_runs_on_the_jdk_java_home_names() {
    let s = Session::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let program = dir.path().join("Greeter.java");
    std::fs::copy(fixture_path(GREETER), &program).expect("copy");
    let location = bare(GREETER, "@greet");
    let program = program.to_str().expect("utf-8 path");
    let run = s
        .command()
        .env("JAVA_HOME", TEMURIN_25)
        .args([
            "--json",
            "start",
            "--no-wait",
            program,
            "--break",
            &location,
            "--",
            "ada",
        ])
        .output()
        .expect("run debugger");
    let started = common::Run::from(run).json();
    assert_eq!(started["data"]["adapter"], "java", "{started}");
    let stop = step_with(&s, "continue");
    assert_eq!(stop["frame"]["function"], "Greeter.main", "{stop}");
    assert_eq!(stop["frame"]["line"], line_of(GREETER, "@greet"), "{stop}");
    assert_eq!(s.value_of("name"), "\"ada\"");
    let end = step_with(&s, "continue");
    assert_eq!(end["exit_code"], 0, "{end}");
    // The JVM that ran it is the one JAVA_HOME names.
    s.output_containing(&["hello, ada (Java 25)"], Duration::from_secs(30));
}

/// `print` takes the Java an agent types (calls, arithmetic, strings, statics) and shows a list
/// and a map by their elements; an error names what was not understood; `set` writes a local
/// and a field.
#[test]
fn print_evaluates_java_shows_collections_by_elements_and_set_writes() {
    let project = Project::build();
    let s = Session::new();
    project.start(&s, &["--break", &bare(CART, "@total_return")], &[]);
    let stop = step_with(&s, "continue");
    project.assert_at(&stop, CART, "Cart.total", "@total_return");

    assert_eq!(s.value_of("sum * 2 + 1"), "1261");
    assert_eq!(s.value_of("lines.size()"), "2");
    assert_eq!(s.value_of("owner.toUpperCase() + \"!\""), "\"ALICE!\"");
    assert_eq!(s.value_of("Cart.LIMIT * 2 > sum"), "false");
    assert_eq!(s.value_of("prices.get(\"pear\")"), "90");
    assert_eq!(s.value_of("items"), r#"["apple", "pear"]"#);
    assert_eq!(s.value_of("prices"), r#"{"apple"=150, "pear"=90}"#);
    assert_eq!(s.value_of("counts"), "int[2] {4, 5}");

    let locals = s.data(&["locals"])["variables"].clone();
    let this = variable(&locals, "this");
    let items = variable(&this["children"], "items");
    assert_eq!(
        (items["value"].as_str(), items["children_count"].as_u64()),
        (Some(r#"["apple", "pear"]"#), Some(2)),
        "{this}"
    );

    let error = s.json(&["print", "sum +"]);
    assert_eq!(error["ok"], false, "{error}");
    let wrong = s.json(&["print", "nosuch + 1"]);
    assert!(
        wrong.to_string().contains("nosuch"),
        "the error names what was not understood: {wrong}"
    );

    // A call that throws is an error of print's; the exception stops nothing.
    let threw = s.json(&["print", "owner.charAt(10)"]);
    assert!(
        threw
            .to_string()
            .contains("StringIndexOutOfBoundsException"),
        "{threw}"
    );
    assert_eq!(s.value_of("sum"), "630");

    s.data(&["set", "sum", "5"]);
    assert_eq!(s.value_of("sum"), "5");
    s.data(&["set", "discount", "sum * 3"]);
    assert_eq!(s.value_of("this.discount"), "15");
}

/// A condition that does not parse is refused when it is set, in the parser's words, and
/// leaves the breakpoint as it was.
#[test]
fn a_condition_that_does_not_parse_is_refused_at_break() {
    let project = Project::build();
    let s = Session::new();
    project.start(&s, &["--break", &bare(MAIN, "@add_apple")], &[]);
    step_with(&s, "continue");
    s.data(&["breakpoint", "remove", "--all"]);
    let cost = bare(CART, "@cost");
    let refused = |run: &common::Run| {
        assert_eq!(run.code, 2, "{run:?}");
        let failure = run.failure();
        assert_eq!(failure["code"], "usage", "{failure}");
        let message = failure["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("the condition 'count >' of ")
                && message.contains("does not compile: "),
            "{failure}"
        );
    };
    refused(&s.run(&["--json", "break", &cost, "--condition", "count >"]));
    let added = s.data(&["break", &cost, "--condition", "count > 2"]);
    let id = added["id"].as_u64().expect("id").to_string();
    refused(&s.run(&["--json", "break", "modify", &id, "--condition", "count >"]));
    let listed = s.data(&["break", "list"]);
    assert!(listed.to_string().contains("count > 2"), "{listed}");
    let stop = step_with(&s, "continue");
    project.assert_at(&stop, CART, "Cart$Line.cost", "@cost");
    assert_eq!(s.value_of("item"), "\"apple\"");
}

/// Conditions in Java, hit counts and logpoints, judged by the adapter at each hit: `Line.cost`
/// runs for the apple (3 × 150) and then the pear (2 × 90).
#[test]
fn conditions_hit_counts_and_logpoints_are_judged_in_java() {
    let project = Project::build();
    let cost = bare(CART, "@cost");
    // A session stopped before any `Line` exists, with a breakpoint on `cost` added so.
    let with = |options: &[&str]| {
        let s = Session::new();
        project.start(&s, &["--break", &bare(MAIN, "@add_apple")], &[]);
        step_with(&s, "continue");
        s.data(&["breakpoint", "remove", "--all"]);
        let mut add = vec!["breakpoint", "add", cost.as_str()];
        add.extend_from_slice(options);
        s.data(&add);
        s
    };

    let s = with(&[
        "--condition",
        "item.equals(\"pear\") && count * price > 100",
    ]);
    let stop = step_with(&s, "continue");
    project.assert_at(&stop, CART, "Cart$Line.cost", "@cost");
    assert_eq!(s.value_of("item"), "\"pear\"");
    assert_eq!(stop["condition_error"], serde_json::Value::Null, "{stop}");

    // A condition that throws stops, and says why, rather than passing as false.
    let s = with(&["--condition", "item.charAt(10) == 'x'"]);
    let stop = step_with(&s, "continue");
    project.assert_at(&stop, CART, "Cart$Line.cost", "@cost");
    let error = stop["condition_error"].as_str().unwrap_or_default();
    assert!(error.contains("StringIndexOutOfBoundsException"), "{stop}");

    let s = with(&["--hit-count", "2"]);
    step_with(&s, "continue");
    assert_eq!(s.value_of("item"), "\"pear\"");

    // A string is written by its characters, as the adapters that print logpoints themselves
    // write it; a string within a value stays quoted.
    let s = with(&[
        "--log",
        "cost of {item}: {count * price} {java.util.List.of(item)}",
    ]);
    let end = step_with(&s, "continue");
    assert_eq!(end["reason"], "exited", "{end}");
    let text = s.output_containing(&["cost of pear: 180 [\"pear\"]"], Duration::from_secs(30));
    assert!(text.contains("cost of apple: 450 [\"apple\"]"), "{text}");
}

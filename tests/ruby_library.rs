//! Ruby on a library nobody here wrote: Rack, as Debian's `ruby-rack` installs it, called by the
//! small `fixtures/ruby/library/query.rb` (a request built as a server builds one, its query
//! string parsed). Breakpoints by the gem's file names, in files not loaded when the program
//! starts; a step into the gem's own parser and `finish` with what it returned; every value
//! checked against what Ruby itself says: the debug gem's own console (`rdbg -e COMMAND`, run
//! without a terminal) at the same line of the same program, or plain `ruby -e`.
//!
//! Every test fails (never skips) when Ruby or Rack is missing: `scripts/install-test-deps.sh`
//! installs `ruby` and `ruby-rack` with apt.

#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::node::step_with;
use common::{Session, fixture_path, line_in, require_ruby, variable};
use serde_json::Value;

const PROGRAM: &str = "ruby/library/query.rb";
const QUERY: &str = "q=ruby&tags[]=a&tags[]=b&page=2";

/// A Rack file's path, as the Ruby that runs the fixture finds it.
fn rack_file(name: &str) -> PathBuf {
    let output = Command::new("ruby")
        .args([
            "-e",
            &format!("print Gem::Specification.find_by_name('rack').gem_dir + '/lib/rack/{name}'"),
        ])
        .stderr(Stdio::inherit())
        .output()
        .expect("run ruby");
    assert!(
        output.status.success(),
        "Rack is required for this test; install it with 'apt-get install ruby-rack' \
         (scripts/install-test-deps.sh does)"
    );
    PathBuf::from(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The line holding `text` in Rack's file `name`, so the test follows the installed version.
fn rack_line(name: &str, text: &str) -> u32 {
    line_in(&rack_file(name), text)
}

/// What `ruby -e SCRIPT` (with Rack loaded) prints.
fn ruby_says(script: &str) -> String {
    let output = Command::new("ruby")
        .args(["-rrack", "-e", script])
        .output()
        .expect("run ruby");
    assert!(output.status.success(), "ruby -e {script}: {output:?}");
    String::from_utf8_lossy(&output.stdout)
        .trim_end()
        .to_owned()
}

/// The debug gem's own console on the fixture: a breakpoint at `file:line`, continued to, then
/// `commands`, then `q!`, with no terminal. Answers each `p` command's value and the place of
/// each stop, in order, as `rdbg` printed them.
fn rdbg_says(file: &Path, line: u32, commands: &[&str]) -> Vec<String> {
    let rdbg = ruby_says("print Gem.bin_path('debug', 'rdbg')");
    let mut args = vec![
        rdbg,
        "--no-color".to_owned(),
        "-e".to_owned(),
        format!("b {}:{line}", file.display()),
        "-e".to_owned(),
        "c".to_owned(),
    ];
    for command in commands.iter().chain(&["q!"]) {
        args.push("-e".to_owned());
        args.push((*command).to_owned());
    }
    args.push("--".to_owned());
    args.push(fixture_path(PROGRAM).display().to_string());
    let output = Command::new("ruby")
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .expect("run rdbg");
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    // `=> VALUE` answers a `p`; `=>#0\tFUNCTION at PATH:LINE` names where a stop is, and
    // `=> LINE| SOURCE` is the stop's listing. The first stop is the program's start.
    let listing = |l: &str| {
        let rest = l.trim_start_matches("=>").trim_start();
        rest.split_once('|')
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    text.lines()
        .filter(|l| !listing(l))
        .filter_map(|l| {
            l.strip_prefix("=> ")
                .map(str::to_owned)
                .or_else(|| l.strip_prefix("=>#0\t").map(str::to_owned))
        })
        .skip(1)
        .collect()
}

/// The line of a stop rdbg names (`block in f at /path/file.rb:105 #=> value`).
fn rdbg_line(place: &str) -> Option<u64> {
    place
        .split_whitespace()
        .find(|word| word.contains(".rb:"))
        .and_then(|word| word.rsplit(':').next())
        .and_then(|line| line.parse().ok())
}

/// The stop's frame as `(function, line)`.
fn place(stop: &Value) -> (String, u64) {
    (
        stop["frame"]["function"].as_str().unwrap_or("").to_owned(),
        stop["frame"]["line"].as_u64().unwrap_or(0),
    )
}

/// The issue's real-program check: `query_parser.rb:LINE`, a bare name of a file Rack loads
/// only once the program asks for a request's parameters, binds and stops in the parser's
/// block; its locals, a Ruby expression on them and a `next` read as rdbg's own console reads
/// them at the same line.
#[test]
fn rack_breaks_by_a_bare_file_name_and_its_values_match_rdbg() {
    require_ruby();
    let parser = rack_file("query_parser.rb");
    let line = rack_line(
        "query_parser.rb",
        "normalize_params(params, k, v, param_depth_limit)",
    );
    let s = Session::new();
    let started = s.data(&[
        "start",
        "--break",
        &format!("query_parser.rb:{line}"),
        fixture_path(PROGRAM).to_str().expect("utf-8 path"),
    ]);
    assert_eq!(started["adapter"], "rdbg", "{started}");
    let stop = &started["stop"];
    assert_eq!(
        place(stop),
        ("block in parse_nested_query".to_owned(), u64::from(line)),
        "{started}"
    );

    let expression = r#"k.upcase + "=" + v"#;
    let native = rdbg_says(
        &parser,
        line,
        &[
            "p p",
            "p k",
            "p v",
            "p qs",
            "p d",
            &format!("p {expression}"),
            "n",
            "p p",
        ],
    );
    let [
        stop_place,
        pair,
        k,
        v,
        qs,
        d,
        joined,
        stepped_place,
        next_pair,
    ] = native.as_slice()
    else {
        panic!("rdbg's answers: {native:?}");
    };
    assert_eq!(rdbg_line(stop_place), Some(u64::from(line)), "{native:?}");
    let locals = s.data(&["locals"])["variables"].clone();
    for (name, theirs) in [("p", pair), ("k", k), ("v", v), ("qs", qs), ("d", d)] {
        assert_eq!(
            &variable(&locals, name)["value"],
            theirs,
            "{name}: {locals}"
        );
    }
    assert_eq!((k.as_str(), v.as_str()), (r#""q""#, r#""ruby""#));
    assert_eq!(qs, &format!("{QUERY:?}"));
    assert_eq!(&s.value_of(expression), joined);
    // The parameters gathered so far: Rack's own object, shown by its `inspect`.
    let params = variable(&locals, "params")["value"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    assert!(
        params.starts_with("#<Rack::QueryParser::Params"),
        "{params}"
    );

    // Over the call, to the block's end, as rdbg's `next` goes.
    let stepped = step_with(&s, "next");
    assert_eq!(
        Some(place(&stepped).1),
        rdbg_line(stepped_place),
        "{stepped} / {native:?}"
    );
    assert_eq!(&s.value_of("p"), next_pair);
}

/// `rack/utils.rb:LINE`, Rack's `Utils.parse_nested_query`: a step into the parser it hands
/// the work to, and `finish` out of that with the Hash it built, the one plain Ruby builds.
#[test]
fn a_step_into_racks_parser_and_finish_give_the_hash_ruby_builds() {
    require_ruby();
    let line = rack_line(
        "utils.rb",
        "Rack::Utils.default_query_parser.parse_nested_query(qs, d)",
    );
    let s = Session::new();
    let stop = s.data(&[
        "start",
        "--break",
        &format!("rack/utils.rb:{line}"),
        fixture_path(PROGRAM).to_str().expect("utf-8 path"),
    ])["stop"]
        .clone();
    assert_eq!(
        place(&stop),
        ("Rack::Utils.parse_nested_query".to_owned(), u64::from(line)),
        "{stop}"
    );
    assert_eq!(s.value_of("qs"), format!("{QUERY:?}"));
    assert_eq!(s.value_of("d"), "nil");

    let inside = step_with(&s, "step");
    assert_eq!(
        place(&inside),
        (
            "Rack::QueryParser#parse_nested_query".to_owned(),
            // The method's first line.
            u64::from(rack_line("query_parser.rb", "def parse_nested_query(qs, d = nil)") + 1)
        ),
        "{inside}"
    );
    let finished = step_with(&s, "finish");
    let hash = ruby_says(&format!("p Rack::Utils.parse_nested_query({QUERY:?})"));
    assert_eq!(hash, r#"{"q"=>"ruby", "tags"=>["a", "b"], "page"=>"2"}"#);
    assert_eq!(finished["return_value"], hash.as_str(), "{finished}");
}

//! PHP on a library nobody here wrote: Symfony's YAML component as Debian's `php-symfony-yaml`
//! installs it (under `/usr/share/php`, PHP's `include_path`, loaded through Debian's own
//! autoloader, no Composer), called by the small `fixtures/php/library/config.php`.
//! Breakpoints by the library's bare file names, which lie outside the program's folder; its
//! locals and `$this`'s properties; a step into its methods and `finish` out of them; values
//! checked against what plain `php` computes from the same document.
//!
//! Every test fails (never skips) when PHP with Xdebug, or the library, is missing:
//! `scripts/install-test-deps.sh` installs `php-cli`, `php-xdebug` and `php-symfony-yaml`.

#![cfg(unix)]

mod common;

use std::path::Path;
use std::process::Command;

use common::{Session, fixture_path, line_in, require_php, variable};
use serde_json::Value;

const PROGRAM: &str = "php/library/config.php";
const YAML_DIR: &str = "/usr/share/php/Symfony/Component/Yaml";
/// The fixture's document, as its heredoc holds it.
const DOCUMENT: &str = "name: demo\nports: [80, 443]\nowner: { name: ann, admin: true }";

/// The line holding `text` in the library's file `name`, so the test follows the installed
/// version.
fn yaml_line(name: &str, text: &str) -> u32 {
    let file = Path::new(YAML_DIR).join(name);
    assert!(
        file.is_file(),
        "Symfony YAML is required for this test; install it with 'apt-get install \
         php-symfony-yaml' (scripts/install-test-deps.sh does)"
    );
    line_in(&file, text)
}

/// The first line holding `text` after the one holding `after`, in the library's file `name`.
fn yaml_line_after(name: &str, after: &str, text: &str) -> u32 {
    let from = yaml_line(name, after);
    let source = std::fs::read_to_string(Path::new(YAML_DIR).join(name)).expect("read");
    let below = source
        .lines()
        .skip(from as usize)
        .position(|l| l.contains(text))
        .unwrap_or_else(|| panic!("{text} after {after} in {name}"));
    from + 1 + below as u32
}

/// What plain PHP, with the library loaded, prints for `code`.
fn php_says(code: &str) -> String {
    let script =
        format!("require '{YAML_DIR}/autoload.php'; use Symfony\\Component\\Yaml\\Yaml; {code}");
    let output = Command::new("php")
        .args(["-r", &script])
        .output()
        .expect("run php");
    assert!(output.status.success(), "php -r {script}: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A PHP string literal of `text` (single-quoted, so only `\` and `'` are escaped).
fn php_literal(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// `start --break LOCATION config.php`, answered with its first stop.
#[track_caller]
fn start_at(s: &Session, location: &str) -> Value {
    let started = s.data(&[
        "start",
        "--break",
        location,
        fixture_path(PROGRAM).to_str().expect("utf-8 path"),
    ]);
    assert_eq!(started["adapter"], "xdebug", "{started}");
    started["stop"].clone()
}

fn place(stop: &Value) -> (String, u64) {
    (
        stop["frame"]["function"].as_str().unwrap_or("").to_owned(),
        stop["frame"]["line"].as_u64().unwrap_or(0),
    )
}

/// The issue's real-program check: `Yaml/Parser.php:LINE`, a relative name of a file in PHP's
/// `include_path`, binds; the method's locals and `$this`'s properties read as the parser set
/// them; a step goes into its own `doParse`, `finish` comes back, and the parsed document is
/// the one plain PHP parses.
#[test]
fn symfony_yaml_breaks_by_a_bare_file_name_and_shows_this_and_its_values() {
    require_php();
    let line = yaml_line("Parser.php", "$data = $this->doParse($value, $flags);");
    let s = Session::new();
    // `Parser.php` alone is ambiguous where PHPUnit is installed too (its CLI parser lies in
    // the same include_path), so the name carries its folder.
    let stop = start_at(&s, &format!("Yaml/Parser.php:{line}"));
    assert_eq!(
        place(&stop),
        (
            "Symfony\\Component\\Yaml\\Parser->parse".to_owned(),
            u64::from(line)
        ),
        "{stop}"
    );
    let locals = s.data(&["locals"])["variables"].clone();
    assert_eq!(
        variable(&locals, "$value")["value"],
        format!("{DOCUMENT:?}"),
        "{locals}"
    );
    assert_eq!(variable(&locals, "$flags")["value"], "0", "{locals}");
    let this = variable(&locals, "$this");
    assert_eq!(this["type"], "Symfony\\Component\\Yaml\\Parser", "{locals}");
    assert_eq!(
        variable(&this["children"], "currentLineNb")["value"],
        "-1",
        "a private property: {locals}"
    );
    assert_eq!(
        variable(&this["children"], "state")["type"],
        "Symfony\\Component\\Yaml\\ParserState",
        "{locals}"
    );
    let lines = "substr_count($value, \"\\n\") + 1";
    let literal = php_literal(DOCUMENT);
    assert_eq!(
        s.value_of(lines),
        php_says(&format!("echo substr_count({literal}, \"\\n\") + 1;"))
    );

    let inside = common::node::step_with(&s, "step");
    assert_eq!(
        place(&inside).0,
        "Symfony\\Component\\Yaml\\Parser->doParse",
        "{inside}"
    );
    assert_eq!(s.value_of("$value"), format!("{DOCUMENT:?}"));
    let back = common::node::step_with(&s, "finish");
    assert_eq!(
        place(&back).0,
        "Symfony\\Component\\Yaml\\Parser->parse",
        "{back}"
    );
    common::node::step_with(&s, "next");
    assert_eq!(
        s.value_of("json_encode($data)"),
        format!(
            "{:?}",
            php_says(&format!("echo json_encode(Yaml::parse({literal}));"))
        )
    );
    let owner = s.data(&["print", "$data['owner']"]);
    assert_eq!(owner["value"], "array(2)", "{owner}");
    assert_eq!(
        variable(&owner["children"], "name")["value"],
        "\"ann\"",
        "{owner}"
    );
    assert_eq!(
        variable(&owner["children"], "admin")["value"],
        "true",
        "{owner}"
    );
}

/// `Inline.php:LINE`, a bare name, in a static method, where there is no `$this`: the inline sequence's
/// text, `next` over the library's lines, and `finish` back to the caller with the sequence
/// parsed as PHP parses it.
#[test]
fn an_inline_sequence_steps_and_finishes_as_php_parses_it() {
    require_php();
    let line = yaml_line_after("Inline.php", "function parseSequence(", "$output = [];");
    let s = Session::new();
    let stop = start_at(&s, &format!("Inline.php:{line}"));
    assert_eq!(
        place(&stop),
        (
            "Symfony\\Component\\Yaml\\Inline::parseSequence".to_owned(),
            u64::from(line)
        ),
        "{stop}"
    );
    assert_eq!(s.value_of("$sequence"), "\"[80, 443]\"");
    assert_eq!(s.value_of("$i"), "0");
    for _ in 0..2 {
        common::node::step_with(&s, "next");
    }
    assert_eq!(s.value_of("$len"), php_says("echo strlen('[80, 443]');"));
    let back = common::node::step_with(&s, "finish");
    assert_eq!(
        place(&back).0,
        "Symfony\\Component\\Yaml\\Inline::parse",
        "{back}"
    );
    common::node::step_with(&s, "next");
    assert_eq!(
        s.value_of("json_encode($result)"),
        format!(
            "{:?}",
            php_says("echo json_encode(Yaml::parse('[80, 443]'));")
        )
    );
}

/// A name found nowhere (not in the program's folder, nor in `include_path`) stays pending with
/// where it was looked for, never "verified" for a file Xdebug would never match.
#[test]
fn a_file_name_found_nowhere_stays_pending() {
    require_php();
    let s = Session::new();
    let started = s.data(&[
        "start",
        "--break",
        "NoSuchParser.php:3",
        fixture_path(PROGRAM).to_str().expect("utf-8 path"),
    ]);
    let breakpoint = &started["breakpoints"][0];
    assert_eq!(breakpoint["verified"], false, "{started}");
    assert!(
        breakpoint["message"]
            .as_str()
            .is_some_and(|m| m.contains("no file named NoSuchParser.php")),
        "{started}"
    );
    assert_eq!(started["stop"]["reason"], "exited", "{started}");
}

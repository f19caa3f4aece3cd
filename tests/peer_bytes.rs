//! The other side's odd bytes never take a session down: a Python program's output that is not
//! UTF-8 (debugpy sends it as lone surrogate escapes) and a JavaScript string holding a lone
//! surrogate (V8's inspector sends one too) are read and the session goes on. A byte that is not
//! UTF-8 is shown `\xNN`, as `print` shows one and as the same program's output reads under
//! lldb or pdb; a JavaScript string's lone surrogate is U+FFFD.
//!
//! Every test fails (never skips) when debugpy or node is missing: `.ci/run` installs them.

mod common;

use serde_json::Value;

use common::{
    Session, at, build, fixture_path, require_debugpy, require_lldb_dap, require_node, variable,
};

const PYTHON: &str = "python/bad_bytes.py";
const JAVASCRIPT: &str = "javascript/lone_surrogate.js";

/// How long a `--wait` may take on a loaded machine.
const WAIT: &str = "60";

/// `continue --wait` and the stop it reports, with the daemon's log when it fails.
#[track_caller]
fn continue_to_stop(s: &Session) -> Value {
    let answer = s.json(&["continue", "--wait", "--timeout", WAIT]);
    assert_eq!(
        answer["ok"],
        true,
        "continue failed: {answer}\nlog:\n{}",
        s.log()
    );
    answer["data"]["stop"].clone()
}

/// The bytes `stream` carried, as `output --json` gives them back: each segment's `bytes_b64`
/// where its text is not its bytes, else its text.
#[track_caller]
fn stream_bytes(s: &Session, stream: &str) -> Vec<u8> {
    let output = s.data(&["output"]);
    let segments = output["segments"].as_array().expect("segments");
    let mut bytes = Vec::new();
    for segment in segments.iter().filter(|seg| seg["stream"] == stream) {
        let text = segment["text"].as_str().expect("text");
        match segment["bytes_b64"].as_str() {
            Some(b64) => {
                assert!(
                    text.contains("\\x"),
                    "bytes for a text that is them: {segment}"
                );
                bytes.extend(base64_simd::STANDARD.decode_to_vec(b64).expect("base64"));
            }
            None => bytes.extend_from_slice(text.as_bytes()),
        }
    }
    bytes
}

/// Whether `needle` is in `haystack`.
fn holds(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn python_output_that_is_not_utf8_is_kept_and_the_session_goes_on() {
    require_debugpy();
    let s = Session::new();
    let started = s.start(
        &fixture_path(PYTHON),
        &[
            "--adapter",
            "debugpy",
            "-b",
            &at(PYTHON, "@after_bad_bytes"),
        ],
    );
    assert_eq!(started["adapter"], "debugpy", "{started}");

    // The breakpoint after the bad writes still stops.
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}\nlog:\n{}", s.log());
    assert_eq!(stop["frame"]["function"], "main", "{stop}");

    // Every write is there, each byte that is not UTF-8 shown as `\xNN`, and what came after.
    let text = s.output_containing(
        &[
            "caf\\xe9 latin-1\n",
            "na\\xefve stderr\n",
            "caf\\xe9 printed\n",
            "after the bad bytes\n",
        ],
        std::time::Duration::from_secs(30),
    );
    assert!(!text.contains("count:"), "{text}");
    // `output --json` gives the bytes back as they were written.
    let stdout = stream_bytes(&s, "stdout");
    assert!(holds(&stdout, b"caf\xe9 latin-1\n"), "{stdout:?}");
    assert!(holds(&stdout, b"caf\xe9 printed\n"), "{stdout:?}");
    assert!(holds(&stream_bytes(&s, "stderr"), b"na\xefve stderr\n"));

    // locals answers, with the str that holds a surrogate escape as Python writes it.
    let locals = s.data(&["locals"]);
    let word = variable(&locals["variables"], "word");
    assert_eq!(word["type"], "str", "{locals}");
    assert_eq!(word["value"], "'caf\\udce9'", "{locals}");
    assert_eq!(s.value_of("len(word)"), "4");

    // And the program runs to its end, its last output kept.
    s.data(&["breakpoint", "remove", "--all"]);
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 0, "{end}");
    let text = s.output_containing(&["count: 4\n"], std::time::Duration::from_secs(30));
    // Stdout's lines in their order (stderr's may come between them: two pipes).
    let at = |line: &str| {
        text.find(line)
            .unwrap_or_else(|| panic!("no {line:?} in {text}"))
    };
    assert!(
        at("caf\\xe9 latin-1\n") < at("after the bad bytes\n")
            && at("after the bad bytes\n") < at("count: 4\n"),
        "{text}"
    );
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "exited", "{status}");
}

#[test]
fn a_programs_pipes_keep_split_characters_whole_and_show_bad_bytes_as_escapes() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/bad_bytes.c"), &[]);
    let end = s.data(&["await", "--timeout", WAIT]);
    assert_eq!(end["reason"], "exited", "{end}");
    let text = s.output_containing(
        &["caf\\xe9 latin-1\n", "€ split\n"],
        std::time::Duration::from_secs(30),
    );
    assert!(!text.contains('\u{fffd}'), "{text:?}");
    let stdout = stream_bytes(&s, "stdout");
    assert!(holds(&stdout, b"caf\xe9 latin-1\n"), "{stdout:?}");
    assert!(holds(&stdout, "\u{20ac} split\n".as_bytes()), "{stdout:?}");
    // The whole output's bytes too, as one.
    let output = s.data(&["output"]);
    let all = base64_simd::STANDARD
        .decode_to_vec(output["bytes_b64"].as_str().expect("bytes_b64"))
        .expect("base64");
    assert_eq!(all, stdout, "{output}");
}

#[test]
fn a_javascript_string_holding_a_lone_surrogate_is_printed_and_the_session_goes_on() {
    require_node();
    let s = Session::new();
    s.start(
        &fixture_path(JAVASCRIPT),
        &["-b", &at(JAVASCRIPT, "@surrogate_ready")],
    );
    let stop = continue_to_stop(&s);
    assert_eq!(stop["reason"], "breakpoint", "{stop}\nlog:\n{}", s.log());

    // The lone surrogate reads as U+FFFD; a pair beside it is kept.
    let printed = s.data(&["print", "s"]);
    assert_eq!(printed["value"], "\"\u{fffd} lone surrogate\"", "{printed}");
    assert_eq!(printed["type"], "string", "{printed}");
    let locals = s.data(&["locals"]);
    let lone = variable(&locals["variables"], "s");
    assert_eq!(lone["value"], "\"\u{fffd} lone surrogate\"", "{locals}");
    let pair = variable(&locals["variables"], "pair");
    assert_eq!(pair["value"], "\"\u{1F600} pair\"", "{locals}");
    // A lone trailing surrogate made by an evaluation, and the session still answers after it.
    assert_eq!(s.value_of("'x\\udc80'"), "\"x\u{fffd}\"");
    assert_eq!(s.value_of("s.length"), "16");

    s.data(&["breakpoint", "remove", "--all"]);
    let end = continue_to_stop(&s);
    assert_eq!(end["reason"], "exited", "{end}");
    assert_eq!(end["exit_code"], 0, "{end}");
    s.output_containing(
        &["length: 16 7\n", "tail: 2\n"],
        std::time::Duration::from_secs(30),
    );
}

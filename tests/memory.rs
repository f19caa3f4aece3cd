//! `memory read` and `disassemble` on real adapters: lldb-dap on C (memory read emulated through
//! LLDB's console, as lldb-dap 19 has no `readMemory`), Delve on Go (memory read through its
//! console's `x`, as its `readMemory` reads only inside a variable it listed), debugpy (neither:
//! unsupported), and the scripted mock for an adapter that has `readMemory` itself.

mod common;

use common::{
    Session, at, build, build_go, fixture_path, line_of, require_debugpy, require_delve,
    require_lldb_dap,
};
use serde_json::{Value, json};

const PROGRAM: &str = "c/memory.c";

/// The 40 bytes of memory.c's `g_pattern`, as `--json` spells bytes.
fn pattern_hex() -> String {
    (0u8..40).map(|b| format!("{b:02x}")).collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn number(text: &str) -> u64 {
    let text = text.trim();
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).unwrap_or_else(|e| panic!("{text}: {e}")),
        None => text.parse().unwrap_or_else(|e| panic!("{text}: {e}")),
    }
}

/// Starts memory.c stopped at the first line of `checksum` (`data` points at `g_pattern`,
/// `text` at `g_greeting`).
fn stopped_in_checksum(s: &Session) {
    s.start(
        &build(PROGRAM),
        &["--break", &at(PROGRAM, "@checksum_body")],
    );
    let result = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(result["stop"]["reason"], "breakpoint", "{result}");
}

/// The selected frame's pc, from `backtrace`.
fn pc(s: &Session) -> u64 {
    let bt = s.data(&["backtrace", "--limit", "1"]);
    number(bt["frames"][0]["address"].as_str().expect("frame address"))
}

/// The instructions of a `disassemble --json` answer, and the index of the one marked current.
fn instructions(data: &Value) -> (&Vec<Value>, Vec<usize>) {
    let list = data["instructions"].as_array().expect("instructions");
    let current = list
        .iter()
        .enumerate()
        .filter(|(_, i)| i["current"] == true)
        .map(|(n, _)| n)
        .collect();
    (list, current)
}

#[test]
fn memory_read_shows_where_a_pointer_points_as_a_hexdump() {
    require_lldb_dap();
    let s = Session::new();
    stopped_in_checksum(&s);

    let run = s.run(&["memory", "read", "data", "--count", "40"]);
    let text = run.ok();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[0].starts_with("40 bytes at 0x") && lines[0].ends_with("(data)"),
        "{text}"
    );
    assert!(
        lines[1]
            .ends_with("  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |................|"),
        "{text}"
    );
    assert!(
        lines[2]
            .ends_with("  10 11 12 13 14 15 16 17  18 19 1a 1b 1c 1d 1e 1f  |................|"),
        "{text}"
    );
    assert!(
        lines[3].contains("  20 21 22 23 24 25 26 27  ") && lines[3].ends_with("| !\"#$%&'|"),
        "{text}"
    );

    let data = s.data(&["memory", "read", "data", "--count", "40"]);
    assert_eq!(data["bytes"], pattern_hex(), "{data}");
    assert_eq!(data["count"], 40, "{data}");
    assert_eq!(data["unreadable"], 0, "{data}");
    assert_eq!(data["expression"], "data", "{data}");

    let greeting = s.data(&["memory", "read", "text", "--count", "15"]);
    assert_eq!(greeting["bytes"], hex(b"hello, memory!\0"), "{greeting}");
    let text = s.run(&["memory", "read", "text", "--count", "15"]);
    assert!(text.ok().contains("|hello, memory!.|"), "{text:?}");
}

#[test]
fn memory_read_at_an_address_reads_what_the_expression_gives() {
    require_lldb_dap();
    let s = Session::new();
    stopped_in_checksum(&s);
    let by_expression = s.data(&["memory", "read", "&g_pattern", "--count", "8"]);
    let address = by_expression["address"]
        .as_str()
        .expect("address")
        .to_string();
    assert_eq!(
        by_expression["bytes"],
        &pattern_hex()[..16],
        "{by_expression}"
    );
    // The address `print` shows is the one read.
    let printed = s.value_of("&g_pattern");
    assert_eq!(number(&address), number(&printed), "{printed}");

    let by_hex = s.data(&["memory", "read", &address, "--count", "8"]);
    assert_eq!(by_hex["address"], address.as_str(), "{by_hex}");
    assert_eq!(by_hex["bytes"], &pattern_hex()[..16], "{by_hex}");
    // Decimal too, and an address inside the array reads from there.
    let decimal = (number(&address) + 32).to_string();
    let by_decimal = s.data(&["memory", "read", &decimal, "--count", "8"]);
    assert_eq!(by_decimal["bytes"], &pattern_hex()[64..80], "{by_decimal}");
    let text = s.run(&["memory", "read", &address, "--count", "8"]);
    // An address given as a number is not repeated as the expression.
    assert_eq!(
        text.ok().lines().next(),
        Some(format!("8 bytes at {address}").as_str())
    );
    // An expression whose value is a whole number is read there, as gdb's `x` does.
    let sum = s.data(&[
        "memory",
        "read",
        "(unsigned long)&g_pattern + 8",
        "--count",
        "4",
    ]);
    assert_eq!(sum["bytes"], "08090a0b", "{sum}");
    assert_eq!(
        number(sum["address"].as_str().expect("address")),
        number(&address) + 8
    );
    // Without --count: 64 bytes.
    let default = s.data(&["memory", "read", "&g_pattern"]);
    assert_eq!(default["count"], 64, "{default}");
    assert_eq!(
        &default["bytes"].as_str().expect("bytes")[..80],
        pattern_hex()
    );
}

/// The end of a readable mapping of the debuggee that no other mapping follows (from
/// /proc/PID/maps).
fn mapping_end(s: &Session) -> u64 {
    let pid = s.data(&["status"])["debuggee_pid"]
        .as_u64()
        .expect("debuggee pid");
    let maps = std::fs::read_to_string(format!("/proc/{pid}/maps")).expect("read maps");
    let ranges: Vec<(u64, u64, bool)> = maps
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let (start, end) = fields.next()?.split_once('-')?;
            let readable = fields.next()?.starts_with('r');
            Some((
                u64::from_str_radix(start, 16).ok()?,
                u64::from_str_radix(end, 16).ok()?,
                readable,
            ))
        })
        .collect();
    ranges
        .windows(2)
        .find(|pair| pair[0].2 && pair[0].1 != pair[1].0)
        .map(|pair| pair[0].1)
        .expect("a readable mapping with a gap after it")
}

#[test]
fn memory_read_errors_are_clear_and_the_daemon_keeps_serving() {
    require_lldb_dap();
    let s = Session::new();
    stopped_in_checksum(&s);

    let unmapped = s.run(&["--json", "memory", "read", "0x10"]);
    assert_eq!(unmapped.code, 1, "{unmapped:?}");
    let error = unmapped.failure();
    assert_eq!(error["code"], "adapter", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("cannot read memory at 0x10"),
        "{error}"
    );
    let text = s.run(&["memory", "read", "0x10"]);
    assert!(
        text.stderr.starts_with("error: cannot read memory at 0x10"),
        "{text:?}"
    );

    let unknown = s.run(&["--json", "memory", "read", "nosuch"]);
    assert_eq!(unknown.code, 1, "{unknown:?}");
    assert!(
        unknown.failure()["message"]
            .as_str()
            .unwrap_or("")
            .contains("nosuch"),
        "{unknown:?}"
    );

    // An int is read as an address (n is 40): when that fails, suggest the variable's address.
    let not_pointer = s.run(&["--json", "memory", "read", "n"]);
    assert_eq!(not_pointer.code, 1, "{not_pointer:?}");
    let error = not_pointer.failure();
    assert!(
        error["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("cannot read memory at 0x28"),
        "{error}"
    );
    assert!(
        error["hint"].as_str().unwrap_or("").contains("'&n'"),
        "{error}"
    );
    // A value that is no number and no pointer is not an address at all.
    let string = s.run(&["--json", "memory", "read", "g_greeting"]);
    assert_eq!(string.code, 1, "{string:?}");
    let error = string.failure();
    assert_eq!(error["code"], "not_found", "{error}");
    assert!(
        error["hint"]
            .as_str()
            .unwrap_or("")
            .contains("'&g_greeting'"),
        "{error}"
    );

    for count in ["0", "65537"] {
        let bad = s.run(&["--json", "memory", "read", "data", "--count", count]);
        assert_eq!(bad.code, 2, "{bad:?}");
        assert_eq!(bad.failure()["code"], "usage", "{bad:?}");
    }
    let most = s.data(&["memory", "read", "data", "--count", "65536"]);
    assert!(
        most["count"].as_u64().is_some_and(|c| c > 0),
        "{}",
        most["count"]
    );

    // A read that runs off the end of a mapping shows what could be read, and says the rest
    // could not be.
    let end = mapping_end(&s);
    let start = format!("{:#x}", end - 8);
    let partial = s.data(&["memory", "read", &start, "--count", "24"]);
    assert_eq!(partial["count"], 8, "{partial}");
    assert_eq!(partial["unreadable"], 16, "{partial}");
    let text = s.run(&["memory", "read", &start, "--count", "24"]);
    assert!(
        text.ok().ends_with(&format!(
            "… 16 more bytes from {end:#x} could not be read\n"
        )),
        "{text:?}"
    );

    // Still serving: the session is where it was.
    let good = s.data(&["memory", "read", "data", "--count", "4"]);
    assert_eq!(good["bytes"], "00010203", "{good}");
    let status = s.data(&["status"]);
    assert_eq!(status["state"], "stopped", "{status}");

    // The scratch files lldb wrote through are gone.
    let left: Vec<_> = std::fs::read_dir(s.runtime_dir())
        .expect("runtime dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("lldb-memory"))
        .collect();
    assert!(left.is_empty(), "{left:?}");

    // Once the program has ended there is no memory to read.
    s.data(&["breakpoint", "remove", "--all"]);
    let end = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(end["stop"]["reason"], "exited", "{end}");
    for args in [&["memory", "read", "0x1000"][..], &["disassemble"][..]] {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let ended = s.run(&all);
        assert_eq!(ended.code, 1, "{ended:?}");
        assert_eq!(ended.failure()["code"], "not_running", "{ended:?}");
    }
}

#[test]
fn memory_commands_need_a_stopped_program() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build("c/spin.c"), &[]);
    for args in [&["memory", "read", "0x1000"][..], &["disassemble"][..]] {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let running = s.run(&all);
        assert_eq!(running.code, 1, "{running:?}");
        assert_eq!(running.failure()["code"], "running", "{running:?}");
    }
    s.data(&["pause", "--wait", "--timeout", "30"]);
    let data = s.data(&["disassemble", "--count", "4"]);
    assert_eq!(instructions(&data).1.len(), 1, "{data}");
}

#[test]
fn disassemble_marks_the_pc_with_instructions_before_it() {
    require_lldb_dap();
    let s = Session::new();
    stopped_in_checksum(&s);
    let pc = pc(&s);

    let data = s.data(&["disassemble"]);
    let (list, current) = instructions(&data);
    assert_eq!(list.len(), 16, "{data}");
    assert_eq!(current.len(), 1, "{data}");
    let at = current[0];
    // A quarter of the listing comes before the pc.
    assert_eq!(at, 4, "{data}");
    assert_eq!(number(list[at]["address"].as_str().expect("address")), pc);
    assert_eq!(
        list[at]["line"],
        line_of(PROGRAM, "@checksum_body"),
        "{data}"
    );
    let addresses: Vec<u64> = list
        .iter()
        .map(|i| number(i["address"].as_str().expect("address")))
        .collect();
    assert!(addresses.windows(2).all(|w| w[0] < w[1]), "{addresses:?}");
    assert!(
        list.iter()
            .all(|i| !i["instruction"].as_str().unwrap_or("").is_empty()),
        "{data}"
    );
    assert_eq!(data["frame"]["function"], "checksum", "{data}");
    assert!(data["note"].is_null(), "{data}");

    let text = s.run(&["disassemble"]);
    let text = text.ok();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 17, "{text}");
    assert!(lines[0].contains("checksum (memory.c:"), "{text}");
    let marked: Vec<&&str> = lines.iter().filter(|l| l.starts_with("->")).collect();
    assert_eq!(marked.len(), 1, "{text}");
    assert!(marked[0].contains(&format!("{pc:#x}")), "{text}");
    assert!(
        marked[0].ends_with(&format!(
            "; memory.c:{}",
            line_of(PROGRAM, "@checksum_body")
        )),
        "{text}"
    );

    for (count, before) in [(3, 0), (5, 1), (8, 2), (40, 10)] {
        let few = s.data(&["disassemble", "--count", &count.to_string()]);
        let (list, current) = instructions(&few);
        assert_eq!(list.len(), count, "{few}");
        assert_eq!(current, vec![before], "{few}");
        assert!(few["note"].is_null(), "{few}");
    }

    // The caller's frame: its pc is the return address, after the call.
    s.data(&["up"]);
    let caller = s.data(&["disassemble", "--count", "8"]);
    let (list, current) = instructions(&caller);
    assert_eq!(current.len(), 1, "{caller}");
    assert_eq!(caller["frame"]["function"], "main", "{caller}");
    assert!(
        current[0] > 0
            && list[current[0] - 1]["instruction"]
                .as_str()
                .unwrap_or("")
                .contains("call"),
        "{caller}"
    );
}

#[test]
fn disassemble_starts_at_a_function_or_an_address() {
    require_lldb_dap();
    let s = Session::new();
    stopped_in_checksum(&s);
    let main = s.value_of("main");
    let main = number(main.split_whitespace().next().expect("an address"));

    let data = s.data(&["disassemble", "main", "--count", "6"]);
    let (list, current) = instructions(&data);
    assert_eq!(list.len(), 6, "{data}");
    assert!(
        current.is_empty(),
        "the pc is not in main's first lines: {data}"
    );
    assert_eq!(number(list[0]["address"].as_str().expect("address")), main);
    assert_eq!(data["expression"], "main", "{data}");
    assert!(data["frame"].is_null(), "{data}");
    assert_eq!(list[0]["symbol"], "main", "{data}");
    // The label the adapter writes before a function's first instruction is not part of it.
    assert!(
        !list[0]["instruction"]
            .as_str()
            .unwrap_or("")
            .starts_with("main:"),
        "{data}"
    );

    let address = format!("{main:#x}");
    let by_address = s.data(&["disassemble", &address, "--count", "2"]);
    assert_eq!(by_address["address"], address.as_str(), "{by_address}");
    assert_eq!(
        by_address["instructions"][0]["address"],
        address.as_str(),
        "{by_address}"
    );
    let text = s.run(&["disassemble", "main", "--count", "6"]);
    let text = text.ok();
    assert!(
        text.starts_with(&format!("From {address} (main):\n")),
        "{text}"
    );
    assert_eq!(text.lines().count(), 7, "{text}");

    // From checksum itself, the pc is marked where it falls.
    let own = s.data(&["disassemble", "checksum", "--count", "16"]);
    assert_eq!(instructions(&own).1.len(), 1, "{own}");

    let nowhere = s.run(&["--json", "disassemble", "0x10"]);
    assert_eq!(nowhere.code, 1, "{nowhere:?}");
    assert!(
        nowhere.failure()["message"]
            .as_str()
            .unwrap_or("")
            .contains("0x10"),
        "{nowhere:?}"
    );
    let unknown = s.run(&["--json", "disassemble", "nosuch"]);
    assert_eq!(unknown.code, 1, "{unknown:?}");
    let bad_count = s.run(&["--json", "disassemble", "--count", "1001"]);
    assert_eq!(bad_count.code, 2, "{bad_count:?}");
    assert_eq!(s.data(&["status"])["state"], "stopped");
}

#[test]
fn disassemble_marks_the_pc_on_go_and_delve_reads_memory_where_an_expression_points() {
    require_delve();
    let program = build_go("go/ledger/main.go");
    let s = Session::new();
    let started = s.start(&program, &["--break", "main.add"]);
    assert_eq!(started["adapter"], "delve", "{started}");
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(stop["stop"]["frame"]["function"], "main.add", "{stop}");
    let pc = pc(&s);

    let data = s.data(&["disassemble"]);
    let (list, current) = instructions(&data);
    assert_eq!(list.len(), 16, "{data}");
    // Delve counts instructionOffset in instructions, as DAP says: the same quarter before.
    assert_eq!(current, vec![4], "{data}");
    assert_eq!(number(list[4]["address"].as_str().expect("address")), pc);
    let text = s.run(&["disassemble", "--count", "6"]);
    let text = text.ok();
    assert!(
        text.starts_with("Around the pc of main.add (main.go:"),
        "{text}"
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with("->")).count(),
        1,
        "{text}"
    );

    // The code at the pc, by address: the bytes of the instruction disassemble shows there,
    // but for its first, where Delve's breakpoint put an int3 (`cc`): Delve reads memory raw.
    let code = s.data(&["memory", "read", &format!("{pc:#x}"), "--count", "16"]);
    assert_eq!(
        number(code["address"].as_str().expect("address")),
        pc,
        "{code}"
    );
    assert_eq!(code["count"], 16, "{code}");
    let first = list[4]["bytes"]
        .as_str()
        .expect("Delve gives instruction bytes");
    let read = code["bytes"].as_str().unwrap_or("");
    assert!(
        read.get(2..first.len()) == first.get(2..),
        "{code} vs {first}"
    );

    // Where a pointer points, though Delve writes its value as the target's (`*main.Account
    // {...}`): the Account's first field, its ID 7, little-endian.
    s.data(&["break", &at("go/ledger/main.go", "@deposit_body")]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"]);
    assert_eq!(
        stop["stop"]["frame"]["function"], "main.(*Account).Deposit",
        "{stop}"
    );
    let account = s.data(&["memory", "read", "a", "--count", "8"]);
    assert_eq!(account["bytes"], "0700000000000000", "{account}");
    let balance = s.data(&["memory", "read", "&a.Balance", "--count", "8"]);
    assert_eq!(
        number(balance["address"].as_str().expect("address")),
        number(account["address"].as_str().expect("address")) + 24,
        "Balance follows ID and Owner (a string header of 16 bytes): {balance}"
    );
    assert_eq!(balance["bytes"], "6400000000000000", "100: {balance}");

    // A value that points nowhere says so, in the console's words as well as ours.
    let owner = s.run(&["--json", "memory", "read", "a.Owner"]);
    assert_eq!(owner.code, 1, "{owner:?}");
    let error = owner.failure();
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("'a.Owner' is not an address")),
        "{error}"
    );
}

#[test]
fn debugpy_can_neither_read_memory_nor_disassemble() {
    require_debugpy();
    let s = Session::new();
    s.start(&fixture_path("python/app.py"), &["--stop-on-entry"]);
    for (args, message) in [
        (
            &["memory", "read", "0x1000"][..],
            "the debugpy adapter cannot read memory",
        ),
        (
            &["disassemble"][..],
            "the debugpy adapter cannot disassemble",
        ),
    ] {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let run = s.run(&all);
        assert_eq!(run.code, 1, "{run:?}");
        let error = run.failure();
        assert_eq!(error["code"], "unsupported", "{error}");
        assert_eq!(error["message"], message, "{error}");
    }
    let text = s.run(&["disassemble"]);
    assert!(
        text.stderr
            .starts_with("error: the debugpy adapter cannot disassemble\nhint: "),
        "{text:?}"
    );
}

#[test]
fn an_adapter_with_read_memory_is_asked_with_its_own_memory_reference() {
    // The mock's evaluate answers carry an opaque memoryReference and a value with no address
    // in it: only the reference can lead to the bytes.
    let s = Session::with_mock(
        &json!({ "memory": { "at": 4096, "hex": hex(b"hello, mock!") } }),
        "",
    );
    let started = s.start_mock();
    assert_eq!(started.json()["ok"], true, "{started:?}");
    s.data(&["await", "--timeout", "30"]);

    let data = s.data(&["memory", "read", "buf", "--count", "16"]);
    assert_eq!(data["address"], "0x1000", "{data}");
    assert_eq!(data["bytes"], hex(b"hello, mock!"), "{data}");
    assert_eq!(data["count"], 12, "{data}");
    assert_eq!(data["unreadable"], 4, "{data}");
    let text = s.run(&["memory", "read", "buf", "--count", "16"]);
    let text = text.ok();
    assert!(text.contains("|hello, mock!|"), "{text}");
    assert!(
        text.contains("… 4 more bytes from 0x100c could not be read"),
        "{text}"
    );

    let at = s.data(&["memory", "read", "0x1007", "--count", "5"]);
    assert_eq!(at["bytes"], hex(b"mock!"), "{at}");
    let outside = s.run(&["--json", "memory", "read", "0x2000"]);
    assert_eq!(outside.code, 1, "{outside:?}");
    assert!(
        outside.failure()["message"]
            .as_str()
            .unwrap_or("")
            .starts_with("cannot read memory at 0x2000"),
        "{outside:?}"
    );
    // The mock has no disassemble.
    let disassemble = s.run(&["--json", "disassemble"]);
    assert_eq!(
        disassemble.failure()["code"],
        "unsupported",
        "{disassemble:?}"
    );
}

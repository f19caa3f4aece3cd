//! `debugger demo`: a scripted session on a bundled C program, showing each command and its
//! output. It installs lldb-dap first when it is missing and the machine allows it (as
//! `debugger setup lldb` does).

use std::path::Path;
use std::process::Command;

use serde_json::json;

use super::{Call, Outcome};
use crate::common::error::{ErrorBody, ErrorCode};

const LEDGER_C: &str = include_str!("../../fixtures/c/ledger.c");

/// Runs the scripted session. In text mode each step is shown through the call's sink as it
/// runs; with `--json` the transcript is the one JSON object's data.
pub fn run(call: &mut Call<'_>) -> Result<Outcome, ErrorBody> {
    let json_mode = call.data_only;
    crate::adapters::install::lldb::ensure()?;
    let dir = std::env::temp_dir().join(format!("debugger-demo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| io_error("create the demo directory", e))?;
    let source = dir.join("ledger.c");
    std::fs::write(&source, without_markers(LEDGER_C))
        .map_err(|e| io_error("write the demo program", e))?;
    let program = dir.join("ledger");
    compile(&source, &program)?;
    let line = |marker: &str| {
        LEDGER_C
            .lines()
            .position(|l| l.contains(marker))
            .map(|i| i + 1)
            .unwrap_or(1)
    };
    let session = format!("demo-{}", std::process::id());
    let bp = format!("ledger.c:{}", line("@apply_update"));
    let log_at = format!("ledger.c:{}", line("@apply_body"));
    let steps: Vec<Vec<String>> = vec![
        vec![
            "start".into(),
            "./ledger".into(),
            "--break".into(),
            "apply".into(),
        ],
        vec!["locals".into()],
        vec!["print".into(), "acct->balance + amount".into()],
        vec!["next".into(), "--wait".into()],
        vec!["backtrace".into()],
        vec![
            "breakpoint".into(),
            "add".into(),
            bp,
            "--condition".into(),
            "amount == 3".into(),
        ],
        vec![
            "breakpoint".into(),
            "add".into(),
            log_at,
            "--log".into(),
            "amount={amount} balance={acct->balance}".into(),
        ],
        vec!["breakpoint".into(), "remove".into(), "1".into()],
        vec!["continue".into(), "--wait".into()],
        vec!["print".into(), "*acct".into()],
        vec!["watch".into(), "g_counter".into()],
        vec!["continue".into(), "--wait".into()],
        vec!["breakpoint".into(), "remove".into(), "--all".into()],
        vec!["continue".into(), "--wait".into()],
        vec!["output".into()],
        vec!["stop".into()],
    ];
    let exe = std::env::current_exe().map_err(|e| io_error("find this program", e))?;
    let mut failures = 0;
    let mut transcript = Vec::new();
    for args in &steps {
        let command_line = format!("debugger {}", shell_words(args));
        if !json_mode {
            call.sink.text(&format!("$ {command_line}\n"));
        }
        let output = Command::new(&exe)
            .args(args)
            .current_dir(&dir)
            .env("DEBUGGER_SESSION", &session)
            .output()
            .map_err(|e| io_error("run a demo step", e))?;
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        if !json_mode {
            call.sink.text(&stdout);
            call.sink.note(&stderr);
            call.sink.text("\n");
        }
        if !output.status.success() {
            failures += 1;
        }
        transcript.push(json!({
            "command": command_line,
            "exit_code": output.status.code(),
            "stdout": stdout,
            "stderr": stderr,
        }));
    }
    let _ = std::fs::remove_dir_all(&dir);
    if failures > 0 {
        return Err(ErrorBody::new(
            ErrorCode::Internal,
            format!("{failures} demo steps failed"),
            "the transcript shows which step failed and what it said",
        ));
    }
    Ok(Outcome::new(
        json!({ "steps": transcript }),
        "Demo finished\n",
    ))
}

/// The fixture's test markers (`/* @name */`) mean nothing to a demo viewer; the line numbers stay.
fn without_markers(source: &str) -> String {
    source
        .lines()
        .map(|line| match line.find("/* @") {
            Some(at) if line.trim_end().ends_with("*/") => line[..at].trim_end(),
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn shell_words(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if a.contains(' ') {
                format!("'{a}'")
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn io_error(what: &str, e: std::io::Error) -> ErrorBody {
    ErrorBody::new(ErrorCode::Internal, format!("cannot {what}: {e}"), "")
}

fn compile(source: &Path, program: &Path) -> Result<(), ErrorBody> {
    let status = Command::new("cc")
        .args(["-g", "-O0", "-o"])
        .arg(program)
        .arg(source)
        .status()
        .map_err(|e| {
            ErrorBody::new(
                ErrorCode::Internal,
                format!("cannot run the C compiler 'cc': {e}"),
                "install one: 'apt-get install gcc' (Debian/Ubuntu)",
            )
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(ErrorBody::new(
            ErrorCode::Internal,
            "compiling the demo program failed",
            "",
        ))
    }
}

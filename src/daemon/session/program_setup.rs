//! The adapter's set-up commands for the program (Rust's value formatters, say), run in its
//! console before the program starts, and how their output is read.

use crate::dap::DapClient;
use crate::dap::requests::{Evaluate, EvaluateArguments};

/// Whether a set-up command's console output says it failed: a line that starts with the
/// debugger's `error:`, a Python traceback or exception line (`NameError: …`, GDB's `Python
/// Exception <…>`). Not any `Error` in the text: Rust's formatter script, echoed back, names
/// `SBError`, and every Rust launch logged a failure that was none.
fn reports_failure(output: &str) -> bool {
    output.lines().map(str::trim_start).any(|line| {
        line.starts_with("error:")
            || line.starts_with("Traceback (most recent call last)")
            || line.starts_with("Python Exception")
            || line.split_once(": ").is_some_and(|(head, _)| {
                !head.contains(' ') && (head.ends_with("Error") || head.ends_with("Exception"))
            })
    })
}

/// Runs the adapter's set-up commands for the program (see `DebugAdapter::program_setup`) in its
/// console. A failure costs the session only what the commands would have added (e.g. Rust
/// values shown raw), so it is logged, not fatal.
pub(super) async fn run_program_setup(dap: &DapClient, commands: Vec<String>) {
    for command in commands {
        let answer = dap
            .request_typed::<Evaluate>(&EvaluateArguments::repl(&command, None))
            .await;
        match crate::adapters::console_answer(answer) {
            Ok(output) if reports_failure(&output) => {
                tracing::warn!(command, output, "the program's set-up command failed");
            }
            Ok(_) => tracing::debug!(command, "ran the program's set-up command"),
            Err(e) => tracing::warn!(command, "the program's set-up command failed: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::reports_failure;

    #[test]
    fn a_set_up_failure_is_told_from_output_that_names_an_error_type() {
        assert!(reports_failure("error: no such command 'x'"));
        assert!(reports_failure(
            "Traceback (most recent call last):\n  File …"
        ));
        assert!(reports_failure(
            "ModuleNotFoundError: No module named 'lldb_lookup'"
        ));
        assert!(reports_failure(
            "Python Exception <class 'NameError'>: name 'x' is not defined"
        ));
        assert!(!reports_failure(
            "type summary add -F lldb_lookup.summary_lookup -e -x -h \"^(.*)$\" --category Rust\n  def f(e: lldb.SBError):"
        ));
        assert!(!reports_failure(""));
    }
}

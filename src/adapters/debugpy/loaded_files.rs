//! The files a debugpy program loaded, written by the program as it exits
//! ([`crate::adapters::LoadedSources::WrittenAtExit`]). debugpy itself tells only the modules
//! of the frames it has shown (its `module` events and `modules` answer come from stack
//! traces), so a program that never stopped tells nothing that way; and the program is gone
//! when its end is reported, so it is asked before it runs to write them then.

use std::path::Path;

/// The code's file name: pydevd traces no code whose file name begins `<frozen ` (it takes it
/// for the interpreter's own), so neither a step off the program's end nor `--all-code` stops
/// in the function that writes the list.
const FILE_NAME: &str = "<frozen debugger loaded files>";

/// Python run in the program's process (a frameless `evaluate` before `configurationDone`)
/// that has it write its loaded files to `file` at its exit, in a namespace of its own.
pub(super) fn write_at_exit(file: &Path) -> String {
    let source = serde_json::to_string(concat!(
        include_str!("../loaded_files.py"),
        include_str!("loaded_at_exit.py")
    ))
    .unwrap_or_default();
    let out = serde_json::to_string(&file.to_string_lossy()).unwrap_or_default();
    format!("exec(compile({source}, '{FILE_NAME}', 'exec'), {{'_OUT': {out}}})")
}

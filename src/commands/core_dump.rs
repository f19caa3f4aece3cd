//! `core`: a session on a core dump. The daemon opens it (checking it first) and answers every
//! read-only command as for a stopped program, and refuses those that would run it; here the
//! paths are resolved against the caller's directory, and a core not named is fetched from
//! systemd-coredump's store.

use std::path::{Path, PathBuf};

use clap::Args;

use super::{Outcome, data, render};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::location::resolve::absolute;
use crate::common::paths;
use crate::common::user_files::{self, Role};
use crate::ipc::protocol::{Command, CoreSpec, StartResult};
use crate::ipc::spawn::open_session;

// `core`'s flags.
#[derive(Debug, Args)]
pub struct CoreArgs {
    /// The program that crashed (the very executable: a rebuild's build id differs).
    pub program: PathBuf,
    /// The core file (default: the program's newest core in systemd-coredump's store).
    #[arg(value_name = "COREFILE")]
    pub core: Option<PathBuf>,
    /// The debug adapter: lldb, gdb (C, C++, Rust) or delve (Go) (default: the config's, else
    /// chosen by the program as for `start`).
    #[arg(long)]
    pub adapter: Option<String>,
}

pub fn run(session: &str, args: CoreArgs) -> Result<Outcome, ErrorBody> {
    let cwd = std::env::current_dir().map_err(|e| {
        ErrorBody::usage(
            format!("cannot read the current directory: {e}"),
            "run the command from a directory that exists",
        )
    })?;
    let program = absolute(&cwd, &args.program);
    user_files::refuse_other_kinds(&program, Role::Program)?;
    if !program.is_file() {
        return Err(ErrorBody::usage(
            format!("program not found: {}", program.display()),
            "name the executable that crashed, then its core: 'debugger core PROGRAM COREFILE'",
        ));
    }
    let core = match &args.core {
        Some(core) => absolute(&cwd, core),
        None => newest_stored_core(&program)?,
    };
    user_files::refuse_other_kinds(&core, Role::CoreFile)?;
    let spec = CoreSpec {
        program,
        core,
        adapter: args.adapter,
        cwd,
    };
    let (_, result): (_, StartResult) = open_session(session, Command::Core(spec))?;
    let mut text = format!(
        "Opened {} with {} (session '{}')\n",
        result.program.as_deref().unwrap_or("the core"),
        result.adapter,
        result.session
    );
    if let Some(stop) = &result.stop {
        text.push_str(&render::stop_report(stop));
    }
    text.push_str(
        "Read it as a stopped program ('bt --all', 'locals', 'print', 'memory read'); it cannot run\n",
    );
    Ok(Outcome::new(data(&result), text))
}

/// The program's newest core in systemd-coredump's store, written out (decompressed) by
/// `coredumpctl` into the state directory, where the session can read it.
fn newest_stored_core(program: &Path) -> Result<PathBuf, ErrorBody> {
    let Ok(coredumpctl) = which::which("coredumpctl") else {
        return Err(ErrorBody::usage(
            "no core file given, and this machine has no systemd-coredump (coredumpctl) to find one in",
            "give the core file: 'debugger core PROGRAM COREFILE'; 'debugger doctor' says where this machine writes cores",
        ));
    };
    // The program's memory: as private as the logs beside it.
    let dir = paths::PrivateDir::State.ensure()?.join("cores");
    crate::platform::create_private_dir(&dir)
        .map_err(|e| ErrorBody::internal(format!("cannot create {}: {e}", dir.display())))?;
    let name = program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".into());
    let output = dir.join(format!("{name}.core"));
    let ran = std::process::Command::new(coredumpctl)
        .args(["dump", "-1", "--no-pager", "--output"])
        .arg(&output)
        .arg(program)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| ErrorBody::internal(format!("cannot run coredumpctl: {e}")))?;
    if !ran.status.success() || !output.is_file() {
        let said = String::from_utf8_lossy(&ran.stderr);
        return Err(ErrorBody::new(
            ErrorCode::NotFound,
            format!(
                "systemd-coredump holds no core of {}{}",
                program.display(),
                said.lines()
                    .next()
                    .map(|l| format!(" (coredumpctl: {l})"))
                    .unwrap_or_default()
            ),
            "'coredumpctl list' shows the cores it holds; or give the core file: 'debugger core PROGRAM COREFILE'",
        ));
    }
    Ok(output)
}

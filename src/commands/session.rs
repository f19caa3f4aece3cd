//! `start`, `attach`, `status`, `stop`, `detach`, `restart` (`sessions` is in `sessions.rs`).

use std::path::{Path, PathBuf};

use clap::Args;

pub use super::breakpoint_specs::{breakpoint_spec, breakpoint_specs};
pub use super::execution::FirstStopArgs;
use super::{Outcome, data, render};
use crate::adapters;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::escape::one_line;
use crate::common::location::resolve::absolute;
use crate::common::user_files::{self, Role};
use crate::ipc::client::{self, DaemonClient, Reply, SILENCE_BEFORE_KILL};
use crate::ipc::protocol::{
    AttachSpec, Command, JvmOptions, LanguageOptions, LaunchSpec, MessageResult, PythonOptions,
    SessionState, StartResult, StatusResult,
};
use crate::ipc::spawn::open_session;

// What a launched program is and how it runs: shared by `start` and `probe`, which build the
// same launch from them. (A plain comment: a doc comment would become the help text of the
// commands that flatten it.)
#[derive(Debug, Args)]
pub struct LaunchArgs {
    /// The program to debug (`probe --test` names a test instead).
    pub program: Option<PathBuf>,
    /// Run a Python module as `python -m MODULE` does (e.g. `-m pytest`).
    #[arg(short = 'm', long, value_name = "MODULE", conflicts_with = "program")]
    pub module: Option<String>,
    #[arg(long, help = launch_adapter_help())]
    pub adapter: Option<String>,
    /// The program's working directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// An environment variable for the program, on top of the current environment; repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// Step into and stop in library code too (debugpy's justMyCode off).
    #[arg(long)]
    pub no_just_my_code: bool,
    /// Give the program a terminal for its stdout and stderr, for programs that behave
    /// differently on one (default: two pipes, as in a script).
    #[arg(long)]
    pub tty: bool,
    /// A file the program reads as its stdin (default: none, reads see end-of-file).
    #[arg(long, value_name = "FILE")]
    pub stdin: Option<PathBuf>,
    /// The class path of a JVM program given as its main class's name (`start MainKt
    /// --classpath target/classes:lib.jar`): folders and jars, relative to the current
    /// directory.
    #[arg(long, value_name = "DIR[:JAR...]", conflicts_with = "module")]
    pub classpath: Option<String>,
    /// The program's arguments, after '--'.
    #[arg(last = true)]
    pub args: Vec<String>,
}

// `start`'s flags. (Plain comments on the flag sets: a doc comment would replace the command's
// help text, which the command list in `commands/mod.rs` gives.)
#[derive(Debug, Args)]
pub struct StartArgs {
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// Stop at the program's first instruction.
    #[arg(long)]
    pub stop_on_entry: bool,
    /// A breakpoint to set before the program runs (FILE:LINE or FUNCTION; 'LOC if COND', quoted
    /// as one argument, stops only where COND holds); repeatable.
    #[arg(short = 'b', long = "break", value_name = "LOC")]
    pub breakpoints: Vec<String>,
    /// Talk to an adapter already listening at HOST:PORT (e.g. `dlv dap --listen`).
    #[arg(long, value_name = "HOST:PORT")]
    pub connect: Option<String>,
    #[command(flatten)]
    pub first_stop: FirstStopArgs,
}

// `attach`'s flags.
#[derive(Debug, Args)]
pub struct AttachArgs {
    /// The process id (optional with --connect).
    #[arg(required_unless_present = "connect")]
    pub pid: Option<u32>,
    /// Talk to an adapter already listening at HOST:PORT (e.g. `python -m debugpy --listen`), to
    /// a Node inspector (`node --inspect=HOST:PORT`), to a JVM's JDWP agent
    /// (`-agentlib:jdwp=transport=dt_socket,server=y,address=HOST:PORT`), or on a local socket
    /// by its path (`rdbg --open` prints it).
    #[arg(long, value_name = "HOST:PORT|SOCKET")]
    pub connect: Option<String>,
    #[arg(long, help = attach_adapter_help())]
    pub adapter: Option<String>,
    /// A breakpoint to set as the session starts ('LOC if COND' for a condition); repeatable.
    #[arg(short = 'b', long = "break", value_name = "LOC")]
    pub breakpoints: Vec<String>,
}

/// `--adapter`'s help for a launch, naming every built-in adapter from the adapter table.
fn launch_adapter_help() -> String {
    format!(
        "The debug adapter: {}, or one defined in the config (default: the config's, else chosen \
         by the program)",
        adapters::adapter_names_hint()
    )
}

/// `--adapter`'s help for an attach: the adapters, and how one is chosen for a process.
fn attach_adapter_help() -> String {
    format!(
        "The debug adapter to use: {}, or one defined in the config (default: the config's, else \
         chosen by the process: {})",
        adapters::adapter_names_hint(),
        adapters::attach_detection_hint()
    )
}

fn current_dir() -> Result<PathBuf, ErrorBody> {
    std::env::current_dir().map_err(|e| {
        ErrorBody::new(
            ErrorCode::Usage,
            format!("cannot read the current directory: {e}"),
            "run the command from a directory that exists",
        )
    })
}

/// A bare program name (no directory part, as a shell takes it: `start true`) found on `path`,
/// a PATH-style list, as a shell finds it (`which`: the first executable of that name, `.exe`
/// and the other PATHEXT forms on Windows, relative entries taken from `cwd`). `None` for a
/// name with a directory part.
fn program_on_path(name: &Path, path: &std::ffi::OsStr, cwd: &Path) -> Option<PathBuf> {
    let mut parts = name.components();
    let bare = matches!(
        (parts.next(), parts.next()),
        (Some(std::path::Component::Normal(_)), None)
    );
    if !bare {
        return None;
    }
    which::which_in(name, Some(path), cwd).ok()
}

/// The launch `start` asks the daemon for and `probe` runs itself, built the same way for both:
/// the program, `--cwd` and breakpoint files are taken relative to the caller's directory, and the
/// program gets the caller's environment (less `DEBUGGER_SESSION`) plus `--env`.
pub fn launch_spec(
    args: LaunchArgs,
    breakpoints: &[String],
    stop_on_entry: bool,
    connect: Option<String>,
) -> Result<LaunchSpec, ErrorBody> {
    let cwd = current_dir()?;
    let run_dir = match &args.cwd {
        Some(dir) => absolute(&cwd, dir),
        None => cwd.clone(),
    };
    if !run_dir.is_dir() {
        return Err(ErrorBody::usage(
            format!("--cwd {} is not a directory", run_dir.display()),
            "give the directory the program should run in",
        ));
    }
    let mut args = args;
    if args.program.is_none() && args.module.is_none() && !args.args.is_empty() {
        // `start -- npx vitest run`: the first word after `--` is the program.
        args.program = Some(PathBuf::from(args.args.remove(0)));
    }
    let program = match (&args.program, &args.module) {
        (_, Some(module)) => module_program(module, &run_dir)?,
        // A main class's name, which the class path holds: not a file.
        (Some(class), None) if args.classpath.is_some() => class.clone(),
        (Some(program), None) => program_path(&cwd, program, connect.is_some())?,
        (None, None) => {
            return Err(ErrorBody::usage(
                "no program to debug",
                "name one, e.g. 'debugger start ./app', or a Python module with -m",
            ));
        }
    };
    let mut env: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .filter(|(k, _)| k != "DEBUGGER_SESSION")
        .collect();
    for pair in &args.env {
        let Some((key, value)) = pair.split_once('=').filter(|(k, _)| !k.is_empty()) else {
            return Err(ErrorBody::usage(
                format!("--env '{pair}' is not KEY=VALUE"),
                "write it as --env NAME=value",
            ));
        };
        env.retain(|(k, _)| k != key);
        env.push((key.to_string(), value.to_string()));
    }
    let stdin = match &args.stdin {
        Some(file) => {
            let file = absolute(&cwd, file);
            user_files::refuse_other_kinds(&file, Role::Stdin)?;
            if !file.is_file() {
                return Err(ErrorBody::usage(
                    format!("--stdin {} is not a file", file.display()),
                    "give a file for the program to read as its standard input",
                ));
            }
            Some(file)
        }
        None => None,
    };
    let classpath = match &args.classpath {
        Some(classpath) => Some(absolute_classpath(&cwd, classpath)?),
        None => None,
    };
    Ok(LaunchSpec {
        program,
        args: args.args,
        cwd: run_dir,
        env,
        adapter: args.adapter,
        stop_on_entry,
        breakpoints: breakpoint_specs(breakpoints, &cwd)?,
        connect,
        tty: args.tty,
        stdin,
        options: LanguageOptions {
            python: PythonOptions {
                just_my_code: !args.no_just_my_code,
                module: args.module,
            },
            jvm: JvmOptions { classpath },
            ..LanguageOptions::default()
        },
        test: None,
    })
}

/// `--classpath` with each entry made absolute from `cwd`: the program runs in its own folder.
fn absolute_classpath(cwd: &Path, classpath: &str) -> Result<String, ErrorBody> {
    let entries: Vec<PathBuf> = std::env::split_paths(classpath)
        .filter(|entry| !entry.as_os_str().is_empty())
        .map(|entry| absolute(cwd, &entry))
        .collect();
    if entries.is_empty() {
        return Err(ErrorBody::usage(
            "--classpath is empty",
            "give the folders and jars the main class is in, e.g. --classpath target/classes",
        ));
    }
    let joined = std::env::join_paths(&entries).map_err(|e| {
        ErrorBody::usage(
            format!("--classpath '{classpath}' cannot be passed on: {e}"),
            "give folders and jars without the path separator in their names",
        )
    })?;
    joined.into_string().map_err(|_| {
        ErrorBody::usage(
            format!("--classpath '{classpath}' is not UTF-8"),
            "give folders and jars whose names are UTF-8",
        )
    })
}

/// The program file `program` names, relative to `cwd` or, for a bare name, on PATH. With
/// `--connect` it may live on another machine, so it is not looked for: the adapter checks it.
fn program_path(cwd: &Path, program: &Path, connecting: bool) -> Result<PathBuf, ErrorBody> {
    let path = absolute(cwd, program);
    // Looked at before anything opens it: a FIFO's open would wait for a writer.
    user_files::refuse_other_kinds(&path, Role::Program)?;
    if connecting || path.exists() {
        return Ok(path);
    }
    std::env::var_os("PATH")
        .and_then(|list| program_on_path(program, &list, cwd))
        .ok_or_else(|| {
            ErrorBody::new(
                ErrorCode::Usage,
                format!("program not found: {}", program.display()),
                "check the path; relative paths are taken from the current directory, \
                 and a bare name is also looked for on PATH",
            )
        })
}

/// What stands for the program of `-m MODULE`: the module's source file where it lies under the
/// run directory (`pkg/mod.py`), else the run directory; either way a path whose folder is where
/// the program's own code is looked for. The name is checked as Python's `-m` would take it.
fn module_program(module: &str, run_dir: &Path) -> Result<PathBuf, ErrorBody> {
    let valid = !module.is_empty()
        && module.split('.').all(|part| {
            part.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_alphanumeric() || c == '_')
        });
    if !valid {
        return Err(ErrorBody::usage(
            format!("-m '{module}' is not a Python module name"),
            "name a module as Python's -m takes it, e.g. -m pytest or -m http.server",
        ));
    }
    let file = run_dir.join(format!("{}.py", module.replace('.', "/")));
    Ok(if file.is_file() {
        file
    } else {
        run_dir.to_path_buf()
    })
}

pub fn start(session: &str, args: StartArgs) -> Result<Outcome, ErrorBody> {
    let first_stop = args.first_stop.spec()?;
    let spec = launch_spec(
        args.launch,
        &args.breakpoints,
        args.stop_on_entry,
        args.connect,
    )?;
    let (_, result): (_, StartResult) = open_session(
        session,
        Command::Start {
            spec: Box::new(spec),
            first_stop,
        },
    )?;
    Ok(started(result, "Started"))
}

pub fn attach(session: &str, args: AttachArgs) -> Result<Outcome, ErrorBody> {
    let cwd = current_dir()?;
    let spec = AttachSpec {
        pid: args.pid,
        adapter: args.adapter,
        breakpoints: breakpoint_specs(&args.breakpoints, &cwd)?,
        connect: args.connect.map(|address| local_socket(&cwd, address)),
    };
    let (_, result): (_, StartResult) = open_session(session, Command::Attach(spec))?;
    Ok(started(result, "Attached to"))
}

/// A `--connect` address as the daemon, in another folder, can reach it: a relative socket
/// path is taken from the caller's folder; a HOST:PORT is as given.
fn local_socket(cwd: &Path, address: String) -> String {
    match crate::ipc::socket::socket_path(&address) {
        Some(path) if path.is_relative() => cwd.join(path).to_string_lossy().into_owned(),
        _ => address,
    }
}

fn started(result: StartResult, verb: &str) -> Outcome {
    let mut text = format!(
        "{verb} {} with {} (session '{}'",
        one_line(result.program.as_deref().unwrap_or("the program")),
        result.adapter,
        result.session
    );
    if let Some(pid) = result.debuggee_pid {
        text.push_str(&format!(", pid {pid}"));
    }
    text.push_str(")\n");
    for bp in &result.breakpoints {
        text.push_str(&format!("Breakpoint {}\n", render::breakpoint_line(bp)));
    }
    text.push_str(&first_stop_text(&result));
    Outcome::new(data(&result), text)
}

/// What a start says of the program's first stop: its report, the same as the execution
/// commands give, or what is known when it did not come. Never that the program is running
/// without saying when: it may stop between the answer and its reading.
fn first_stop_text(result: &StartResult) -> String {
    if let Some(stop) = &result.stop {
        return render::stop_report(stop);
    }
    match (result.waited_secs, result.state) {
        (Some(secs), state) if state.is_running() => format!(
            "No stop within {secs} s: the program was still running then. 'debugger await' \
             waits for its next stop; 'debugger pause' interrupts it\n"
        ),
        // Attached, or --no-wait: nobody looked for a stop.
        (None, state) if state.is_running() => {
            "Not waited for a stop: 'debugger await' reports the \
             program's next stop; 'debugger pause' interrupts it\n"
                .to_string()
        }
        (_, SessionState::Stopped) => {
            "The program has stopped: 'debugger await' reports where\n".to_string()
        }
        (_, state) if state.is_program_end() => {
            "The program has ended: 'debugger await' reports how\n".to_string()
        }
        (_, other) => format!("State: {other}\n"),
    }
}

pub fn status(session: &str) -> Result<Outcome, ErrorBody> {
    let mut client = DaemonClient::connect(session)?;
    // A daemon that is stopped or stuck would hold `status` for ever: it is said instead.
    let value = match client.request_within(Command::Status, SILENCE_BEFORE_KILL) {
        Reply::Answered(answer) => answer?,
        Reply::NotAnswering => {
            return Err(ErrorBody::new(
                ErrorCode::Ipc,
                format!(
                    "the daemon of session '{session}' did not answer within {} s",
                    SILENCE_BEFORE_KILL.as_secs()
                ),
                format!(
                    "it may be stopped or stuck; 'debugger --session {session} stop' ends it, and the program it launched with it"
                ),
            ));
        }
    };
    let result: StatusResult = serde_json::from_value(value).map_err(|e| {
        ErrorBody::new(
            ErrorCode::Ipc,
            format!("the daemon's answer is not what this CLI expects: {e}"),
            "the daemon may be from another version; stop the session and start again",
        )
    })?;
    let program = (result.program.as_deref()).map(|p| format!(" ({})", one_line(p)));
    let (name, state) = (&result.session, &result.state);
    let mut text = format!("Session '{name}': {state}{}\n", program.unwrap_or_default());
    if let Some(stop) = &result.stop {
        text.push_str(&render::stop_report(stop));
    }
    if let Some(evaluating) = &result.evaluating {
        text.push_str(&format!(
            "Running the evaluation of '{}' ({:.0} s so far), which could not be interrupted; \
             'debugger await' waits for it, 'debugger stop' ends the session\n",
            one_line(&evaluating.expression),
            evaluating.secs
        ));
    }
    if let Some(signal) = &result.signal {
        text.push_str(&format!("Program {}\n", render::killed_by(signal)));
    }
    if let Some(code) = result.exit_code {
        let note = (result.exit_note.as_ref()).map(|n| format!(" ({n})"));
        text.push_str(&format!("Exit code: {code}{}\n", note.unwrap_or_default()));
    }
    if let Some(detail) = &result.detail {
        text.push_str(&format!("Adapter: {detail}\n"));
    }
    let pids: Vec<String> = [
        Some(format!("daemon {}", result.daemon_pid)),
        result.adapter_pid.map(|p| format!("adapter {p}")),
        result.debuggee_pid.map(|p| format!("program {p}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    text.push_str(&format!("Processes: {}\n", pids.join(", ")));
    Ok(Outcome::new(data(&result), text))
}

pub fn stop(session: &str, detach: bool) -> Result<Outcome, ErrorBody> {
    let command = if detach {
        Command::Detach
    } else {
        Command::Stop
    };
    let mut client = DaemonClient::connect(session)?;
    // A sign of life first: a daemon that is stopped or stuck would never answer the stop.
    if let Reply::NotAnswering = client.request_within(Command::Status, SILENCE_BEFORE_KILL) {
        if detach {
            // Killing the daemon would end the program too, which a detach must not.
            return Err(ErrorBody::new(
                ErrorCode::Ipc,
                format!(
                    "the daemon of session '{session}' did not answer within {} s, so it cannot detach",
                    SILENCE_BEFORE_KILL.as_secs()
                ),
                format!(
                    "'debugger --session {session} stop' ends it, and the program it launched with it"
                ),
            ));
        }
        return end_unanswering(session);
    }
    let result: MessageResult = client.request_as(command)?;
    let text = format!("{}\n", capitalise(&result.message));
    Ok(Outcome::new(data(&result), text))
}

pub fn restart(session: &str, args: FirstStopArgs) -> Result<Outcome, ErrorBody> {
    let first_stop = args.spec()?;
    let result: StartResult =
        DaemonClient::connect(session)?.request_as(Command::Restart { first_stop })?;
    Ok(started(result, "Restarted"))
}

/// Ends a daemon that did not answer `stop`'s first request, by its pid (see
/// [`client::kill_unanswering`]).
fn end_unanswering(session: &str) -> Result<Outcome, ErrorBody> {
    let pid = client::kill_unanswering(session)?;
    let result = MessageResult {
        message: format!(
            "the daemon of session '{session}' (pid {pid}) did not answer within {} s and was killed; what it launched was ended with it",
            SILENCE_BEFORE_KILL.as_secs()
        ),
    };
    let text = format!("{}\n", capitalise(&result.message));
    Ok(Outcome::new(data(&result), text))
}

fn capitalise(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::common::location::Location;
    use crate::common::location::resolve::LineCounts;

    #[test]
    fn paths_are_made_absolute_and_tidy() {
        let cwd = Path::new("/home/u/src");
        assert_eq!(
            absolute(cwd, Path::new("./prog")),
            PathBuf::from("/home/u/src/prog")
        );
        assert_eq!(
            absolute(cwd, Path::new("../bin/prog")),
            PathBuf::from("/home/u/bin/prog")
        );
        assert_eq!(
            absolute(cwd, Path::new("/abs/prog")),
            PathBuf::from("/abs/prog")
        );
    }

    #[test]
    fn relative_breakpoint_files_resolve_only_when_present() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("here.c"), "a\nb\nc\n").expect("write");
        match breakpoint_spec("here.c:3", dir.path(), &mut LineCounts::default())
            .expect("parse")
            .location
        {
            Location::Line { file, line } => {
                assert_eq!(file, dir.path().join("here.c"));
                assert_eq!(line, 3);
            }
            other => panic!("{other:?}"),
        }
        match breakpoint_spec("elsewhere.c:3", dir.path(), &mut LineCounts::default())
            .expect("parse")
            .location
        {
            Location::Line { file, .. } => assert_eq!(file, PathBuf::from("elsewhere.c")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_line_past_the_end_of_a_present_file_is_a_usage_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("here.c"), "a\nb\nc\n").expect("write");
        let error = breakpoint_spec("here.c:4", dir.path(), &mut LineCounts::default())
            .expect_err("past the end");
        assert_eq!(error.code, ErrorCode::Usage);
        assert_eq!(
            error.message,
            "line 4 is beyond the end of here.c, which has 3 lines"
        );
        let spec = breakpoint_spec(" here.c:3 ", dir.path(), &mut LineCounts::default())
            .expect("last line");
        assert_eq!(spec.requested.as_deref(), Some("here.c:3"));
    }

    #[test]
    fn a_condition_after_if_is_the_specs_and_the_location_alone_is_what_was_asked() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("here.c"), "a\nb\nc\n").expect("write");
        let spec = breakpoint_spec(
            "here.c:2 if key == 51285",
            dir.path(),
            &mut LineCounts::default(),
        )
        .expect("parse");
        assert_eq!(spec.condition.as_deref(), Some("key == 51285"));
        assert_eq!(spec.requested.as_deref(), Some("here.c:2"));
        assert_eq!(
            spec.location,
            Location::Line {
                file: dir.path().join("here.c"),
                line: 2
            }
        );
        let error = breakpoint_spec("if x", dir.path(), &mut LineCounts::default())
            .expect_err("no location");
        assert_eq!(error.code, ErrorCode::Usage);
        assert!(error.hint.contains("'LOC if COND'"), "{}", error.hint);
    }

    #[test]
    fn a_bare_name_is_found_on_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).expect("bin");
        let tool = bin.join(format!("tool{}", std::env::consts::EXE_SUFFIX));
        std::fs::write(&tool, "").expect("tool");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::Permissions::from_mode(0o755);
            std::fs::set_permissions(&tool, mode).expect("chmod");
        }
        let path = std::env::join_paths([dir.path().join("missing"), bin.clone()]).expect("PATH");
        let cwd = dir.path();
        assert_eq!(
            program_on_path(Path::new("tool"), &path, cwd),
            Some(tool.clone())
        );
        assert_eq!(program_on_path(Path::new("nosuch"), &path, cwd), None);
        // A name with a directory part is a path, never looked up.
        assert_eq!(program_on_path(Path::new("./tool"), &path, cwd), None);
        assert_eq!(program_on_path(Path::new("bin/tool"), &path, cwd), None);
        // A relative PATH entry is taken from the caller's directory, as a shell takes it.
        let relative = std::env::join_paths([Path::new("bin")]).expect("PATH");
        assert_eq!(
            program_on_path(Path::new("tool"), &relative, cwd),
            Some(tool)
        );
    }
}

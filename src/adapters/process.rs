//! Running a debug adapter and connecting to it: over its stdio, over TCP to a port it listens on
//! (started by us, or already running elsewhere), and knowing how it ended.
//!
//! An adapter we start gets the parent-death signal (Linux), so it cannot outlive a daemon that is
//! killed outright. Its pipes that do not carry DAP are read for its whole life (an unread pipe
//! blocks the writer, and a closed one kills a debuggee that inherited it at its first print): its
//! stderr into the log and a short tail, and, for adapters whose debuggee inherits the adapter's
//! stdio (Delve), into the program's output. A monitor task records how the process exited, so a
//! request pending when it dies fails with "exited with status 1" and the adapter's last words.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot, watch};

use crate::common::error::{ErrorBody, ErrorCode};
use crate::ipc::protocol::StdioPaths;

/// How many stderr lines of the adapter are kept for error reports.
const STDERR_TAIL_LINES: usize = 20;

pub type BoxedReader = Box<dyn AsyncRead + Unpin + Send>;
pub type BoxedWriter = Box<dyn AsyncWrite + Unpin + Send>;
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A running adapter process (or, for a remote adapter, the absence of one).
pub struct AdapterProcess {
    pub pid: Option<u32>,
    kill_tx: Mutex<Option<oneshot::Sender<()>>>,
    exit: watch::Receiver<Option<String>>,
    /// Keeps the exit channel open for an adapter with no process of ours, so it never "exits".
    remote_exit: Option<watch::Sender<Option<String>>>,
}

/// A program output line (or chunk) that came through the adapter process's own stdio.
#[derive(Debug)]
pub struct StdioOutput {
    pub category: &'static str,
    /// As the program wrote them.
    pub bytes: Vec<u8>,
}

/// A connected adapter: its DAP streams, its process, and the program output its stdio carries.
pub struct SpawnedAdapter {
    pub process: Arc<AdapterProcess>,
    pub reader: BoxedReader,
    pub writer: BoxedWriter,
    /// Set for adapters whose debuggee writes to the adapter's own stdout and stderr.
    pub program_output: Option<mpsc::UnboundedReceiver<StdioOutput>>,
}

/// A change to the environment an adapter starts with: the variable set, or removed (`None`).
pub type EnvChange = (&'static str, Option<OsString>);

pub(crate) fn command_for(program: &Path, args: &[OsString]) -> Command {
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    as_daemons_child(&mut command);
    command
}

/// Sets up a process the daemon starts: it dies with the daemon, so a daemon killed outright
/// leaves no adapter or debuggee behind (`platform::die_with_parent`), and it starts with the
/// user's file-creation mask, not the daemon's, which the program it runs inherits
/// (`platform::give_users_file_mask`).
pub(crate) fn as_daemons_child(command: &mut Command) {
    crate::platform::die_with_parent(command);
    crate::platform::give_users_file_mask(command);
}

/// A started adapter process and its three pipes.
struct Piped {
    child: Child,
    stdin: tokio::process::ChildStdin,
    stdout: tokio::process::ChildStdout,
    stderr: tokio::process::ChildStderr,
}

fn spawn_piped(name: &str, program: &Path, mut command: Command) -> Result<Piped, ErrorBody> {
    let mut child = command.spawn().map_err(|e| spawn_error(name, program, e))?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(ErrorBody::internal("the adapter's pipes were not created"));
    };
    Ok(Piped {
        child,
        stdin,
        stdout,
        stderr,
    })
}

pub(super) fn spawn_error(name: &str, program: &Path, e: std::io::Error) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::AdapterNotFound,
        format!("cannot start {name} ({}): {e}", program.display()),
        "check that the adapter is installed and the path in the config (adapters.NAME.path) is right",
    )
}

/// Starts `program args...`, with `env` changed in its environment, speaking DAP on its stdin
/// and stdout; `name` labels logs and errors.
pub fn spawn_stdio(
    name: &str,
    program: &Path,
    args: &[OsString],
    env: &[EnvChange],
) -> Result<SpawnedAdapter, ErrorBody> {
    let mut command = command_for(program, args);
    for (variable, value) in env {
        match value {
            Some(value) => command.env(variable, value),
            None => command.env_remove(variable),
        };
    }
    let Piped {
        child,
        stdin,
        stdout,
        stderr,
    } = spawn_piped(name, program, command)?;
    let tail = new_tail();
    let stderr_done = tokio::spawn(read_lines(name.to_string(), stderr, tail.clone(), None));
    let process = monitor_child(name, child, tail, stderr_done);
    Ok(SpawnedAdapter {
        process,
        reader: Box::new(stdout),
        writer: Box::new(stdin),
        program_output: None,
    })
}

/// An adapter spoken to over the TCP `stream` (no Nagle delay: DAP messages are small and
/// answered one by one).
pub(crate) fn over_tcp(
    process: Arc<AdapterProcess>,
    stream: TcpStream,
    program_output: Option<mpsc::UnboundedReceiver<StdioOutput>>,
) -> SpawnedAdapter {
    let _ = stream.set_nodelay(true);
    let (reader, writer) = stream.into_split();
    SpawnedAdapter {
        process,
        reader: Box::new(reader),
        writer: Box::new(writer),
        program_output,
    }
}

/// Starts an adapter that listens on TCP and prints where (e.g. `dlv dap --listen=127.0.0.1:0`),
/// waits for `listening(line)` to find the address in its stdout, and connects. Everything the
/// process prints after that, on stdout and stderr, is the debuggee's output.
pub async fn spawn_tcp(
    name: &str,
    program: &Path,
    args: &[OsString],
    listening: fn(&str) -> Option<SocketAddr>,
    timeout: Duration,
) -> Result<SpawnedAdapter, ErrorBody> {
    let Piped {
        child,
        stdin: _stdin,
        stdout,
        stderr,
    } = spawn_piped(name, program, command_for(program, args))?;
    let tail = new_tail();
    let (output_tx, output_rx) = mpsc::unbounded_channel();
    let stderr_done = tokio::spawn(read_lines(
        name.to_string(),
        stderr,
        tail.clone(),
        Some((output_tx.clone(), "stderr")),
    ));
    let mut stdout = BufReader::new(stdout);
    let find_address = async {
        loop {
            let line = next_line(&mut stdout).await?;
            tracing::info!(adapter = name, "stdout: {}", line.trim_end());
            if let Some(address) = listening(line.trim()) {
                return Some(address);
            }
        }
    };
    let address = tokio::time::timeout(timeout, find_address).await;
    let process = monitor_child(name, child, tail, stderr_done);
    let address = match address {
        Ok(Some(address)) => address,
        Ok(None) => {
            let detail = process.exit_detail().await;
            return Err(ErrorBody::new(
                ErrorCode::AdapterDied,
                format!("{name} ended before it listened for a connection: {detail}"),
                "run the adapter by hand to see why, or check 'debugger doctor'",
            ));
        }
        Err(_) => {
            process.kill();
            return Err(ErrorBody::new(
                ErrorCode::AdapterTimeout,
                format!(
                    "{name} did not say where it listens within {} s",
                    timeout.as_secs()
                ),
                "raise timeouts.launch_secs in the config, or check 'debugger doctor'",
            ));
        }
    };
    // The rest of stdout is the debuggee's.
    tokio::spawn(forward_stdout(stdout, output_tx));
    let stream = TcpStream::connect(address).await.map_err(|e| {
        process.kill();
        ErrorBody::new(
            ErrorCode::AdapterDied,
            format!("cannot connect to {name} at {address}: {e}"),
            "",
        )
    })?;
    Ok(over_tcp(process, stream, Some(output_rx)))
}

/// [`open_program_streams`] for an adapter that is the program's own process (pdb, rdbg): a
/// channel that cannot be opened is the daemon's failure, told as such.
pub fn adapter_program_streams(paths: &StdioPaths) -> Result<[Stdio; 3], ErrorBody> {
    open_program_streams(paths)
        .map_err(|e| ErrorBody::internal(format!("the program's channels cannot be opened: {e}")))
}

/// The program's three streams opened on the channels at `paths`, for a process the daemon (or
/// an adapter it starts) runs: stdin for reading, stdout and stderr for writing (the same
/// terminal for both with `--tty`). The daemon holds the reading ends, so no open blocks.
pub fn open_program_streams(paths: &StdioPaths) -> std::io::Result<[Stdio; 3]> {
    let open_write = |path: &Path| {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
    };
    let stdin = std::fs::File::open(&paths.stdin)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", paths.stdin.display())))?;
    Ok([
        stdin.into(),
        open_write(&paths.stdout)?.into(),
        open_write(&paths.stderr)?.into(),
    ])
}

/// Starts an adapter that listens on a TCP port we choose: `{port}` in its arguments becomes a
/// free loopback port, and we connect once it accepts. Its stdout and stderr go to the log.
pub async fn spawn_on_port(
    name: &str,
    program: &Path,
    args: &[String],
    timeout: Duration,
) -> Result<SpawnedAdapter, ErrorBody> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|e| ErrorBody::internal(format!("cannot find a free port: {e}")))?;
    let args: Vec<OsString> = args
        .iter()
        .map(|a| OsString::from(a.replace("{port}", &port.to_string())))
        .collect();
    let Piped {
        child,
        stdin: _stdin,
        stdout,
        stderr,
    } = spawn_piped(name, program, command_for(program, &args))?;
    let tail = new_tail();
    tokio::spawn(read_lines(name.to_string(), stdout, tail.clone(), None));
    let stderr_done = tokio::spawn(read_lines(name.to_string(), stderr, tail.clone(), None));
    let process = monitor_child(name, child, tail, stderr_done);
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = tokio::time::Instant::now() + timeout;
    let stream = loop {
        match TcpStream::connect(address).await {
            Ok(stream) => break stream,
            Err(_) if process.has_exited() => {
                let detail = process.exit_detail().await;
                return Err(ErrorBody::new(
                    ErrorCode::AdapterDied,
                    format!("{name} ended before it listened on port {port}: {detail}"),
                    "check its command and args in the config ({port} marks where the port goes)",
                ));
            }
            Err(e) if tokio::time::Instant::now() >= deadline => {
                process.kill();
                return Err(ErrorBody::new(
                    ErrorCode::AdapterTimeout,
                    format!("{name} did not accept connections on port {port}: {e}"),
                    "check that its args pass the port where {port} stands, e.g. args = [\"--port\", \"{port}\"]",
                ));
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    };
    Ok(over_tcp(process, stream, None))
}

/// Connects to an adapter that is already listening (`--connect HOST:PORT`, or the path of a
/// local socket).
pub async fn connect_remote(address: &str, timeout: Duration) -> Result<SpawnedAdapter, ErrorBody> {
    if let Some(path) = crate::ipc::socket::socket_path(address) {
        let stream = tokio::time::timeout(timeout, crate::ipc::socket::connect_async(path))
            .await
            .map_err(|_| {
                ErrorBody::new(
                    ErrorCode::AdapterTimeout,
                    format!("connecting to the adapter at {address} timed out"),
                    "check that the program's debugger still listens on that socket",
                )
            })?
            .map_err(|e| {
                ErrorBody::new(
                    ErrorCode::AdapterNotFound,
                    format!("cannot connect to the adapter at {address}: {e}"),
                    "check the socket's path, and that the program's debugger listens on it",
                )
            })?;
        let (reader, writer) = tokio::io::split(stream);
        return Ok(remote(Box::new(reader), Box::new(writer)));
    }
    let stream = tokio::time::timeout(timeout, TcpStream::connect(address))
        .await
        .map_err(|_| {
            ErrorBody::new(
                ErrorCode::AdapterTimeout,
                format!("connecting to the adapter at {address} timed out"),
                "check the address, and that the adapter is listening (e.g. debugpy --listen, dlv dap --listen)",
            )
        })?
        .map_err(|e| {
            ErrorBody::new(
                ErrorCode::AdapterNotFound,
                format!("cannot connect to the adapter at {address}: {e}"),
                "check the address, and that the adapter is listening (e.g. debugpy --listen, dlv dap --listen)",
            )
        })?;
    let _ = stream.set_nodelay(true);
    let (reader, writer) = stream.into_split();
    Ok(remote(Box::new(reader), Box::new(writer)))
}

/// An adapter at the far end of a connection: no process of ours.
fn remote(reader: BoxedReader, writer: BoxedWriter) -> SpawnedAdapter {
    let (exit_tx, exit_rx) = watch::channel(None);
    SpawnedAdapter {
        process: Arc::new(AdapterProcess {
            pid: None,
            kill_tx: Mutex::new(None),
            exit: exit_rx,
            remote_exit: Some(exit_tx),
        }),
        reader,
        writer,
        program_output: None,
    }
}

pub(super) fn new_tail() -> Arc<Mutex<VecDeque<String>>> {
    Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL_LINES)))
}

pub(super) fn monitor_child(
    name: &str,
    child: Child,
    tail: Arc<Mutex<VecDeque<String>>>,
    stderr_done: tokio::task::JoinHandle<()>,
) -> Arc<AdapterProcess> {
    let (kill_tx, kill_rx) = oneshot::channel();
    let (exit_tx, exit_rx) = watch::channel(None);
    let pid = child.id();
    tokio::spawn(monitor(
        name.to_string(),
        child,
        kill_rx,
        exit_tx,
        tail,
        stderr_done,
    ));
    Arc::new(AdapterProcess {
        pid,
        kill_tx: Mutex::new(Some(kill_tx)),
        exit: exit_rx,
        remote_exit: None,
    })
}

/// The other side of an in-process adapter's [`AdapterProcess`]: `kill` fires when the session
/// kills the adapter, and `exit` is where the adapter says it has ended.
pub struct InProcessControl {
    pub kill: oneshot::Receiver<()>,
    pub exit: watch::Sender<Option<String>>,
}

impl AdapterProcess {
    /// An adapter that runs as a task of the daemon (Node's): no process of its own, but it can
    /// be killed and it ends like one.
    pub fn in_process() -> (AdapterProcess, InProcessControl) {
        let (kill_tx, kill) = oneshot::channel();
        let (exit, exit_rx) = watch::channel(None);
        (
            AdapterProcess {
                pid: None,
                kill_tx: Mutex::new(Some(kill_tx)),
                exit: exit_rx,
                remote_exit: None,
            },
            InProcessControl { kill, exit },
        )
    }

    /// An adapter that another process runs and relays to us (a daemon's warm adapter lent to a
    /// `probe`): its pid is told, it is killed by closing the connection (the session does), and
    /// `exit` says when that has happened.
    pub fn lent(pid: Option<u32>) -> (AdapterProcess, InProcessControl) {
        let (mut process, control) = AdapterProcess::in_process();
        process.pid = pid;
        (process, control)
    }

    /// Resolves to how the adapter ended (e.g. "lldb-dap exited with status 1; stderr: ...").
    /// Never resolves for a remote adapter, which has no process of ours.
    pub fn exit_detail(&self) -> impl Future<Output = String> + Send + 'static {
        let mut exit = self.exit.clone();
        async move {
            match exit.wait_for(Option::is_some).await {
                Ok(detail) => detail.clone().unwrap_or_default(),
                Err(_) => "the debug adapter is gone".to_string(),
            }
        }
    }

    /// True once the process has exited.
    pub fn has_exited(&self) -> bool {
        self.exit.borrow().is_some()
    }

    /// Kills the adapter (no-op when it has already exited, or is remote).
    pub fn kill(&self) {
        let tx = self
            .kill_tx
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(tx) = tx {
            let _ = tx.send(());
        }
    }

    /// Waits for the adapter to exit on its own for up to `grace`, then kills it.
    pub async fn shut_down(&self, grace: Duration) {
        if self.remote_exit.is_some() {
            return;
        }
        if tokio::time::timeout(grace, self.exit_detail())
            .await
            .is_err()
        {
            self.kill();
            let _ = tokio::time::timeout(Duration::from_secs(2), self.exit_detail()).await;
        }
    }
}

/// Reads an adapter pipe line by line: into the log and the error tail, and, when `program` is
/// set, on to the program's output.
/// The longest piece of a pipe handed on at once: a longer line arrives in pieces.
const PIPE_LINE_LIMIT: u64 = 64 * 1024;

/// The next line of a pipe (or a piece of a very long one), whatever its bytes: invalid UTF-8 is
/// replaced, never a reason to stop reading (a pipe left unread would block, and a closed one
/// kill, the program writing to it). `None` at the end of the pipe.
pub(crate) async fn next_line(
    reader: &mut (impl tokio::io::AsyncBufRead + Unpin),
) -> Option<String> {
    let bytes = next_line_bytes(reader).await?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// [`next_line`]'s bytes as they came (the program's output keeps them).
async fn next_line_bytes(reader: &mut (impl tokio::io::AsyncBufRead + Unpin)) -> Option<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut bytes = Vec::new();
    match reader
        .take(PIPE_LINE_LIMIT)
        .read_until(b'\n', &mut bytes)
        .await
    {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(bytes),
    }
}

async fn read_lines(
    name: String,
    pipe: impl AsyncRead + Unpin,
    tail: Arc<Mutex<VecDeque<String>>>,
    program: Option<(mpsc::UnboundedSender<StdioOutput>, &'static str)>,
) {
    let mut reader = BufReader::new(pipe);
    while let Some(bytes) = next_line_bytes(&mut reader).await {
        let line = String::from_utf8_lossy(&bytes).into_owned();
        match &program {
            Some((tx, category)) => {
                let _ = tx.send(StdioOutput { category, bytes });
            }
            None => tracing::info!(adapter = %name, "stderr: {}", line.trim_end()),
        }
        let mut tail = tail.lock().unwrap_or_else(|p| p.into_inner());
        if tail.len() == STDERR_TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line.trim_end().to_string());
    }
}

async fn forward_stdout(
    mut stdout: BufReader<tokio::process::ChildStdout>,
    output: mpsc::UnboundedSender<StdioOutput>,
) {
    while let Some(bytes) = next_line_bytes(&mut stdout).await {
        let _ = output.send(StdioOutput {
            category: "stdout",
            bytes,
        });
    }
}

async fn monitor(
    name: String,
    mut child: Child,
    kill_rx: oneshot::Receiver<()>,
    exit_tx: watch::Sender<Option<String>>,
    tail: Arc<Mutex<VecDeque<String>>>,
    stderr_done: tokio::task::JoinHandle<()>,
) {
    let status = tokio::select! {
        status = child.wait() => status,
        _ = kill_rx => {
            let _ = child.start_kill();
            child.wait().await
        }
    };
    crate::common::timeline::mark("adapter gone");
    // Let the stderr reader drain what the adapter wrote before it died (briefly: a grandchild
    // may hold the pipe open).
    let _ = tokio::time::timeout(Duration::from_millis(300), stderr_done).await;
    let mut detail = match status {
        Ok(status) => format!("{name} {}", describe_status(status)),
        Err(e) => format!("{name} ended, and its status could not be read: {e}"),
    };
    let tail = tail.lock().unwrap_or_else(|p| p.into_inner());
    if !tail.is_empty() {
        let lines: Vec<&str> = tail.iter().map(String::as_str).collect();
        detail.push_str("; its last stderr lines:\n  ");
        detail.push_str(&lines.join("\n  "));
    }
    drop(tail);
    tracing::info!("{detail}");
    let _ = exit_tx.send(Some(detail));
}

fn describe_status(status: ExitStatus) -> String {
    match (status.code(), crate::platform::exit_signal(&status)) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "exited".to_string(),
    }
}

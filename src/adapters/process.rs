//! Running a debug adapter as a child process and knowing how it ended.
//!
//! The adapter is started with the parent-death signal set (Linux), so it cannot outlive a daemon
//! that is killed outright. Its stderr is read for its whole life (an unread pipe would block it)
//! into the log and a short tail, and a monitor task records how it exited, so a request pending
//! when it dies can fail with "exited with status 1" and the adapter's last words.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{oneshot, watch};

use crate::common::error::{ErrorBody, ErrorCode};

/// How many stderr lines of the adapter are kept for error reports.
const STDERR_TAIL_LINES: usize = 20;

/// A running adapter process.
pub struct AdapterProcess {
    pub pid: Option<u32>,
    kill_tx: Mutex<Option<oneshot::Sender<()>>>,
    exit: watch::Receiver<Option<String>>,
}

/// A freshly spawned adapter with its protocol pipes.
pub struct SpawnedAdapter {
    pub process: Arc<AdapterProcess>,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
}

/// Starts `program args...` with piped stdio; `name` labels the logs and errors.
pub fn spawn_stdio(
    name: &str,
    program: &Path,
    args: &[OsString],
) -> Result<SpawnedAdapter, ErrorBody> {
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(target_os = "linux")]
    // SAFETY: the closure runs in the forked child before exec and only calls prctl, which is
    // async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().map_err(|e| {
        ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!("cannot start {name} ({}): {e}", program.display()),
            "check that the adapter is installed and the path in the config (adapters.NAME.path) is right",
        )
    })?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(ErrorBody::internal("the adapter's pipes were not created"));
    };
    let tail = Arc::new(Mutex::new(VecDeque::with_capacity(STDERR_TAIL_LINES)));
    let stderr_done = tokio::spawn(read_stderr(name.to_string(), stderr, tail.clone()));
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
    Ok(SpawnedAdapter {
        process: Arc::new(AdapterProcess {
            pid,
            kill_tx: Mutex::new(Some(kill_tx)),
            exit: exit_rx,
        }),
        stdin,
        stdout,
    })
}

impl AdapterProcess {
    /// Resolves to how the adapter ended (e.g. "lldb-dap exited with status 1; stderr: ...").
    pub fn exit_detail(&self) -> impl std::future::Future<Output = String> + Send + 'static {
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

    /// Kills the adapter (no-op when it has already exited).
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
        if tokio::time::timeout(grace, self.exit_detail())
            .await
            .is_err()
        {
            self.kill();
            let _ = tokio::time::timeout(Duration::from_secs(2), self.exit_detail()).await;
        }
    }
}

async fn read_stderr(
    name: String,
    stderr: tokio::process::ChildStderr,
    tail: Arc<Mutex<VecDeque<String>>>,
) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::info!(adapter = %name, "stderr: {line}");
        let mut tail = tail.lock().unwrap_or_else(|p| p.into_inner());
        if tail.len() == STDERR_TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line);
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
    tracing::info!("{detail}");
    let _ = exit_tx.send(Some(detail));
}

fn describe_status(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(signal)) => format!("was killed by signal {signal}"),
        (None, None) => "exited".to_string(),
    }
}

//! Attaching to a JVM that runs already: here we dial, and the JVM's JDWP agent
//! (`-agentlib:jdwp=transport=dt_socket,server=y,address=…`) listens. By address, or by process
//! id, where the agent's options (read with the JDK's `jcmd`) say where it listens, or that it
//! waits for `jcmd VM.start_java_debugging` to start listening (`onjcmd=y`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::net::TcpStream;

use super::jdwp::connection::shake_hands;
use crate::platform::{self, Os};

/// The flag a JVM is restarted with so that it can be attached to.
pub const AGENT_FLAG: &str =
    "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:5005";

/// How long a probe of an address (is a JDWP agent there?) may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a JDWP agent may take to listen again after a connection closed.
const RELISTEN: Duration = Duration::from_millis(500);

/// Connects to the JDWP agent at `address` (`HOST:PORT`, or a bare port on this machine) and
/// shakes hands with it, or takes the connection a probe of that address kept. A JDWP agent listens again once a connection closes (a probe's, or
/// one that was not a debugger's), but takes a moment to, and drops what came meanwhile: a
/// connection refused or dropped is tried again for that long.
pub async fn connect(address: &str, timeout: Duration) -> Result<TcpStream, String> {
    let address = dialable(address);
    if let Some(stream) = take_probed(&address) {
        return Ok(stream);
    }
    let relisten = tokio::time::Instant::now() + RELISTEN;
    let connecting = async {
        loop {
            let failure = match TcpStream::connect(&address).await {
                Ok(mut stream) => match shake_hands(&mut stream).await {
                    Ok(()) => return Ok(stream),
                    Err(e) => format!("no JDWP agent answered at {address}: {e}"),
                },
                Err(e) => format!(
                    "cannot connect to a JVM at {address}: {e} (is it started with {}?)",
                    flag_at(&address)
                ),
            };
            if tokio::time::Instant::now() >= relisten {
                return Err(failure);
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(timeout, connecting)
        .await
        .map_err(|_| {
            format!(
                "no JVM answered at {address} within {} s",
                timeout.as_secs()
            )
        })?
}

/// Whether a JDWP agent answers at `address`: it echoes the handshake. The connection is kept
/// for the attach that follows (see [`PROBED`]); another kind of server (an HTTP one) refuses
/// the handshake at once.
pub async fn serves_jdwp(address: &str) -> bool {
    let address = dialable(address);
    let shaken = tokio::time::timeout(PROBE_TIMEOUT, async {
        let mut stream = TcpStream::connect(&address).await.ok()?;
        shake_hands(&mut stream).await.ok()?;
        Some(stream)
    })
    .await;
    match shaken {
        Ok(Some(stream)) => {
            keep_probed(address, stream);
            true
        }
        _ => false,
    }
}

/// How long a probe's connection waits for its attach: the session is opened right after the
/// probe, so one not taken by then belongs to an attach that failed, and is closed so that
/// the JVM is not held by a debugger that is not there.
const KEPT_FOR: Duration = Duration::from_secs(30);

/// The connections probes found a JDWP agent on, by address, each with the number that tells
/// it from a later one there, for the attach that follows to take. Dialling again would not do:
/// the JVM takes the probe's leaving as its debugger's, and one started with `suspend=y` runs
/// on before the session's breakpoints are set.
static PROBED: Mutex<Vec<(String, u64, TcpStream)>> = Mutex::new(Vec::new());

static PROBES: AtomicU64 = AtomicU64::new(0);

fn probed() -> std::sync::MutexGuard<'static, Vec<(String, u64, TcpStream)>> {
    PROBED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Keeps `stream` for `address`'s attach, in place of one kept before, for [`KEPT_FOR`].
fn keep_probed(address: String, stream: TcpStream) {
    let number = PROBES.fetch_add(1, Ordering::Relaxed);
    {
        let mut kept = probed();
        kept.retain(|(at, _, _)| *at != address);
        kept.push((address.clone(), number, stream));
    }
    tokio::spawn(async move {
        tokio::time::sleep(KEPT_FOR).await;
        probed().retain(|(at, n, _)| !(*at == address && *n == number));
    });
}

/// The connection a probe kept for `address`, if one waits.
fn take_probed(address: &str) -> Option<TcpStream> {
    let mut kept = probed();
    let at = kept.iter().position(|(at, _, _)| at == address)?;
    Some(kept.swap_remove(at).2)
}

/// A bare port is on this machine.
fn dialable(address: &str) -> String {
    match address.parse::<u16>() {
        Ok(port) => format!("127.0.0.1:{port}"),
        Err(_) => address.to_string(),
    }
}

/// The agent flag for a JVM listening at `address`.
fn flag_at(address: &str) -> String {
    format!("-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address={address}")
}

/// A connection, its handshake done, to the JDWP agent of the JVM of process `pid`, whose
/// listener is started with `jcmd` where the JVM asks for that (`onjcmd=y`); with the address
/// it listens at. `java` is the JDK whose `jcmd` is used when the process's own is not found.
pub async fn reach(
    pid: u32,
    java: &Path,
    timeout: Duration,
) -> Result<(String, TcpStream), String> {
    if !platform::process_exists(pid) {
        return Err(format!("no process has pid {pid}"));
    }
    let exe = platform::executable_of(pid);
    if !exe.as_deref().is_some_and(super::is_java_runtime) {
        return Err(format!(
            "process {pid} is not a JVM ({})",
            exe.map_or("its executable is unknown".to_string(), |e| e
                .display()
                .to_string())
        ));
    }
    let jcmd = jcmd_beside(exe.as_deref(), java);
    let command_line = run_jcmd(&jcmd, pid, "VM.command_line").await?;
    let Some(agent) = AgentOptions::in_command_line(&command_line) else {
        return Err(format!(
            "process {pid} runs without a JDWP agent, so no debugger can attach to it: restart it with {AGENT_FLAG} and run 'debugger attach {pid}' again (or 'debugger attach --connect 127.0.0.1:5005')"
        ));
    };
    if !agent.listens() {
        return Err(format!(
            "the JVM of process {pid} dials its debugger (server=n) rather than listening for one: restart it with {AGENT_FLAG}"
        ));
    }
    if agent.on_jcmd() {
        run_jcmd(&jcmd, pid, "VM.start_java_debugging").await?;
    }
    if let Some(address) = agent.fixed_address() {
        let stream = connect(&address, timeout).await?;
        return Ok((address, stream));
    }
    // The agent took a port of the system's choosing: one of the process's listening ports
    // answers the handshake. The connection that finds it is kept: once it closes, the agent
    // listens on another port of the system's choosing.
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        for port in platform::listening_ports(pid) {
            let address = format!("127.0.0.1:{port}");
            if let Ok(stream) = connect(&address, PROBE_TIMEOUT).await {
                return Ok((address, stream));
            }
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(format!(
                "the JDWP agent of process {pid} did not listen within {} s",
                timeout.as_secs()
            ));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The process's own JDK's `jcmd`, else the one beside `java`.
fn jcmd_beside(exe: Option<&Path>, java: &Path) -> PathBuf {
    let name = Os::CURRENT.executable("jcmd");
    exe.and_then(Path::parent)
        .map(|bin| bin.join(&name))
        .filter(|jcmd| jcmd.is_file())
        .or_else(|| java.parent().map(|bin| bin.join(&name)))
        .unwrap_or_else(|| PathBuf::from(name))
}

async fn run_jcmd(jcmd: &Path, pid: u32, command: &str) -> Result<String, String> {
    let output = tokio::process::Command::new(jcmd)
        .arg(pid.to_string())
        .arg(command)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| format!("cannot run {}: {e}", jcmd.display()))?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() {
        return Err(format!(
            "'jcmd {pid} {command}' failed: {} {}",
            text.trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(text)
}

/// The JDWP agent's options, as `-agentlib:jdwp=…` or `-Xrunjdwp:…` gives them.
#[derive(Debug, PartialEq, Eq)]
struct AgentOptions(HashMap<String, String>);

impl AgentOptions {
    /// The agent's options in a JVM's command line (`jcmd VM.command_line`'s text, whose
    /// `jvm_args` hold the flags and `JAVA_TOOL_OPTIONS`' too); the last agent given wins, as
    /// the JVM takes it.
    fn in_command_line(text: &str) -> Option<AgentOptions> {
        let options = text.split_whitespace().rev().find_map(|word| {
            word.strip_prefix("-agentlib:jdwp=")
                .or_else(|| word.strip_prefix("-Xrunjdwp:"))
        })?;
        Some(AgentOptions(
            options
                .split(',')
                .filter_map(|pair| pair.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        ))
    }

    fn listens(&self) -> bool {
        self.0.get("server").is_some_and(|v| v == "y")
    }

    fn on_jcmd(&self) -> bool {
        self.0.get("onjcmd").is_some_and(|v| v == "y")
    }

    /// Where it listens when its address names a port (`5005`, `*:5005`, `host:5005`); none
    /// for port 0 or no address, where the system picks the port.
    fn fixed_address(&self) -> Option<String> {
        let address = self.0.get("address")?;
        let (host, port) = match address.rsplit_once(':') {
            Some((host, port)) => (host, port),
            None => ("127.0.0.1", address.as_str()),
        };
        let port = port.parse::<u16>().ok().filter(|p| *p != 0)?;
        let host = match host {
            "*" | "0.0.0.0" | "" => "127.0.0.1",
            host => host,
        };
        Some(format!("{host}:{port}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(text: &str) -> Option<AgentOptions> {
        AgentOptions::in_command_line(text)
    }

    #[test]
    fn the_agent_is_read_from_the_jvm_command_line() {
        let text = "123:\nVM Arguments:\njvm_args: -Xmx1g -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=*:5005\njava_command: app.jar\n";
        let agent = options(text).expect("an agent");
        assert!(agent.listens());
        assert!(!agent.on_jcmd());
        assert_eq!(agent.fixed_address().as_deref(), Some("127.0.0.1:5005"));
        let old = options("jvm_args: -Xrunjdwp:transport=dt_socket,server=y,address=8000")
            .expect("an agent");
        assert_eq!(old.fixed_address().as_deref(), Some("127.0.0.1:8000"));
        let chosen = options(
            "jvm_args: -agentlib:jdwp=transport=dt_socket,server=y,onjcmd=y,address=10.0.0.2:0",
        )
        .expect("an agent");
        assert!(chosen.on_jcmd());
        assert_eq!(chosen.fixed_address(), None);
        let dials = options("jvm_args: -agentlib:jdwp=transport=dt_socket,server=n,address=h:1")
            .expect("an agent");
        assert!(!dials.listens());
        assert_eq!(options("jvm_args: -Xmx1g\njava_command: Main"), None);
    }

    #[test]
    fn a_bare_port_is_dialled_on_this_machine() {
        assert_eq!(dialable("5005"), "127.0.0.1:5005");
        assert_eq!(dialable("host:5005"), "host:5005");
    }
}

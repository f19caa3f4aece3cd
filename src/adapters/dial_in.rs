//! An adapter that dials in to us: started with the address of a loopback port we listen on
//! (Delve's `--client-addr` for `--tty`, the pdb adapter's Python), and, where the process can
//! be told a secret privately, made to prove it is that process before it is taken.

use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::process::Command;

use super::process::{
    AdapterProcess, SpawnedAdapter, command_for, monitor_child, new_tail, over_tcp, spawn_error,
};
use crate::common::error::{ErrorBody, ErrorCode};

/// 128 bits no other user can guess: std's hasher keys are random per process and per
/// `RandomState`.
pub(crate) fn random_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let half = || {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u32(std::process::id());
        hasher.finish()
    };
    format!("{:016x}{:016x}", half(), half())
}

/// Starts the process `command(address)` makes, on `streams`, and takes the connection it
/// makes to `address`: the adapter's process and that stream. With `token`, the connection
/// must first send that line (the process is told it privately, in its environment): a
/// loopback port is open to every local user, and one who connected first would read the
/// launch (the program's environment) and answer for the program. Others are dropped.
pub async fn dial_in(
    name: &str,
    program: &Path,
    command: impl FnOnce(SocketAddr) -> Command,
    streams: [Stdio; 3],
    timeout: Duration,
    token: Option<&str>,
) -> Result<(Arc<AdapterProcess>, TcpStream), ErrorBody> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| ErrorBody::internal(format!("cannot listen for {name}: {e}")))?;
    let address = listener
        .local_addr()
        .map_err(|e| ErrorBody::internal(format!("cannot listen for {name}: {e}")))?;
    let [stdin, stdout, stderr] = streams;
    let mut command = command(address);
    command.stdin(stdin).stdout(stdout).stderr(stderr);
    let child = command.spawn().map_err(|e| spawn_error(name, program, e))?;
    let process = monitor_child(name, child, new_tail(), tokio::spawn(async {}));
    let accepted = tokio::select! {
        accepted = tokio::time::timeout(timeout, accept_with(&listener, token)) => accepted,
        detail = process.exit_detail() => {
            return Err(ErrorBody::new(
                ErrorCode::AdapterDied,
                format!("{name} ended before it connected: {detail}"),
                "run the adapter by hand to see why, or check 'debugger doctor'",
            ));
        }
    };
    match accepted {
        Ok(Ok(stream)) => Ok((process, stream)),
        Ok(Err(e)) => {
            process.kill();
            Err(ErrorBody::internal(format!(
                "cannot accept {name}'s connection: {e}"
            )))
        }
        Err(_) => {
            process.kill();
            Err(ErrorBody::new(
                ErrorCode::AdapterTimeout,
                format!("{name} did not connect within {} s", timeout.as_secs()),
                "raise timeouts.launch_secs in the config, or check 'debugger doctor'",
            ))
        }
    }
}

/// The first connection to `listener` that sends `token` as its first line (any, without one).
async fn accept_with(listener: &TcpListener, token: Option<&str>) -> std::io::Result<TcpStream> {
    loop {
        let (mut stream, _) = listener.accept().await?;
        let Some(token) = token else {
            return Ok(stream);
        };
        let mut line = Vec::with_capacity(token.len() + 1);
        let said = tokio::time::timeout(GREETING_LIMIT, async {
            let mut byte = [0u8; 1];
            while line.len() <= token.len() {
                if tokio::io::AsyncReadExt::read(&mut stream, &mut byte).await? == 0 {
                    break;
                }
                if byte[0] == b'\n' {
                    return Ok::<bool, std::io::Error>(line == token.as_bytes());
                }
                line.push(byte[0]);
            }
            Ok(false)
        })
        .await;
        if let Ok(Ok(true)) = said {
            return Ok(stream);
        }
        tracing::warn!("a connection without the token was refused");
    }
}

/// How long a connection has to say its token.
const GREETING_LIMIT: Duration = Duration::from_secs(5);

/// Starts an adapter that dials in to us (`--client-addr=ADDRESS` is added to `args`, Delve's
/// way) with `streams` as its stdin, stdout and stderr: what its debuggee inherits. Nothing of
/// the adapter's own is read (its streams are the program's), so its last words are not kept.
pub async fn spawn_dialing_in(
    name: &str,
    program: &Path,
    args: &[OsString],
    streams: [Stdio; 3],
    timeout: Duration,
) -> Result<SpawnedAdapter, ErrorBody> {
    let (process, stream) = dial_in(
        name,
        program,
        |address| {
            let mut command = command_for(program, args);
            command.arg(format!("--client-addr={address}"));
            command
        },
        streams,
        timeout,
        None,
    )
    .await?;
    Ok(over_tcp(process, stream, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncWriteExt;

    #[tokio::test]
    async fn only_a_connection_that_says_the_token_is_taken() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let address = listener.local_addr().expect("address");
        let token = random_token();
        let mut stranger = TcpStream::connect(address).await.expect("connect");
        stranger.write_all(b"guess\n").await.expect("write");
        let mut ours = TcpStream::connect(address).await.expect("connect");
        ours.write_all(format!("{token}\n").as_bytes())
            .await
            .expect("write");
        ours.write_all(b"after").await.expect("write");
        let mut taken = accept_with(&listener, Some(&token))
            .await
            .expect("accepted");
        let mut rest = [0u8; 5];
        tokio::io::AsyncReadExt::read_exact(&mut taken, &mut rest)
            .await
            .expect("read");
        assert_eq!(
            &rest, b"after",
            "the stream after the token is the adapter's"
        );
        assert_ne!(random_token(), token);
    }
}

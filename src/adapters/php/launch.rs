//! Starting a PHP script that dials in to us: we listen on a loopback port, and Xdebug, told
//! by `-d` flags on PHP's command line (the user's php.ini is left alone), connects there
//! before the script's first line runs. A PHP that does not connect is asked why: Xdebug
//! missing, or in a mode without step debugging.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, Command};

/// The package that holds Xdebug where `setup php` installs it, for the errors that need it.
const XDEBUG_PACKAGE: &str = "php-xdebug";

/// What PHP is started with.
pub struct Plan<'a> {
    /// The script; `None` when the program is `php` itself, run with its own command line.
    pub script: Option<&'a Path>,
    pub php: &'a Path,
    pub args: &'a [String],
    pub cwd: Option<&'a Path>,
    pub env: Option<&'a [(String, String)]>,
}

/// The `-d` flags that make Xdebug debug this run and dial `port`.
pub fn xdebug_flags(port: u16) -> Vec<String> {
    [
        "xdebug.mode=debug".to_string(),
        "xdebug.start_with_request=yes".to_string(),
        "xdebug.client_host=127.0.0.1".to_string(),
        format!("xdebug.client_port={port}"),
    ]
    .into_iter()
    .flat_map(|setting| ["-d".to_string(), setting])
    .collect()
}

/// PHP's arguments: our flags first, so that PHP reads them before the script's name, then
/// the script and its arguments (or the user's own command line after `php`).
pub fn arguments(plan: &Plan<'_>, port: u16) -> Vec<String> {
    let mut arguments = xdebug_flags(port);
    if let Some(script) = plan.script {
        arguments.push(script.to_string_lossy().into_owned());
    }
    arguments.extend(plan.args.iter().cloned());
    arguments
}

/// A started PHP, connected.
pub struct Launched {
    pub child: Child,
    pub stream: TcpStream,
}

/// Starts PHP and takes Xdebug's connection, within `timeout`.
pub async fn launch(plan: Plan<'_>, timeout: Duration) -> Result<Launched, String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot listen for Xdebug: {e}"))?;
    let port = listener
        .local_addr()
        .map_err(|e| format!("cannot listen for Xdebug: {e}"))?
        .port();
    let mut command = Command::new(plan.php);
    command
        .args(arguments(&plan, port))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = plan.cwd {
        command.current_dir(cwd);
    }
    if let Some(env) = plan.env {
        command.env_clear();
        command.envs(env.iter().map(|(k, v)| (k, v)));
    }
    // XDEBUG_MODE outranks every ini setting, ours too; XDEBUG_CONFIG may name another port.
    command
        .env("XDEBUG_MODE", "debug")
        .env_remove("XDEBUG_CONFIG");
    crate::adapters::process::as_daemons_child(&mut command);
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", plan.php.display()))?;
    let accepted = tokio::select! {
        accepted = tokio::time::timeout(timeout, listener.accept()) => accepted,
        _ = child.wait() => {
            let mut said = String::new();
            if let Some(mut stderr) = child.stderr.take() {
                let _ = tokio::io::AsyncReadExt::read_to_string(&mut stderr, &mut said).await;
            }
            return Err(not_connected(plan.php, &said).await);
        }
    };
    match accepted {
        Ok(Ok((stream, _))) => Ok(Launched { child, stream }),
        Ok(Err(e)) => Err(format!("cannot accept Xdebug's connection: {e}")),
        Err(_) => Err(format!(
            "Xdebug did not connect within {} s",
            timeout.as_secs()
        )),
    }
}

/// Why PHP ended without Xdebug connecting, with the fix: the package, and the ini line. Its
/// mode is no cause: the run is given `xdebug.mode=debug` whatever php.ini says.
async fn not_connected(php: &Path, said: &str) -> String {
    if !xdebug_loaded(php).await {
        return format!(
            "Xdebug is not loaded in {}: install it ('apt install {XDEBUG_PACKAGE}', or 'debugger setup php'), or load it with the ini line 'zend_extension=xdebug'",
            php.display()
        );
    }
    format!(
        "{} ended before Xdebug connected: {}",
        php.display(),
        said.trim()
    )
}

/// Whether `php` loads Xdebug.
async fn xdebug_loaded(php: &Path) -> bool {
    let output = Command::new(php)
        .args(["-r", "echo extension_loaded('xdebug') ? 'yes' : 'no';"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .await;
    output.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "yes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_flags_come_before_the_script_and_its_arguments() {
        let args = ["a".to_string()];
        let plan = Plan {
            script: Some(Path::new("/p/index.php")),
            php: Path::new("php"),
            args: &args,
            cwd: None,
            env: None,
        };
        let arguments = arguments(&plan, 9003);
        assert_eq!(arguments[..2], ["-d", "xdebug.mode=debug"]);
        assert!(arguments.contains(&"xdebug.client_port=9003".to_string()));
        assert_eq!(arguments[arguments.len() - 2..], ["/p/index.php", "a"]);
    }
}

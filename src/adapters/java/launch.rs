//! Starting a program in a JVM that dials in to us: we listen on a loopback port, and the
//! JVM's JDWP agent (`-agentlib:jdwp=transport=dt_socket,server=n,address=…,suspend=y`)
//! connects there before the program's first bytecode runs. The program is given in one of
//! the forms `java` takes, each made into its command line here.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::process::{Child, Command};

use crate::ipc::protocol::StdioPaths;

/// How the program was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramForm {
    /// `Main.java`: a single source file, which `java` compiles in memory and runs.
    Source(PathBuf),
    /// `app.jar`: run with `-jar`.
    Jar(PathBuf),
    /// `java -cp classes com.shop.Main args`: the `java` executable with its own command line,
    /// into which only the agent is put, right after the executable.
    CommandLine(PathBuf),
    /// `com.shop.Main`: a main class, found on the class path.
    MainClass(String),
}

impl ProgramForm {
    pub fn of(program: &Path) -> ProgramForm {
        if super::is_java_runtime(program) {
            return ProgramForm::CommandLine(program.to_path_buf());
        }
        match program.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("java") => ProgramForm::Source(program.into()),
            Some(e) if e.eq_ignore_ascii_case("jar") => ProgramForm::Jar(program.into()),
            _ => ProgramForm::MainClass(program.to_string_lossy().into_owned()),
        }
    }
}

/// What the JVM is started with.
pub struct Plan<'a> {
    pub form: ProgramForm,
    /// The `java` for forms that do not name one.
    pub java: &'a Path,
    pub classpath: Option<&'a str>,
    pub args: &'a [String],
    pub cwd: Option<&'a Path>,
    pub env: Option<&'a [(String, String)]>,
    /// The session's channels (`--tty`, `--stdin`): the JVM's stdin and stdout are opened on
    /// them. Its stderr stays our pipe, so a JVM that ends before it connects says why.
    pub stdio: Option<&'a StdioPaths>,
}

/// The first release whose agent can list virtual threads (JDK 21).
const VIRTUAL_THREADS_FROM: u32 = 21;

/// The agent option that makes the JVM dial `address` and wait, suspended, for us. From JDK 21
/// on it lists virtual threads too (`includevirtualthreads=y`): otherwise a stop in one is in
/// a thread `threads` does not show. An older agent refuses the option, so it is left out there.
pub fn agent_option(address: std::net::SocketAddr, feature_version: Option<u32>) -> String {
    let virtual_threads = if feature_version.is_some_and(|v| v >= VIRTUAL_THREADS_FROM) {
        ",includevirtualthreads=y"
    } else {
        ""
    };
    format!(
        "-agentlib:jdwp=transport=dt_socket,server=n,address={address},suspend=y{virtual_threads}"
    )
}

/// The executable and arguments of the JVM's command line.
pub fn command_line(plan: &Plan<'_>, agent: &str) -> (PathBuf, Vec<String>) {
    let mut arguments = vec![agent.to_string()];
    let java = match &plan.form {
        ProgramForm::CommandLine(java) => java.clone(),
        _ => plan.java.to_path_buf(),
    };
    match &plan.form {
        ProgramForm::CommandLine(_) => {}
        ProgramForm::Source(file) => arguments.push(file.to_string_lossy().into_owned()),
        ProgramForm::Jar(jar) => {
            arguments.push("-jar".into());
            arguments.push(jar.to_string_lossy().into_owned());
        }
        ProgramForm::MainClass(class) => {
            if let Some(classpath) = plan.classpath {
                arguments.push("-cp".into());
                arguments.push(classpath.to_string());
            }
            arguments.push(class.clone());
        }
    }
    arguments.extend(plan.args.iter().cloned());
    (java, arguments)
}

/// A started JVM, connected.
pub struct Launched {
    pub child: Child,
    pub stream: TcpStream,
}

/// Starts the JVM and takes its connection, within `timeout`.
pub async fn launch(plan: Plan<'_>, timeout: Duration) -> Result<Launched, String> {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot listen for the JVM: {e}"))?;
    let address = listener
        .local_addr()
        .map_err(|e| format!("cannot listen for the JVM: {e}"))?;
    let java = match &plan.form {
        ProgramForm::CommandLine(java) => java.as_path(),
        _ => plan.java,
    };
    let agent = agent_option(address, super::jdk::feature_version(java));
    let (java, arguments) = command_line(&plan, &agent);
    let mut command = Command::new(&java);
    command
        .args(&arguments)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(cwd) = plan.cwd {
        command.current_dir(cwd);
    }
    if let Some(paths) = plan.stdio {
        let [stdin, stdout, _stderr] = crate::adapters::process::open_program_streams(paths)
            .map_err(|e| format!("the program's channels cannot be opened: {e}"))?;
        command.stdin(stdin).stdout(stdout);
    }
    if let Some(env) = plan.env {
        command.env_clear();
        command.envs(env.iter().map(|(k, v)| (k, v)));
    }
    crate::adapters::process::as_daemons_child(&mut command);
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", java.display()))?;
    let accepted = tokio::select! {
        accepted = tokio::time::timeout(timeout, listener.accept()) => accepted,
        status = child.wait() => {
            let code = status.ok().and_then(|s| s.code());
            let mut said = String::new();
            if let Some(mut stderr) = child.stderr.take() {
                let _ = tokio::io::AsyncReadExt::read_to_string(&mut stderr, &mut said).await;
            }
            return Err(format!(
                "{} ended before its JVM connected (exit code {}): {}",
                java.display(),
                code.map_or("none".to_string(), |c| c.to_string()),
                said.trim()
            ));
        }
    };
    match accepted {
        Ok(Ok((stream, _))) => Ok(Launched { child, stream }),
        Ok(Err(e)) => Err(format!("cannot accept the JVM's connection: {e}")),
        Err(_) => Err(format!(
            "the JVM did not connect within {} s",
            timeout.as_secs()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(form: ProgramForm) -> Plan<'static> {
        Plan {
            form,
            java: Path::new("/jdk/bin/java"),
            classpath: Some("out"),
            args: &[],
            cwd: None,
            env: None,
            stdio: None,
        }
    }

    #[test]
    fn each_program_form_makes_its_command_line() {
        assert_eq!(
            ProgramForm::of(Path::new("/p/Main.java")),
            ProgramForm::Source("/p/Main.java".into())
        );
        assert_eq!(
            ProgramForm::of(Path::new("app.jar")),
            ProgramForm::Jar("app.jar".into())
        );
        assert_eq!(
            ProgramForm::of(Path::new("/usr/bin/java")),
            ProgramForm::CommandLine("/usr/bin/java".into())
        );
        assert_eq!(
            ProgramForm::of(Path::new("com.shop.Main")),
            ProgramForm::MainClass("com.shop.Main".into())
        );
        let (java, arguments) = command_line(&plan(ProgramForm::Jar("app.jar".into())), "-A");
        assert_eq!(java, Path::new("/jdk/bin/java"));
        assert_eq!(arguments, ["-A", "-jar", "app.jar"]);
        let (_, arguments) =
            command_line(&plan(ProgramForm::MainClass("com.shop.Main".into())), "-A");
        assert_eq!(arguments, ["-A", "-cp", "out", "com.shop.Main"]);
    }

    /// `start -- java -cp classes com.shop.Main x`: the agent goes right after the executable,
    /// the user's flags stay as they were.
    #[test]
    fn a_java_command_line_keeps_its_own_flags() {
        let args = [
            "-cp".to_string(),
            "classes".into(),
            "com.shop.Main".into(),
            "x".into(),
        ];
        let plan = Plan {
            args: &args,
            ..plan(ProgramForm::CommandLine("/opt/jdk/bin/java".into()))
        };
        let address = "127.0.0.1:5005".parse().expect("address");
        // No JDK's release file is known here, so the agent is not asked for virtual threads.
        let agent = agent_option(address, None);
        let (java, arguments) = command_line(&plan, &agent);
        assert_eq!(java, Path::new("/opt/jdk/bin/java"));
        assert_eq!(
            arguments,
            [
                "-agentlib:jdwp=transport=dt_socket,server=n,address=127.0.0.1:5005,suspend=y",
                "-cp",
                "classes",
                "com.shop.Main",
                "x"
            ]
        );
        assert!(agent_option(address, Some(25)).ends_with(",suspend=y,includevirtualthreads=y"));
        assert!(agent_option(address, None).ends_with(",suspend=y"));
    }
}

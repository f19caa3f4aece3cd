//! The system package managers `setup` installs adapters with (apt, dnf, Homebrew), and the
//! rights they run with: as root, or through passwordless sudo; without either, nothing is run
//! and the error's hint is the exact command for the user to run.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::run_logged;
use crate::common::error::{ErrorBody, ErrorCode};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PackageManager {
    Apt,
    Dnf,
    Brew,
}

/// How a system package manager may be run here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rights {
    Root,
    PasswordlessSudo,
    None,
}

impl Rights {
    fn detect() -> Rights {
        if crate::platform::is_superuser() {
            return Rights::Root;
        }
        let sudo_works = which::which("sudo").is_ok()
            && Command::new("sudo")
                .args(["-n", "true"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
        if sudo_works {
            Rights::PasswordlessSudo
        } else {
            Rights::None
        }
    }
}

impl PackageManager {
    pub(super) fn detect() -> Option<PackageManager> {
        let has = |tool: &str| which::which(tool).is_ok();
        if std::env::consts::OS == "macos" {
            return has("brew").then_some(PackageManager::Brew);
        }
        if has("apt-get") {
            Some(PackageManager::Apt)
        } else if has("dnf") {
            Some(PackageManager::Dnf)
        } else if has("brew") {
            Some(PackageManager::Brew)
        } else {
            None
        }
    }

    fn tool(self) -> &'static str {
        match self {
            PackageManager::Apt => "apt-get",
            PackageManager::Dnf => "dnf",
            PackageManager::Brew => "brew",
        }
    }

    /// Homebrew runs as the user; apt and dnf need root.
    fn needs_root(self) -> bool {
        self != PackageManager::Brew
    }

    pub(super) fn may_run(self) -> bool {
        !self.needs_root() || Rights::detect() != Rights::None
    }

    fn install_args(self, package: &str) -> Vec<String> {
        let args: &[&str] = match self {
            PackageManager::Apt => &["install", "-y"],
            PackageManager::Dnf => &["install", "-y"],
            PackageManager::Brew => &["install"],
        };
        let mut command = vec![self.tool().to_string()];
        command.extend(args.iter().map(|a| a.to_string()));
        command.push(package.to_string());
        command
    }

    /// Whether the package manager knows `package` (apt only; the others are asked by installing).
    fn knows(self, package: &str) -> bool {
        match self {
            PackageManager::Apt => Command::new("apt-cache")
                .args(["show", package])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success()),
            _ => true,
        }
    }

    /// Installs the first of `packages` that installs, and returns its name. `what` names the
    /// software in messages.
    pub(super) fn install(self, what: &str, packages: &[&str]) -> Result<String, ErrorBody> {
        let known: Vec<&str> = packages.iter().copied().filter(|p| self.knows(p)).collect();
        // No package known: apt's lists are missing or stale, and need an update first.
        let needs_update = self == PackageManager::Apt && known.is_empty();
        let first = known
            .first()
            .or(packages.first())
            .copied()
            .unwrap_or_default();
        let rights = if self.needs_root() {
            Rights::detect()
        } else {
            Rights::None
        };
        if self.needs_root() && rights == Rights::None {
            return Err(needs_rights(what, &self.user_command(first, needs_update)));
        }
        let run = |command: Vec<String>| {
            let (command, env) = with_rights(command, rights);
            run_logged(&command, &env)
        };
        let update = || run(vec!["apt-get".into(), "update".into(), "-q".into()]);
        let mut updated = false;
        if needs_update {
            update();
            updated = true;
        }
        let mut candidates: Vec<&str> = if updated {
            packages.iter().copied().filter(|p| self.knows(p)).collect()
        } else {
            known.clone()
        };
        if candidates.is_empty() {
            candidates = packages.to_vec();
        }
        for package in &candidates {
            if run(self.install_args(package)) {
                return Ok(package.to_string());
            }
        }
        // The lists may be stale (a package that moved): update once and try again.
        if self == PackageManager::Apt && !updated && update() {
            for package in packages.iter().filter(|p| self.knows(p)) {
                if run(self.install_args(package)) {
                    return Ok(package.to_string());
                }
            }
        }
        Err(ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!(
                "installing {what} with {} failed (its output is above)",
                self.tool()
            ),
            format!(
                "run it yourself and read what it says: {}",
                self.user_command(first, self == PackageManager::Apt)
            ),
        ))
    }

    /// The command a user without the rights should run.
    pub(super) fn user_command(self, package: &str, with_update: bool) -> String {
        let install = self.install_args(package).join(" ");
        if !self.needs_root() {
            return install;
        }
        let (sudo, suffix) = if which::which("sudo").is_ok() {
            ("sudo ", "")
        } else {
            ("", " (as root)")
        };
        if with_update && self == PackageManager::Apt {
            format!("{sudo}apt-get update && {sudo}{install}{suffix}")
        } else {
            format!("{sudo}{install}{suffix}")
        }
    }

    /// An executable inside a keg-only Homebrew formula (`$(brew --prefix llvm)/bin/lldb-dap`).
    pub(super) fn keg_binary(self, formula: &str, binary: &str) -> Option<PathBuf> {
        if self != PackageManager::Brew {
            return None;
        }
        let output = Command::new("brew")
            .args(["--prefix", formula])
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        let prefix = String::from_utf8_lossy(&output.stdout).trim().to_string();
        let path = PathBuf::from(prefix).join("bin").join(binary);
        (output.status.success() && path.is_file()).then_some(path)
    }
}

fn needs_rights(what: &str, command: &str) -> ErrorBody {
    ErrorBody::new(
        ErrorCode::AdapterNotFound,
        format!(
            "{what} is not installed, and installing it needs root (this user is not root and has no passwordless sudo)"
        ),
        format!("run: {command}"),
    )
}

/// The command as root runs it, or through `sudo -n` (through `env`, as sudo drops the caller's
/// environment), and the environment to add.
fn with_rights(command: Vec<String>, rights: Rights) -> (Vec<String>, Vec<(String, String)>) {
    let apt_env = ("DEBIAN_FRONTEND".to_string(), "noninteractive".to_string());
    let is_apt = command.first().is_some_and(|c| c == "apt-get");
    match rights {
        Rights::PasswordlessSudo => {
            let mut full = vec!["sudo".to_string(), "-n".to_string()];
            if is_apt {
                full.push("env".into());
                full.push(format!("{}={}", apt_env.0, apt_env.1));
            }
            full.extend(command);
            (full, Vec::new())
        }
        _ => {
            let env = if is_apt { vec![apt_env] } else { Vec::new() };
            (command, env)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sudo_keeps_apt_noninteractive() {
        let (command, env) = with_rights(
            vec!["apt-get".into(), "install".into(), "x".into()],
            Rights::PasswordlessSudo,
        );
        assert_eq!(
            command.join(" "),
            "sudo -n env DEBIAN_FRONTEND=noninteractive apt-get install x"
        );
        assert!(env.is_empty());
        let (command, env) = with_rights(vec!["apt-get".into()], Rights::Root);
        assert_eq!(command, vec!["apt-get".to_string()]);
        assert_eq!(env.len(), 1);
    }

    #[test]
    fn brew_needs_no_root() {
        assert_eq!(
            PackageManager::Brew.user_command("llvm", true),
            "brew install llvm"
        );
        assert!(
            PackageManager::Dnf
                .user_command("lldb", false)
                .contains("dnf install -y lldb")
        );
    }
}

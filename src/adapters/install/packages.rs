//! The package managers `setup` installs adapters with, each OS its own: apt and dnf on Linux,
//! Homebrew on macOS, winget, Scoop and Chocolatey on Windows; what each calls the software; and
//! the rights they run with. apt and dnf need root (or passwordless sudo) and Chocolatey an
//! elevated shell; without them nothing is run and the error's hint is the exact command for the
//! user to run. The hints `doctor` gives for a missing adapter list the same commands
//! ([`install_hint`]); the OS is a parameter, so each OS's text is tested anywhere.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use super::run_logged;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::platform::Os;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackageManager {
    Apt,
    Dnf,
    Brew,
    Winget,
    Scoop,
    Choco,
}

/// What the adapters need from a package manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Software {
    /// LLVM's lldb-dap.
    Lldb,
    Delve,
    Node,
    /// Python 3 with its `venv` module.
    Python,
    /// Go, whose `go install` builds Delve where no package holds it.
    Go,
    /// A Java Development Kit (with `javac` and the `jdk.jdi` module).
    Jdk,
    /// PHP's command-line interpreter.
    Php,
    /// Xdebug, PHP's debugging extension.
    Xdebug,
    /// Ruby with its bundled debug gem (rdbg).
    Ruby,
}

/// The commands that install `software` on `os`, one per package manager that has it, each with
/// where it applies: `'apt-get install lldb-19' (Debian/Ubuntu), 'dnf install lldb' (Fedora)`.
/// Empty when no manager of that OS has it.
pub fn install_hint(software: Software, os: Os) -> String {
    let managers: &[PackageManager] = match os {
        Os::Linux => &[PackageManager::Apt, PackageManager::Dnf],
        Os::MacOs => &[PackageManager::Brew],
        Os::Windows => &[
            PackageManager::Winget,
            PackageManager::Scoop,
            PackageManager::Choco,
        ],
    };
    managers
        .iter()
        .filter_map(|manager| {
            let package = manager.packages(software).first()?;
            let mut command = vec![manager.tool()];
            command.extend(manager.hint_args());
            command.push(package);
            let place = match manager {
                PackageManager::Apt => " (Debian/Ubuntu)",
                PackageManager::Dnf => " (Fedora)",
                PackageManager::Choco => " (as administrator)",
                _ => "",
            };
            Some(format!("'{}'{place}", command.join(" ")))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a system package manager may be run here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rights {
    Root,
    PasswordlessSudo,
    None,
}

impl Rights {
    /// The rights `manager` may run with here: Chocolatey has no sudo route, only an elevated
    /// shell.
    fn detect(manager: PackageManager) -> Rights {
        if crate::platform::is_superuser() {
            return Rights::Root;
        }
        if manager == PackageManager::Choco {
            return Rights::None;
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
    /// The package manager `setup` uses here: the first of this OS's that is on PATH.
    pub(super) fn detect() -> Option<PackageManager> {
        PackageManager::detect_on(Os::CURRENT, |tool| which::which(tool).is_ok())
    }

    /// The first of `os`'s package managers that `has` finds, in the order they are preferred:
    /// apt-get, dnf, then Homebrew (on Linux too); Homebrew on macOS; winget (part of Windows
    /// 10 and 11), Scoop (runs as the user), then Chocolatey (needs an elevated shell).
    fn detect_on(os: Os, has: impl Fn(&str) -> bool) -> Option<PackageManager> {
        PackageManager::of(os)
            .iter()
            .copied()
            .find(|manager| has(manager.tool()))
    }

    /// The package managers of `os`, in the order they are preferred.
    pub(super) fn of(os: Os) -> &'static [PackageManager] {
        match os {
            Os::Linux => &[
                PackageManager::Apt,
                PackageManager::Dnf,
                PackageManager::Brew,
            ],
            Os::MacOs => &[PackageManager::Brew],
            Os::Windows => &[
                PackageManager::Winget,
                PackageManager::Scoop,
                PackageManager::Choco,
            ],
        }
    }

    /// The names of `os`'s package managers, for "no package manager this knows (…)".
    pub(super) fn names(os: Os) -> String {
        let names: Vec<&str> = PackageManager::of(os).iter().map(|m| m.tool()).collect();
        names.join(", ")
    }

    /// The packages that hold `software`, best first; empty when this manager has none (Delve
    /// on Windows, which `go install` builds).
    pub(super) fn packages(self, software: Software) -> &'static [&'static str] {
        use PackageManager::*;
        use Software::*;
        match (self, software) {
            (Apt, Lldb) => &["lldb-19", "lldb"],
            (Dnf, Lldb) => &["lldb"],
            (Brew | Scoop | Choco, Lldb) => &["llvm"],
            (Winget, Lldb) => &["LLVM.LLVM"],
            (Apt | Dnf | Brew, Delve) => &["delve"],
            (Winget | Scoop | Choco, Delve) => &[],
            (Apt | Dnf, Node) => &["nodejs"],
            (Brew, Node) => &["node"],
            (Winget, Node) => &["OpenJS.NodeJS.LTS"],
            (Scoop | Choco, Node) => &["nodejs-lts"],
            (Apt, Python) => &["python3-venv"],
            (Dnf, Python) => &["python3"],
            (Brew | Scoop | Choco, Python) => &["python"],
            (Winget, Python) => &["Python.Python.3.12"],
            (Apt, Go) => &["golang-go"],
            (Dnf | Choco, Go) => &["golang"],
            (Brew | Scoop, Go) => &["go"],
            (Winget, Go) => &["GoLang.Go"],
            (Apt, Jdk) => &["openjdk-17-jdk-headless"],
            (Dnf, Jdk) => &["java-17-openjdk-devel"],
            (Brew, Jdk) => &["openjdk@17"],
            (Winget, Jdk) => &["EclipseAdoptium.Temurin.17.JDK"],
            // Scoop's JDKs are in its `java` bucket, which must be added first.
            (Scoop, Jdk) => &[],
            (Choco, Jdk) => &["temurin17"],
            (Apt, Php) => &["php-cli"],
            (Dnf, Php) => &["php-cli"],
            (Brew | Scoop | Choco, Php) => &["php"],
            (Winget, Php) => &[],
            (Apt, Xdebug) => &["php-xdebug"],
            (Dnf, Xdebug) => &["php-pecl-xdebug3", "php-pecl-xdebug"],
            // Homebrew's and Windows' PHP take Xdebug from PECL (`pecl install xdebug`).
            (Brew | Winget | Scoop | Choco, Xdebug) => &[],
            (Apt | Brew | Scoop | Choco, Ruby) => &["ruby"],
            // Fedora packs the bundled gems apart.
            (Dnf, Ruby) => &["rubygem-debug"],
            (Winget, Ruby) => &["RubyInstallerTeam.RubyWithDevKit.3.2"],
        }
    }

    fn tool(self) -> &'static str {
        match self {
            PackageManager::Apt => "apt-get",
            PackageManager::Dnf => "dnf",
            PackageManager::Brew => "brew",
            PackageManager::Winget => "winget",
            PackageManager::Scoop => "scoop",
            PackageManager::Choco => "choco",
        }
    }

    /// apt and dnf need root; Chocolatey an elevated shell. Homebrew, winget and Scoop run as
    /// the user (winget asks for elevation itself when an installer needs it).
    fn needs_rights(self) -> bool {
        matches!(
            self,
            PackageManager::Apt | PackageManager::Dnf | PackageManager::Choco
        )
    }

    /// The install subcommand and its flags, as a person types it.
    fn hint_args(self) -> &'static [&'static str] {
        match self {
            PackageManager::Apt | PackageManager::Dnf | PackageManager::Brew => &["install"],
            PackageManager::Winget => &["install", "-e", "--id"],
            PackageManager::Scoop => &["install"],
            PackageManager::Choco => &["install", "-y"],
        }
    }

    /// The install command as `setup` runs it: nothing may stop to ask.
    fn install_args(self, package: &str) -> Vec<String> {
        let args: &[&str] = match self {
            PackageManager::Apt | PackageManager::Dnf => &["install", "-y"],
            PackageManager::Winget => &[
                "install",
                "--accept-package-agreements",
                "--accept-source-agreements",
                "-e",
                "--id",
            ],
            other => other.hint_args(),
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
        let rights = if self.needs_rights() {
            Rights::detect(self)
        } else {
            Rights::None
        };
        if self.needs_rights() && rights == Rights::None {
            return Err(self.needs_rights_error(what, &self.user_command(first, needs_update)));
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
        self.user_command_with(package, with_update, which::which("sudo").is_ok())
    }

    /// [`Self::user_command`], told whether `sudo` is there.
    fn user_command_with(self, package: &str, with_update: bool, has_sudo: bool) -> String {
        let install = self.install_args(package).join(" ");
        if self == PackageManager::Choco {
            return format!("{install} (in an administrator shell)");
        }
        if !self.needs_rights() {
            return install;
        }
        let (sudo, suffix) = if has_sudo {
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

impl PackageManager {
    fn needs_rights_error(self, what: &str, command: &str) -> ErrorBody {
        let why = if self == PackageManager::Choco {
            "installing it with Chocolatey needs an administrator shell (this one is not elevated)"
        } else {
            "installing it needs root (this user is not root and has no passwordless sudo)"
        };
        ErrorBody::new(
            ErrorCode::AdapterNotFound,
            format!("{what} is not installed, and {why}"),
            format!("run: {command}"),
        )
    }
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
    fn each_os_has_its_package_managers_in_order() {
        let only = |tools: &'static [&'static str]| move |tool: &str| tools.contains(&tool);
        use PackageManager::*;
        assert_eq!(
            PackageManager::detect_on(Os::Linux, only(&["dnf", "brew"])),
            Some(Dnf)
        );
        assert_eq!(
            PackageManager::detect_on(Os::MacOs, only(&["apt-get", "brew"])),
            Some(Brew)
        );
        assert_eq!(
            PackageManager::detect_on(Os::MacOs, only(&["apt-get"])),
            None
        );
        assert_eq!(
            PackageManager::detect_on(Os::Windows, only(&["choco", "scoop", "brew"])),
            Some(Scoop)
        );
        assert_eq!(
            PackageManager::detect_on(Os::Windows, only(&["winget", "choco"])),
            Some(Winget)
        );
        assert_eq!(PackageManager::names(Os::Windows), "winget, scoop, choco");
    }

    #[test]
    fn windows_commands_say_how_and_where_they_run() {
        assert_eq!(
            PackageManager::Winget.install_args("LLVM.LLVM").join(" "),
            "winget install --accept-package-agreements --accept-source-agreements -e --id LLVM.LLVM"
        );
        assert_eq!(
            PackageManager::Scoop.user_command_with("llvm", true, true),
            "scoop install llvm"
        );
        assert_eq!(
            PackageManager::Choco.user_command_with("llvm", false, true),
            "choco install -y llvm (in an administrator shell)"
        );
        let err = PackageManager::Choco.needs_rights_error("lldb-dap", "choco install -y llvm");
        assert!(
            err.message.contains("administrator shell"),
            "{}",
            err.message
        );
        assert!(!PackageManager::Winget.needs_rights() && !PackageManager::Scoop.needs_rights());
        assert!(PackageManager::Winget.packages(Software::Delve).is_empty());
    }

    #[test]
    fn install_hints_name_each_oss_own_commands() {
        assert_eq!(
            install_hint(Software::Lldb, Os::Linux),
            "'apt-get install lldb-19' (Debian/Ubuntu), 'dnf install lldb' (Fedora)"
        );
        assert_eq!(
            install_hint(Software::Lldb, Os::MacOs),
            "'brew install llvm'"
        );
        assert_eq!(
            install_hint(Software::Lldb, Os::Windows),
            "'winget install -e --id LLVM.LLVM', 'scoop install llvm', 'choco install -y llvm' (as administrator)"
        );
        assert_eq!(install_hint(Software::Delve, Os::Windows), "");
        assert_eq!(
            install_hint(Software::Node, Os::Windows),
            "'winget install -e --id OpenJS.NodeJS.LTS', 'scoop install nodejs-lts', 'choco install -y nodejs-lts' (as administrator)"
        );
        assert_eq!(
            install_hint(Software::Python, Os::MacOs),
            "'brew install python'"
        );
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
        assert_eq!(
            PackageManager::Apt.user_command_with("lldb-19", true, true),
            "sudo apt-get update && sudo apt-get install -y lldb-19"
        );
    }
}

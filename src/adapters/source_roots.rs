//! An interpreter's own search path as a breakpoint's relative file name is looked up in:
//! asked of the interpreter that will run the program, with the program's environment and
//! folder, by a short script that prints the runtime's own library folders, an empty line, then
//! the folders the program's libraries are loaded from (Python's `sys.path`, Ruby's load path
//! and installed gems, PHP's `include_path`).

use std::path::{Path, PathBuf};

use super::SourceRoots;
use crate::ipc::protocol::LaunchSpec;

/// What `interpreter ARGS` prints, as roots; none when it fails.
pub fn printed_by(interpreter: &Path, args: &[&str], spec: &LaunchSpec) -> SourceRoots {
    let output = std::process::Command::new(interpreter)
        .args(args)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&spec.cwd)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    match output {
        Ok(output) if output.status.success() => listed(&String::from_utf8_lossy(&output.stdout)),
        _ => SourceRoots::default(),
    }
}

/// The runtime's folders, an empty line, then the libraries' folders, each once.
pub fn listed(printed: &str) -> SourceRoots {
    let mut parts = printed.splitn(2, "\n\n");
    let folders = |text: Option<&str>| -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = Vec::new();
        for line in text.unwrap_or("").lines().filter(|line| !line.is_empty()) {
            let path = PathBuf::from(line);
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
        paths
    };
    let runtime = folders(parts.next());
    let libraries = folders(parts.next());
    SourceRoots {
        program: Vec::new(),
        libraries,
        runtime,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_comes_before_the_blank_line_and_the_libraries_after_it() {
        let roots = listed(
            "/usr/lib/python3.11\n/usr/lib/python3.11\n\n/usr/lib/python311.zip\n\
             /usr/lib/python3.11\n/deps\n",
        );
        assert_eq!(roots.runtime, vec![PathBuf::from("/usr/lib/python3.11")]);
        assert_eq!(
            roots.libraries,
            vec![
                PathBuf::from("/usr/lib/python311.zip"),
                PathBuf::from("/usr/lib/python3.11"),
                PathBuf::from("/deps")
            ]
        );
        assert!(roots.program.is_empty());
    }
}

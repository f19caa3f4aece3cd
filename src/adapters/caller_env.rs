//! The environment an adapter is looked for in: the caller's, which a launch carries, rather than
//! the daemon's, which is that of whichever command started the daemon. A virtual environment
//! activated after the daemon started must count: a warm debugpy adapter served the next `start`
//! with the Python found before, and the program ran outside the venv its user had activated.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::ipc::protocol::LaunchSpec;

/// Where to read variables and search `PATH`: a launch's environment and folder, or this
/// process's.
#[derive(Clone, Copy)]
pub struct CallerEnv<'a> {
    vars: Option<&'a [(String, String)]>,
    cwd: Option<&'a Path>,
}

impl<'a> CallerEnv<'a> {
    /// This process's own environment (a command run by the user, or no launch to go by).
    pub fn this_process() -> CallerEnv<'static> {
        CallerEnv {
            vars: None,
            cwd: None,
        }
    }

    /// The environment the caller of a launch had (the program gets it too).
    pub fn of_launch(spec: &'a LaunchSpec) -> CallerEnv<'a> {
        CallerEnv::with(&spec.env, &spec.cwd)
    }

    /// Variables `vars` and the folder `cwd` (relative `PATH` entries are found from it).
    pub fn with(vars: &'a [(String, String)], cwd: &'a Path) -> CallerEnv<'a> {
        CallerEnv {
            vars: Some(vars),
            cwd: Some(cwd),
        }
    }

    /// The variable `key`, as the caller had it (unset there: `None`).
    pub fn var(&self, key: &str) -> Option<OsString> {
        match self.vars {
            Some(vars) => vars
                .iter()
                .rev()
                .find(|(k, _)| k == key)
                .map(|(_, v)| OsString::from(v)),
            None => std::env::var_os(key),
        }
    }

    /// `program` as the caller's shell would find it on its `PATH` (this process's `PATH` when
    /// the caller's environment has none).
    pub fn which(&self, program: &str) -> Option<PathBuf> {
        let (Some(path), Some(cwd)) = (self.var("PATH"), self.cwd) else {
            return which::which(program).ok();
        };
        which::which_in(program, Some(path), cwd).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launchs_variables_and_path_are_the_callers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).expect("bin");
        let tool = bin.join("only-here-tool");
        std::fs::write(&tool, "#!/bin/sh\n").expect("write");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let vars = vec![
            ("VIRTUAL_ENV".to_string(), "/somewhere/venv".to_string()),
            ("PATH".to_string(), bin.display().to_string()),
        ];
        let caller = CallerEnv::with(&vars, dir.path());
        assert_eq!(caller.var("VIRTUAL_ENV"), Some("/somewhere/venv".into()));
        assert_eq!(caller.var("NOT_SET_ANYWHERE_HERE"), None);
        #[cfg(unix)]
        assert_eq!(caller.which("only-here-tool"), Some(tool));
        assert_eq!(CallerEnv::this_process().which("only-here-tool"), None);
    }
}

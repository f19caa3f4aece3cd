//! The command both Ruby runners (minitest, RSpec) debug a test with. A project with a `Gemfile`
//! runs its tests as its users do, through `bundle exec`, so that the gems loaded are the
//! Gemfile's; where `bundle` is on PATH. `bundle exec` then runs the adapter's Ruby again, as a
//! program of its own (not loaded into Bundler's process, where the debugger is not opened: see
//! the Ruby adapter's extensions).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{Project, TestPlan, base_spec};
use crate::common::error::ErrorBody;

/// What runs the test's command in the project's Ruby: nothing, or `-S bundle exec RUBY` when
/// the project has a Gemfile and Bundler is installed; `interpreter` is the adapter's Ruby.
pub(super) fn leading_args(root: &Path, interpreter: &Path) -> Vec<OsString> {
    let bundled = root.join("Gemfile").is_file() && which::which("bundle").is_ok();
    if !bundled {
        return Vec::new();
    }
    vec![
        "-S".into(),
        "bundle".into(),
        "exec".into(),
        interpreter.as_os_str().to_os_string(),
    ]
}

/// The plan that runs `args` (the runner's command line, the project's runner arguments still to
/// come) in `interpreter` for `test`, stopping on failure at `failure_class`, the exception the
/// runner raises for a failed assertion.
pub(super) fn plan(
    project: &Project<'_>,
    interpreter: PathBuf,
    mut args: Vec<String>,
    runner: &'static str,
    test: String,
    failure_class: &str,
) -> Result<TestPlan, ErrorBody> {
    args.extend(project.runner_args.iter().cloned());
    let mut spec = base_spec(project, interpreter, args)?;
    if let Some(launch) = &mut spec.test {
        launch.failure_exceptions = vec![failure_class.to_string()];
    }
    Ok(TestPlan {
        runner,
        test,
        spec,
        failure_functions: &[],
        root: project.root.to_path_buf(),
    })
}

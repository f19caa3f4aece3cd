//! Bundler: a Ruby project with a `Gemfile` runs its tests as its users do, through `bundle
//! exec`, so that the gems loaded are the Gemfile's; where `bundle` is on PATH. `bundle exec`
//! then runs the adapter's Ruby again, as a program of its own (not loaded into Bundler's
//! process, where the debugger is not opened: see the Ruby adapter's extensions).

use std::ffi::OsString;
use std::path::Path;

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

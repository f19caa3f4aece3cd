//! C and C++: a test executable named by its path (`debugger test ./build/tests -- FILTER`),
//! run with the runner arguments as its own. Its failure is the crash a failed `assert` makes
//! (`abort`'s signal), or Google Test's trap in its break-on-failure mode, where the adapter
//! stops by itself.

use super::{Project, TestPlan, base_spec, in_project, set_env};
use crate::common::error::ErrorBody;

pub(super) const RUNNER: &str = "test executable";

/// Google Test's switch for its break-on-failure mode: a trap (SIGTRAP) at the failed assertion,
/// after its message, rather than a failure recorded and run past; other programs ignore it.
const GTEST_BREAK_ON_FAILURE: &str = "GTEST_BREAK_ON_FAILURE";

/// What a C or C++ test's environment gets with `--break-on-failure`.
pub(super) fn break_on_failure_env(env: &mut Vec<(String, String)>) {
    set_env(env, GTEST_BREAK_ON_FAILURE, "1".to_string());
}

pub(super) fn plan(project: &Project<'_>, break_on_failure: bool) -> Result<TestPlan, ErrorBody> {
    let Some(selector) = project.selector else {
        return Err(ErrorBody::usage(
            "name the test executable",
            "e.g. 'debugger test ./build/tests -- FILTER'",
        ));
    };
    let program = in_project(project.root, selector.as_ref());
    let mut spec = base_spec(project, program, project.runner_args.to_vec())?;
    if break_on_failure {
        break_on_failure_env(&mut spec.env);
    }
    let test = match project.runner_args.first() {
        Some(filter) => format!("{selector} {filter}"),
        None => selector.to_string(),
    };
    Ok(TestPlan {
        runner: RUNNER,
        test,
        spec,
        failure_functions: &[],
        root: project.root.to_path_buf(),
    })
}

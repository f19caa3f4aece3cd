//! C and C++: a test executable named by its path (`debugger test ./build/tests -- FILTER`),
//! run with the runner arguments as its own. Its failure is the crash a failed `assert` makes
//! (`abort`'s signal), where the adapter stops by itself.

use super::{Project, TestPlan, base_spec, in_project};
use crate::common::error::ErrorBody;

const RUNNER: &str = "test executable";

pub(super) fn plan(project: &Project<'_>) -> Result<TestPlan, ErrorBody> {
    let Some(selector) = project.selector else {
        return Err(ErrorBody::usage(
            "name the test executable",
            "e.g. 'debugger test ./build/tests -- FILTER'",
        ));
    };
    let program = in_project(project.root, selector.as_ref());
    let spec = base_spec(project, program, project.runner_args.to_vec())?;
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

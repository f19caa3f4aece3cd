//! Which exceptions stop, beyond what V8's own states (`uncaught`, `all`) can say.
//!
//! - An ES module's top-level exception is caught by Node's module loader, which awaits the
//!   module's evaluation and then ends the process with the error (nodejs/node#50430), so V8
//!   calls it caught and never pauses on it as uncaught. For an ES module program asked to stop
//!   on uncaught exceptions, V8 pauses on caught ones too, and a caught one stops when nothing
//!   but the loader catches it: the frames from the throw down are the program's own, then the
//!   loader's (`node:internal/modules/esm/...`), and no frame of the program's is inside a `try`
//!   block. The rest are let go at once.
//! - A test run that stops on failures pauses on every exception (the runner catches a failed
//!   assertion). One is kept only when it leaves the program's code for the runner's, as
//!   debugpy's `userUnhandled`: the frames above the first of the runner's (Node's test runner,
//!   a runner package's files, the module loader's top) hold one of the program's own, so the
//!   runner's own exceptions (vitest's start-up throws and catches many) are let go, and none
//!   of those frames is at a place inside a `try … catch` of its function (`try_blocks`), so
//!   an exception the program or a library catches itself (get-intrinsic's feature test when
//!   it loads) is let go too, as is one a runner's own `throws` assertion catches. V8 does not say who will catch it; the source text does.
//!   An async function's frames after an `await` no longer have its caller below them, so a
//!   throw there caught by an awaiting caller's `try` still stops, and so does a promise
//!   rejected and handled by a `.catch` (V8 pauses on it as `promiseRejection`, not read here).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::super::cdp::Cdp;
use super::super::scripts::Scripts;
use super::super::try_blocks::TryBlocks;
use super::frames::frame_url;
use super::script_texts::ScriptTexts;

/// Packages whose files run the tests: an exception that reaches their frames is the test's
/// failure. A scoped name ends with `/`: any package of the scope.
const RUNNER_PACKAGES: &[&str] = &[
    "tape",
    "mocha",
    "vitest",
    "vite-node",
    "@vitest/runner",
    "jest-circus",
    "jest-jasmine2",
    "jest-runner",
    "@jest/",
    "jasmine",
    "jasmine-core",
    "ava",
    "tap",
    "@tapjs/",
    "uvu",
];

/// A runner's assertions that a function throws, by the method's name: they catch it.
const EXPECTING_A_THROW: &[&str] = &["throws", "rejects", "toThrow", "toThrowError"];

/// Node's own modules that run the tests or the program's top level.
const RUNNER_MODULES: &[&str] = &[
    "node:internal/test_runner/",
    "node:internal/modules/esm/",
    "node:internal/modules/run_main",
];

/// What the user's exception filters ask for, beyond V8's state.
#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
pub enum CaughtRule {
    /// V8's state says it all.
    #[default]
    AsV8Says,
    /// Uncaught exceptions in an ES module program: V8 pauses on all, see the module docs.
    LoaderCaught,
    /// A test's failure: exceptions that leave the program's code for the runner's.
    LeavingForRunner,
}

/// V8's pause-on-exceptions state for DAP `filters`, and the rule applied to its pauses:
/// `assertions` when a test's failures stop, `es_module_main` for the launched process of an ES
/// module program.
pub fn exception_state(
    filters: &[&str],
    assertions: bool,
    es_module_main: bool,
) -> (&'static str, CaughtRule) {
    if filters.contains(&"all") {
        let rule = if assertions {
            CaughtRule::LeavingForRunner
        } else {
            CaughtRule::AsV8Says
        };
        ("all", rule)
    } else if filters.contains(&"uncaught") {
        if es_module_main {
            ("all", CaughtRule::LoaderCaught)
        } else {
            ("uncaught", CaughtRule::AsV8Says)
        }
    } else {
        ("none", CaughtRule::AsV8Says)
    }
}

/// Which exceptions of one Node process stop: the rule, and the `try` blocks of its scripts,
/// scanned at the first exception that asks.
#[derive(Default)]
pub struct CaughtExceptions {
    pub rule: CaughtRule,
    try_blocks: HashMap<String, Arc<TryBlocks>>,
}

/// What a frame's place is read against: the process's scripts and their text.
pub struct Sources<'a> {
    pub cdp: Option<&'a Cdp>,
    pub scripts: &'a Scripts,
    pub texts: &'a mut ScriptTexts,
}

impl CaughtExceptions {
    /// Whether a pause on an exception is one the user did not ask for.
    pub async fn skips(&mut self, sources: &mut Sources<'_>, params: &Value) -> bool {
        if params["reason"] != "exception" || params["data"]["uncaught"] == true {
            return false;
        }
        let frames = params["callFrames"].as_array().cloned().unwrap_or_default();
        match self.rule {
            CaughtRule::AsV8Says => false,
            CaughtRule::LeavingForRunner => !self.leaves_for_the_runner(sources, &frames).await,
            CaughtRule::LoaderCaught => !self.only_the_loader_catches(sources, &frames).await,
        }
    }

    async fn only_the_loader_catches(
        &mut self,
        sources: &mut Sources<'_>,
        frames: &[Value],
    ) -> bool {
        let own = frames
            .iter()
            .take_while(|f| is_programs(sources.scripts, f))
            .count();
        let loader = frames.get(own).is_some_and(|f| {
            frame_url(sources.scripts, f).starts_with("node:internal/modules/esm/")
        });
        own > 0 && loader && !self.caught_in_any(sources, &frames[..own]).await
    }

    /// Whether an exception thrown with `frames` on the stack (the top first) leaves the
    /// program's code for the test runner's uncaught (see the module docs).
    async fn leaves_for_the_runner(&mut self, sources: &mut Sources<'_>, frames: &[Value]) -> bool {
        let runner = frames
            .iter()
            .position(|f| is_runners(&frame_url(sources.scripts, f)))
            .unwrap_or(frames.len());
        let above = &frames[..runner];
        // A runner's assertion that the function throws (tape's `t.throws`) catches it on
        // purpose: that frame is the test's own code in this.
        let checked = match frames.get(runner) {
            Some(frame) if expects_a_throw(frame) => &frames[..=runner],
            _ => above,
        };
        above.iter().any(|f| is_programs(sources.scripts, f))
            && !self.caught_in_any(sources, checked).await
    }

    /// Whether one of `frames` is at a place inside a `try … catch` of its function.
    async fn caught_in_any(&mut self, sources: &mut Sources<'_>, frames: &[Value]) -> bool {
        for frame in frames {
            let location = &frame["location"];
            let script = location["scriptId"].as_str().unwrap_or_default();
            let Some(blocks) = self.try_blocks(sources, script).await else {
                continue;
            };
            let line = location["lineNumber"].as_u64().unwrap_or(0) as usize;
            let column = location["columnNumber"].as_u64().unwrap_or(0) as usize;
            if blocks.catches(line, column) {
                return true;
            }
        }
        false
    }

    /// A script's `try` blocks, scanned once per script.
    async fn try_blocks(
        &mut self,
        sources: &mut Sources<'_>,
        script: &str,
    ) -> Option<Arc<TryBlocks>> {
        if let Some(blocks) = self.try_blocks.get(script) {
            return Some(blocks.clone());
        }
        let source = sources.texts.get(sources.cdp, script).await?;
        let blocks = Arc::new(TryBlocks::scan(&source));
        self.try_blocks.insert(script.to_string(), blocks.clone());
        Some(blocks)
    }
}

/// Whether a frame is in the program's own code: not Node's, not an installed package's.
fn is_programs(scripts: &Scripts, frame: &Value) -> bool {
    let url = frame_url(scripts, frame);
    !url.is_empty()
        && !url.starts_with("node:")
        && !url.contains("/node_modules/")
        && !url.contains("\\node_modules\\")
}

/// Whether a runner's frame is one of its assertions that a function throws.
fn expects_a_throw(frame: &Value) -> bool {
    let name = frame["functionName"].as_str().unwrap_or_default();
    let method = name.rsplit('.').next().unwrap_or_default();
    EXPECTING_A_THROW.contains(&method)
}

/// Whether a script at `url` is the test runner's (see `RUNNER_PACKAGES`, `RUNNER_MODULES`).
fn is_runners(url: &str) -> bool {
    if RUNNER_MODULES.iter().any(|m| url.starts_with(m)) {
        return true;
    }
    let url = url.replace('\\', "/");
    let Some((_, package)) = url.rsplit_once("/node_modules/") else {
        return false;
    };
    RUNNER_PACKAGES.iter().any(|name| {
        package
            .strip_prefix(name)
            .is_some_and(|rest| name.ends_with('/') || rest.starts_with('/'))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runner_is_told_by_its_package_or_node_module() {
        assert!(is_runners("file:///p/node_modules/tape/lib/test.js"));
        assert!(is_runners(
            "file:///p/node_modules/@vitest/runner/dist/index.js"
        ));
        assert!(!is_runners(
            "file:///p/node_modules/@vitest/expect/dist/index.js"
        ));
        assert!(is_runners("C:\\p\\node_modules\\mocha\\lib\\runnable.js"));
        assert!(is_runners("node:internal/test_runner/test"));
        assert!(!is_runners("file:///p/node_modules/tapestry/index.js"));
        assert!(!is_runners("file:///p/node_modules/get-intrinsic/index.js"));
        assert!(!is_runners("node:internal/modules/cjs/loader"));
        assert!(!is_runners("file:///p/test/tape.js"));
    }
}

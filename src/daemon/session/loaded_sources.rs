//! The files the program loaded, as its runtime told them (`adapters::LoadedSources`), and the
//! breakpoints the end of a run names because their file was never among them: a breakpoint
//! bound in a checkout's `src/pkg/mod.py` while the program imported the installed copy looked
//! set, and the run ended with nothing to say why nothing stopped.
//!
//! Apart from the report because it gathers through the whole run (events as they come, or a
//! file the program writes as it exits), and the report only asks it at the end.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Origin, Session, Shared};
use crate::adapters::{DebugAdapter, LoadedSources};
use crate::common::location::Location;
use crate::common::scratch::ScratchFile;
use crate::dap::DapClient;
use crate::dap::events::LoadedSourceEventBody;
use crate::dap::requests::{Evaluate, EvaluateArguments};
use crate::ipc::protocol::UnloadedBreakpoint;

/// How long the program may take to agree to write its files at its exit.
const ASK_TIMEOUT: Duration = Duration::from_secs(5);

/// What the runtime told of the files the program loaded.
#[derive(Default)]
pub(super) struct Loaded {
    /// The files `loadedSource` events named.
    told: Vec<PathBuf>,
    /// The file the program writes its list to as it exits (`LoadedSources::WrittenAtExit`).
    written: Option<ScratchFile>,
    /// Where a relative path the runtime gives is relative to: the launch's folder.
    cwd: Option<PathBuf>,
    /// The real paths of all the files told, once the program has ended; `None` inside when it
    /// told none (a program killed before it could).
    settled: Option<Option<HashSet<PathBuf>>>,
}

impl Loaded {
    pub(super) fn new(origin: &Origin) -> Loaded {
        Loaded {
            cwd: match origin {
                Origin::Launch(spec) => Some(spec.cwd.clone()),
                Origin::Attach(_) | Origin::Core(_) => None,
            },
            ..Loaded::default()
        }
    }

    /// The real paths of every file told, read once (the program has ended); `None` when it told
    /// none.
    fn settled(&mut self) -> Option<&HashSet<PathBuf>> {
        if self.settled.is_none() {
            let mut paths = std::mem::take(&mut self.told);
            if let Some(file) = &self.written {
                let text = std::fs::read_to_string(file.path()).unwrap_or_default();
                paths.extend(text.lines().filter(|l| !l.is_empty()).map(PathBuf::from));
            }
            let cwd = self.cwd.as_deref();
            let real: HashSet<PathBuf> = paths
                .iter()
                .map(|path| {
                    real_path(&match cwd {
                        Some(cwd) if path.is_relative() => cwd.join(path),
                        _ => path.clone(),
                    })
                })
                .collect();
            self.settled = Some((!real.is_empty()).then_some(real));
        }
        self.settled.as_ref().and_then(Option::as_ref)
    }
}

/// A path with its links and `..` resolved, or as it is when it cannot be (it is gone).
fn real_path(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A `loadedSource` event: its file is one the program loaded. Read only from an adapter that
/// tells them all this way: another's few (pydevd's for a source it made up) would leave the
/// rest looking unloaded.
pub(super) fn on_loaded_source(shared: &Shared, body: LoadedSourceEventBody) {
    if !matches!(
        shared.link.adapter().profile().loaded_sources,
        LoadedSources::Events
    ) {
        return;
    }
    let path = body.source.and_then(|source| source.path);
    if let (Some("new" | "changed"), Some(path)) = (body.reason.as_deref(), path) {
        shared.loaded().told.push(PathBuf::from(path));
    }
}

/// For an adapter whose program writes its loaded files as it exits: has the program about to
/// run (after `initialized`, before `configurationDone`) do so, into a scratch file of ours. A
/// failure costs only the note at the end, so it is logged.
pub(super) async fn ask_at_exit(adapter: &dyn DebugAdapter, dap: &DapClient, shared: &Shared) {
    let LoadedSources::WrittenAtExit(command) = adapter.profile().loaded_sources else {
        return;
    };
    let file = match ScratchFile::create("loaded-files") {
        Ok(file) => file,
        Err(e) => {
            tracing::warn!("no file for the program's loaded files: {}", e.message);
            return;
        }
    };
    let arguments = EvaluateArguments::repl(command(file.path()), None);
    match tokio::time::timeout(ASK_TIMEOUT, dap.request_typed::<Evaluate>(&arguments)).await {
        Ok(Ok(_)) => shared.loaded().written = Some(file),
        Ok(Err(e)) => tracing::warn!("the program will not tell its loaded files: {e}"),
        Err(_) => tracing::warn!("the program did not answer the ask for its loaded files"),
    }
}

impl Session {
    /// The enabled line breakpoints this run never hit whose file the program never loaded,
    /// each with the loaded file of its name, if any; none when the runtime told no files.
    pub(super) fn unloaded_breakpoints(&self) -> Vec<UnloadedBreakpoint> {
        let candidates: Vec<(u32, PathBuf, u32)> = self
            .shared
            .breakpoints
            .registry()
            .entries()
            .iter()
            .filter(|e| e.enabled && !e.hit)
            .filter_map(|e| match &e.spec.location {
                Location::Line { file, line } => {
                    let bound = e.adapter_file.as_ref().map(PathBuf::from);
                    let file = Some(file.clone())
                        .filter(|f| f.is_absolute())
                        .or(bound.filter(|f| f.is_absolute()))?;
                    Some((e.id, file, *line))
                }
                Location::Function { .. } | Location::Data { .. } => None,
            })
            .collect();
        if candidates.is_empty() {
            return Vec::new();
        }
        let mut loaded = self.shared.loaded();
        let Some(loaded) = loaded.settled() else {
            return Vec::new();
        };
        candidates
            .into_iter()
            .filter_map(|(id, file, line)| {
                let real = real_path(&file);
                if loaded.contains(&real) {
                    return None;
                }
                Some(UnloadedBreakpoint {
                    id,
                    location: format!("{}:{line}", file.display()),
                    loaded_namesake: namesake(&file, &real, loaded)
                        .map(|p| p.display().to_string()),
                })
            })
            .collect()
    }
}

/// The loaded file named as the breakpoint's file is (by the name it was given or its real
/// one), the one whose path ends most like the breakpoint's (`dateutil/relativedelta.py` over
/// another `relativedelta.py`); the first in order among equals.
fn namesake<'a>(file: &Path, real: &Path, loaded: &'a HashSet<PathBuf>) -> Option<&'a PathBuf> {
    let names = [file.file_name(), real.file_name()];
    let mut same_name: Vec<&PathBuf> = loaded
        .iter()
        .filter(|path| path.file_name().is_some_and(|n| names.contains(&Some(n))))
        .collect();
    same_name.sort();
    let shared_tail = |path: &Path| {
        path.components()
            .rev()
            .zip(real.components().rev())
            .take_while(|(a, b)| a == b)
            .count()
    };
    same_name
        .into_iter()
        .rev()
        .max_by_key(|path| shared_tail(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_namesake_is_the_loaded_file_whose_path_ends_most_like_the_breakpoints() {
        let loaded: HashSet<PathBuf> = [
            "/venv/site-packages/dateutil/relativedelta.py",
            "/other/relativedelta.py",
            "/venv/site-packages/dateutil/parser.py",
        ]
        .into_iter()
        .map(PathBuf::from)
        .collect();
        let file = Path::new("/work/src/dateutil/relativedelta.py");
        assert_eq!(
            namesake(file, file, &loaded),
            Some(&PathBuf::from(
                "/venv/site-packages/dateutil/relativedelta.py"
            ))
        );
        let alone = Path::new("/work/src/dateutil/easter.py");
        assert_eq!(namesake(alone, alone, &loaded), None);
    }

    #[test]
    fn among_equals_the_first_in_order_is_the_namesake() {
        let loaded: HashSet<PathBuf> = ["/b/mod.py", "/a/mod.py"]
            .into_iter()
            .map(PathBuf::from)
            .collect();
        let file = Path::new("/c/mod.py");
        assert_eq!(
            namesake(file, file, &loaded),
            Some(&PathBuf::from("/a/mod.py"))
        );
    }

    #[test]
    fn a_run_that_told_no_files_says_nothing() {
        let mut loaded = Loaded::default();
        assert!(loaded.settled().is_none());
        let mut told = Loaded {
            told: vec![PathBuf::from("rel/x.py")],
            cwd: Some(PathBuf::from("/nowhere")),
            ..Loaded::default()
        };
        let settled = told.settled().expect("told one");
        assert!(settled.contains(Path::new("/nowhere/rel/x.py")));
    }
}

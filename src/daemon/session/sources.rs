//! The program's files as the breakpoint resolver sees them (`common::location::resolve`): the
//! folders a relative name is joined to, and the files it is matched against by suffix.
//!
//! What is cheap is known at once (the program's folder and working directory); what costs a
//! process or a request (Python's `sys.path`, Delve's file table) is asked for only when a name
//! is not found in those folders, and kept for the session.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::adapter_link::AdapterLink;
use super::{Origin, Shared, brief_stop};
use crate::adapters::{DebugAdapter, SourceLookup, SourceRoots};
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::location::rank::{self, Choice, Owners};
use crate::common::location::resolve::{self, Resolution};
use crate::common::user_files::{self, Role};
use crate::daemon::breakpoints::PlacementNote;
use crate::dap::requests::{Evaluate, EvaluateArguments};
use crate::dap::{DapClient, DapError};
use crate::ipc::protocol::LaunchSpec;

/// Where a breakpoint's file went, as the session tells the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Placement {
    /// This file (absolute), which holds the line.
    File(PathBuf),
    /// No file of that name is known yet: the name goes to the adapter as typed, with this
    /// note for as long as the adapter has not bound it.
    Unplaced(PlacementNote),
}

/// What the session knows of the program's files.
pub(super) struct ProgramSources {
    /// Rule 2's folders that cost nothing: the program's folder and its working directory.
    near_roots: Vec<PathBuf>,
    /// The launch the adapter's own roots are asked for (none when attached).
    launch: Option<LaunchSpec>,
    lookup: SourceLookup,
    /// The folder whose tree a script program is made of.
    tree_root: Option<PathBuf>,
    /// Asked for once, when first needed.
    adapter_roots: tokio::sync::OnceCell<Arc<SourceRoots>>,
    listed: tokio::sync::Mutex<Option<Arc<Vec<PathBuf>>>>,
    /// The source files under the adapter's roots (`roots_are_trees`), walked once, when first
    /// needed.
    root_trees: tokio::sync::OnceCell<Arc<Vec<PathBuf>>>,
    line_counts: std::sync::Mutex<resolve::LineCounts>,
}

impl ProgramSources {
    pub(super) fn new(adapter: &dyn DebugAdapter, origin: &Origin) -> ProgramSources {
        let launch = match origin {
            Origin::Launch(spec) => Some((**spec).clone()),
            Origin::Attach(_) | Origin::Core(_) => None,
        };
        let program_dir = launch.as_ref().and_then(|spec| {
            if spec.program.is_dir() {
                Some(spec.program.clone())
            } else {
                spec.program.parent().map(Path::to_path_buf)
            }
        });
        // A test's program is its runner (PHPUnit's script, in /usr/bin or vendor/bin): the
        // files the test is made of are the project's, the folder it runs in.
        let tree_root = match &launch {
            Some(spec) if spec.test.is_some() => Some(spec.cwd.clone()),
            _ => program_dir.clone(),
        };
        let mut near_roots: Vec<PathBuf> = program_dir.iter().cloned().collect();
        if let Some(spec) = &launch
            && !near_roots.contains(&spec.cwd)
        {
            near_roots.push(spec.cwd.clone());
        }
        ProgramSources {
            near_roots,
            launch,
            lookup: adapter.profile().source_lookup,
            tree_root,
            adapter_roots: tokio::sync::OnceCell::new(),
            listed: tokio::sync::Mutex::new(None),
            root_trees: tokio::sync::OnceCell::new(),
            line_counts: std::sync::Mutex::default(),
        }
    }

    /// Decides which file `file:line` means. An ambiguous name or a line past the end of every
    /// file of that name is the user's error.
    pub(super) async fn place(
        &self,
        dap: &DapClient,
        shared: &Shared,
        file: &Path,
        line: u32,
    ) -> Result<Placement, ErrorBody> {
        // A FIFO, a device or a directory is refused before the adapter is handed it: an
        // adapter that opens the file to check the line (pdb, debugpy) would wait on a FIFO
        // for good, and so would the line count here.
        if file.is_absolute() {
            user_files::refuse_other_kinds(file, Role::SourceFile)?;
        }
        match self.choose(dap, shared, file, line).await {
            Choice::Found(path) => {
                user_files::refuse_other_kinds(&path, Role::SourceFile)?;
                Ok(Placement::File(path))
            }
            Choice::PastTheEnd(message) => {
                Err(ErrorBody::usage(message, "pick a line within the file"))
            }
            Choice::Ambiguous(candidates) => Err(ErrorBody::new(
                ErrorCode::Usage,
                format!(
                    "{} matches {} files:\n{}",
                    file.display(),
                    candidates.len(),
                    resolve::candidate_lines(&candidates, self.base())
                ),
                match candidates.first() {
                    Some(first) => format!(
                        "give more of the path, e.g. {}:{line}",
                        with_parent_folder(first)
                    ),
                    None => "give more of the path".to_string(),
                },
            )),
            Choice::None => {
                // A folder (`break src:3`) is no file the resolver looks for: say what it is.
                for root in &self.near_roots {
                    user_files::refuse_other_kinds(&root.join(file), Role::SourceFile)?;
                }
                Ok(Placement::Unplaced(PlacementNote {
                    message: self.unknown_message(file),
                    adapter_first: self.lookup.adapter_matches_names,
                    held_back: false,
                }))
            }
        }
    }

    /// The file `file:line` means, looked for from the nearest places out: a path from the
    /// program's folder or working directory, the program's tree, its module root, and then
    /// every file of that name the adapter's roots and listing know, where the program's own
    /// beat its dependencies', which beat the runtime's. A file too short for the line is
    /// passed over; when every one is, that is the answer.
    async fn choose(&self, dap: &DapClient, shared: &Shared, file: &Path, line: u32) -> Choice {
        if file.is_absolute() {
            return match file.is_file() {
                true => self.choose_among(&[file.to_path_buf()], line, &Owners::default()),
                false => Choice::None,
            };
        }
        // A path from the program's folder or working directory names its file exactly.
        if let Resolution::Found(path) = resolve::resolve(file, &self.near_roots, &[]) {
            return self.choose_among(&[path], line, &Owners::default());
        }
        let roots = self.adapter_roots(&shared.link).await;
        let owners = Owners {
            program: self
                .near_roots
                .iter()
                .chain(&roots.program)
                .cloned()
                .collect(),
            runtime: roots.runtime.clone(),
            dependency_folders: self.lookup.dependency_folders,
        };
        // The program's own tree, then its module root: a name they have is the user's file,
        // whatever library of that name is loaded too (`util.py` is also importlib's).
        let tree = self.program_tree().await;
        let own = match resolve::resolve(file, &roots.program, &tree) {
            Resolution::Found(path) => vec![path],
            Resolution::Ambiguous(paths) => paths,
            Resolution::Unknown => Vec::new(),
        };
        let past_the_end = match self.choose_among(&own, line, &owners) {
            Choice::None => None,
            Choice::PastTheEnd(why) => Some(why),
            found_or_ambiguous => return found_or_ambiguous,
        };
        let mut candidates = Vec::new();
        if let Resolution::Found(path) = resolve::resolve(file, &roots.libraries, &[]) {
            candidates.push(path);
        }
        if let Some(listed) = self.listed(dap, shared).await {
            candidates.extend(suffix_matches(file, &listed));
        }
        if self.lookup.roots_are_trees {
            let trees = self.root_trees(&roots.libraries).await;
            candidates.extend(suffix_matches(file, &trees));
        }
        // The program's own file too short for the line is what is said, when nothing else has it.
        match (self.choose_among(&candidates, line, &owners), past_the_end) {
            (Choice::None | Choice::PastTheEnd(_), Some(why)) => Choice::PastTheEnd(why),
            (choice, _) => choice,
        }
    }

    fn choose_among(&self, candidates: &[PathBuf], line: u32, owners: &Owners) -> Choice {
        let mut counts = self.line_counts.lock().unwrap_or_else(|p| p.into_inner());
        rank::choose(candidates, line, owners, &mut counts)
    }

    /// The script files of the program's folder tree (none for a compiled program).
    async fn program_tree(&self) -> Vec<PathBuf> {
        match &self.tree_root {
            Some(root) if !self.lookup.tree_extensions.is_empty() => {
                let root = root.clone();
                let extensions = self.lookup.tree_extensions;
                tokio::task::spawn_blocking(move || resolve::source_tree(&root, extensions))
                    .await
                    .unwrap_or_default()
            }
            _ => Vec::new(),
        }
    }

    /// The source files under each of `roots` (each file once: a root may hold another, as
    /// Python's standard library holds `site-packages`), walked once.
    async fn root_trees(&self, roots: &[PathBuf]) -> Arc<Vec<PathBuf>> {
        let extensions = self.lookup.tree_extensions;
        self.root_trees
            .get_or_init(|| async {
                let roots = roots.to_vec();
                let walked = tokio::task::spawn_blocking(move || {
                    let mut files = std::collections::BTreeSet::new();
                    for root in roots.iter() {
                        files.extend(resolve::source_tree(root, extensions));
                    }
                    files.into_iter().collect::<Vec<_>>()
                });
                Arc::new(walked.await.unwrap_or_default())
            })
            .await
            .clone()
    }

    /// The adapter's own roots (`source_roots`), asked for once.
    async fn adapter_roots(&self, link: &AdapterLink) -> Arc<SourceRoots> {
        let Some(spec) = &self.launch else {
            return Arc::new(SourceRoots::default());
        };
        self.adapter_roots
            .get_or_init(|| async {
                let adapter = link.adapter_owned();
                let spec = spec.clone();
                let roots = tokio::task::spawn_blocking(move || adapter.source_roots(&spec))
                    .await
                    .unwrap_or_default();
                Arc::new(roots)
            })
            .await
            .clone()
    }

    /// The files the adapter lists (`listing_command`), asked for until an answer comes.
    async fn listed(&self, dap: &DapClient, shared: &Shared) -> Option<Arc<Vec<PathBuf>>> {
        let command = self.lookup.listing_command?;
        let mut listed = self.listed.lock().await;
        if let Some(files) = listed.as_ref().filter(|_| !self.lookup.listing_grows) {
            return Some(files.clone());
        }
        let arguments = EvaluateArguments::repl(command, None);
        let body = brief_stop::request_at_a_stop::<Evaluate>(dap, shared, &arguments).await;
        let body = match body {
            Ok(body) => body,
            Err(DapError::Unreadable { detail, .. }) => {
                tracing::warn!("the source listing could not be read: {detail}");
                return None;
            }
            Err(e) => {
                tracing::warn!("the adapter did not list its sources: {e}");
                return None;
            }
        };
        let files: Arc<Vec<PathBuf>> = Arc::new(
            listing_lines(&body.result)
                .iter()
                .map(|line| line.trim())
                .filter(|line| Path::new(line).is_absolute())
                .map(PathBuf::from)
                .collect(),
        );
        *listed = Some(files.clone());
        Some(files)
    }

    /// Where shown candidates are relative to: the program's working directory.
    fn base(&self) -> &Path {
        self.launch
            .as_ref()
            .map_or(Path::new("/"), |spec| spec.cwd.as_path())
    }

    /// The pending message of a file found nowhere: where it was looked for, and what happens
    /// next.
    fn unknown_message(&self, file: &Path) -> String {
        if file.is_absolute() {
            return format!("no file {} on this machine", file.display());
        }
        let mut places: Vec<String> = self
            .near_roots
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        // The adapter's roots often include the program's folder (Delve's module root is a
        // package directory's own): name each folder once.
        let mut more_roots: Vec<&PathBuf> = Vec::new();
        let adapter_roots = self
            .adapter_roots
            .get()
            .into_iter()
            .flat_map(|roots| roots.program.iter().chain(&roots.libraries));
        for root in adapter_roots {
            if !self.near_roots.contains(root) && !more_roots.contains(&root) {
                more_roots.push(root);
            }
        }
        match more_roots.as_slice() {
            [] => {}
            roots if roots.len() <= 2 => {
                places.extend(roots.iter().map(|p| p.display().to_string()));
            }
            roots => places.push(format!("the {} folders of its search path", roots.len())),
        }
        if !self.lookup.tree_extensions.is_empty() && self.tree_root.is_some() {
            places.push("the program's folder tree".to_string());
        }
        match self.lookup.listing_command {
            Some(_) if self.lookup.listing_grows => {
                places.push("the modules loaded so far".to_string());
            }
            Some(_) => places.push("the program's own file table".to_string()),
            None => {}
        }
        if self.lookup.adapter_matches_names {
            // The adapter looks for the name in the program's code itself: all we know is that
            // it has no code there yet.
            format!(
                "no code at this line in a file named {} yet (no such file in {}); it binds when \
                 such code loads",
                file.display(),
                places.join(", ")
            )
        } else {
            format!(
                "no file named {} is known yet (looked in {}); check the name, or give the file's path",
                file.display(),
                places.join(", ")
            )
        }
    }
}

/// The lines of a listing as the console answered it: as printed (Delve), or as a language's
/// quoted string literal (a Python expression's value: `'/a.py\\n/b.py'`).
fn listing_lines(result: &str) -> Vec<String> {
    let quoted = result.len() >= 2
        && (result.starts_with('\'') && result.ends_with('\'')
            || result.starts_with('"') && result.ends_with('"'));
    if !quoted {
        return result.lines().map(str::to_string).collect();
    }
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut chars = result[1..result.len() - 1].chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            current.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => lines.push(std::mem::take(&mut current)),
            Some(escaped) => current.push(escaped),
            None => {}
        }
    }
    lines.push(current);
    lines
}

/// The files of `known` whose path ends with `file`'s whole components.
fn suffix_matches(file: &Path, known: &[PathBuf]) -> Vec<PathBuf> {
    match resolve::resolve(file, &[], known) {
        Resolution::Found(path) => vec![path],
        Resolution::Ambiguous(paths) => paths,
        Resolution::Unknown => Vec::new(),
    }
}

/// `pkg/util.py` for `/src/pkg/util.py`: the file with the folder above it, the least more of
/// the path that tells two same-named files apart in most trees.
fn with_parent_folder(path: &Path) -> String {
    let mut parts: Vec<String> = path
        .components()
        .rev()
        .take(2)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.reverse();
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listings_are_read_as_printed_or_as_a_quoted_literal() {
        assert_eq!(listing_lines("/a.go\n/b.go"), vec!["/a.go", "/b.go"]);
        assert_eq!(
            listing_lines("'/a.py\\n/it\\'s/b.py'"),
            vec!["/a.py", "/it's/b.py"]
        );
        assert_eq!(
            with_parent_folder(Path::new("/src/pkg/util.py")),
            "pkg/util.py"
        );
    }
}

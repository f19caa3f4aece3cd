//! Which of several files of one name a bare name or a path suffix means: the program's own,
//! then its dependencies', then the runtime's library (`_parser.py` is dateutil's
//! `parser/_parser.py` before Python's `re/_parser.py`), leaving out any too short to hold the
//! line.
//!
//! Apart from the resolver's matching (`resolve.rs`), which finds the candidates: this decides
//! among them, with what the adapter knows of where a runtime keeps its library.

use std::path::{Path, PathBuf};

use super::resolve::LineCounts;

/// Whose a file is, best first: a name that several files match means the best of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Owner {
    /// Under the program's folder, working directory or module root.
    Program,
    /// An installed dependency, or anything that is neither the program's nor the runtime's.
    Dependency,
    /// The runtime's own library (Python's standard library, GOROOT).
    Runtime,
}

/// What tells the owners of files apart.
#[derive(Debug, Clone, Default)]
pub struct Owners {
    /// Folders whose files are the program's.
    pub program: Vec<PathBuf>,
    /// Folders whose files are the runtime's.
    pub runtime: Vec<PathBuf>,
    /// Names of folders holding installed dependencies, wherever they are.
    pub dependency_folders: &'static [&'static str],
}

impl Owners {
    pub fn of(&self, path: &Path) -> Owner {
        let in_dependency_folder = path.components().any(|component| {
            self.dependency_folders
                .iter()
                .any(|name| component.as_os_str() == *name)
        });
        if in_dependency_folder {
            Owner::Dependency
        } else if self.program.iter().any(|root| path.starts_with(root)) {
            Owner::Program
        } else if self.runtime.iter().any(|root| path.starts_with(root)) {
            Owner::Runtime
        } else {
            Owner::Dependency
        }
    }
}

/// What the candidates of a name come to for one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// The one file meant.
    Found(PathBuf),
    /// Several files of the best owner hold the line: the user must say which.
    Ambiguous(Vec<PathBuf>),
    /// Every candidate is too short for the line: why, for the best of them.
    PastTheEnd(String),
    /// No candidates.
    None,
}

/// Chooses among `candidates` for `line`: those too short for it are left out, and of the rest
/// only the best owner's count. One left is the file; more is an ambiguity.
pub fn choose(
    candidates: &[PathBuf],
    line: u32,
    owners: &Owners,
    counts: &mut LineCounts,
) -> Choice {
    let mut unique: Vec<PathBuf> = candidates.to_vec();
    unique.sort();
    unique.dedup();
    let mut holding: Vec<(Owner, PathBuf)> = Vec::new();
    let mut too_short: Option<(Owner, String)> = None;
    for path in unique {
        let owner = owners.of(&path);
        match counts.check(&path, line) {
            Ok(()) => holding.push((owner, path)),
            Err(why) => {
                if too_short.as_ref().is_none_or(|(best, _)| owner < *best) {
                    too_short = Some((owner, why));
                }
            }
        }
    }
    let Some(best) = holding.iter().map(|(owner, _)| *owner).min() else {
        return match too_short {
            Some((_, why)) => Choice::PastTheEnd(why),
            None => Choice::None,
        };
    };
    let mut chosen: Vec<PathBuf> = holding
        .into_iter()
        .filter(|(owner, _)| *owner == best)
        .map(|(_, path)| path)
        .collect();
    if chosen.len() == 1 {
        Choice::Found(chosen.remove(0))
    } else {
        Choice::Ambiguous(chosen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_lines(path: &Path, count: usize) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, "x = 1\n".repeat(count)).expect("write");
    }

    fn owners(root: &Path) -> Owners {
        Owners {
            program: vec![root.join("app")],
            runtime: vec![root.join("lib/python3")],
            dependency_folders: &["site-packages"],
        }
    }

    #[test]
    fn a_dependency_folder_inside_the_program_or_the_runtime_is_a_dependency() {
        let owners = owners(Path::new("/r"));
        assert_eq!(owners.of(Path::new("/r/app/pkg/m.py")), Owner::Program);
        assert_eq!(
            owners.of(Path::new("/r/app/.venv/site-packages/m.py")),
            Owner::Dependency
        );
        assert_eq!(
            owners.of(Path::new("/r/lib/python3/site-packages/m.py")),
            Owner::Dependency
        );
        assert_eq!(
            owners.of(Path::new("/r/lib/python3/re/m.py")),
            Owner::Runtime
        );
        assert_eq!(owners.of(Path::new("/elsewhere/m.py")), Owner::Dependency);
    }

    #[test]
    fn the_program_beats_a_dependency_which_beats_the_runtime() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let (own, dep, std) = (
            root.join("app/calendar.py"),
            root.join("deps/site-packages/x/calendar.py"),
            root.join("lib/python3/calendar.py"),
        );
        for path in [&own, &dep, &std] {
            write_lines(path, 10);
        }
        let owners = owners(root);
        let mut counts = LineCounts::default();
        let all = vec![std.clone(), dep.clone(), own.clone()];
        assert_eq!(
            choose(&all, 5, &owners, &mut counts),
            Choice::Found(own.clone())
        );
        assert_eq!(
            choose(&all[..2], 5, &owners, &mut counts),
            Choice::Found(dep.clone())
        );
        assert_eq!(
            choose(&all[..1], 5, &owners, &mut counts),
            Choice::Found(std.clone())
        );
    }

    #[test]
    fn a_file_too_short_for_the_line_is_no_reason_to_choose_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let (dep, std) = (
            root.join("deps/site-packages/x/_parser.py"),
            root.join("lib/python3/re/_parser.py"),
        );
        write_lines(&dep, 30);
        write_lines(&std, 20);
        let owners = owners(root);
        let mut counts = LineCounts::default();
        let both = vec![std.clone(), dep.clone()];
        assert_eq!(
            choose(&both, 25, &owners, &mut counts),
            Choice::Found(dep.clone())
        );
        // Only the runtime's is known: it is too short, and that is said of it.
        assert_eq!(
            choose(&both[..1], 25, &owners, &mut counts),
            Choice::PastTheEnd(
                "line 25 is beyond the end of _parser.py, which has 20 lines".to_string()
            )
        );
        assert_eq!(choose(&[], 25, &owners, &mut counts), Choice::None);
    }

    #[test]
    fn two_files_of_the_best_owner_stay_ambiguous() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let (a, b, std) = (
            root.join("deps/site-packages/a/util.py"),
            root.join("deps/site-packages/b/util.py"),
            root.join("lib/python3/util.py"),
        );
        for path in [&a, &b, &std] {
            write_lines(path, 10);
        }
        let mut counts = LineCounts::default();
        assert_eq!(
            choose(&[std, b.clone(), a.clone()], 3, &owners(root), &mut counts),
            Choice::Ambiguous(vec![a, b])
        );
    }
}

//! The program's JavaScript on disk, searched for the definitions of a function that has a
//! breakpoint before the file that holds it loads (see `breakpoints`: V8 does not wait for us
//! when it parses a script). First the program's own folder; when the name is defined nowhere
//! there, the code it runs from elsewhere: the rest of its package (a `bin/` program's `lib/`)
//! and the `node_modules` folders its `require`s resolve from, where a library's bundle lives
//! (`break blockTokens` in marked).
//!
//! Every search is bounded (files, bytes, depth), widest first, so a package's top-level files
//! are read before anything deep in a large `node_modules`.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use super::functions::{BodyStart, Finder};

/// Bounds on one search: enough for a project and its dependencies, never a whole disk.
const MAX_FILES: usize = 20_000;
const MAX_TOTAL_BYTES: u64 = 256 * 1024 * 1024;
const MAX_DEPTH: usize = 8;
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Where the function `name` is defined: in the program's folder `root`, else in its package and
/// dependencies.
pub fn definitions(root: &Path, name: &str) -> Vec<(PathBuf, Vec<BodyStart>)> {
    let Some(finder) = Finder::new(name) else {
        return Vec::new();
    };
    let own = search(&[root.to_path_buf()], &finder);
    if !own.is_empty() {
        return own;
    }
    search(&dependency_roots(root), &finder)
}

/// The folders a program's other code lives in: its package's folder (the nearest above `root`
/// holding a `package.json`), and each `node_modules` Node looks in for a `require` from `root`.
fn dependency_roots(root: &Path) -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Some(package) = root
        .ancestors()
        .skip(1)
        .find(|folder| folder.join("package.json").is_file())
    {
        roots.push(package.to_path_buf());
    }
    roots.extend(
        root.ancestors()
            .map(|folder| folder.join("node_modules"))
            .filter(|folder| folder.is_dir()),
    );
    roots
}

/// The definitions `finder` finds in the JavaScript files under `roots` (not in hidden folders, nor
/// in a `node_modules` below a root), read widest first within the bounds.
fn search(roots: &[PathBuf], finder: &Finder) -> Vec<(PathBuf, Vec<BodyStart>)> {
    let mut found = Vec::new();
    let (mut files, mut bytes) = (0usize, 0u64);
    let mut folders: VecDeque<(PathBuf, usize)> =
        roots.iter().map(|root| (root.clone(), 0)).collect();
    while let Some((folder, depth)) = folders.pop_front() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            // Symlinks are followed: pnpm and `npm link` put packages behind them (the depth
            // bound ends any cycle).
            let Ok(metadata) = std::fs::metadata(&path) else {
                continue;
            };
            let entry_name = entry.file_name();
            let entry_name = entry_name.to_string_lossy();
            if metadata.is_dir() {
                if depth < MAX_DEPTH && !entry_name.starts_with('.') && entry_name != "node_modules"
                {
                    folders.push_back((path, depth + 1));
                }
                continue;
            }
            if !metadata.is_file() || !is_javascript(&path) || metadata.len() > MAX_FILE_BYTES {
                continue;
            }
            files += 1;
            bytes += metadata.len();
            if files > MAX_FILES || bytes > MAX_TOTAL_BYTES {
                return found;
            }
            let Ok(source) = std::fs::read_to_string(&path) else {
                continue;
            };
            let starts = finder.find(&source);
            if !starts.is_empty() {
                found.push((path, starts));
            }
        }
    }
    found
}

fn is_javascript(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("js" | "mjs" | "cjs")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).expect("create folder");
        }
        std::fs::write(path, text).expect("write file");
    }

    fn files_of(found: &[(PathBuf, Vec<BodyStart>)]) -> Vec<PathBuf> {
        found.iter().map(|(path, _)| path.clone()).collect()
    }

    #[test]
    fn the_programs_own_files_come_first_then_its_package_and_node_modules() {
        let project = tempfile::tempdir().expect("tempdir");
        let root = project.path();
        write(&root.join("package.json"), "{}");
        write(&root.join("bin/cli.js"), "require('../lib/run');\n");
        write(&root.join("lib/run.js"), "function run() {\n  go();\n}\n");
        write(
            &root.join("node_modules/marked/lib/marked.min.js"),
            "class e{blockTokens(t){return t}}",
        );
        write(
            &root.join("node_modules/.cache/copy.js"),
            "class e{blockTokens(t){return t}}",
        );
        write(
            &root.join("bin/node_modules/hidden/lex.js"),
            "function lex(){}",
        );
        let bin = root.join("bin");

        assert_eq!(
            files_of(&definitions(&bin, "run")),
            vec![root.join("lib/run.js")]
        );
        assert_eq!(
            files_of(&definitions(&bin, "blockTokens")),
            vec![root.join("node_modules/marked/lib/marked.min.js")]
        );
        // bin/node_modules is where a require from bin/ looks first.
        assert_eq!(
            files_of(&definitions(&bin, "lex")),
            vec![root.join("bin/node_modules/hidden/lex.js")]
        );
        assert!(definitions(&bin, "nowhere").is_empty());
    }

    #[test]
    fn a_name_the_program_defines_is_not_looked_for_in_its_dependencies() {
        let project = tempfile::tempdir().expect("tempdir");
        let root = project.path();
        write(
            &root.join("app.js"),
            "function parse(s) {\n  return s;\n}\n",
        );
        write(
            &root.join("node_modules/lib/index.js"),
            "function parse(s) {\n  return s;\n}\n",
        );
        assert_eq!(
            files_of(&definitions(root, "parse")),
            vec![root.join("app.js")]
        );
    }
}

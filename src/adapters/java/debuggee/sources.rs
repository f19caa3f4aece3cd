//! Where a class's source file is on this machine, for a frame to name the user's file: a file
//! a breakpoint named, else the package's folders under the places a Java project keeps its
//! sources (the working directory, the program's folder, the class path's folders, and their
//! `src/main/java`, `src/main/kotlin` and `src`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::breakpoints::package_fits;
use crate::adapters::java::jdwp::signatures::package_folder;

/// The folders under a root where a build keeps its sources.
const SOURCE_FOLDERS: &[&str] = &[
    "",
    "src/main/java",
    "src/main/kotlin",
    "src/test/java",
    "src",
];

#[derive(Default)]
pub struct SourcePaths {
    roots: Vec<PathBuf>,
    /// Files breakpoints named, by path as given.
    named: Vec<PathBuf>,
    found: HashMap<(String, String), Option<PathBuf>>,
}

impl SourcePaths {
    /// Adds a folder to look under, once.
    pub fn add_root(&mut self, root: &Path) {
        if !self.roots.iter().any(|r| r == root) {
            self.roots.push(root.to_path_buf());
        }
    }

    /// A file a breakpoint named, which a frame of its class names in turn.
    pub fn add_named(&mut self, path: &Path) {
        if path.is_absolute() && !self.named.iter().any(|p| p == path) {
            self.named.push(path.to_path_buf());
            self.found.clear();
        }
    }

    /// The path of `file` (a SourceFile attribute) of the class of `signature`.
    pub fn locate(&mut self, signature: &str, file: &str) -> Option<PathBuf> {
        let package = package_folder(signature).to_string();
        let key = (package.clone(), file.to_string());
        if let Some(found) = self.found.get(&key) {
            return found.clone();
        }
        let named = self.named.iter().find(|path| {
            path.file_name().is_some_and(|n| n == file) && {
                let folders: Vec<String> = path
                    .parent()
                    .into_iter()
                    .flat_map(|p| p.iter())
                    .map(|c| c.to_string_lossy().into_owned())
                    .collect();
                package_fits(&folders, &package)
            }
        });
        let found = named.cloned().or_else(|| {
            self.roots.iter().find_map(|root| {
                SOURCE_FOLDERS.iter().find_map(|folder| {
                    let candidate = root.join(folder).join(&package).join(file);
                    candidate.is_file().then_some(candidate)
                })
            })
        });
        self.found.insert(key, found.clone());
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_finds_its_file_under_a_root_or_where_a_breakpoint_named_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("src/main/java/com/shop/Cart.java");
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(&file, "class Cart {}").expect("write");
        let mut paths = SourcePaths::default();
        paths.add_root(dir.path());
        assert_eq!(
            paths.locate("Lcom/shop/Cart$Line;", "Cart.java"),
            Some(file)
        );
        assert_eq!(paths.locate("Lcom/other/Cart;", "Cart.java"), None);
        // Absolute on every platform (a path from `/` has no drive on Windows).
        let elsewhere = dir.path().join("elsewhere/com/other/Cart.java");
        paths.add_named(&elsewhere);
        assert_eq!(
            paths.locate("Lcom/other/Cart;", "Cart.java"),
            Some(elsewhere)
        );
    }
}

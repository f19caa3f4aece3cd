//! The scripts V8 has parsed, by id, with the file each came from (see `urls` for the file a
//! script's URL names).
//!
//! A file named by a relative path (`util.js`, `lib/util.js`: what the user typed, when the
//! session could not find it on disk) is a path suffix, matched on whole components: `util.js`
//! names `/x/lib/util.js` but not `/x/myutil.js`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::source_maps::{MapTarget, MappedScript, ScriptMap};
use super::urls::path_of_url;

/// One parsed script.
#[derive(Debug, Clone)]
pub struct Script {
    pub url: String,
    /// The file on disk, for scripts that came from one (not `node:internal/...`).
    pub path: Option<PathBuf>,
    /// Its source map, when it names one that could be read: its code in the code written.
    pub map: Option<Arc<ScriptMap>>,
}

#[derive(Debug, Default)]
pub struct Scripts {
    by_id: HashMap<String, Script>,
}

impl Scripts {
    /// Records a `Debugger.scriptParsed`; returns the script when it is one of the user's files.
    pub fn add(&mut self, id: &str, url: &str) -> Option<&Script> {
        let script = Script {
            url: url.to_string(),
            path: path_of_url(url),
            map: None,
        };
        self.by_id.insert(id.to_string(), script);
        self.by_id.get(id).filter(|s| s.path.is_some())
    }

    pub fn get(&self, id: &str) -> Option<&Script> {
        self.by_id.get(id)
    }

    /// Gives script `id` its source map.
    pub fn set_map(&mut self, id: &str, map: Arc<ScriptMap>) {
        if let Some(script) = self.by_id.get_mut(id) {
            script.map = Some(map);
        }
    }

    /// The loaded scripts whose source maps name the original file `path` (absolute, or a
    /// relative name matched on whole components), each with its map and the source's index.
    pub fn mapping(&self, path: &Path) -> Vec<MappedScript> {
        let mut found: Vec<MappedScript> = self
            .by_id
            .iter()
            .filter_map(|(id, script)| Some((id, script, script.map.as_ref()?)))
            .flat_map(|(id, script, map)| {
                map.sources_named(path)
                    .into_iter()
                    .map(move |source| MappedScript {
                        key: script
                            .path
                            .as_ref()
                            .map_or_else(|| id.clone(), |p| p.display().to_string()),
                        target: MapTarget::Loaded(id.clone()),
                        map: map.clone(),
                        source,
                    })
            })
            .collect();
        found.sort_by(|a, b| a.key.cmp(&b.key).then(a.source.cmp(&b.source)));
        found
    }

    /// The user's files among the parsed scripts (Node's own `node:` modules excluded).
    pub fn files(&self) -> impl Iterator<Item = &Script> {
        self.by_id.values().filter(|s| s.path.is_some())
    }

    /// [`Scripts::files`] with their ids.
    pub fn files_by_id(&self) -> impl Iterator<Item = (&str, &Script)> {
        self.by_id
            .iter()
            .filter(|(_, s)| s.path.is_some())
            .map(|(id, s)| (id.as_str(), s))
    }

    /// The files of the parsed scripts whose path ends with `suffix` (whole components), each
    /// once (a module loaded twice is one file), sorted.
    pub fn named(&self, suffix: &Path) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = self
            .files()
            .filter_map(|s| s.path.as_ref())
            .filter(|path| path.ends_with(suffix))
            .cloned()
            .collect();
        found.sort();
        found.dedup();
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loaded_scripts_are_matched_on_whole_components() {
        let mut scripts = Scripts::default();
        scripts.add("1", "file:///x/lib/util.js");
        scripts.add("2", "file:///x/myutil.js");
        scripts.add("3", "file:///y/util.js");
        scripts.add("4", "file:///y/util.js");
        scripts.add("5", "node:internal/util.js");
        assert_eq!(
            scripts.named(Path::new("util.js")),
            vec![PathBuf::from("/x/lib/util.js"), PathBuf::from("/y/util.js")]
        );
        assert_eq!(
            scripts.named(Path::new("lib/util.js")),
            vec![PathBuf::from("/x/lib/util.js")]
        );
        assert!(scripts.named(Path::new("ib/util.js")).is_empty());
    }
}

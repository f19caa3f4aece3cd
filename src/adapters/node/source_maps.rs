//! Source maps: the code V8 runs (a `tsc` output, an esbuild bundle, what `tsx` compiled in
//! memory) told in the code the user wrote. Each script whose `scriptParsed` names a
//! `sourceMapURL` (an inline `data:` URL, or a file beside the script) gets a [`ScriptMap`]: the
//! original source of a generated position (stops, stacks), and the generated positions of an
//! original line (breakpoints).
//!
//! The map is read with `oxc_sourcemap` (the oxc project's, kept with its bundler and minifier;
//! few dependencies, and a version whose MSRV is ours), then flattened into one table sorted by
//! generated position, so a lookup is a binary search and nothing borrows the parsed map.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use oxc_sourcemap::OwnedSourceMap;

use super::urls::{path_of_url, percent_decode, suffix_of};

/// One mapped position: where V8 runs it (0-based line and column) and where it was written;
/// no source for generated code that was written nowhere (a bundler's helpers), which ends the
/// mapping before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mapping {
    generated_line: u32,
    generated_column: u32,
    source: Option<u32>,
    line: u32,
    column: u32,
    name: Option<u32>,
}

/// A source a map names: its file when it is one on this machine, and the name as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub path: Option<PathBuf>,
    pub written: String,
    /// The text the map carries for it (`sourcesContent`), for a source not on this disk.
    pub content: Option<String>,
}

/// Where a generated position was written: 1-based line and column, as DAP counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Original<'a> {
    pub source: &'a Source,
    pub line: u32,
    pub column: u32,
    /// The name the map gives the token there (a minifier's renamed identifier's own name).
    pub name: Option<&'a str>,
}

/// The generated positions of an original line: the line that has code (the one asked, or the
/// next one with any), and one 0-based (line, column) per generated line it became.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    pub line: u32,
    pub positions: Vec<(u32, u32)>,
}

/// How far past a line without code a breakpoint moves to the next line with some (as V8 moves
/// a breakpoint to the next statement).
const NEXT_CODE_WITHIN: u32 = 20;

/// A generated script whose map names an original file, and where to set its breakpoints.
#[derive(Debug, Clone)]
pub struct MappedScript {
    /// What tells it from the others, loaded or not: its file's path (a script with none: its id).
    pub key: String,
    pub target: MapTarget,
    pub map: Arc<ScriptMap>,
    /// The original file's index among the map's sources.
    pub source: usize,
}

/// Where a generated script's breakpoints go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapTarget {
    /// A parsed script: by its id.
    Loaded(String),
    /// A file on disk not parsed yet: by its URL, so V8 binds it as it parses it.
    File(PathBuf),
}

#[derive(Debug)]
pub struct ScriptMap {
    pub sources: Vec<Source>,
    names: Vec<String>,
    /// Sorted by generated position.
    mappings: Vec<Mapping>,
}

impl ScriptMap {
    /// Parses a map's JSON; relative sources are files under `folder` (the map file's folder,
    /// or the script's for an inline map), after the map's `sourceRoot`.
    pub fn parse(json: &str, folder: Option<&Path>) -> Result<ScriptMap, String> {
        let map = OwnedSourceMap::from_json_string(json)
            .map_err(|e| format!("the source map cannot be read: {e:?}"))?;
        let root = map.get_source_root().unwrap_or_default().to_string();
        let mut contents = map.get_source_contents();
        let sources = map
            .get_sources()
            .map(|written| Source {
                path: source_path(written, &root, folder),
                written: written.to_string(),
                content: contents.next().flatten().map(str::to_string),
            })
            .collect();
        let names = map.get_names().map(str::to_string).collect();
        let mut mappings: Vec<Mapping> = map
            .get_tokens()
            .map(|token| Mapping {
                generated_line: token.get_dst_line(),
                generated_column: token.get_dst_col(),
                source: token.get_source_id(),
                line: token.get_src_line(),
                column: token.get_src_col(),
                name: token.get_name_id(),
            })
            .collect();
        mappings.sort_by_key(|m| (m.generated_line, m.generated_column));
        Ok(ScriptMap {
            sources,
            names,
            mappings,
        })
    }

    /// Where the generated 0-based `line` and `column` was written: the last mapping at or
    /// before it on its line (or the line's first, for a position before any). `None` on a line
    /// without mappings, or after a mapping to no source: code nobody wrote (a bundler's helper,
    /// `tsc`'s `Object.defineProperty(exports, ...)`), which a step goes through.
    pub fn original(&self, line: u32, column: u32) -> Option<Original<'_>> {
        let after = self
            .mappings
            .partition_point(|m| (m.generated_line, m.generated_column) <= (line, column));
        let mapping = match after.checked_sub(1).map(|i| &self.mappings[i]) {
            Some(m) if m.generated_line == line => m,
            _ => self
                .mappings
                .get(after)
                .filter(|m| m.generated_line == line)?,
        };
        Some(Original {
            source: self.sources.get(mapping.source? as usize)?,
            line: mapping.line + 1,
            column: mapping.column + 1,
            name: mapping
                .name
                .and_then(|n| self.names.get(n as usize))
                .map(String::as_str),
        })
    }

    /// Whether the generated 0-based `line` and `column` is code the map says someone wrote,
    /// for the steps that go through code nobody wrote: a mapping to a source at or before it on
    /// its line (stricter than [`ScriptMap::original`], which reads a position before a line's
    /// first mapping as that mapping's). A mapping to the very start of a source covers only its
    /// own position: esbuild (what `tsx` runs) maps the whole of its export getters and helpers
    /// to there, while code really written there starts exactly at it.
    pub fn is_mapped(&self, line: u32, column: u32) -> bool {
        let after = self
            .mappings
            .partition_point(|m| (m.generated_line, m.generated_column) <= (line, column));
        after
            .checked_sub(1)
            .map(|i| &self.mappings[i])
            .is_some_and(|m| {
                m.generated_line == line
                    && m.source.is_some()
                    && ((m.line, m.column) != (0, 0) || m.generated_column == column)
            })
    }

    /// The names the map gives generated tokens from 0-based (line, column) `start` to `end`,
    /// each with its generated position: a minifier's renamed identifiers and their own names.
    pub fn named_between(
        &self,
        start: (u32, u32),
        end: (u32, u32),
    ) -> impl Iterator<Item = ((u32, u32), &str)> {
        let from = self
            .mappings
            .partition_point(|m| (m.generated_line, m.generated_column) < start);
        self.mappings[from..]
            .iter()
            .take_while(move |m| (m.generated_line, m.generated_column) <= end)
            .filter_map(|m| {
                let name = self.names.get(m.name? as usize)?;
                Some(((m.generated_line, m.generated_column), name.as_str()))
            })
    }

    /// The name the map gives the function whose generated code starts at 0-based `line` and
    /// `column` (V8's `functionLocation`, the `(` of its parameters): the name of the token just
    /// before it, which is the function's own name in a bundler's map (`n` of `function n(` is
    /// `total`).
    pub fn function_name(&self, line: u32, column: u32) -> Option<&str> {
        let start = self
            .mappings
            .partition_point(|m| (m.generated_line, m.generated_column) < (line, column));
        let before = &self.mappings[start.checked_sub(1)?];
        (before.generated_line == line)
            .then_some(before.name)
            .flatten()
            .and_then(|n| self.names.get(n as usize))
            .map(String::as_str)
    }

    /// The generated positions of the 1-based `line` of source `source` (or of the next line with
    /// code, within [`NEXT_CODE_WITHIN`]): the first column of each generated line it became.
    pub fn generated(&self, source: usize, line: u32) -> Option<Generated> {
        let wanted = line.checked_sub(1)?;
        let in_source = || self.in_source(source);
        let bound = in_source()
            .map(|m| m.line)
            .filter(|l| (wanted..wanted + NEXT_CODE_WITHIN).contains(l))
            .min()?;
        Some(Generated {
            line: bound + 1,
            positions: first_columns(in_source().filter(|m| m.line == bound)),
        })
    }

    /// The mappings into source `source`.
    fn in_source(&self, source: usize) -> impl Iterator<Item = &Mapping> {
        self.mappings
            .iter()
            .filter(move |m| m.source.is_some_and(|s| s as usize == source))
    }

    /// The generated positions of the first code of source `source` at or after its 0-based
    /// `line` and `column` (just inside a function's `{`: its first statement), one per
    /// generated line; the line given is that code's 1-based original line.
    pub fn generated_from(&self, source: usize, line: u32, column: u32) -> Option<Generated> {
        let first = self
            .in_source(source)
            .map(|m| (m.line, m.column))
            .filter(|position| *position >= (line, column))
            .min()?;
        Some(Generated {
            line: first.0 + 1,
            positions: first_columns(
                self.in_source(source)
                    .filter(|m| (m.line, m.column) == first),
            ),
        })
    }

    /// The text of source `index`: what the map carries, else its file.
    pub fn source_text(&self, index: usize) -> Option<String> {
        let source = self.sources.get(index)?;
        source
            .content
            .clone()
            .or_else(|| std::fs::read_to_string(source.path.as_ref()?).ok())
    }

    /// The index of `source`, one of this map's.
    pub fn source_index(&self, source: &Source) -> Option<usize> {
        self.sources.iter().position(|s| std::ptr::eq(s, source))
    }

    /// The sources this map names that are the file `path` (absolute), or end with it (a
    /// relative name, matched on whole components).
    pub fn sources_named(&self, path: &Path) -> Vec<usize> {
        // A relative name is a suffix: `../node_modules/x/src/a.ts` names `.../x/src/a.ts`.
        let suffix;
        let path = if path.is_absolute() {
            path
        } else {
            match suffix_of(path) {
                Some(s) => {
                    suffix = s;
                    suffix.as_path()
                }
                None => return Vec::new(),
            }
        };
        self.sources
            .iter()
            .enumerate()
            .filter(|(_, source)| {
                source.path.as_deref().is_some_and(|p| {
                    if path.is_absolute() {
                        p == path
                    } else {
                        p.ends_with(path)
                    }
                }) || (!path.is_absolute() && Path::new(&source.written).ends_with(path))
            })
            .map(|(index, _)| index)
            .collect()
    }
}

/// The first generated column of each generated line among `mappings`, sorted.
fn first_columns<'a>(mappings: impl Iterator<Item = &'a Mapping>) -> Vec<(u32, u32)> {
    let mut positions: Vec<(u32, u32)> = Vec::new();
    for mapping in mappings {
        match positions
            .iter_mut()
            .find(|(l, _)| *l == mapping.generated_line)
        {
            Some((_, column)) => *column = (*column).min(mapping.generated_column),
            None => positions.push((mapping.generated_line, mapping.generated_column)),
        }
    }
    positions.sort_unstable();
    positions
}

/// The file a map's source names: a `file://` URL, an absolute path, or a path relative to the
/// map's folder (after `sourceRoot`); none for a bundler's own scheme (`webpack://app/x.ts`).
fn source_path(written: &str, root: &str, folder: Option<&Path>) -> Option<PathBuf> {
    let joined = if root.is_empty() || written.starts_with('/') || written.contains("://") {
        written.to_string()
    } else {
        format!("{}/{written}", root.trim_end_matches('/'))
    };
    if joined.starts_with("file://") {
        return path_of_url(&joined).map(|p| normalised(&p));
    }
    if joined.contains("://") {
        return None;
    }
    let path = Path::new(&joined);
    if path.is_absolute() {
        return Some(normalised(path));
    }
    Some(normalised(&folder?.join(path)))
}

/// `path` with `.` and `..` taken out lexically (a map's `../src/app.ts`).
fn normalised(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The text of the map a script's `sourceMapURL` names, and the folder its relative sources are
/// under: an inline `data:` URL (base64 or percent-encoded), or a file (a `file://` URL, or a
/// path relative to the script's folder).
pub fn read_map(url: &str, script: &Path) -> Result<(String, Option<PathBuf>), String> {
    let folder = script.parent().map(Path::to_path_buf);
    if let Some(data) = url.strip_prefix("data:") {
        let (header, payload) = data
            .split_once(',')
            .ok_or("an inline source map without data")?;
        let text = if header.ends_with(";base64") {
            let bytes = base64_simd::STANDARD
                .decode_to_vec(payload.trim())
                .map_err(|e| format!("an inline source map that is not base64: {e}"))?;
            String::from_utf8(bytes).map_err(|_| "an inline source map that is not UTF-8")?
        } else {
            percent_decode(payload)
        };
        return Ok((text, folder));
    }
    let file = match path_of_url(url) {
        Some(path) => path,
        None => folder
            .as_deref()
            .ok_or("a source map beside a script with no folder")?
            .join(url),
    };
    let text = std::fs::read_to_string(&file)
        .map_err(|e| format!("the source map {} cannot be read: {e}", file.display()))?;
    Ok((text, file.parent().map(Path::to_path_buf)))
}

/// Bounds on a search of the program's folder for generated files and their maps.
const MAX_FILES: usize = 20_000;
const MAX_DEPTH: usize = 8;
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// The generated scripts under `root` (the program's folder; not hidden folders nor
/// `node_modules`) that have source maps, each with its map: so a breakpoint in an original file
/// is set by the generated file's URL before that file loads (V8 runs a `require`d module's code
/// the moment it is parsed, before we could place it from its `scriptParsed`).
pub fn on_disk(root: &Path) -> Vec<(PathBuf, ScriptMap)> {
    let mut found = Vec::new();
    let mut files = 0usize;
    let mut folders = std::collections::VecDeque::from([(root.to_path_buf(), 0usize)]);
    while let Some((folder, depth)) = folders.pop_front() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if depth < MAX_DEPTH && !name.starts_with('.') && name != "node_modules" {
                    folders.push_back((path, depth + 1));
                }
                continue;
            }
            if !(name.ends_with(".js") || name.ends_with(".mjs") || name.ends_with(".cjs")) {
                continue;
            }
            files += 1;
            if files > MAX_FILES {
                return found;
            }
            if let Some(map) = map_of_file(&path) {
                found.push((path, map));
            }
        }
    }
    found
}

/// The map of the generated file `path`, from its `sourceMappingURL` comment.
fn map_of_file(path: &Path) -> Option<ScriptMap> {
    if std::fs::metadata(path).ok()?.len() > MAX_FILE_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let (_, url) = text.rsplit_once("//# sourceMappingURL=")?;
    let url = url.lines().next()?.trim();
    let (json, folder) = read_map(url, path).ok()?;
    ScriptMap::parse(&json, folder.as_deref()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `tsc --sourceMap` 5.9 writes for `function add(a: number) {` / `  return a + 1;` /
    /// `}` in `src/app.ts`, compiled to `dist/app.js` (the return indented by 4 there).
    const TSC_MAP: &str = r#"{"version":3,"file":"app.js","sourceRoot":"","sources":["../src/app.ts"],"names":[],"mappings":"AAAA,SAAS,GAAG,CAAC,CAAS;IACpB,OAAO,CAAC,GAAG,CAAC,CAAC;AACf,CAAC"}"#;

    /// An absolute folder on any OS (`/p` is not one on Windows, where a path needs a drive).
    fn project() -> PathBuf {
        std::env::temp_dir().join("p")
    }

    fn tsc_map() -> ScriptMap {
        ScriptMap::parse(TSC_MAP, Some(&project().join("dist"))).expect("parse")
    }

    #[test]
    fn a_relative_source_is_a_file_beside_the_map() {
        let map = tsc_map();
        let app = project().join("src").join("app.ts");
        assert_eq!(map.sources[0].path.as_deref(), Some(app.as_path()));
        assert_eq!(map.sources[0].written, "../src/app.ts");
        assert_eq!(map.sources_named(&app), vec![0]);
        assert_eq!(map.sources_named(Path::new("app.ts")), vec![0]);
        assert_eq!(map.sources_named(Path::new("src/app.ts")), vec![0]);
        assert!(map.sources_named(Path::new("pp.ts")).is_empty());
        assert_eq!(map.sources_named(Path::new("../src/app.ts")), vec![0]);
        assert_eq!(map.sources_named(Path::new("./app.ts")), vec![0]);
    }

    #[test]
    fn a_generated_position_reads_as_its_original_line() {
        let map = tsc_map();
        let original = map.original(1, 4).expect("mapped");
        assert_eq!(
            (
                original.line,
                original.column,
                original.source.written.as_str()
            ),
            (2, 3, "../src/app.ts")
        );
        assert_eq!(map.original(0, 0).map(|o| o.line), Some(1));
        assert_eq!(map.original(1, 0).map(|o| o.line), Some(2));
        assert_eq!(map.original(5, 0), None);
    }

    #[test]
    fn an_original_line_reads_as_its_generated_positions() {
        let map = tsc_map();
        assert_eq!(
            map.generated(0, 2),
            Some(Generated {
                line: 2,
                positions: vec![(1, 4)]
            })
        );
        assert_eq!(map.generated(0, 9), None);
    }

    /// esbuild 0.28's `--bundle --minify` map of `src/util.ts` (`export function total(prices:
    /// number[])`, `let sum = 0;` ...) and `src/app.ts` (`function main()` calling it), bundled
    /// to `function n(t){let e=0;for(let r of t)e+=r;return e}var o=[...];function m(){...}m();`.
    const MINIFIED_MAP: &str = r#"{"version":3,"sources":["src/util.ts","src/app.ts"],"mappings":"AAAO,SAASA,EAAMC,EAA0B,CAC9C,IAAIC,EAAM,EACV,QAAWC,KAASF,EAClBC,GAAOC,EAET,OAAOD,CACT,CCCA,IAAME,EAAgB,CACpB,CAAE,KAAM,QAAS,MAAO,CAAE,EAC1B,CAAE,KAAM,OAAQ,MAAO,CAAE,CAC3B,EAEA,SAASC,GAAa,CACpB,IAAMC,EAAcC,EAAMH,EAAM,IAAKI,GAAMA,EAAE,KAAK,CAAC,EACnD,QAAQ,IAAI,UAAUF,CAAG,EAAE,CAC7B,CAEAD,EAAK","names":["total","prices","sum","price","items","main","sum","total","i"]}"#;

    #[test]
    fn a_minified_function_is_named_by_the_map() {
        let map = ScriptMap::parse(MINIFIED_MAP, Some(Path::new("/p"))).expect("parse");
        // The `(` of `function n(` at column 10 and of `function m(` at 114.
        assert_eq!(map.function_name(0, 10), Some("total"));
        assert_eq!(map.function_name(0, 114), Some("main"));
        assert_eq!(map.function_name(0, 0), None);
        let sum = map.original(0, 18).expect("let e=0 is mapped");
        assert_eq!((sum.line, sum.name), (2, Some("sum")));
        assert_eq!(
            map.generated(0, 4).map(|g| g.positions),
            Some(vec![(0, 37)])
        );
    }

    #[test]
    fn a_function_body_reads_as_the_generated_place_of_its_first_code() {
        // Just inside `function add(a: number) {`: its `return`, on the next line.
        assert_eq!(
            tsc_map().generated_from(0, 0, 25),
            Some(Generated {
                line: 2,
                positions: vec![(1, 4)]
            })
        );
    }

    #[test]
    fn code_nobody_wrote_is_not_mapped_for_steps() {
        // Column 0 maps to no source; column 1 to the source's very start, which covers
        // columns 1 and 2 (esbuild's helpers); column 3 to the source's column 2.
        let map = ScriptMap::parse(
            r#"{"version":3,"sources":["a.ts"],"names":[],"mappings":"A,CAAA,EAAE"}"#,
            None,
        )
        .expect("parse");
        let mapped: Vec<bool> = (0..5).map(|column| map.is_mapped(0, column)).collect();
        assert_eq!(mapped, [false, true, false, true, true]);
        assert_eq!(map.original(0, 2).map(|o| o.line), Some(1));
        assert_eq!(map.original(0, 0), None);
    }

    #[test]
    fn sources_under_a_root_and_in_a_bundlers_scheme() {
        assert_eq!(
            source_path("a.ts", "../src", Some(&project().join("dist"))),
            Some(project().join("src").join("a.ts"))
        );
        assert_eq!(
            source_path("file:///p/x.ts", "", None),
            Some(PathBuf::from("/p/x.ts"))
        );
        assert_eq!(source_path("webpack://app/./x.ts", "", None), None);
    }

    #[test]
    fn an_inline_map_is_read_from_its_data_url() {
        let encoded = base64_simd::STANDARD.encode_to_string(TSC_MAP);
        let url = format!("data:application/json;charset=utf-8;base64,{encoded}");
        let (text, folder) = read_map(&url, Path::new("/p/dist/app.js")).expect("read");
        assert_eq!(text, TSC_MAP);
        assert_eq!(folder, Some(PathBuf::from("/p/dist")));
    }
}

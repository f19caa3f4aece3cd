//! Function breakpoints by the names the user wrote, in code V8 runs compiled or bundled: a
//! minifier renames `escapeHtmlEntities` to `o` and `class Store` to `n`, so the generated text
//! no longer holds the name `debugger break escapeHtmlEntities` or `Store.add` gives. The
//! sources a script's map names (their text from the map's `sourcesContent`, else from disk)
//! still do: each definition found there (`functions`, reading TypeScript's types) is placed at
//! the generated position of its body's first mapped code, which is the code of that very
//! function wherever the bundler put it. The breakpoint then reads as that original line.
//!
//! A generated script placed this way is not searched again as text (its `searched` entry):
//! a function found both ways would get two V8 breakpoints at one place, which V8 refuses. A
//! map whose sources cannot be read (no `sourcesContent`, no files) leaves its script to the
//! text search, as before.

use std::path::Path;
use std::sync::Arc;

use super::super::cdp::Cdp;
use super::super::functions::{BodyStart, Finder};
use super::super::source_maps::{MapTarget, ScriptMap};
use super::entry::{Entry, Place};
use super::mapped;

/// Whether a map's source is TypeScript (its types are skipped when it is searched).
fn is_typescript(written: &str) -> bool {
    [".ts", ".tsx", ".mts", ".cts"]
        .iter()
        .any(|extension| written.ends_with(extension))
}

/// The definitions of the function `name` (`f` or `Owner.f`) in the sources `map` names: per
/// source index, the body starts found in its text.
fn definitions_in(map: &ScriptMap, name: &str) -> Vec<(usize, BodyStart)> {
    let method = name.rsplit('.').next().unwrap_or(name);
    let (Some(plain), Some(typed)) = (Finder::new(name), Finder::with_types(name, true)) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (index, source) in map.sources.iter().enumerate() {
        // A file that never says the name is not read from disk at all.
        if source
            .content
            .as_deref()
            .is_some_and(|c| !c.contains(method))
        {
            continue;
        }
        let Some(text) = map.source_text(index) else {
            continue;
        };
        let finder = if is_typescript(&source.written) {
            &typed
        } else {
            &plain
        };
        found.extend(finder.find(&text).into_iter().map(|start| (index, start)));
    }
    found
}

/// Places function breakpoint `entry` in the generated script `generated` (known as `key`, set
/// at `target`) through its `map`, once per script. Does nothing when no source of the map
/// defines the function.
pub(super) async fn place_function_mapped(
    cdp: &Cdp,
    key: &str,
    target: &MapTarget,
    map: &Arc<ScriptMap>,
    generated: &Path,
    entry: &mut Entry,
) {
    let Place::Function(name) = &entry.wish.place else {
        return;
    };
    if entry.mapped_in.contains(key) {
        return;
    }
    let (searched_map, searched_name) = (map.clone(), name.clone());
    let found = tokio::task::spawn_blocking(move || definitions_in(&searched_map, &searched_name))
        .await
        .unwrap_or_default();
    if found.is_empty() {
        return;
    }
    entry.mapped_in.insert(key.to_string());
    entry.searched.insert(generated.to_path_buf());
    for (source, start) in found {
        let Some(code) = map.generated_from(source, start.line, start.column) else {
            continue;
        };
        let mut bound = false;
        for position in &code.positions {
            bound |= mapped::set_generated(cdp, target, *position, entry).await;
        }
        if bound && entry.resolved.is_none() {
            let file = map.sources[source]
                .path
                .clone()
                .unwrap_or_else(|| generated.to_path_buf());
            entry.resolved = Some((file, code.line));
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A TypeScript source, as a map carries it, bundled and renamed elsewhere.
    const STORE: &str = "export class Store {\n  private items = new Map<string, number>();\n\n  add(name: string, price: number): number {\n    this.items.set(name, price);\n    return this.items.size;\n  }\n  get<T>(name: string): T | undefined;\n}\nexport const twice = (n: number): number => n * 2;\n";

    fn map_with(content: &str, written: &str) -> ScriptMap {
        let json = json!({
            "version": 3,
            "sources": [written],
            "sourcesContent": [content],
            "names": [],
            "mappings": "AAAA",
        });
        ScriptMap::parse(&json.to_string(), None).expect("parse")
    }

    #[test]
    fn typescript_definitions_are_found_with_their_types() {
        let map = map_with(STORE, "src/store.ts");
        let at = |line, column| vec![(0, BodyStart { line, column })];
        assert_eq!(definitions_in(&map, "Store.add"), at(3, 44));
        assert_eq!(definitions_in(&map, "add"), at(3, 44));
        assert_eq!(definitions_in(&map, "twice"), at(9, 44));
        // An overload's signature has no body.
        assert!(definitions_in(&map, "get").is_empty());
        assert!(definitions_in(&map, "Other.add").is_empty());
        // JavaScript is read as JavaScript: `): number {` is no body there.
        assert!(definitions_in(&map_with(STORE, "src/store.js"), "add").is_empty());
    }
}

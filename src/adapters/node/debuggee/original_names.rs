//! The names the user wrote for a minifier's locals: in a bundle, `escapeHtmlEntities(text)`
//! runs as `o(e)`, and V8's scopes say `e`. The map names each renamed identifier where it
//! stands (`e` is `text`), so within a frame's own scopes the generated names are read at those
//! places in the script's text: `locals` shows `text`, and `print text` (rewritten to `e`) works.
//! An identifier the map names two ways in those scopes (an inner function's own `e`) keeps its
//! generated name.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use serde_json::Value;

use super::super::cdp::Cdp;
use super::super::scripts::Scripts;
use super::super::source_maps;
use super::script_texts::ScriptTexts;

/// A scope's CDP location as a 0-based (line, column).
fn location(value: &Value) -> Option<(u32, u32)> {
    Some((
        u32::try_from(value["lineNumber"].as_u64()?).ok()?,
        u32::try_from(value["columnNumber"].as_u64()?).ok()?,
    ))
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The identifier that starts at UTF-16 `column` of `line`.
fn identifier_at(line: &str, column: u32) -> Option<String> {
    let units: Vec<u16> = line.encode_utf16().collect();
    let rest = String::from_utf16_lossy(units.get(usize::try_from(column).ok()?..)?);
    let identifier: String = rest
        .chars()
        .take_while(|c| is_identifier_char(*c))
        .collect();
    (!identifier.is_empty() && !identifier.starts_with(|c: char| c.is_ascii_digit()))
        .then_some(identifier)
}

/// `expression` with the identifiers `names` has (not properties after a `.`, nor anything in
/// a string or template literal) replaced by their value.
fn rewrite(expression: &str, names: &HashMap<String, String>) -> String {
    let mut out = String::with_capacity(expression.len());
    let mut chars = expression.chars().peekable();
    let mut after_dot = false;
    while let Some(c) = chars.next() {
        if matches!(c, '\'' | '"' | '`') {
            out.push(c);
            while let Some(inner) = chars.next() {
                out.push(inner);
                if inner == '\\' {
                    out.extend(chars.next());
                } else if inner == c {
                    break;
                }
            }
            after_dot = false;
        } else if is_identifier_char(c) {
            let mut word = String::from(c);
            while let Some(next) = chars.next_if(|n| is_identifier_char(*n)) {
                word.push(next);
            }
            match names.get(&word).filter(|_| !after_dot) {
                Some(generated) => out.push_str(generated),
                None => out.push_str(&word),
            }
            after_dot = false;
        } else {
            out.push(c);
            if !c.is_whitespace() {
                after_dot = c == '.';
            }
        }
    }
    out
}

/// Adds the generated names the map names within CDP `scope` to `found` (`None`: named two
/// ways).
fn names_in_scope(
    map: &source_maps::ScriptMap,
    lines: &[&str],
    scope: &Value,
    found: &mut HashMap<String, Option<String>>,
) {
    let (Some(start), Some(end)) = (
        location(&scope["startLocation"]),
        location(&scope["endLocation"]),
    ) else {
        return;
    };
    for ((line, column), name) in map.named_between(start, end) {
        let Some(generated) = lines
            .get(line as usize)
            .and_then(|l| identifier_at(l, column))
        else {
            continue;
        };
        if generated == name {
            continue;
        }
        match found.entry(generated) {
            Entry::Vacant(vacant) => {
                vacant.insert(Some(name.to_string()));
            }
            Entry::Occupied(mut taken) => {
                if taken.get().as_deref() != Some(name) {
                    taken.insert(None);
                }
            }
        }
    }
}

/// For the paused `frame` in a script with a source map: each generated name in its own scopes
/// (function, blocks) with the name written, where the map says it.
pub async fn written_names(
    cdp: Option<&Cdp>,
    frame: Option<&Value>,
    scripts: &Scripts,
    texts: &mut ScriptTexts,
) -> HashMap<String, String> {
    let Some(frame) = frame else {
        return HashMap::new();
    };
    let Some(id) = frame["location"]["scriptId"].as_str() else {
        return HashMap::new();
    };
    let Some(map) = scripts.get(id).and_then(|s| s.map.clone()) else {
        return HashMap::new();
    };
    let Some(text) = texts.get(cdp, id).await else {
        return HashMap::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut found: HashMap<String, Option<String>> = HashMap::new();
    // The innermost scopes up to the function's own, as `locals` shows them (the blocks
    // outside it, such as a class's, span much of a bundle).
    for scope in frame["scopeChain"].as_array().into_iter().flatten() {
        let kind = scope["type"].as_str();
        if !matches!(kind, Some("local" | "block" | "catch")) {
            break;
        }
        names_in_scope(&map, &lines, scope, &mut found);
        if kind == Some("local") {
            break;
        }
    }
    found
        .into_iter()
        .filter_map(|(generated, name)| Some((generated, name?)))
        .collect()
}

/// `expression` to evaluate in `frame`, its written names turned into the generated ones V8
/// knows.
pub async fn in_generated_names(
    cdp: Option<&Cdp>,
    frame: Option<&Value>,
    scripts: &Scripts,
    texts: &mut ScriptTexts,
    expression: &str,
) -> String {
    let generated: HashMap<String, String> = written_names(cdp, frame, scripts, texts)
        .await
        .into_iter()
        .map(|(generated, written)| (written, generated))
        .collect();
    if generated.is_empty() {
        return expression.to_string();
    }
    rewrite(expression, &generated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identifier_is_read_where_the_map_puts_it() {
        assert_eq!(
            identifier_at("function o(e){return e}", 11),
            Some("e".into())
        );
        assert_eq!(identifier_at("'é';let $x=1", 8), Some("$x".into()));
        assert_eq!(identifier_at("a+1", 1), None);
        assert_eq!(identifier_at("a", 5), None);
    }

    #[test]
    fn written_names_become_generated_ones_outside_strings_and_properties() {
        let names: HashMap<String, String> = [("text", "e"), ("price", "r")]
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .into();
        assert_eq!(rewrite("text.length + price", &names), "e.length + r");
        assert_eq!(
            rewrite("o.text + 'text' + `price`", &names),
            "o.text + 'text' + `price`"
        );
        assert_eq!(
            rewrite("a. price + \"te\\\"xt\" + texts", &names),
            "a. price + \"te\\\"xt\" + texts"
        );
    }
}

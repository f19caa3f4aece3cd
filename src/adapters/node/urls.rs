//! Script URLs and the files they name: the file a URL names, a relative path as a suffix to
//! look for, and the `urlRegex` patterns that match a file's script however Node spells its URL.

use std::path::{Path, PathBuf};

/// A relative path as a suffix to look for: `./` and `..` that lead it are dropped (they are
/// relative to a folder the adapter does not know), `a/../b` becomes `b`. `None` when nothing
/// is left, or when `path` is absolute (an absolute path is a file, not a suffix).
pub fn suffix_of(path: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let mut suffix = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => suffix.push(part),
            Component::ParentDir => {
                suffix.pop();
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!suffix.as_os_str().is_empty()).then_some(suffix)
}

/// The file a script URL names: `file:///a/b%20c.js` and `/a/b.js` are files; `node:fs`,
/// `evalmachine.<anonymous>` and the empty URL of an `eval` are not.
pub fn path_of_url(url: &str) -> Option<PathBuf> {
    if let Some(rest) = url.strip_prefix("file://") {
        let path = percent_decode(rest);
        // Windows: `file:///C:/app/main.js` names `C:/app/main.js`.
        return Some(match path.strip_prefix('/') {
            Some(drive) if is_drive_path(drive) => PathBuf::from(drive),
            _ => PathBuf::from(path),
        });
    }
    (url.starts_with('/') || is_drive_path(url)).then(|| PathBuf::from(url))
}

/// A Windows absolute path (`C:\app\main.js`, `C:/app/main.js`), whichever OS reads it: Node on
/// Windows names CommonJS scripts so, and ES modules `file:///C:/app/main.js`.
fn is_drive_path(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'\\' | b'/')
}

/// A `urlRegex` matching the script of `path` however Node names it: as a `file://` URL or a
/// bare path, by the path given or by the real path behind symlinks (Node resolves them).
pub fn url_regex(path: &Path) -> String {
    let mut forms = vec![path.to_path_buf()];
    if let Ok(real) = std::fs::canonicalize(path)
        && real != path
    {
        forms.push(real);
    }
    let mut alternatives = Vec::new();
    for form in forms {
        let text = form.to_string_lossy().to_string();
        let mut spellings = vec![text.clone()];
        if is_drive_path(&text) {
            // The URL's path: `/C:/app/main.js`.
            spellings.push(format!("/{}", text.replace('\\', "/")));
        }
        for spelling in spellings {
            alternatives.push(regex::escape(&spelling));
            let encoded = percent_encode(&spelling);
            if encoded != spelling {
                alternatives.push(regex::escape(&encoded));
            }
        }
    }
    format!("^(file://)?({})$", alternatives.join("|"))
}

/// A `urlRegex` matching every script whose file path ends with `suffix` on whole components,
/// however Node spells its URL: so a breakpoint by a bare or relative name binds in a script that
/// loads later, wherever it comes from.
pub fn url_suffix_regex(suffix: &Path) -> String {
    // Components joined by either separator: a URL has `/`, a Windows path `\`.
    let parts: Vec<String> = suffix
        .iter()
        .map(|part| part.to_string_lossy().to_string())
        .collect();
    let joined = |encode: bool| {
        parts
            .iter()
            .map(|part| {
                let part = if encode {
                    percent_encode(part)
                } else {
                    part.clone()
                };
                regex::escape(&part)
            })
            .collect::<Vec<_>>()
            .join(r"[/\\]")
    };
    let mut alternatives = vec![joined(false)];
    let encoded = joined(true);
    if encoded != alternatives[0] {
        alternatives.push(encoded);
    }
    format!(r"(^|[/\\])({})$", alternatives.join("|"))
}

pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(hex) = text.get(i + 1..i + 3)
            && let Ok(byte) = u8::from_str_radix(hex, 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes what a `file://` URL path cannot hold as it is.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~:".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_urls_and_paths_name_files() {
        assert_eq!(
            path_of_url("file:///tmp/a%20b.js"),
            Some(PathBuf::from("/tmp/a b.js"))
        );
        assert_eq!(path_of_url("/tmp/c.js"), Some(PathBuf::from("/tmp/c.js")));
        assert_eq!(path_of_url("node:internal/main"), None);
        assert_eq!(path_of_url(""), None);
        // Node on Windows: ES modules by URL, CommonJS scripts by path.
        assert_eq!(
            path_of_url("file:///C:/app/my%20lib/a.js"),
            Some(PathBuf::from("C:/app/my lib/a.js"))
        );
        assert_eq!(
            path_of_url("C:\\app\\main.js"),
            Some(PathBuf::from("C:\\app\\main.js"))
        );
        assert_eq!(path_of_url("C:relative.js"), None);
    }

    #[test]
    fn a_windows_path_matches_its_url_and_its_bare_spelling() {
        let pattern =
            regex::Regex::new(&url_regex(Path::new("C:\\app\\my lib\\main.js"))).expect("regex");
        assert!(pattern.is_match("file:///C:/app/my%20lib/main.js"));
        assert!(pattern.is_match("C:\\app\\my lib\\main.js"));
        assert!(!pattern.is_match("file:///D:/app/my%20lib/main.js"));
        let suffix = regex::Regex::new(&url_suffix_regex(Path::new("lib/util.js"))).expect("regex");
        assert!(suffix.is_match("file:///C:/x/lib/util.js"));
        assert!(suffix.is_match("C:\\x\\lib\\util.js"));
        assert!(!suffix.is_match("C:\\x\\mylib\\util.js"));
    }

    #[test]
    fn the_url_regex_matches_both_spellings() {
        let pattern =
            regex::Regex::new(&url_regex(Path::new("/no/such dir/app.js"))).expect("valid regex");
        assert!(pattern.is_match("file:///no/such%20dir/app.js"));
        assert!(pattern.is_match("/no/such dir/app.js"));
        assert!(!pattern.is_match("file:///no/such%20dir/app.jsx"));
        assert!(!pattern.is_match("file:///other/no/such%20dir/app.js"));
    }

    #[test]
    fn relative_paths_become_suffixes() {
        let suffix = |p: &str| suffix_of(Path::new(p));
        assert_eq!(suffix("util.js"), Some(PathBuf::from("util.js")));
        assert_eq!(suffix("./lib/util.js"), Some(PathBuf::from("lib/util.js")));
        assert_eq!(suffix("../lib/util.js"), Some(PathBuf::from("lib/util.js")));
        assert_eq!(suffix("a/../b/util.js"), Some(PathBuf::from("b/util.js")));
        assert_eq!(suffix("/abs/util.js"), None);
        assert_eq!(suffix(".."), None);
        assert_eq!(suffix(""), None);
    }

    #[test]
    fn a_suffix_pattern_matches_whole_components_only() {
        let pattern = |suffix: &str| {
            regex::Regex::new(&url_suffix_regex(Path::new(suffix))).expect("valid regex")
        };
        let util = pattern("util.js");
        assert!(util.is_match("file:///x/lib/util.js"));
        assert!(util.is_match("/x/util.js"));
        assert!(!util.is_match("file:///x/myutil.js"));
        assert!(!util.is_match("file:///x/util.jsx"));
        let lib = pattern("lib/util.js");
        assert!(lib.is_match("file:///x/lib/util.js"));
        assert!(!lib.is_match("file:///x/mylib/util.js"));
        assert!(!lib.is_match("file:///x/lib/other/util.js"));
        let spaced = pattern("my dir/a.js");
        assert!(spaced.is_match("file:///x/my%20dir/a.js"));
        assert!(spaced.is_match("/x/my dir/a.js"));
        // Regex characters in a name are literal.
        assert!(!pattern("a.js").is_match("file:///x/abjs"));
    }
}

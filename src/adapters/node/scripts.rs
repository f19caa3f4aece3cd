//! The scripts V8 has parsed, by id, with the file each came from; and the mapping between file
//! paths and the URLs Node gives scripts (`file:///a/b.js`, or a bare path in old Nodes).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One parsed script.
#[derive(Debug, Clone)]
pub struct Script {
    pub url: String,
    /// The file on disk, for scripts that came from one (not `node:internal/...`).
    pub path: Option<PathBuf>,
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
        };
        self.by_id.insert(id.to_string(), script);
        self.by_id.get(id).filter(|s| s.path.is_some())
    }

    pub fn get(&self, id: &str) -> Option<&Script> {
        self.by_id.get(id)
    }

    /// The user's files among the parsed scripts (Node's own `node:` modules excluded).
    pub fn files(&self) -> impl Iterator<Item = &Script> {
        self.by_id.values().filter(|s| s.path.is_some())
    }
}

/// The file a script URL names: `file:///a/b%20c.js` and `/a/b.js` are files; `node:fs`,
/// `evalmachine.<anonymous>` and the empty URL of an `eval` are not.
pub fn path_of_url(url: &str) -> Option<PathBuf> {
    if let Some(rest) = url.strip_prefix("file://") {
        return Some(PathBuf::from(percent_decode(rest)));
    }
    url.starts_with('/').then(|| PathBuf::from(url))
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
        alternatives.push(regex::escape(&text));
        let encoded = percent_encode(&text);
        if encoded != text {
            alternatives.push(regex::escape(&encoded));
        }
    }
    format!("^(file://)?({})$", alternatives.join("|"))
}

fn percent_decode(text: &str) -> String {
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
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
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
}

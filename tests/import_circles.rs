//! No import circles between the files of `src/`.
//!
//! File A depends on file B when A names an item that B defines: through a `use` (`crate::`,
//! `super::`, `self::`, a child module), a path in the code (`super::x::y()`), or a glob
//! (`use super::*`) whose names A then uses. A module's `mod.rs` is the module's file. A
//! re-export (`pub use`, or a private `use` a child reaches through `super::*`) is followed to
//! the file that defines the item: the file that passes a name on does not depend on it. A
//! module's file and the files of its own parts (`daemon/session/mod.rs` and
//! `daemon/session/events.rs`) are one concern: a part naming its module's type through
//! `super::`, and the module calling its parts, is the module tree, not a circle. Two other
//! files that depend on each other hold a concern in the wrong one of them: the test fails
//! naming each circle and the items that close it.
//!
//! A plain scan of tokens, not a compiler: it knows modules, `use` trees, item definitions and
//! paths, and treats a glob-imported name as used wherever the word appears in the importing
//! module outside a field or method access.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The words that start an item definition whose name follows.
const ITEM_KEYWORDS: &[&str] = &[
    "fn", "struct", "enum", "trait", "type", "const", "static", "union",
];

/// The tokens of Rust source: identifiers, `::`, and single punctuation characters. Comments,
/// string and character literals, lifetimes and numbers are dropped.
fn tokens(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if let Some(end) = raw_string_end(&chars, i) {
            i = end;
        } else if c == '"' || ((c == 'b' || c == 'c') && at(i + 1) == '"') {
            i += if c == '"' { 1 } else { 2 };
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if c == '\'' || (c == 'b' && at(i + 1) == '\'') {
            let start = if c == '\'' { i + 1 } else { i + 2 };
            if at(start) == '\\' {
                i = start + 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(start + 1) == '\'' {
                i = start + 2;
            } else {
                // A lifetime or label: its name is no path.
                i = start;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_ascii_digit() {
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            if c == 'r' && at(i + 1) == '#' {
                i += 2;
            }
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else if c == ':' && at(i + 1) == ':' {
            out.push("::".to_string());
            i += 2;
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

/// Where a raw string literal (`r"…"`, `r#"…"#`, `br"…"`) that starts at `i` ends, if one does.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if chars.get(j) == Some(&'b') || chars.get(j) == Some(&'c') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(j)
}

/// What a `use` brings into its module: one name (under its alias) or everything (`*`).
#[derive(Clone)]
enum Binding {
    Name(String),
    Glob,
}

/// One path of a `use` tree.
#[derive(Clone)]
struct Import {
    path: Vec<String>,
    binding: Binding,
    /// `pub use` (of any visibility) at the module's top level: a re-export.
    reexport: bool,
}

/// A module: its file, what it defines, and what it imports.
#[derive(Default)]
struct Module {
    file: String,
    children: BTreeSet<String>,
    defined: HashSet<String>,
    imports: Vec<Import>,
    /// The module's code outside its `use` items and its inline child modules.
    body: Vec<String>,
}

/// Where a path leads: a module, or an item of a file.
#[derive(Clone, PartialEq)]
enum Target {
    Module(String),
    Item(String),
}

struct Crate {
    modules: BTreeMap<String, Module>,
}

fn parent(module: &str) -> &str {
    module.rsplit_once("::").map_or(module, |(p, _)| p)
}

/// The module path of a source file: `src/lib.rs` is `crate`, `src/a/mod.rs` and `src/a.rs` are
/// `crate::a`.
fn module_of(name: &str) -> Option<String> {
    let rest = name.strip_prefix("src/")?.strip_suffix(".rs")?;
    if rest == "lib" {
        return Some("crate".into());
    }
    if rest == "main" {
        return None;
    }
    let rest = rest.strip_suffix("/mod").unwrap_or(rest);
    Some(format!("crate::{}", rest.replace('/', "::")))
}

/// The paths of one `use` tree starting at `tokens[i]`, with the index past its `;`.
fn use_tree(
    tokens: &[String],
    mut i: usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Binding)>,
) -> usize {
    let mut path = prefix;
    loop {
        match tokens.get(i).map(String::as_str) {
            Some("{") => {
                i += 1;
                loop {
                    i = use_tree(tokens, i, path.clone(), out);
                    match tokens.get(i).map(String::as_str) {
                        Some(",") => i += 1,
                        Some("}") => return i + 1,
                        _ => return i,
                    }
                    if tokens.get(i).map(String::as_str) == Some("}") {
                        return i + 1;
                    }
                }
            }
            Some("*") => {
                out.push((path, Binding::Glob));
                return i + 1;
            }
            Some("::") => i += 1,
            Some(word) if is_ident(word) => {
                path.push(word.to_string());
                i += 1;
                match tokens.get(i).map(String::as_str) {
                    Some("::") => i += 1,
                    Some("as") => {
                        let alias = tokens.get(i + 1).cloned().unwrap_or_default();
                        out.push((path, Binding::Name(alias)));
                        return i + 2;
                    }
                    _ => {
                        let name = if path.last().is_some_and(|l| l == "self") {
                            path.pop();
                            path.last().cloned().unwrap_or_default()
                        } else {
                            word.to_string()
                        };
                        out.push((path, Binding::Name(name)));
                        return i;
                    }
                }
            }
            _ => return i,
        }
    }
}

fn is_ident(word: &str) -> bool {
    word.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Reads one file's modules (its own and the inline ones) into `modules`.
fn read_file(name: &str, module: &str, text: &str, modules: &mut BTreeMap<String, Module>) {
    let tokens = tokens(text);
    // The modules open at this point, each with the brace depth its items sit at.
    let mut scopes: Vec<(String, usize)> = vec![(module.to_string(), 0)];
    modules.entry(module.to_string()).or_default().file = name.to_string();
    let mut depth = 0;
    let mut i = 0;
    while i < tokens.len() {
        let (current, item_depth) = scopes.last().cloned().expect("the file's own module");
        let at_top = depth == item_depth;
        let word = tokens[i].as_str();
        let next = tokens.get(i + 1).map(String::as_str).unwrap_or("");
        match word {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth < item_depth {
                    scopes.pop();
                }
            }
            "mod" if is_ident(next) && tokens.get(i + 2).is_some_and(|t| t == "{") => {
                let inner = format!("{current}::{next}");
                modules
                    .entry(current.clone())
                    .or_default()
                    .children
                    .insert(next.to_string());
                modules.entry(inner.clone()).or_default().file = name.to_string();
                depth += 1;
                scopes.push((inner, depth));
                i += 3;
                continue;
            }
            "mod" if is_ident(next) => {
                modules
                    .entry(current.clone())
                    .or_default()
                    .children
                    .insert(next.to_string());
            }
            "use" => {
                let reexport = at_top
                    && (i >= 1 && tokens[i - 1] == "pub"
                        || i >= 1
                            && tokens[i - 1] == ")"
                            && tokens[..i].iter().rev().take(6).any(|t| t == "pub"));
                let mut paths = Vec::new();
                let end = use_tree(&tokens, i + 1, Vec::new(), &mut paths);
                let entry = modules.entry(current.clone()).or_default();
                for (path, binding) in paths {
                    entry.imports.push(Import {
                        path,
                        binding,
                        reexport,
                    });
                }
                i = end;
                continue;
            }
            "macro_rules" if at_top && next == "!" => {
                if let Some(name) = tokens.get(i + 2) {
                    modules
                        .entry(current.clone())
                        .or_default()
                        .defined
                        .insert(name.clone());
                }
            }
            w if at_top
                && ITEM_KEYWORDS.contains(&w)
                && is_ident(next)
                && !ITEM_KEYWORDS.contains(&next)
                && next != "_" =>
            {
                modules
                    .entry(current.clone())
                    .or_default()
                    .defined
                    .insert(next.to_string());
            }
            _ => {}
        }
        modules
            .entry(current)
            .or_default()
            .body
            .push(tokens[i].clone());
        i += 1;
    }
}

impl Crate {
    fn read() -> Crate {
        let mut modules = BTreeMap::new();
        for (name, path) in common::source_files() {
            let Some(module) = module_of(&name) else {
                continue;
            };
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            read_file(&name, &module, &text, &mut modules);
        }
        let names: Vec<String> = modules.keys().cloned().collect();
        for module in names {
            if module != "crate" {
                let (up, last) = module.rsplit_once("::").expect("a child module");
                if let Some(up) = modules.get_mut(up) {
                    up.children.insert(last.to_string());
                }
            }
        }
        Crate { modules }
    }

    /// Where `name`, looked up in `module`, leads.
    fn lookup(
        &self,
        module: &str,
        name: &str,
        seen: &mut HashSet<(String, String)>,
    ) -> Option<Target> {
        if !seen.insert((module.to_string(), name.to_string())) {
            return None;
        }
        let m = self.modules.get(module)?;
        if m.children.contains(name) {
            return Some(Target::Module(format!("{module}::{name}")));
        }
        if m.defined.contains(name) {
            return Some(Target::Item(m.file.clone()));
        }
        for import in &m.imports {
            if let Binding::Name(alias) = &import.binding
                && alias == name
            {
                return self.resolve(module, &import.path, seen);
            }
        }
        for import in &m.imports {
            if let Binding::Glob = import.binding
                && let Some(Target::Module(target)) = self.resolve(module, &import.path, seen)
                && let Some(found) = self.lookup(&target, name, seen)
            {
                return Some(found);
            }
        }
        None
    }

    /// Where `path`, written in `module`, leads: the file of the first item on it.
    fn resolve(
        &self,
        module: &str,
        path: &[String],
        seen: &mut HashSet<(String, String)>,
    ) -> Option<Target> {
        let mut at = Target::Module(module.to_string());
        for (index, segment) in path.iter().enumerate() {
            let Target::Module(current) = &at else {
                break;
            };
            at = match segment.as_str() {
                "crate" if index == 0 => Target::Module("crate".into()),
                "self" => Target::Module(current.clone()),
                "super" => Target::Module(parent(current).to_string()),
                name => self.lookup(current, name, seen)?,
            };
        }
        Some(at)
    }

    /// The names `module` can reach by a glob of it: its items, children and imports, and those
    /// of its own globs.
    fn glob_names(&self, module: &str, seen: &mut HashSet<String>, out: &mut BTreeSet<String>) {
        if !seen.insert(module.to_string()) {
            return;
        }
        let Some(m) = self.modules.get(module) else {
            return;
        };
        out.extend(m.defined.iter().cloned());
        for import in &m.imports {
            match &import.binding {
                Binding::Name(alias) => {
                    out.insert(alias.clone());
                }
                Binding::Glob => {
                    if let Some(Target::Module(target)) =
                        self.resolve(module, &import.path, &mut HashSet::new())
                    {
                        self.glob_names(&target, seen, out);
                    }
                }
            }
        }
    }

    /// Every file-to-file dependency, each with the items that make it.
    fn edges(&self) -> BTreeMap<(String, String), BTreeSet<String>> {
        let mut edges: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
        for (module, m) in &self.modules {
            let mut add = |target: Option<Target>, why: String| {
                if let Some(Target::Item(file)) = target
                    && file != m.file
                    && !related(&m.file, &file)
                {
                    edges.entry((m.file.clone(), file)).or_default().insert(why);
                }
            };
            let used: HashSet<&str> = m
                .body
                .iter()
                .enumerate()
                .filter(|(i, _)| {
                    let before = i
                        .checked_sub(1)
                        .and_then(|b| m.body.get(b))
                        .map(String::as_str);
                    !matches!(before, Some(".") | Some("::"))
                })
                .map(|(_, t)| t.as_str())
                .collect();
            for import in &m.imports {
                let resolved = self.resolve(module, &import.path, &mut HashSet::new());
                match &import.binding {
                    Binding::Name(alias) => {
                        if !import.reexport || used.contains(alias.as_str()) {
                            add(resolved, import.path.join("::"));
                        }
                    }
                    Binding::Glob => match resolved {
                        Some(Target::Module(target)) => {
                            let mut names = BTreeSet::new();
                            self.glob_names(&target, &mut HashSet::new(), &mut names);
                            for name in names {
                                let own = m.defined.contains(&name)
                                    || m.children.contains(&name)
                                    || m.imports.iter().any(
                                        |i| matches!(&i.binding, Binding::Name(a) if *a == name),
                                    );
                                if !own && used.contains(name.as_str()) {
                                    let found = self.lookup(&target, &name, &mut HashSet::new());
                                    add(found, format!("{}::{name}", import.path.join("::")));
                                }
                            }
                        }
                        other => add(other, import.path.join("::")),
                    },
                }
            }
            // Paths in the code: `super::x::y`, `crate::a::B`, `child::f`.
            let body = &m.body;
            let mut i = 0;
            while i < body.len() {
                let starts = is_ident(&body[i])
                    && body.get(i + 1).is_some_and(|t| t == "::")
                    && (i == 0 || body[i - 1] != "::");
                if !starts {
                    i += 1;
                    continue;
                }
                let mut path = vec![body[i].clone()];
                let mut j = i + 1;
                while body.get(j).is_some_and(|t| t == "::")
                    && body.get(j + 1).is_some_and(|t| is_ident(t))
                {
                    path.push(body[j + 1].clone());
                    j += 2;
                }
                let first = self.resolve(module, &path[..1], &mut HashSet::new());
                if matches!(first, Some(Target::Module(_))) {
                    add(
                        self.resolve(module, &path, &mut HashSet::new()),
                        path.join("::"),
                    );
                }
                i = j;
            }
        }
        edges
    }
}

/// Whether one of two files is the file of a module that holds the other: a folder's `mod.rs`
/// and its parts are one concern, and a part naming its module's items through `super::` (or the
/// module calling its parts) is the module tree, not a circle between concerns.
fn related(a: &str, b: &str) -> bool {
    let (Some(a), Some(b)) = (module_of(a), module_of(b)) else {
        return false;
    };
    let holds = |outer: &str, inner: &str| inner.starts_with(&format!("{outer}::"));
    holds(&a, &b) || holds(&b, &a)
}

/// The strongly connected groups of more than one file (Tarjan's algorithm).
fn circles(edges: &BTreeMap<(String, String), BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        graph.entry(from).or_default().push(to);
        graph.entry(to).or_default();
    }
    struct State<'a> {
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: HashSet<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(node: &'a str, graph: &BTreeMap<&'a str, Vec<&'a str>>, s: &mut State<'a>) {
        let n = s.index.len();
        s.index.insert(node, n);
        s.low.insert(node, n);
        s.stack.push(node);
        s.on_stack.insert(node);
        for &next in &graph[node] {
            if !s.index.contains_key(next) {
                visit(next, graph, s);
                let low = s.low[node].min(s.low[next]);
                s.low.insert(node, low);
            } else if s.on_stack.contains(next) {
                let low = s.low[node].min(s.index[next]);
                s.low.insert(node, low);
            }
        }
        if s.low[node] == s.index[node] {
            let mut group = Vec::new();
            while let Some(top) = s.stack.pop() {
                s.on_stack.remove(top);
                group.push(top.to_string());
                if top == node {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                s.found.push(group);
            }
        }
    }
    let mut state = State {
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: HashSet::new(),
        found: Vec::new(),
    };
    for &node in graph.keys() {
        if !state.index.contains_key(node) {
            visit(node, &graph, &mut state);
        }
    }
    state.found.sort();
    state.found
}

#[test]
fn no_file_of_src_depends_on_itself_through_others() {
    let krate = Crate::read();
    let edges = krate.edges();
    let mut report = Vec::new();
    for group in circles(&edges) {
        let mut lines = vec![format!("circle of {} files:", group.len())];
        for ((from, to), why) in &edges {
            if group.contains(from) && group.contains(to) {
                let why: Vec<&str> = why.iter().map(String::as_str).collect();
                lines.push(format!("  {from} → {to}: {}", why.join(", ")));
            }
        }
        report.push(lines.join("\n"));
    }
    assert!(
        report.is_empty(),
        "import circles (move the item to the file whose concern it is):\n{}",
        report.join("\n")
    );
}

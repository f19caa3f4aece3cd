//! Line breakpoints by source file: a file named bare (`Cart.java`), by a path suffix
//! (`shop/Cart.java`) or in full binds in every loaded class whose SourceFile is that name and
//! whose package fits the path (inner, anonymous and local classes have their own class files
//! and the same SourceFile; lambda bodies are methods of their class). Classes not loaded yet
//! are caught by a class-prepare request filtered by the source name, so the breakpoint binds
//! as its class loads, before any of its code runs.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use serde_json::{Value, json};

use super::conditions::{self, Rule};
use super::heap::JdwpHeap;
use super::types::Types;
use crate::adapters::java::jdwp::commands::{Modifier, modifiers};
use crate::adapters::java::jdwp::events::{EventKind, SuspendPolicy};
use crate::adapters::java::jdwp::signatures::package_folder;
use crate::adapters::java::jdwp::wire::Location;
use crate::adapters::java::jdwp::{Connection, JdwpError};
use crate::dap::requests::{FunctionBreakpoint as Wanted, SetBreakpointsArguments};

/// How many lines down a breakpoint on a line without code may move, within a method that
/// spans it, to the next line that has code.
const MOVE_LIMIT: u32 = 20;

/// The packages of the JDK's own classes, whose files are looked in only when a breakpoint's
/// file is named like one of their classes.
const RUNTIME_PACKAGES: &[&str] = &["Ljava/", "Ljdk/", "Lsun/", "Lcom/sun/", "Ljavax/"];

#[derive(Default)]
pub struct Breakpoints {
    sources: Vec<Source>,
    functions: Vec<FunctionBreakpoint>,
    /// The class-prepare requests that bind function breakpoints in classes loaded later.
    function_prepares: Vec<i32>,
    next_id: i64,
    /// JDWP breakpoint request → the DAP breakpoint it serves.
    by_request: HashMap<i32, i64>,
    /// DAP breakpoint → when it stops (its condition and hit count).
    rules: HashMap<i64, Rule>,
}

struct Source {
    path: PathBuf,
    file_name: String,
    /// The path's folders, for the package to fit.
    folders: Vec<String>,
    /// The class-prepare request that binds this file's breakpoints in classes loaded later.
    prepare_request: Option<i32>,
    lines: Vec<LineBreakpoint>,
    bound_types: HashSet<u64>,
}

struct LineBreakpoint {
    id: i64,
    line: u32,
    /// Where it binds: its own line, or the next with code.
    bound_line: Option<u32>,
    requests: Vec<i32>,
}

impl LineBreakpoint {
    fn to_json(&self, path: &Path) -> Value {
        let mut breakpoint = json!({
            "id": self.id,
            "verified": self.bound_line.is_some(),
            "line": self.bound_line.unwrap_or(self.line),
            "source": { "path": path, "name": path.file_name().map(|n| n.to_string_lossy()) },
        });
        if self.bound_line.is_none() {
            breakpoint["message"] = json!(format!(
                "not loaded yet: no class of {} with code at line {} has loaded; it binds when one loads",
                path.display(),
                self.line
            ));
        }
        breakpoint
    }
}

/// The packages of the Kotlin runtime, where a bare method name does not look.
const KOTLIN_RUNTIME_PACKAGES: &[&str] = &["Lkotlin/", "Lkotlinx/"];

/// A breakpoint on a method by name: `Cart.total`, `com.shop.Cart.total`, a constructor by its
/// class's name (`Cart.Cart`, `Cart.<init>`), or a bare name (`main`, a Kotlin top-level
/// `fun`), which binds in every class of the program, not the JDK's or Kotlin's runtime.
/// A Kotlin companion object's methods are named by the class (`Cart.forOwner`).
struct FunctionBreakpoint {
    id: i64,
    name: String,
    /// The class as written (`Cart`, `com.shop.Cart`); empty for a bare name.
    class: String,
    method: String,
    requests: Vec<i32>,
    bound_types: HashSet<u64>,
}

impl FunctionBreakpoint {
    fn parse(name: &str) -> Option<(String, String)> {
        let name = name.trim();
        let Some((class, method)) = name.rsplit_once('.') else {
            return (!name.is_empty()).then(|| (String::new(), name.to_string()));
        };
        let simple = class.rsplit(['.', '$']).next().unwrap_or(class);
        let method = if method == simple { "<init>" } else { method };
        (!class.is_empty() && !method.is_empty()).then(|| (class.to_string(), method.to_string()))
    }

    /// Whether a class of binary name `name` (`com.shop.Cart$Line`) and `signature` is the one
    /// written, or its Kotlin companion object; any of the program's classes for a bare name.
    fn names_class(&self, name: &str, signature: &str) -> bool {
        if self.class.is_empty() {
            return !RUNTIME_PACKAGES
                .iter()
                .chain(KOTLIN_RUNTIME_PACKAGES)
                .any(|p| signature.starts_with(p))
                && !signature.contains("$$Lambda");
        }
        let written = self.class.replace('$', ".");
        let name = name.replace('$', ".");
        let name = name.strip_suffix(".Companion").unwrap_or(&name);
        name == written || name.ends_with(&format!(".{written}"))
    }

    /// The class-prepare filters that catch the classes it may bind in as they load.
    fn prepare_filters(&self) -> Vec<Vec<Modifier>> {
        if self.class.is_empty() {
            let excluded = RUNTIME_PACKAGES.iter().chain(KOTLIN_RUNTIME_PACKAGES);
            return vec![
                excluded
                    .map(|p| {
                        let package = p.trim_start_matches('L').replace('/', ".");
                        Modifier::ClassExclude(format!("{package}*"))
                    })
                    .collect(),
            ];
        }
        let simple = self.class.rsplit('.').next().unwrap_or_default();
        vec![
            vec![Modifier::ClassMatch(format!("*{simple}"))],
            vec![Modifier::ClassMatch(format!("*{simple}$Companion"))],
        ]
    }

    fn to_json(&self) -> Value {
        let mut breakpoint = json!({ "id": self.id, "verified": !self.requests.is_empty() });
        if self.requests.is_empty() {
            breakpoint["message"] = json!(format!(
                "not loaded yet: no loaded class has a method {}; it binds when one loads",
                self.name
            ));
        }
        breakpoint
    }
}

/// Whether a class of package folder `package` (`com/shop`) can be from a file in `folders`:
/// the path ends with the package, or is a shorter suffix of it, or names no folder.
pub fn package_fits(folders: &[String], package: &str) -> bool {
    let package: Vec<&str> = package.split('/').filter(|p| !p.is_empty()).collect();
    if package.is_empty() || folders.is_empty() {
        return true;
    }
    let folders: Vec<&str> = folders.iter().map(String::as_str).collect();
    folders.ends_with(&package) || package.ends_with(&folders)
}

fn folders_of(path: &Path) -> Vec<String> {
    path.parent()
        .map(|parent| {
            parent
                .components()
                .filter_map(|c| match c {
                    Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The outermost class's simple name in a signature: `Lcom/shop/Cart$Line;` is `Cart`.
fn outer_class(signature: &str) -> &str {
    let inner = signature.trim_start_matches('L').trim_end_matches(';');
    let simple = inner.rsplit('/').next().unwrap_or(inner);
    simple.split('$').next().unwrap_or(simple)
}

impl Breakpoints {
    /// The DAP breakpoint a JDWP breakpoint request serves, when this hit of it stops (its
    /// condition judged in `heap`'s frame, its hit count counted).
    pub async fn hit(&mut self, request: i32, heap: &JdwpHeap) -> Option<i64> {
        let id = *self.by_request.get(&request)?;
        match self.rules.get_mut(&id) {
            Some(rule) => rule.stops(heap).await.then_some(id),
            None => Some(id),
        }
    }

    /// `setFunctionBreakpoints`: the former ones are cleared, the new ones bound in every loaded
    /// class they name and left pending for the classes still to load.
    pub async fn set_functions(
        &mut self,
        jvm: &Connection,
        types: &mut Types,
        wanted: &[Wanted],
    ) -> Result<Value, JdwpError> {
        for old in std::mem::take(&mut self.functions) {
            self.rules.remove(&old.id);
            for request in old.requests {
                self.by_request.remove(&request);
                let _ = jvm.clear_event(EventKind::Breakpoint, request).await;
            }
        }
        for request in self.function_prepares.drain(..) {
            let _ = jvm.clear_event(EventKind::ClassPrepare, request).await;
        }
        let mut answers = Vec::new();
        let mut parsed = Vec::new();
        for wanted in wanted {
            let name = &wanted.name;
            self.next_id += 1;
            if let Some(message) = conditions::refusal(&wanted.options) {
                answers.push(json!({ "id": self.next_id, "verified": false, "message": message }));
                continue;
            }
            self.rules.insert(self.next_id, Rule::of(&wanted.options));
            match FunctionBreakpoint::parse(name) {
                Some((class, method)) => parsed.push(FunctionBreakpoint {
                    id: self.next_id,
                    name: name.clone(),
                    class,
                    method,
                    requests: Vec::new(),
                    bound_types: HashSet::new(),
                }),
                None => answers.push(json!({
                    "id": self.next_id,
                    "verified": false,
                    "message": format!("'{name}' is no method name: write method or Class.method"),
                })),
            }
        }
        self.functions = parsed;
        let filters: Vec<Vec<Modifier>> = self
            .functions
            .iter()
            .flat_map(FunctionBreakpoint::prepare_filters)
            .collect();
        for filter in filters {
            let request = jvm
                .set_event(EventKind::ClassPrepare, SuspendPolicy::All, &filter)
                .await?;
            self.function_prepares.push(request);
        }
        if !self.functions.is_empty() {
            for loaded in jvm.all_classes().await? {
                types.know_signature(loaded.id, &loaded.signature);
                if loaded.signature.starts_with('L') {
                    self.bind_functions(jvm, types, loaded.id, &loaded.signature)
                        .await?;
                }
            }
        }
        answers.extend(self.functions.iter().map(FunctionBreakpoint::to_json));
        Ok(json!({ "breakpoints": answers }))
    }

    /// Binds the function breakpoints that name the class `type_id`; returns those newly bound.
    async fn bind_functions(
        &mut self,
        jvm: &Connection,
        types: &mut Types,
        type_id: u64,
        signature: &str,
    ) -> Result<Vec<Value>, JdwpError> {
        let name = crate::adapters::java::jdwp::signatures::type_name(signature);
        let mut changed = Vec::new();
        for at in 0..self.functions.len() {
            let function = &self.functions[at];
            if function.bound_types.contains(&type_id) || !function.names_class(&name, signature) {
                continue;
            }
            let was_bound = !function.requests.is_empty();
            let method_name = function.method.clone();
            self.functions[at].bound_types.insert(type_id);
            let methods = types.methods(jvm, type_id).await?;
            // Not the compiler's bridges and synthetic methods (Kotlin's `main(String[])` that
            // calls a `main()`, a `$default` overload): a stop in each would stop twice.
            let named = methods.iter().filter(|m| {
                m.name == method_name
                    && !modifiers::is_synthetic(m.modifiers)
                    && m.modifiers & modifiers::BRIDGE == 0
            });
            for method in named {
                let table = types.line_table(jvm, type_id, method.id).await?;
                let Some(first) = table.lines.iter().map(|row| row.index).min() else {
                    continue;
                };
                let location = Location {
                    type_tag: crate::adapters::java::jdwp::wire::TypeTag::Class,
                    class: type_id,
                    method: method.id,
                    index: first,
                };
                let request = jvm
                    .set_event(
                        EventKind::Breakpoint,
                        SuspendPolicy::All,
                        &[Modifier::LocationOnly(location)],
                    )
                    .await?;
                let function = &mut self.functions[at];
                function.requests.push(request);
                self.by_request.insert(request, function.id);
            }
            let function = &self.functions[at];
            if !was_bound && !function.requests.is_empty() {
                changed.push(function.to_json());
            }
        }
        Ok(changed)
    }

    /// `setBreakpoints` for one file: its former breakpoints are cleared, the new ones bound in
    /// every loaded class of the file and left pending for the classes still to load.
    pub async fn set(
        &mut self,
        jvm: &Connection,
        types: &mut Types,
        arguments: &SetBreakpointsArguments,
    ) -> Result<Value, JdwpError> {
        let path = arguments.source.path.clone();
        let at = match self.sources.iter().position(|s| s.path == path) {
            Some(at) => at,
            None => {
                self.sources.push(Source {
                    file_name: path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                    folders: folders_of(&path),
                    path: path.clone(),
                    prepare_request: None,
                    lines: Vec::new(),
                    bound_types: HashSet::new(),
                });
                self.sources.len() - 1
            }
        };
        let old = std::mem::take(&mut self.sources[at].lines);
        for breakpoint in &old {
            self.rules.remove(&breakpoint.id);
            for request in &breakpoint.requests {
                self.by_request.remove(request);
                let _ = jvm.clear_event(EventKind::Breakpoint, *request).await;
            }
        }
        self.sources[at].bound_types.clear();
        // Answers of breakpoints refused, by their place among those asked for.
        let mut refused = Vec::new();
        for (place, wanted) in arguments.breakpoints.iter().enumerate() {
            if let Some(message) = conditions::refusal(&wanted.options) {
                self.next_id += 1;
                refused.push((
                    place,
                    json!({
                        "id": self.next_id,
                        "verified": false,
                        "line": wanted.line,
                        "message": message,
                    }),
                ));
                continue;
            }
            // A line asked for again keeps its id.
            let id = match old.iter().find(|b| b.line == wanted.line) {
                Some(same) => same.id,
                None => {
                    self.next_id += 1;
                    self.next_id
                }
            };
            self.rules.insert(id, Rule::of(&wanted.options));
            self.sources[at].lines.push(LineBreakpoint {
                id,
                line: wanted.line,
                bound_line: None,
                requests: Vec::new(),
            });
        }
        let source = &mut self.sources[at];
        match (source.lines.is_empty(), source.prepare_request) {
            (true, Some(request)) => {
                let _ = jvm.clear_event(EventKind::ClassPrepare, request).await;
                source.prepare_request = None;
            }
            (false, None) => {
                source.prepare_request = Some(
                    jvm.set_event(
                        EventKind::ClassPrepare,
                        SuspendPolicy::All,
                        &[Modifier::SourceNameMatch(source.file_name.clone())],
                    )
                    .await?,
                );
            }
            _ => {}
        }
        if !self.sources[at].lines.is_empty() {
            let stem = Path::new(&self.sources[at].file_name)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            for loaded in jvm.all_classes().await? {
                types.know_signature(loaded.id, &loaded.signature);
                let runtime = RUNTIME_PACKAGES
                    .iter()
                    .any(|p| loaded.signature.starts_with(p));
                if !loaded.signature.starts_with('L')
                    || loaded.signature.contains("$$Lambda")
                    || (runtime && outer_class(&loaded.signature) != stem)
                {
                    continue;
                }
                self.bind_if_ours(jvm, types, at, loaded.id, &loaded.signature)
                    .await?;
            }
        }
        let source = &self.sources[at];
        let mut list: Vec<Value> = source
            .lines
            .iter()
            .map(|b| b.to_json(&source.path))
            .collect();
        for (place, answer) in refused {
            list.insert(place.min(list.len()), answer);
        }
        Ok(json!({ "breakpoints": list }))
    }

    /// A class loaded: the breakpoints of its file bind in it. Returns those newly bound, for
    /// `breakpoint` events.
    pub async fn class_prepared(
        &mut self,
        jvm: &Connection,
        types: &mut Types,
        type_id: u64,
        signature: &str,
    ) -> Result<Vec<Value>, JdwpError> {
        types.know_signature(type_id, signature);
        let mut changed = self.bind_functions(jvm, types, type_id, signature).await?;
        for at in 0..self.sources.len() {
            let before: Vec<bool> = self.sources[at]
                .lines
                .iter()
                .map(|b| b.bound_line.is_some())
                .collect();
            self.bind_if_ours(jvm, types, at, type_id, signature)
                .await?;
            let source = &self.sources[at];
            for (breakpoint, was) in source.lines.iter().zip(before) {
                if !was && breakpoint.bound_line.is_some() {
                    changed.push(breakpoint.to_json(&source.path));
                }
            }
        }
        Ok(changed)
    }

    async fn bind_if_ours(
        &mut self,
        jvm: &Connection,
        types: &mut Types,
        at: usize,
        type_id: u64,
        signature: &str,
    ) -> Result<(), JdwpError> {
        let source = &self.sources[at];
        if source.bound_types.contains(&type_id)
            || !package_fits(&source.folders, package_folder(signature))
        {
            return Ok(());
        }
        let file = match types.source_file(jvm, type_id).await {
            Ok(file) => file,
            // Unloaded again, or not prepared yet: not one to bind in.
            Err(JdwpError::Jvm(_)) => return Ok(()),
            Err(e) => return Err(e),
        };
        if file.as_deref() != Some(source.file_name.as_str()) {
            return Ok(());
        }
        self.sources[at].bound_types.insert(type_id);
        let methods = types.methods(jvm, type_id).await?;
        let last_own_line = types.last_own_line(jvm, type_id).await?;
        let mut tables = Vec::new();
        for method in methods.iter() {
            let mut table = types.line_table(jvm, type_id, method.id).await?;
            if let Some(last) = last_own_line
                && table.lines.iter().any(|row| row.line > last)
            {
                // Lines of functions inlined from other files are not this file's.
                let mut own = (*table).clone();
                own.lines.retain(|row| row.line <= last);
                table = std::sync::Arc::new(own);
            }
            if !table.lines.is_empty() {
                tables.push((method.id, table));
            }
        }
        for index in 0..self.sources[at].lines.len() {
            let line = self.sources[at].lines[index].line;
            let places = places_for(&tables, line);
            for (method, code_index, bound) in places {
                let location = Location {
                    type_tag: crate::adapters::java::jdwp::wire::TypeTag::Class,
                    class: type_id,
                    method,
                    index: code_index,
                };
                let request = jvm
                    .set_event(
                        EventKind::Breakpoint,
                        SuspendPolicy::All,
                        &[Modifier::LocationOnly(location)],
                    )
                    .await?;
                let breakpoint = &mut self.sources[at].lines[index];
                breakpoint.requests.push(request);
                breakpoint.bound_line.get_or_insert(bound);
                self.by_request.insert(request, breakpoint.id);
            }
        }
        Ok(())
    }
}

/// Where `line` binds among a class's methods (their line tables): the first code of the line
/// in each method that has it; else, in a method that spans it, the next line with code.
fn places_for(
    tables: &[(
        u64,
        std::sync::Arc<crate::adapters::java::jdwp::commands::LineTable>,
    )],
    line: u32,
) -> Vec<(u64, u64, u32)> {
    let exact: Vec<(u64, u64, u32)> = tables
        .iter()
        .filter_map(|(method, table)| Some((*method, table.first_index_of(line)?, line)))
        .collect();
    if !exact.is_empty() {
        return exact;
    }
    tables
        .iter()
        .filter(|(_, table)| {
            let lines = table.lines.iter().map(|row| row.line);
            lines.clone().min().is_some_and(|first| first <= line)
                && lines.max().is_some_and(|last| last > line)
        })
        .filter_map(|(method, table)| {
            let next = table
                .lines
                .iter()
                .map(|row| row.line)
                .filter(|&l| l > line && l <= line + MOVE_LIMIT)
                .min()?;
            Some((*method, table.first_index_of(next)?, next))
        })
        .min_by_key(|&(_, _, bound)| bound)
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::adapters::java::jdwp::commands::{LineEntry, LineTable};

    #[test]
    fn a_path_fits_the_packages_it_can_hold() {
        let folders = |p: &str| folders_of(Path::new(p));
        assert!(package_fits(&folders("Cart.java"), "com/shop"));
        assert!(package_fits(&folders("shop/Cart.java"), "com/shop"));
        assert!(package_fits(
            &folders("/src/main/java/com/shop/Cart.java"),
            "com/shop"
        ));
        assert!(!package_fits(
            &folders("/src/com/other/Cart.java"),
            "com/shop"
        ));
        assert!(package_fits(&folders("/tmp/x/Main.java"), ""));
        assert_eq!(outer_class("Lcom/shop/Cart$Line;"), "Cart");
    }

    fn table(rows: &[(u64, u32)]) -> Arc<LineTable> {
        Arc::new(LineTable {
            start: 0,
            end: 100,
            lines: rows
                .iter()
                .map(|&(index, line)| LineEntry { index, line })
                .collect(),
        })
    }

    #[test]
    fn a_line_binds_in_every_method_that_has_it_or_moves_to_the_next_with_code() {
        // `main` spans 10..=14 and holds a lambda's line 12; the lambda's body is line 12 too.
        let tables = vec![
            (1, table(&[(0, 10), (5, 12), (9, 14)])),
            (2, table(&[(0, 12)])),
            (3, table(&[(0, 20), (3, 21)])),
        ];
        assert_eq!(places_for(&tables, 12), vec![(1, 5, 12), (2, 0, 12)]);
        assert_eq!(places_for(&tables, 11), vec![(1, 5, 12)]);
        assert_eq!(places_for(&tables, 17), vec![]);
    }
}

//! Function breakpoints lldb-dap's lookup by name misses: Rust paths as users write them
//! (`crate::module::func`, a generic function, `<Type as Trait>::method`, `Wrapper::get`), bound
//! by LLDB regex breakpoints on the demangled names, one pattern at a time, labelled as lldb-dap's
//! own so its `breakpoint` events and our registry treat them as any other.
//!
//! Apart from `mod.rs` because it is a concern of its own: reading Rust paths and turning them
//! into patterns over both manglings, which the rest of the adapter never needs.

use crate::dap::requests::FunctionBreakpoint;
use crate::dap::types::Breakpoint;

use super::{COMMAND_ESCAPE, console_error};
use crate::adapters::Console;

/// lldb-dap's label on the breakpoints it owns: it reports changes (locations found or lost) of
/// breakpoints that carry it, and only of those, as DAP `breakpoint` events.
const LLDB_DAP_LABEL: &str = "dap";

/// One function breakpoint of a `setFunctionBreakpoints` request, as this module reads it.
pub(super) struct FunctionSpec<'a> {
    pub(super) name: &'a str,
    condition: Option<&'a str>,
    hit_condition: Option<&'a str>,
}

impl<'a> FunctionSpec<'a> {
    pub(super) fn of(bp: &'a FunctionBreakpoint) -> FunctionSpec<'a> {
        let text = |field: Option<&'a str>| field.filter(|t| !t.is_empty());
        FunctionSpec {
            name: bp.name.as_str(),
            condition: text(bp.options.condition.as_deref()),
            hit_condition: text(bp.options.hit_condition.as_deref()),
        }
    }

    /// The options of `breakpoint set`/`modify` that give LLDB this condition and hit count
    /// (DAP's "stop on the Nth hit" is LLDB's "ignore N-1 hits", as lldb-dap has it); `cleared`
    /// also states their absence, for a `modify`. An error names what LLDB cannot be given.
    pub(super) fn lldb_options(&self, cleared: bool) -> Result<String, String> {
        let mut options = String::new();
        match self.condition {
            Some(condition) => {
                let quoted = lldb_quoted(condition).ok_or_else(|| {
                    format!(
                        "LLDB can set this breakpoint only by a command, which cannot carry the condition '{condition}' (a backtick or a control character)"
                    )
                })?;
                options.push_str(&format!(" --condition {quoted}"));
            }
            None if cleared => options.push_str(" --condition \"\""),
            None => {}
        }
        let ignored = self
            .hit_condition
            .and_then(|h| h.trim().parse::<u64>().ok())
            .map_or(0, |n| n.saturating_sub(1));
        if ignored > 0 || cleared {
            options.push_str(&format!(" --ignore-count {ignored}"));
        }
        Ok(options)
    }
}

/// `text` as one double-quoted argument of an LLDB command; `None` if it holds what LLDB would
/// interpret even there (a backtick runs an expression) or a control character.
pub(super) fn lldb_quoted(text: &str) -> Option<String> {
    if text.chars().any(|c| c == '`' || c.is_control()) {
        return None;
    }
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for c in text.chars() {
        if matches!(c, '"' | '\\') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    Some(quoted)
}

/// Function breakpoints bound by a pattern where lldb-dap's lookup by name found nothing.
#[derive(Default)]
pub(super) struct PatternBreakpoints {
    bound: Vec<PatternBreakpoint>,
    /// lldb-dap's ids of name breakpoints already looked at (bound by pattern, or not bindable
    /// so): each is looked at once. lldb-dap keeps one id per name while the name stays listed.
    seen: Vec<i64>,
}

/// A breakpoint set on a pattern for the function breakpoint `name`.
pub(super) struct PatternBreakpoint {
    name: String,
    /// LLDB's id, which stops name.
    id: i64,
    /// The condition and hit condition it was given, to tell when they change.
    condition: Option<String>,
    hit_condition: Option<String>,
}

impl PatternBreakpoint {
    pub(super) fn answer(&self) -> Breakpoint {
        Breakpoint {
            id: Some(self.id),
            verified: true,
            ..Breakpoint::default()
        }
    }
}

impl PatternBreakpoints {
    pub(super) fn find(&self, name: &str) -> Option<&PatternBreakpoint> {
        self.bound.iter().find(|b| b.name == name)
    }

    /// Deletes the breakpoints of names no longer `wanted`, brings the others' condition and hit
    /// count in line with the request, and returns their answers.
    pub(super) async fn keep_only(
        &mut self,
        console: &dyn Console,
        wanted: &[FunctionBreakpoint],
    ) -> Vec<Breakpoint> {
        let mut answers = Vec::new();
        let mut kept = Vec::new();
        for mut bound in std::mem::take(&mut self.bound) {
            let Some(spec) = wanted
                .iter()
                .map(FunctionSpec::of)
                .find(|spec| spec.name == bound.name)
            else {
                run_logged(console, &format!("breakpoint delete {}", bound.id)).await;
                continue;
            };
            let mut answer = bound.answer();
            if spec.condition != bound.condition.as_deref()
                || spec.hit_condition != bound.hit_condition.as_deref()
            {
                match spec.lldb_options(true) {
                    Ok(options) => {
                        let command = format!("breakpoint modify{options} {}", bound.id);
                        if let Some(error) = run_logged(console, &command).await {
                            answer.message = Some(error);
                        }
                        bound.condition = spec.condition.map(str::to_string);
                        bound.hit_condition = spec.hit_condition.map(str::to_string);
                    }
                    Err(message) => answer.message = Some(message),
                }
            }
            answers.push(answer);
            kept.push(bound);
        }
        self.bound = kept;
        answers
    }

    /// Replaces `slot`, lldb-dap's answer for one name, by a breakpoint on the name's pattern if
    /// lldb-dap left it unbound, the name reads as a Rust path, and the pattern finds code.
    pub(super) async fn bind_if_unbound(
        &mut self,
        console: &dyn Console,
        wanted: &[FunctionBreakpoint],
        slot: &mut Breakpoint,
    ) {
        let verified = slot.verified;
        let Some(lldb_dap_id) = slot.id else {
            return;
        };
        if verified || self.seen.contains(&lldb_dap_id) {
            return;
        }
        self.seen.push(lldb_dap_id);
        // lldb-dap answers in an order of its own: LLDB says which name this id is.
        let Ok(listing) = console
            .run(&format!(
                "{COMMAND_ESCAPE}breakpoint list --brief {lldb_dap_id}"
            ))
            .await
        else {
            return;
        };
        let Some(spec) = wanted
            .iter()
            .map(FunctionSpec::of)
            .find(|spec| lists_name(&listing, lldb_dap_id, spec.name))
        else {
            return;
        };
        let Some(path) = RustPath::parse(spec.name) else {
            return;
        };
        let options = match spec.lldb_options(false) {
            Ok(options) => options,
            Err(message) => {
                slot.message = Some(message);
                return;
            }
        };
        let mut found = None;
        for pattern in path.lldb_patterns() {
            found = set_on_pattern(console, &pattern, &options).await;
            if found.is_some() {
                break;
            }
        }
        let Some(id) = found else {
            return;
        };
        // lldb-dap drops its own at the next request, which no longer lists the name; until
        // then it must not stop the program beside ours.
        run_logged(console, &format!("breakpoint delete {lldb_dap_id}")).await;
        let bound = PatternBreakpoint {
            name: spec.name.to_string(),
            id,
            condition: spec.condition.map(str::to_string),
            hit_condition: spec.hit_condition.map(str::to_string),
        };
        *slot = bound.answer();
        self.bound.push(bound);
    }
}

/// Sets a breakpoint on the functions whose names match `pattern`, labelled as lldb-dap's own,
/// and returns its id; `None` (and no breakpoint) if it found no code.
pub(super) async fn set_on_pattern(
    console: &dyn Console,
    pattern: &str,
    options: &str,
) -> Option<i64> {
    let command = format!(
        "{COMMAND_ESCAPE}breakpoint set --func-regex '{pattern}' --breakpoint-name {LLDB_DAP_LABEL}{options}"
    );
    let reply = console.run(&command).await.ok()?;
    let Some((id, locations)) = created_breakpoint(&reply) else {
        tracing::debug!("lldb set no breakpoint on {pattern}: {reply}");
        return None;
    };
    if locations == 0 {
        run_logged(console, &format!("breakpoint delete {id}")).await;
        return None;
    }
    Some(id)
}

/// Runs an LLDB command whose answer only matters if it is an error, which is logged and
/// returned.
pub(super) async fn run_logged(console: &dyn Console, command: &str) -> Option<String> {
    let error = match console.run(&format!("{COMMAND_ESCAPE}{command}")).await {
        Ok(reply) => console_error(&reply),
        Err(e) => Some(e.message),
    };
    if let Some(error) = &error {
        tracing::debug!("lldb: {command}: {error}");
    }
    error
}

/// Whether `breakpoint list --brief ID` answered that breakpoint `id` is one on `name`
/// ("5: name = 'm::total', locations = 0 (pending)").
pub(super) fn lists_name(listing: &str, id: i64, name: &str) -> bool {
    let head = format!("{id}: name = '{name}',");
    listing
        .lines()
        .any(|line| line.trim_start().starts_with(&head))
}

/// The id and the number of locations of the breakpoint `breakpoint set` reports
/// ("Breakpoint 7: 2 locations.", "Breakpoint 8: where = …", "Breakpoint 9: no locations
/// (pending).").
pub(super) fn created_breakpoint(reply: &str) -> Option<(i64, u32)> {
    reply.lines().find_map(|line| {
        let (id, rest) = line.trim().strip_prefix("Breakpoint ")?.split_once(": ")?;
        let id = id.parse().ok()?;
        let locations = if rest.starts_with("no locations") {
            0
        } else if rest.starts_with("where = ") {
            1
        } else {
            rest.strip_suffix(" locations.")?.parse().ok()?
        };
        Some((id, locations))
    })
}

/// A function named as a Rust path, as users write one: `crate::module::func`, `func`,
/// `Type::method`, `module::Type::method`, `Wrapper<T>::get`, `<Type as Trait>::method`.
/// Generic arguments are left out: a generic function means all its instances.
#[derive(Debug, PartialEq)]
pub(super) struct RustPath {
    /// For `<Type as Trait>::method`: the type's path and the trait's.
    qualified: Option<(Vec<String>, Vec<String>)>,
    /// The path after any `<Type as Trait>::`; the last segment is the function.
    segments: Vec<String>,
}

/// A legacy-mangled name's hash, which LLDB leaves on the demangled name
/// (`m::total::h3f236a71d840c4cd`).
const LEGACY_HASH: &str = "::h[0-9a-f]{16}$";
/// Where a path may start in a legacy name: at its start, after a separator, or inside the
/// `$LT$…$GT$` (`<…>`) of a trait impl (`_$LT$m..Rect$u20$as$u20$m..Describe$GT$::describe`).
const LEGACY_START: &str = "(^|::|\\.\\.|\\$LT\\$)";
/// A type's generic parameters in a legacy name (`Wrapper$LT$T$GT$`).
const LEGACY_ARGS: &str = "(\\$LT\\$[^:]*\\$GT\\$)?";
/// ` as ` in a legacy name.
const LEGACY_AS: &str = "\\$u20\\$as\\$u20\\$";
/// A type's generic arguments in a v0 name (`Wrapper<alloc::string::String>`), nested up to
/// three deep, so that `Wrapper` never matches inside another type's arguments.
const V0_ARGS: &str = "(<([^<>]|<([^<>]|<[^<>]*>)*>)*>)?";
/// A function's generic arguments in a v0 name (`total::<u8>`), and the name's end.
const V0_FUNCTION_END: &str = "(::<([^<>]|<([^<>]|<[^<>]*>)*>)*>)?$";

impl RustPath {
    /// Reads `text` as a Rust path; `None` for anything else (a C++ signature, an operator,
    /// `self::`), which is then left to LLDB's lookup by name alone.
    pub(super) fn parse(text: &str) -> Option<RustPath> {
        let text = text.trim();
        let Some(rest) = text.strip_prefix('<') else {
            return Some(RustPath {
                qualified: None,
                segments: path_segments(text)?,
            });
        };
        let close = closing_angle(rest)?;
        let (self_type, trait_path) = rest[..close].split_once(" as ")?;
        let segments = path_segments(rest[close + 1..].strip_prefix("::")?)?;
        if segments.len() != 1 {
            return None;
        }
        Some(RustPath {
            qualified: Some((path_segments(self_type)?, path_segments(trait_path)?)),
            segments,
        })
    }

    /// Regular expressions (POSIX extended, as LLDB takes them) for the names LLDB gives this
    /// function's code, to be tried in turn, in both of rustc's manglings: legacy (the
    /// default), which LLDB 19 demangles to `m::total::h…`, `m::Wrapper$LT$T$GT$::get::h…` and
    /// `_$LT$m..Rect$u20$as$u20$m..Describe$GT$::describe::h…`; then v0, which it demangles to
    /// `m::total::<u8>`, `<m::Wrapper<u32>>::get` and `<m::Rect as m::Describe>::describe`.
    /// The path may be the end of the full one (`Rect::area` for `shapes::geometry::Rect::area`),
    /// and a `Type::method` path also finds a trait's method implemented for that type. They are
    /// separate because LLDB's regex engine takes minutes over a large program's names with
    /// them joined by `|`, and about a second with each alone.
    pub(super) fn lldb_patterns(&self) -> Vec<String> {
        let Some((function, path)) = self.segments.split_last() else {
            return Vec::new();
        };
        match (&self.qualified, path.is_empty()) {
            (Some((self_type, trait_path)), _) => vec![
                format!(
                    "{LEGACY_START}{}{LEGACY_AS}([A-Za-z0-9_]+\\.\\.)*{}\\$GT\\$::{function}{LEGACY_HASH}",
                    legacy_path(self_type),
                    legacy_path(trait_path),
                ),
                format!(
                    "(^<|::){}{V0_ARGS} as (.*::)?{}{V0_ARGS}>::{function}{V0_FUNCTION_END}",
                    self_type.join("::"),
                    trait_path.join("::"),
                ),
            ],
            (None, true) => vec![
                format!("(^|::){function}{LEGACY_HASH}"),
                format!("(^|::){function}{V0_FUNCTION_END}"),
            ],
            (None, false) => {
                let v0 = path.join("::");
                vec![
                    format!(
                        "{LEGACY_START}{}(::|{LEGACY_AS}.*\\$GT\\$::){function}{LEGACY_HASH}",
                        legacy_path(path)
                    ),
                    format!("(^|::){v0}::{function}{V0_FUNCTION_END}"),
                    format!("(^<|::){v0}{V0_ARGS}( as .*)?>::{function}{V0_FUNCTION_END}"),
                ]
            }
        }
    }
}

/// A path as a pattern on legacy names: separated by `::`, or by `..` inside a trait impl's
/// `$LT$…$GT$`, each segment with any generic parameters.
pub(super) fn legacy_path(segments: &[String]) -> String {
    segments
        .iter()
        .map(|segment| format!("{segment}{LEGACY_ARGS}"))
        .collect::<Vec<_>>()
        .join("(::|\\.\\.)")
}

/// The identifiers of a path, without its generic arguments (`Wrapper<T>`, `total::<u8>`) or a
/// leading `::` or `crate::` (names carry the crate's own name, which the pattern leaves open).
/// `None` for anything that is not a path of plain identifiers.
pub(super) fn path_segments(text: &str) -> Option<Vec<String>> {
    let text = text.trim();
    let text = text.strip_prefix("::").unwrap_or(text);
    let mut segments = Vec::new();
    for part in split_outside_angles(text)? {
        let (identifier, arguments) = part.split_at(part.find('<').unwrap_or(part.len()));
        if let Some(inner) = arguments.strip_prefix('<') {
            // The arguments must close at the segment's end.
            if closing_angle(inner)? + 1 != inner.len() {
                return None;
            }
            if identifier.is_empty() && !segments.is_empty() {
                continue; // `::<u8>`
            }
        }
        let identifier = identifier.strip_prefix("r#").unwrap_or(identifier);
        if !is_identifier(identifier) || matches!(identifier, "self" | "super" | "Self") {
            return None;
        }
        segments.push(identifier.to_string());
    }
    if segments.first().is_some_and(|s| s == "crate") {
        segments.remove(0);
    }
    (!segments.is_empty()).then_some(segments)
}

/// `text` split at each `::` outside angle brackets; `None` if the brackets do not pair up.
pub(super) fn split_outside_angles(text: &str) -> Option<Vec<&str>> {
    let mut parts = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' => depth += 1,
            b'>' => depth = depth.checked_sub(1)?,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => {
                parts.push(&text[start..i]);
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    (depth == 0).then(|| {
        parts.push(&text[start..]);
        parts
    })
}

/// The index in `text` (which follows a `<`) of the `>` that closes it.
pub(super) fn closing_angle(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' if depth == 0 => return Some(i),
            '>' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// An ASCII Rust identifier: what a mangled name carries as written, and what a pattern may
/// hold without escaping.
pub(super) fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests;

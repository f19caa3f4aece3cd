//! lldb-dap (formerly lldb-vscode), LLVM's adapter for C, C++, Rust and anything else LLDB reads.

use std::borrow::Cow;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::process::{BoxFuture, SpawnedAdapter, spawn_stdio};
use super::{Console, ConsoleMemory, DebugAdapter, Requests, highest_versioned_on_path};
use crate::common::config::AdapterConfig;
use crate::common::error::{ErrorBody, ErrorCode};
use crate::common::scratch::ScratchFile;
use crate::ipc::protocol::{AttachSpec, LaunchSpec};

pub struct LldbDap {
    executable: PathBuf,
    extra_args: Vec<String>,
    /// The function breakpoints this run binds by pattern (see [`PatternBreakpoints`]). Each
    /// run has an adapter of its own, so these never outlive the lldb-dap that holds them.
    patterns: tokio::sync::Mutex<PatternBreakpoints>,
}

/// The packages that provide lldb-dap, for the "not found" hint.
pub const INSTALL_HINT: &str = "install LLDB: 'apt-get install lldb-19' (Debian/Ubuntu), \
'dnf install lldb' (Fedora), 'brew install llvm' (macOS), or set adapters.lldb.path in the config";

impl LldbDap {
    /// The adapter at the far end of `--connect`: nothing is started, so nothing need be
    /// installed here; only its launch and attach arguments are used.
    pub fn remote() -> LldbDap {
        LldbDap {
            executable: PathBuf::from("lldb-dap"),
            extra_args: Vec::new(),
            patterns: Default::default(),
        }
    }

    /// Finds lldb-dap: the config's path, else `lldb-dap` on PATH, else the highest
    /// `lldb-dap-NN`, else `lldb-vscode(-NN)`, else `xcrun --find lldb-dap` on macOS.
    pub fn locate(config: &AdapterConfig) -> Result<LldbDap, ErrorBody> {
        let executable = match &config.path {
            Some(path) if path.is_file() => path.clone(),
            Some(path) => {
                return Err(ErrorBody::new(
                    ErrorCode::AdapterNotFound,
                    format!(
                        "lldb-dap not found at {} (adapters.lldb.path in the config)",
                        path.display()
                    ),
                    "fix the path in the config, or remove it to search PATH",
                ));
            }
            None => find_on_system().ok_or_else(|| {
                ErrorBody::new(
                    ErrorCode::AdapterNotFound,
                    "lldb-dap not found",
                    INSTALL_HINT,
                )
            })?,
        };
        Ok(LldbDap {
            executable,
            extra_args: config.args.clone(),
            patterns: Default::default(),
        })
    }
}

/// The search that runs when the config names no path.
pub fn find_on_system() -> Option<PathBuf> {
    which::which("lldb-dap")
        .ok()
        .or_else(|| highest_versioned_on_path("lldb-dap"))
        .or_else(|| which::which("lldb-vscode").ok())
        .or_else(|| highest_versioned_on_path("lldb-vscode"))
        .or_else(xcrun_lldb_dap)
}

#[cfg(target_os = "macos")]
fn xcrun_lldb_dap() -> Option<PathBuf> {
    let output = std::process::Command::new("xcrun")
        .args(["--find", "lldb-dap"])
        .output()
        .ok()?;
    let path = String::from_utf8(output.stdout).ok()?;
    let path = PathBuf::from(path.trim());
    (output.status.success() && path.is_file()).then_some(path)
}

#[cfg(not(target_os = "macos"))]
fn xcrun_lldb_dap() -> Option<PathBuf> {
    None
}

/// LLDB's version for an lldb-dap executable ("19.1.7"), for `doctor`. lldb-dap 19 prints
/// nothing for `--version`, so the `lldb` installed beside it is asked (beside the resolved file,
/// e.g. /usr/lib/llvm-19/bin/lldb, or by name, lldb-dap-19 → lldb-19); failing that, the major
/// version in the name (`lldb-dap-19` → "19").
pub fn version(executable: &Path) -> Option<String> {
    let name = executable.file_name()?.to_str()?;
    let mut siblings = Vec::new();
    if let Some(dir) = std::fs::canonicalize(executable)
        .ok()
        .and_then(|real| real.parent().map(Path::to_path_buf))
    {
        siblings.push(dir.join("lldb"));
    }
    if let Some(dir) = executable.parent() {
        let stem = name
            .strip_prefix("lldb-dap")
            .or_else(|| name.strip_prefix("lldb-vscode"));
        if let Some(suffix) = stem {
            siblings.push(dir.join(format!("lldb{suffix}")));
        }
    }
    siblings
        .iter()
        .filter(|lldb| lldb.is_file())
        .find_map(|lldb| lldb_version(lldb))
        .or_else(|| {
            let suffix = name.rsplit('-').next()?;
            (!suffix.is_empty() && suffix.chars().all(|c| c.is_ascii_digit()))
                .then(|| suffix.to_string())
        })
}

/// Reads `lldb --version`: "lldb version 19.1.7" → "19.1.7"; Apple's "lldb-1500.0.404.1" →
/// "1500.0.404.1".
fn lldb_version(lldb: &Path) -> Option<String> {
    let output = std::process::Command::new(lldb)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().next()?;
    line.split_whitespace()
        .find(|word| word.starts_with(|c: char| c.is_ascii_digit()))
        .or_else(|| line.split_whitespace().next()?.strip_prefix("lldb-"))
        .map(str::to_string)
}

/// LLDB settings that make the debuggee run as the user asked: only the environment we pass
/// (the caller's, not the daemon's), and stdin from /dev/null so a program that reads input sees
/// end-of-file instead of waiting forever on a terminal nobody types into.
fn init_commands() -> Value {
    json!([
        "settings set target.inherit-env false",
        "settings set target.input-path /dev/null",
    ])
}

impl DebugAdapter for LldbDap {
    fn name(&self) -> &'static str {
        "lldb"
    }

    fn executable(&self) -> &Path {
        &self.executable
    }

    fn spawn(&self) -> BoxFuture<'_, Result<SpawnedAdapter, ErrorBody>> {
        let args: Vec<OsString> = self.extra_args.iter().map(OsString::from).collect();
        Box::pin(async move { spawn_stdio("lldb-dap", &self.executable, &args) })
    }

    fn adapter_id(&self) -> &'static str {
        "lldb-dap"
    }

    fn launch_arguments(&self, spec: &LaunchSpec) -> Value {
        let env: Vec<String> = spec.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        // lldb-dap takes the environment as "KEY=VALUE" strings.
        super::launch_with(spec, json!({ "env": env, "initCommands": init_commands() }))
    }

    fn attach_arguments(&self, spec: &AttachSpec) -> Value {
        json!({ "pid": spec.pid })
    }

    /// lldb-dap runs the debuggee on a pty, so the program's stdout and stderr both arrive as
    /// `stdout`; its `stderr` category carries lldb-dap's own stderr (and its crash reports).
    fn is_program_output(&self, category: Option<&str>) -> bool {
        category == Some("stdout")
    }

    /// The pty turns each `\n` the program writes into `\r\n`; give the user back their `\n`.
    fn clean_program_output<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if text.contains("\r\n") {
            Cow::Owned(text.replace("\r\n", "\n"))
        } else {
            Cow::Borrowed(text)
        }
    }

    /// lldb-dap reports both `pause` and the entry stop as an `exception` "signal SIGSTOP"; a
    /// pause that lands while LLDB handles one of its internal breakpoints (negative ids, e.g.
    /// the dynamic loader's "breakpoint -1.1") comes as a `breakpoint` stop, or as the `step`
    /// "trace" of LLDB stepping over it (a user's step says "step over", "step in", ...).
    fn is_interrupt_stop(&self, reason: &str, description: Option<&str>) -> bool {
        matches!(reason, "pause" | "entry")
            || (reason == "exception" && description == Some("signal SIGSTOP"))
            || (reason == "breakpoint"
                && description.is_some_and(|d| d.starts_with("breakpoint -")))
            || (reason == "step" && description == Some("trace"))
    }

    /// lldb-dap 19 has no `readMemory`, but LLDB itself reads memory.
    fn console_memory(&self) -> Option<&dyn ConsoleMemory> {
        Some(self)
    }

    /// LLDB's lookup by name misses most Rust paths: a generic function (`m::total`, whose
    /// instances are `total<u8>` and `total<u32>`), a method of a generic type (`Wrapper::get`),
    /// a trait method (`Rect::describe`, `<Rect as Describe>::describe`). lldb-dap's own
    /// breakpoint comes first; one it leaves unbound, on a name that reads as a Rust path, is
    /// replaced by a breakpoint on a pattern of the demangled names that path means (see
    /// [`RustPath::lldb_patterns`]), if that pattern finds the function. Its LLDB id then answers
    /// for the name, so stops map to it like any other; it carries lldb-dap's label, so lldb-dap
    /// reports its changes as it does its own. A name no pattern finds either keeps lldb-dap's
    /// breakpoint, pending, which binds should a library bring that name later.
    fn set_function_breakpoints<'a>(
        &'a self,
        requests: &'a dyn Requests,
        arguments: Value,
    ) -> BoxFuture<'a, Result<Value, ErrorBody>> {
        Box::pin(async move {
            let console = Repl(requests);
            let mut patterns = self.patterns.lock().await;
            let wanted: Vec<Value> = arguments
                .get("breakpoints")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let mut answer = patterns.keep_only(&console, &wanted).await;
            let by_name: Vec<Value> = wanted
                .iter()
                .filter(|bp| patterns.find(FunctionSpec::of(bp).name).is_none())
                .cloned()
                .collect();
            let mut body = requests
                .request("setFunctionBreakpoints", json!({ "breakpoints": by_name }))
                .await?;
            let mut from_lldb_dap: Vec<Value> = body
                .get("breakpoints")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for slot in &mut from_lldb_dap {
                patterns.bind_if_unbound(&console, &wanted, slot).await;
            }
            answer.extend(from_lldb_dap);
            if let Some(fields) = body.as_object_mut() {
                fields.insert("breakpoints".into(), Value::Array(answer));
            }
            Ok(body)
        })
    }
}

/// lldb-dap's default `commandEscapePrefix`: console text that starts with it is always an LLDB
/// command, never an expression, whatever the repl mode and whatever variables are in scope.
const COMMAND_ESCAPE: &str = "`";

/// Reads memory with LLDB's `memory read --binary`, which writes the raw bytes to a file: a
/// scratch file of ours (new, 0600, removed after), so the bytes travel without a text format to
/// parse. Only a number and our own path reach LLDB's command line, never the user's text.
/// `--force` lifts LLDB's 1 KiB `target.max-memory-read-size`; the session caps the count.
impl ConsoleMemory for LldbDap {
    fn read<'a>(
        &'a self,
        console: &'a dyn Console,
        address: u64,
        count: u32,
    ) -> BoxFuture<'a, Result<Vec<u8>, ErrorBody>> {
        Box::pin(async move {
            let file = ScratchFile::create("lldb-memory")?;
            let command = memory_read_command(file.path(), address, count)?;
            let reply = console.run(&command).await?;
            if let Some(error) = console_error(&reply) {
                return Err(ErrorBody::new(ErrorCode::Adapter, error, ""));
            }
            let mut bytes = tokio::fs::read(file.path()).await.map_err(|e| {
                ErrorBody::internal(format!(
                    "cannot read back what lldb wrote to {}: {e}",
                    file.path().display()
                ))
            })?;
            if bytes.is_empty() && count > 0 {
                // A remote lldb-dap (--connect) writes to its own machine's file system.
                return Err(ErrorBody::new(
                    ErrorCode::Adapter,
                    format!(
                        "lldb wrote nothing to {}; it answered: {}",
                        file.path().display(),
                        reply.trim()
                    ),
                    "lldb-dap must run on this machine to read memory",
                ));
            }
            bytes.truncate(count as usize);
            Ok(bytes)
        })
    }
}

/// The console as an adapter hook reaches it: `evaluate` in the `repl` context, with no frame
/// (LLDB commands need none).
struct Repl<'a>(&'a dyn Requests);

impl Console for Repl<'_> {
    fn run<'a>(&'a self, text: &'a str) -> BoxFuture<'a, Result<String, ErrorBody>> {
        Box::pin(async move {
            let body = self
                .0
                .request("evaluate", json!({ "expression": text, "context": "repl" }))
                .await?;
            Ok(body
                .get("result")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string())
        })
    }
}

/// lldb-dap's label on the breakpoints it owns: it reports changes (locations found or lost) of
/// breakpoints that carry it, and only of those, as DAP `breakpoint` events.
const LLDB_DAP_LABEL: &str = "dap";

/// One function breakpoint of a `setFunctionBreakpoints` request, as this module reads it.
struct FunctionSpec<'a> {
    name: &'a str,
    condition: Option<&'a str>,
    hit_condition: Option<&'a str>,
}

impl<'a> FunctionSpec<'a> {
    fn of(bp: &'a Value) -> FunctionSpec<'a> {
        let text = |key: &str| {
            bp.get(key)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
        };
        FunctionSpec {
            name: text("name").unwrap_or_default(),
            condition: text("condition"),
            hit_condition: text("hitCondition"),
        }
    }

    /// The options of `breakpoint set`/`modify` that give LLDB this condition and hit count
    /// (DAP's "stop on the Nth hit" is LLDB's "ignore N-1 hits", as lldb-dap has it); `cleared`
    /// also states their absence, for a `modify`. An error names what LLDB cannot be given.
    fn lldb_options(&self, cleared: bool) -> Result<String, String> {
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
fn lldb_quoted(text: &str) -> Option<String> {
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
struct PatternBreakpoints {
    bound: Vec<PatternBreakpoint>,
    /// lldb-dap's ids of name breakpoints already looked at (bound by pattern, or not bindable
    /// so): each is looked at once. lldb-dap keeps one id per name while the name stays listed.
    seen: Vec<i64>,
}

/// A breakpoint set on a pattern for the function breakpoint `name`.
struct PatternBreakpoint {
    name: String,
    /// LLDB's id, which stops name.
    id: i64,
    /// The condition and hit condition it was given, to tell when they change.
    condition: Option<String>,
    hit_condition: Option<String>,
}

impl PatternBreakpoint {
    fn answer(&self) -> Value {
        json!({ "id": self.id, "verified": true })
    }
}

impl PatternBreakpoints {
    fn find(&self, name: &str) -> Option<&PatternBreakpoint> {
        self.bound.iter().find(|b| b.name == name)
    }

    /// Deletes the breakpoints of names no longer `wanted`, brings the others' condition and hit
    /// count in line with the request, and returns their answers.
    async fn keep_only(&mut self, console: &dyn Console, wanted: &[Value]) -> Vec<Value> {
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
                            answer["message"] = json!(error);
                        }
                        bound.condition = spec.condition.map(str::to_string);
                        bound.hit_condition = spec.hit_condition.map(str::to_string);
                    }
                    Err(message) => answer["message"] = json!(message),
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
    async fn bind_if_unbound(&mut self, console: &dyn Console, wanted: &[Value], slot: &mut Value) {
        let verified = slot.get("verified").and_then(Value::as_bool) == Some(true);
        let Some(lldb_dap_id) = slot.get("id").and_then(Value::as_i64) else {
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
                slot["message"] = json!(message);
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
async fn set_on_pattern(console: &dyn Console, pattern: &str, options: &str) -> Option<i64> {
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
async fn run_logged(console: &dyn Console, command: &str) -> Option<String> {
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
fn lists_name(listing: &str, id: i64, name: &str) -> bool {
    let head = format!("{id}: name = '{name}',");
    listing
        .lines()
        .any(|line| line.trim_start().starts_with(&head))
}

/// The id and the number of locations of the breakpoint `breakpoint set` reports
/// ("Breakpoint 7: 2 locations.", "Breakpoint 8: where = …", "Breakpoint 9: no locations
/// (pending).").
fn created_breakpoint(reply: &str) -> Option<(i64, u32)> {
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
struct RustPath {
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
    fn parse(text: &str) -> Option<RustPath> {
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
    fn lldb_patterns(&self) -> Vec<String> {
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
fn legacy_path(segments: &[String]) -> String {
    segments
        .iter()
        .map(|segment| format!("{segment}{LEGACY_ARGS}"))
        .collect::<Vec<_>>()
        .join("(::|\\.\\.)")
}

/// The identifiers of a path, without its generic arguments (`Wrapper<T>`, `total::<u8>`) or a
/// leading `::` or `crate::` (names carry the crate's own name, which the pattern leaves open).
/// `None` for anything that is not a path of plain identifiers.
fn path_segments(text: &str) -> Option<Vec<String>> {
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
fn split_outside_angles(text: &str) -> Option<Vec<&str>> {
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
fn closing_angle(text: &str) -> Option<usize> {
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
fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `memory read` of `count` bytes at `address` into `file`.
fn memory_read_command(file: &Path, address: u64, count: u32) -> Result<String, ErrorBody> {
    let path = file.to_str().filter(|p| {
        // Inside LLDB's double quotes a backslash escapes and a backtick runs an expression.
        !p.chars()
            .any(|c| matches!(c, '"' | '\\' | '`') || c.is_control())
    });
    let Some(path) = path else {
        return Err(ErrorBody::new(
            ErrorCode::Unsupported,
            format!(
                "lldb cannot be given the scratch file path {}",
                file.display()
            ),
            "set DEBUGGER_RUNTIME_DIR to a directory whose path has no quotes, backslashes or backticks",
        ));
    };
    Ok(format!(
        "{COMMAND_ESCAPE}memory read --binary --force --count {count} --outfile \"{path}\" {address:#x}"
    ))
}

/// The first `error:` line of LLDB's answer ("memory read failed for 0x0"), without the prefix.
fn console_error(reply: &str) -> Option<String> {
    reply
        .lines()
        .find_map(|line| line.trim().strip_prefix("error:"))
        .map(|message| message.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_read_command_quotes_our_path_and_refuses_what_lldb_would_interpret() {
        let command = memory_read_command(Path::new("/run/user 1/m-1"), 0x5555_0000, 64)
            .expect("a plain path");
        assert_eq!(
            command,
            "`memory read --binary --force --count 64 --outfile \"/run/user 1/m-1\" 0x55550000"
        );
        for bad in ["/tmp/a\"b", "/tmp/a`b`", "/tmp/a\\b", "/tmp/a\nb"] {
            let err = memory_read_command(Path::new(bad), 0, 1).expect_err(bad);
            assert_eq!(err.code, ErrorCode::Unsupported);
        }
    }

    fn path(segments: &[&str]) -> Vec<String> {
        segments.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn rust_paths_are_read_without_their_generic_arguments() {
        let plain = |segments: &[&str]| {
            Some(RustPath {
                qualified: None,
                segments: path(segments),
            })
        };
        assert_eq!(
            RustPath::parse("rg::search::search_path"),
            plain(&["rg", "search", "search_path"])
        );
        assert_eq!(RustPath::parse("total"), plain(&["total"]));
        assert_eq!(
            RustPath::parse("crate::m::total::<u8>"),
            plain(&["m", "total"])
        );
        assert_eq!(
            RustPath::parse("::m::Wrapper<T>::get"),
            plain(&["m", "Wrapper", "get"])
        );
        assert_eq!(
            RustPath::parse("Map<K, Vec<V>>::r#try"),
            plain(&["Map", "try"])
        );
        assert_eq!(
            RustPath::parse("<m::Rect as fmt::Display<'a>>::fmt"),
            Some(RustPath {
                qualified: Some((path(&["m", "Rect"]), path(&["fmt", "Display"]))),
                segments: path(&["fmt"]),
            })
        );
        for not_a_path in [
            "",
            "ns::f(int)",
            "operator<",
            "Wrapper<T::get",
            "Wrapper>::get",
            "self::f",
            "<Rect>::area",
            "<Rect as Describe>::describe::more",
            "a b",
            "f::",
            "f.c:12",
        ] {
            assert_eq!(RustPath::parse(not_a_path), None, "{not_a_path}");
        }
    }

    #[test]
    fn patterns_cover_both_manglings_one_at_a_time() {
        let patterns = |text: &str| {
            RustPath::parse(text)
                .map(|p| p.lldb_patterns())
                .unwrap_or_default()
        };
        assert_eq!(
            patterns("total"),
            [
                "(^|::)total::h[0-9a-f]{16}$",
                "(^|::)total(::<([^<>]|<([^<>]|<[^<>]*>)*>)*>)?$"
            ]
        );
        let method = patterns("Wrapper::get");
        assert_eq!(
            method[0],
            "(^|::|\\.\\.|\\$LT\\$)Wrapper(\\$LT\\$[^:]*\\$GT\\$)?(::|\\$u20\\$as\\$u20\\$.*\\$GT\\$::)get::h[0-9a-f]{16}$"
        );
        assert!(
            method[1].starts_with("(^|::)Wrapper::get(::<"),
            "{method:?}"
        );
        assert!(method[2].starts_with("(^<|::)Wrapper(<"), "{method:?}");
        assert!(method[2].contains(")?( as .*)?>::get(::<"), "{method:?}");
        let qualified = patterns("<Rect as Describe>::describe");
        assert!(
            qualified[0].contains("\\$u20\\$as\\$u20\\$([A-Za-z0-9_]+\\.\\.)*Describe("),
            "{qualified:?}"
        );
        assert!(qualified[1].starts_with("(^<|::)Rect(<"), "{qualified:?}");
        assert!(
            qualified[1].contains(" as (.*::)?Describe(<"),
            "{qualified:?}"
        );
        // LLDB's regex engine is slow with alternatives at the top: none has any.
        for pattern in method.iter().chain(&qualified) {
            let mut depth = 0i32;
            for c in pattern.chars() {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    '|' => assert!(depth > 0, "{pattern}"),
                    _ => {}
                }
            }
            // Nothing a user typed reaches a pattern but identifiers: no quote can end it.
            assert!(!pattern.contains('\''), "{pattern}");
        }
    }

    #[test]
    fn conditions_reach_lldb_quoted_and_hit_counts_as_ignore_counts() {
        let spec = json!({ "name": "f", "condition": "s == \"a\\\"b\"", "hitCondition": "3" });
        assert_eq!(
            FunctionSpec::of(&spec).lldb_options(false),
            Ok(" --condition \"s == \\\"a\\\\\\\"b\\\"\" --ignore-count 2".to_string())
        );
        let bare = json!({ "name": "f" });
        assert_eq!(
            FunctionSpec::of(&bare).lldb_options(false),
            Ok(String::new())
        );
        assert_eq!(
            FunctionSpec::of(&bare).lldb_options(true),
            Ok(" --condition \"\" --ignore-count 0".to_string())
        );
        let backtick = json!({ "name": "f", "condition": "`rm`" });
        assert!(FunctionSpec::of(&backtick).lldb_options(false).is_err());
    }

    #[test]
    fn lldbs_breakpoint_answers_are_read() {
        assert_eq!(
            created_breakpoint(
                "(lldb) breakpoint set --func-regex 'x'\nBreakpoint 7: 2 locations.\n"
            ),
            Some((7, 2))
        );
        assert_eq!(
            created_breakpoint("Breakpoint 8: where = a`f + 4 at a.rs:3:5, address = 0x10\n"),
            Some((8, 1))
        );
        assert_eq!(
            created_breakpoint(
                "Breakpoint 9: no locations (pending).\nWARNING:  Unable to resolve breakpoint to any actual locations.\n"
            ),
            Some((9, 0))
        );
        assert_eq!(created_breakpoint("error: invalid regex\n"), None);
        let listing =
            "(lldb) breakpoint list --brief 5\n5: name = 'm::total', locations = 0 (pending)\n";
        assert!(lists_name(listing, 5, "m::total"));
        assert!(!lists_name(listing, 5, "m::tot"));
        assert!(!lists_name(listing, 15, "m::total"));
    }

    #[test]
    fn lldb_errors_are_found_in_its_answer() {
        assert_eq!(
            console_error("(lldb) memory read ...\nerror: memory read failed for 0x0\n"),
            Some("memory read failed for 0x0".to_string())
        );
        assert_eq!(
            console_error(
                "(lldb) memory read ...\n16 bytes written to '/x'\nwarning: Not all bytes (16/32) were able to be read from 0x10.\n"
            ),
            None
        );
    }
}

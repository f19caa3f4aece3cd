//! The paused call frames as DAP frames, and the sources a source map carries for them.

use serde_json::Value;

use super::super::scripts::Scripts;
use super::super::urls::path_of_url;
use super::pause::Paused;
use crate::adapters::dap_server::RequestError;
use crate::dap::requests::{SourceArguments, SourceBody, StackTraceArguments};
use crate::dap::types::{GeneratedLocation, Source, StackFrame, StackTraceBody};

/// Whether a frame is in Node's own JavaScript (`node:internal/...`).
pub fn is_internal(scripts: &Scripts, frame: &Value) -> bool {
    frame_url(scripts, frame).starts_with("node:")
}

/// The URL of a frame's script.
pub fn frame_url(scripts: &Scripts, frame: &Value) -> String {
    let script = frame["location"]["scriptId"].as_str().unwrap_or_default();
    scripts
        .get(script)
        .map(|s| s.url.clone())
        .or_else(|| frame["url"].as_str().map(str::to_string))
        .unwrap_or_default()
}

/// DAP `stackTrace`: every frame, Node's own internals (the module loader under a `require`)
/// included, named by their `node:internal/…` URL, which the session marks as the runtime's
/// machinery and folds in a stack's text. A frame in a script with a source map is shown where
/// the code was written, with where V8 runs it beside.
pub fn stack_trace(
    paused: &Paused,
    scripts: &Scripts,
    arguments: &StackTraceArguments,
) -> StackTraceBody {
    let frames: Vec<(usize, &Value)> = paused.call_frames.iter().enumerate().collect();
    let start = arguments.start_frame as usize;
    let levels = match arguments.levels {
        0 => usize::MAX,
        levels => levels as usize,
    };
    let total = frames.len();
    let stack_frames: Vec<StackFrame> = frames
        .into_iter()
        .skip(start)
        .take(levels)
        .map(|(index, frame)| {
            let script = frame["location"]["scriptId"].as_str().unwrap_or_default();
            let url = scripts
                .get(script)
                .map(|s| s.url.clone())
                .or_else(|| frame["url"].as_str().map(str::to_string))
                .unwrap_or_default();
            let name = match frame["functionName"].as_str() {
                Some(name) if !name.is_empty() => name.to_string(),
                _ => "(anonymous)".to_string(),
            };
            let line = frame["location"]["lineNumber"].as_u64().unwrap_or(0);
            let column = frame["location"]["columnNumber"].as_u64().unwrap_or(0);
            let mut shown = StackFrame {
                id: index as i64 + 1,
                name,
                source: None,
                line: line as u32 + 1,
                column: column as u32 + 1,
                instruction_pointer_reference: None,
                presentation_hint: None,
                generated: None,
            };
            let original = scripts
                .get(script)
                .and_then(|s| s.map.as_ref())
                .and_then(|map| {
                    let original = map.original(line as u32, column as u32)?;
                    // A source the disk lacks and the map carries: ours to give.
                    let held = original.source.content.is_some()
                        && !original.source.path.as_deref().is_some_and(|p| p.is_file());
                    let reference = held
                        .then(|| source_reference(script, map.source_index(original.source)?))
                        .flatten();
                    Some((
                        original.line,
                        original.column,
                        original.source.path.clone(),
                        original.source.written.clone(),
                        reference,
                    ))
                });
            if let Some((line, column, path, written, reference)) = original {
                // The code the user wrote; where V8 runs it, for whoever wants it.
                let function = &frame["functionLocation"];
                let named = frame["functionName"]
                    .as_str()
                    .is_some_and(|n| !n.is_empty());
                if let Some(name) = named
                    .then_some(())
                    .and_then(|()| scripts.get(script))
                    .and_then(|s| s.map.as_ref())
                    .and_then(|map| {
                        map.function_name(
                            function["lineNumber"].as_u64()? as u32,
                            function["columnNumber"].as_u64()? as u32,
                        )
                    })
                {
                    // A minifier's `n` is the map's `total`.
                    shown.name = name.to_string();
                }
                shown.line = line;
                shown.column = column;
                shown.generated = Some(GeneratedLocation {
                    file: path_of_url(&url).map_or(url.clone(), |p| p.display().to_string()),
                    line: shown_line(frame),
                    column: column_of(frame),
                });
                let name = path
                    .as_deref()
                    .and_then(|p| p.file_name())
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or(written);
                shown.source = Some(Source {
                    name: Some(name),
                    path: path.map(|p| p.to_string_lossy().into_owned()),
                    source_reference: reference,
                });
                return shown;
            }
            match path_of_url(&url) {
                Some(path) => {
                    let file = path.file_name().map(|n| n.to_string_lossy().to_string());
                    shown.source = Some(Source {
                        name: file,
                        path: Some(path.to_string_lossy().into_owned()),
                        source_reference: None,
                    });
                }
                None if !url.is_empty() => {
                    shown.source = Some(Source {
                        name: Some(url),
                        ..Source::default()
                    });
                }
                None => {}
            }
            shown
        })
        .collect();
    StackTraceBody {
        stack_frames,
        total_frames: Some(total as u32),
    }
}

/// A CDP call frame's 1-based line and column.
fn shown_line(frame: &Value) -> u32 {
    frame["location"]["lineNumber"].as_u64().unwrap_or(0) as u32 + 1
}

fn column_of(frame: &Value) -> u32 {
    frame["location"]["columnNumber"].as_u64().unwrap_or(0) as u32 + 1
}

/// Sources a map can carry per script, in [`source_reference`]'s numbering.
const SOURCES_PER_SCRIPT: i64 = 4096;

/// DAP's `sourceReference` for source `index` of script `script` (V8 numbers its scripts):
/// stateless, so `source` can turn it back into both.
fn source_reference(script: &str, index: usize) -> Option<i64> {
    let script: i64 = script.parse().ok()?;
    let index = i64::try_from(index)
        .ok()
        .filter(|i| *i < SOURCES_PER_SCRIPT)?;
    script
        .checked_mul(SOURCES_PER_SCRIPT)?
        .checked_add(index + 1)
}

/// DAP `source`: the text a source map carries for a source the disk lacks.
pub fn source(scripts: &Scripts, arguments: &SourceArguments) -> Result<SourceBody, RequestError> {
    let reference = Some(arguments.source_reference)
        .filter(|r| *r > 0)
        .ok_or(RequestError::NoSource)?;
    let (script, index) = (
        reference / SOURCES_PER_SCRIPT,
        (reference % SOURCES_PER_SCRIPT - 1) as usize,
    );
    let content = scripts
        .get(&script.to_string())
        .and_then(|s| s.map.as_ref())
        .and_then(|map| map.sources.get(index))
        .and_then(|source| source.content.clone())
        .ok_or(RequestError::NoSource)?;
    Ok(SourceBody { content })
}

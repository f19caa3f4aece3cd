//! The program at a pause: V8's call frames and why it stopped, and what DAP was handed for
//! that pause (variable references, values set), which the next resume makes void.

use std::collections::HashMap;

use serde_json::Value;

use super::super::values;
use super::returns::Returned;
use crate::adapters::dap_server::RequestError;
use crate::dap::requests::{
    ExceptionBreakMode, ExceptionDetails, ExceptionInfoBody, ScopesArguments,
};
use crate::dap::types::{Scope, ScopesBody};

/// Why the program last stopped, as V8 told it.
pub struct Paused {
    pub call_frames: Vec<Value>,
    pub reason: String,
    pub data: Value,
    /// What the function a finish left returned (see `returns`).
    pub returned: Option<Returned>,
}

/// What a DAP `variablesReference` stands for while the program is paused.
pub enum Handle {
    /// The innermost scopes of a frame shown as one (block scopes and the function's own).
    Locals {
        frame: usize,
        scopes: Vec<(usize, String)>,
        this: Option<This>,
    },
    /// Another scope of a frame (closure, module, global).
    Scope {
        frame: usize,
        number: usize,
        object_id: String,
    },
    Object {
        frame: Option<usize>,
        object_id: String,
        length: Option<u64>,
    },
    /// The value a finish's function returned, the one variable of the top frame's `Return
    /// value` scope.
    Returned(Returned),
}

/// The `this` a frame's locals show.
#[derive(Clone)]
pub enum This {
    /// The call frame's own.
    Given(Value),
    /// V8 gave none (`undefined`): an arrow function's is the one where it was written, which
    /// V8 leaves out of a nested arrow's call frame but resolves when `this` is evaluated there,
    /// as DevTools' console does.
    Lexical,
}

/// The pause of one Node process, and what was handed out for it.
#[derive(Default)]
pub struct Pause {
    paused: Option<Paused>,
    handles: Vec<Handle>,
    /// Values set in a frame's scopes while paused: V8's scope objects are snapshots taken at
    /// the stop, so a variable read back from them after `set` would show its old value.
    overrides: HashMap<(usize, String), Value>,
}

impl Pause {
    /// The program stopped.
    pub fn stopped(&mut self, paused: Paused) {
        self.resumed();
        self.paused = Some(paused);
    }

    /// The program runs again (or is gone): handles and overrides belong to one pause.
    pub fn resumed(&mut self) {
        self.paused = None;
        self.handles.clear();
        self.overrides.clear();
    }

    pub fn is_paused(&self) -> bool {
        self.paused.is_some()
    }

    /// The pause, when the program is paused.
    pub fn current(&self) -> Option<&Paused> {
        self.paused.as_ref()
    }

    pub fn get(&self) -> Result<&Paused, RequestError> {
        self.paused.as_ref().ok_or(RequestError::NotPaused)
    }

    /// The paused frame DAP numbers `frame_id` (from 1).
    pub fn frame(&self, frame_id: i64) -> Result<(usize, &Value), RequestError> {
        let index = usize::try_from(frame_id)
            .ok()
            .and_then(|id| id.checked_sub(1))
            .ok_or(RequestError::NoFrame)?;
        let frame = self
            .get()?
            .call_frames
            .get(index)
            .ok_or(RequestError::FrameGone)?;
        Ok((index, frame))
    }

    pub fn add_handle(&mut self, handle: Handle) -> i64 {
        self.handles.push(handle);
        self.handles.len() as i64
    }

    pub fn handle(&self, reference: i64) -> Result<&Handle, RequestError> {
        usize::try_from(reference)
            .ok()
            .and_then(|r| r.checked_sub(1))
            .and_then(|index| self.handles.get(index))
            .ok_or(RequestError::VariableGone)
    }

    /// A variable of frame `frame`'s scopes set to `value` at this pause.
    pub fn set_override(&mut self, frame: usize, name: &str, value: Value) {
        self.overrides.insert((frame, name.to_string()), value);
    }

    pub fn overridden(&self, frame: usize, name: &str) -> Option<&Value> {
        self.overrides.get(&(frame, name.to_string()))
    }

    /// DAP `scopes` of a paused frame: its locals as one scope, the value a finish's function
    /// returned, and the frame's other scopes (closures, module, global).
    pub fn scopes(&mut self, arguments: &ScopesArguments) -> Result<ScopesBody, RequestError> {
        let (index, frame) = self.frame(arguments.frame_id)?;
        let chain = frame["scopeChain"].as_array().cloned().unwrap_or_default();
        let this = match frame.get("this") {
            Some(this) if this["type"] == "undefined" && !frame["functionLocation"].is_null() => {
                Some(This::Lexical)
            }
            Some(this) => shown_this(this).map(This::Given),
            None => None,
        };
        let returned = match &self.get()?.returned {
            Some(returned) if index == 0 => Some(returned.clone()),
            _ => None,
        };
        let object_id = |scope: &Value| scope["object"]["objectId"].as_str().map(str::to_string);
        // The innermost scopes up to and including the function's own (or the module's).
        let mut locals = Vec::new();
        let mut rest_from = 0;
        for (number, scope) in chain.iter().enumerate() {
            let kind = scope["type"].as_str().unwrap_or_default();
            if !matches!(
                kind,
                "block" | "catch" | "with" | "local" | "module" | "eval"
            ) {
                break;
            }
            if let Some(id) = object_id(scope) {
                locals.push((number, id));
            }
            rest_from = number + 1;
            if matches!(kind, "local" | "module") {
                break;
            }
        }
        // The closures' variables the function uses are its locals too (DevTools lists them
        // apart, under "Closure"; the names the code reads are what a reader looks for), up to
        // the module's: a CommonJS module's wrapper, an anonymous closure right before the
        // global scope, holds the module's top level, which is no local of the function.
        if chain
            .get(rest_from.wrapping_sub(1))
            .is_some_and(|s| s["type"] == "local")
        {
            for (number, scope) in chain.iter().enumerate().skip(rest_from) {
                let outermost = chain
                    .get(number + 1)
                    .is_none_or(|next| matches!(next["type"].as_str(), Some("global" | "script")));
                let wrapper = outermost && scope["name"].as_str().is_none_or(str::is_empty);
                if scope["type"] != "closure" || wrapper {
                    break;
                }
                if let Some(id) = object_id(scope) {
                    locals.push((number, id));
                }
                rest_from = number + 1;
            }
        }
        let mut scopes = Vec::new();
        let reference = self.add_handle(Handle::Locals {
            frame: index,
            scopes: locals,
            this,
        });
        let shown = |name: String, hint: Option<&str>, reference: i64, expensive: bool| Scope {
            name,
            variables_reference: reference,
            expensive,
            presentation_hint: hint.map(str::to_string),
            named_variables: None,
            indexed_variables: None,
        };
        scopes.push(shown("Locals".into(), Some("locals"), reference, false));
        if let Some(returned) = returned {
            let reference = self.add_handle(Handle::Returned(returned));
            scopes.push(shown(
                "Return value".into(),
                Some("returnValue"),
                reference,
                false,
            ));
        }
        for (number, scope) in chain.iter().enumerate().skip(rest_from) {
            let Some(id) = object_id(scope) else {
                continue;
            };
            let kind = scope["type"].as_str().unwrap_or_default();
            let name = match (kind, scope["name"].as_str()) {
                ("closure", Some(of)) if !of.is_empty() => format!("Closure ({of})"),
                ("closure", _) => "Closure".into(),
                ("script", _) => "Script".into(),
                ("module", _) => "Module".into(),
                ("global", _) => "Global".into(),
                ("block", _) => "Block".into(),
                (other, _) => other.to_string(),
            };
            let reference = self.add_handle(Handle::Scope {
                frame: index,
                number,
                object_id: id,
            });
            scopes.push(shown(name, None, reference, kind == "global"));
        }
        Ok(ScopesBody { scopes })
    }

    /// DAP `exceptionInfo`: the exception the program stopped on.
    pub fn exception_info(&self) -> Result<ExceptionInfoBody, RequestError> {
        let paused = self.get()?;
        if !matches!(paused.reason.as_str(), "exception" | "promiseRejection") {
            return Err("the program did not stop on an exception".into());
        }
        let error = &paused.data;
        let description = error["description"].as_str().map(str::to_string);
        let type_name = match error["subtype"].as_str() {
            Some("error") => error["className"].as_str().unwrap_or("Error").to_string(),
            _ => values::type_name(error),
        };
        let message = match error["subtype"].as_str() {
            // "TypeError: x is not a function\n    at ..." → "x is not a function", and all of
            // a message of several lines (an assertion's "…equal:\n\n6 !== 7").
            Some("error") => {
                let text = values::error_message(
                    description.as_deref().unwrap_or_default(),
                    error["className"].as_str(),
                );
                let (first, rest) = text.split_once('\n').unwrap_or((text.as_str(), ""));
                let first = first.split_once(": ").map_or(first, |(_, message)| message);
                match rest {
                    "" => first.to_string(),
                    rest => format!("{first}\n{rest}"),
                }
            }
            _ => values::display(error),
        };
        Ok(ExceptionInfoBody {
            exception_id: Some(type_name.clone()),
            description: Some(message.clone()),
            break_mode: Some(ExceptionBreakMode::Unhandled),
            details: Some(ExceptionDetails {
                type_name: Some(type_name),
                message: Some(message),
                stack_trace: description,
            }),
        })
    }
}

/// A frame's `this` as its locals show it: an object other than the global one (whose members
/// are every global), or nothing.
pub fn shown_this(this: &Value) -> Option<Value> {
    let shown = this["type"] == "object"
        && this["subtype"] != "null"
        && !matches!(this["className"].as_str(), Some("global" | "Window"));
    shown.then(|| this.clone())
}

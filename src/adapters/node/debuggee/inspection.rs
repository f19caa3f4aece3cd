//! Values at a pause: scopes and their variables (handles that live until the program runs
//! again), evaluation with V8's timeout, `setVariable`, and the exception a pause is for.

use super::*;

impl Debuggee {
    /// Handles and overrides belong to one pause: the program moved on.
    pub(super) fn forget_pause_objects(&mut self) {
        self.focus.handles.clear();
        self.focus.overrides.clear();
    }

    pub(super) fn add_handle(&mut self, handle: Handle) -> i64 {
        self.focus.handles.push(handle);
        self.focus.handles.len() as i64
    }

    pub(super) fn scopes(&mut self, arguments: &ScopesArguments) -> Answer {
        let (index, frame) = self.frame(arguments.frame_id)?;
        let chain = frame["scopeChain"].as_array().cloned().unwrap_or_default();
        let this = match frame.get("this") {
            Some(this) if this["type"] == "undefined" && !frame["functionLocation"].is_null() => {
                Some(This::Lexical)
            }
            Some(this) => shown_this(this).map(This::Given),
            None => None,
        };
        let returned = match &self.paused()?.returned {
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
        scopes.push(json!({
            "name": "Locals",
            "presentationHint": "locals",
            "variablesReference": reference,
            "expensive": false,
        }));
        if let Some(returned) = returned {
            let reference = self.add_handle(Handle::Returned(returned));
            scopes.push(json!({
                "name": "Return value",
                "presentationHint": "returnValue",
                "variablesReference": reference,
                "expensive": false,
            }));
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
            scopes.push(json!({
                "name": name,
                "variablesReference": reference,
                "expensive": kind == "global",
            }));
        }
        Ok(json!({ "scopes": scopes }))
    }

    pub(super) fn handle_of(&self, reference: i64) -> Result<&Handle, RequestError> {
        usize::try_from(reference)
            .ok()
            .and_then(|r| r.checked_sub(1))
            .and_then(|index| self.focus.handles.get(index))
            .ok_or(RequestError::VariableGone)
    }

    pub(super) async fn variables(&mut self, arguments: &VariablesArguments) -> Answer {
        let cdp = self.cdp()?.clone();
        let (frame, objects, this, length, is_scope) =
            match self.handle_of(arguments.variables_reference)? {
                Handle::Locals {
                    frame,
                    scopes,
                    this,
                } => (
                    Some(*frame),
                    scopes.iter().map(|(_, id)| id.clone()).collect::<Vec<_>>(),
                    this.clone(),
                    None,
                    true,
                ),
                Handle::Scope {
                    frame, object_id, ..
                } => (Some(*frame), vec![object_id.clone()], None, None, true),
                Handle::Object {
                    frame,
                    object_id,
                    length,
                } => (*frame, vec![object_id.clone()], None, *length, false),
                Handle::Returned(returned) => {
                    let returned = returned.clone();
                    let name = format!("(return) {}", returned.function);
                    return Ok(
                        json!({ "variables": [self.variable(Some(0), &name, &returned.value)] }),
                    );
                }
            };
        let properties = match length {
            Some(length) => {
                let start = arguments.start.unwrap_or(0);
                let count = arguments
                    .count
                    .unwrap_or_else(|| length.min(UNPAGED_ARRAY_LIMIT));
                array_page(&cdp, &objects[0], start, count).await?
            }
            None => {
                let mut all = Vec::new();
                for object in &objects {
                    all.extend(own_properties(&cdp, object).await?);
                }
                all
            }
        };
        // A minifier's names, told as written (see `original_names`).
        let written = match (frame, is_scope) {
            (Some(frame), true) => self.written_names(frame).await,
            _ => HashMap::new(),
        };
        let mut seen = std::collections::HashSet::new();
        let mut shown = Vec::new();
        let wrapper = MODULE_WRAPPER
            .iter()
            .all(|name| properties.iter().any(|(n, _)| n == name));
        for (name, value) in properties {
            if !seen.insert(name.clone()) || (wrapper && MODULE_WRAPPER.contains(&name.as_str())) {
                continue;
            }
            let value = match frame.filter(|_| is_scope) {
                Some(frame) => self
                    .focus
                    .overrides
                    .get(&(frame, name.clone()))
                    .cloned()
                    .unwrap_or(value),
                None => value,
            };
            let name = written.get(&name).unwrap_or(&name);
            let value = collection_sizes::read_through_class(&cdp, value).await;
            let value = self.with_written_class(value).await;
            shown.push(self.variable(frame, name, &value));
        }
        let this = match this {
            Some(This::Given(this)) => Some(with_preview(&cdp, this).await),
            Some(This::Lexical) => match frame {
                Some(frame) => self
                    .evaluate_raw("this", Some(frame as i64 + 1), EVALUATION_TIMEOUT_MS)
                    .await
                    .ok()
                    .and_then(|(_, this)| shown_this(&this)),
                None => None,
            },
            None => None,
        };
        // At a CommonJS module's top level `this` is `module.exports`: noise too.
        if let Some(this) = this.filter(|_| !wrapper) {
            let this = self.with_written_class(this).await;
            shown.push(self.variable(frame, "this", &this));
        }
        Ok(json!({ "variables": shown }))
    }

    /// A DAP variable for a value, with a handle when it has children.
    pub(super) fn variable(&mut self, frame: Option<usize>, name: &str, value: &Value) -> Value {
        let mut variable = json!({
            "name": name,
            "value": values::display(value),
            "type": values::type_name(value),
            "variablesReference": 0,
        });
        self.attach_children(frame, value, &mut variable);
        variable
    }

    pub(super) fn attach_children(
        &mut self,
        frame: Option<usize>,
        value: &Value,
        target: &mut Value,
    ) {
        if !values::has_children(value) {
            return;
        }
        let Some(object_id) = value["objectId"].as_str() else {
            return;
        };
        let length = values::array_length(value);
        let reference = self.add_handle(Handle::Object {
            frame,
            object_id: object_id.to_string(),
            length,
        });
        target["variablesReference"] = json!(reference);
        if let Some(length) = length {
            target["indexedVariables"] = json!(length);
        }
    }

    /// `Debugger.evaluateOnCallFrame` when paused, `Runtime.evaluate` otherwise; V8 stops the
    /// evaluation after `timeout_ms`.
    pub(super) async fn evaluate_raw(
        &self,
        expression: &str,
        frame_id: Option<i64>,
        timeout_ms: u64,
    ) -> Result<(Option<usize>, Value), RequestError> {
        let cdp = self.cdp()?.clone();
        let (frame, answer) = match self.focus.paused {
            Some(_) => {
                let (index, frame) = self.frame(frame_id.unwrap_or(1))?;
                let call_frame = frame["callFrameId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                let answer = cdp
                    .call(
                        "Debugger.evaluateOnCallFrame",
                        json!({
                            "callFrameId": call_frame,
                            "expression": expression,
                            "generatePreview": true,
                            "silent": true,
                            "timeout": timeout_ms,
                        }),
                    )
                    .await
                    .map_err(|e| timed_out(e, timeout_ms))?;
                (Some(index), answer)
            }
            None => {
                let answer = cdp
                    .call(
                        "Runtime.evaluate",
                        json!({
                            "expression": expression,
                            "generatePreview": true,
                            "silent": true,
                            "replMode": true,
                            "timeout": timeout_ms,
                        }),
                    )
                    .await
                    .map_err(|e| timed_out(e, timeout_ms))?;
                (None, answer)
            }
        };
        if let Some(details) = answer.get("exceptionDetails") {
            return Err(exception_message(details).into());
        }
        Ok((frame, answer["result"].clone()))
    }

    pub(super) async fn evaluate(&mut self, arguments: &EvaluateArguments) -> Answer {
        let expression = arguments.expression.as_str();
        let expression = match (&self.focus.paused, arguments.frame_id) {
            (Some(_), frame) => {
                let index = frame
                    .and_then(|f| usize::try_from(f).ok())
                    .and_then(|f| f.checked_sub(1))
                    .unwrap_or(0);
                self.in_generated_names(expression, index).await
            }
            (None, _) => expression.to_string(),
        };
        let (frame, value) = self
            .evaluate_raw(
                &expression,
                arguments.frame_id,
                arguments.timeout_ms.unwrap_or(EVALUATION_TIMEOUT_MS),
            )
            .await?;
        let value = collection_sizes::read_through_class(self.cdp()?, value).await;
        let value = self.with_written_class(value).await;
        let mut answer = json!({
            "result": values::display(&value),
            "type": values::type_name(&value),
            "variablesReference": 0,
        });
        self.attach_children(frame, &value, &mut answer);
        Ok(answer)
    }

    pub(super) async fn set_variable(&mut self, arguments: &SetVariableArguments) -> Answer {
        let name = arguments.name.as_str();
        let expression = arguments.value.as_str();
        let cdp = self.cdp()?.clone();
        // Where the variable lives: a scope of a frame, or an object.
        enum Target {
            Scopes(usize, Vec<(usize, String)>),
            Object(Option<usize>, String),
        }
        let target = match self.handle_of(arguments.variables_reference)? {
            Handle::Locals { frame, scopes, .. } => Target::Scopes(*frame, scopes.clone()),
            Handle::Scope {
                frame,
                number,
                object_id,
            } => Target::Scopes(*frame, vec![(*number, object_id.clone())]),
            Handle::Object {
                frame, object_id, ..
            } => Target::Object(*frame, object_id.clone()),
            Handle::Returned(_) => return Err("a return value cannot be set".into()),
        };
        let frame_of = |frame: Option<usize>| Some(frame.map_or(1, |f| f as i64 + 1));
        let new_value = match &target {
            Target::Scopes(frame, _) => {
                self.evaluate_raw(expression, frame_of(Some(*frame)), EVALUATION_TIMEOUT_MS)
                    .await
            }
            Target::Object(frame, _) => {
                self.evaluate_raw(expression, frame_of(*frame), EVALUATION_TIMEOUT_MS)
                    .await
            }
        }?
        .1;
        let argument = call_argument(&new_value);
        let (frame, stored) = match target {
            Target::Scopes(frame, scopes) => {
                let mut number = None;
                for (n, object) in &scopes {
                    if own_properties(&cdp, object)
                        .await?
                        .iter()
                        .any(|(p, _)| p == name)
                    {
                        number = Some(*n);
                        break;
                    }
                }
                let number = number.ok_or_else(|| format!("no variable '{name}' in this scope"))?;
                let call_frame = self.frame(frame as i64 + 1)?.1["callFrameId"].clone();
                cdp.call(
                    "Debugger.setVariableValue",
                    json!({
                        "scopeNumber": number,
                        "variableName": name,
                        "newValue": argument,
                        "callFrameId": call_frame,
                    }),
                )
                .await?;
                self.focus
                    .overrides
                    .insert((frame, name.to_string()), new_value.clone());
                (Some(frame), new_value)
            }
            Target::Object(frame, object_id) => {
                let answer = cdp
                    .call(
                        "Runtime.callFunctionOn",
                        json!({
                            "objectId": object_id,
                            "functionDeclaration": SET_PROPERTY,
                            "arguments": [{ "value": name }, argument],
                            "generatePreview": true,
                            "silent": true,
                        }),
                    )
                    .await?;
                if let Some(details) = answer.get("exceptionDetails") {
                    return Err(exception_message(details).into());
                }
                (frame, answer["result"].clone())
            }
        };
        let mut answer = json!({
            "value": values::display(&stored),
            "type": values::type_name(&stored),
            "variablesReference": 0,
        });
        self.attach_children(frame, &stored, &mut answer);
        Ok(answer)
    }

    pub(super) fn exception_info(&self) -> Answer {
        let paused = self.paused()?;
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
        Ok(json!({
            "exceptionId": type_name,
            "description": message,
            "breakMode": "unhandled",
            "details": {
                "message": message,
                "typeName": type_name,
                "stackTrace": description,
            },
        }))
    }
}

/// A frame's `this` as its locals show it: an object other than the global one (whose members
/// are every global), or nothing.
fn shown_this(this: &Value) -> Option<Value> {
    let shown = this["type"] == "object"
        && this["subtype"] != "null"
        && !matches!(this["className"].as_str(), Some("global" | "Window"));
    shown.then(|| this.clone())
}

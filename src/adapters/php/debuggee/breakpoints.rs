//! Breakpoints as Xdebug keeps them: each DAP breakpoint is one DBGp `breakpoint_set` (a
//! `line`, or a `conditional` one that carries its expression; a `call` for a function or
//! `Class::method`), with its hit count as DBGp's `-h`/`-o`. Setting a file's or the functions'
//! list anew removes the ones set before.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::adapters::hit_rule::HitRule;
use crate::adapters::php::dbgp::wire::file_uri;
use crate::adapters::php::dbgp::{Connection, DbgpError};
use crate::dap::requests::{
    BreakpointOptions, ExceptionBreakMode, FunctionBreakpoint, SetBreakpointsArguments,
    SetExceptionBreakpointsArguments,
};

/// A breakpoint Xdebug holds.
#[derive(Debug, Clone)]
struct Placed {
    /// The id the DAP side knows it by.
    id: i64,
    /// Xdebug's id, for `breakpoint_remove`.
    xdebug: String,
    /// Where it is: its file and line, or the function it names.
    place: Place,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    Line(PathBuf, u32),
    Function { class: Option<String>, name: String },
}

#[derive(Debug, Default)]
pub struct Breakpoints {
    lines: HashMap<PathBuf, Vec<Placed>>,
    functions: Vec<Placed>,
    /// Xdebug's ids of the exception breakpoints.
    exceptions: Vec<String>,
    next_id: i64,
}

impl Breakpoints {
    /// Sets a file's line breakpoints.
    pub async fn set_lines(
        &mut self,
        dbgp: &Connection,
        arguments: &SetBreakpointsArguments,
    ) -> Result<Value, DbgpError> {
        let file = arguments.source.path.clone();
        for old in self.lines.remove(&file).unwrap_or_default() {
            remove(dbgp, &old.xdebug).await?;
        }
        let mut placed = Vec::new();
        let mut answers = Vec::new();
        if !file.is_absolute() {
            // Xdebug takes any file URI but stops only where a script's full path equals it:
            // a name the session could not place would be set, and never hit.
            for _ in &arguments.breakpoints {
                let id = self.new_id();
                answers.push(json!({
                    "id": id,
                    "verified": false,
                    "message": "Xdebug needs the file's full path",
                }));
            }
            return Ok(json!({ "breakpoints": answers }));
        }
        for breakpoint in &arguments.breakpoints {
            let mut args = vec![("f", file_uri(&file)), ("n", breakpoint.line.to_string())];
            let kind = match &breakpoint.options.condition {
                Some(_) => "conditional",
                None => "line",
            };
            let answer = self.place(dbgp, kind, &mut args, &breakpoint.options).await;
            let id = self.new_id();
            match answer {
                Ok(xdebug) => {
                    placed.push(Placed {
                        id,
                        xdebug,
                        place: Place::Line(file.clone(), breakpoint.line),
                    });
                    answers.push(json!({ "id": id, "verified": true, "line": breakpoint.line }));
                }
                Err(e) => answers.push(refused(id, e)),
            }
        }
        self.lines.insert(file, placed);
        Ok(json!({ "breakpoints": answers }))
    }

    /// Sets the function breakpoints: `name` for a function, `Class::method` for a method.
    pub async fn set_functions(
        &mut self,
        dbgp: &Connection,
        breakpoints: &[FunctionBreakpoint],
    ) -> Result<Value, DbgpError> {
        for old in std::mem::take(&mut self.functions) {
            remove(dbgp, &old.xdebug).await?;
        }
        let mut answers = Vec::new();
        for breakpoint in breakpoints {
            let (class, name) = match breakpoint.name.rsplit_once("::") {
                Some((class, method)) => (Some(class.to_string()), method.to_string()),
                None => (None, breakpoint.name.clone()),
            };
            let mut args = vec![("m", name.clone())];
            if let Some(class) = &class {
                args.push(("a", class.clone()));
            }
            let id = self.new_id();
            match self
                .place(dbgp, "call", &mut args, &breakpoint.options)
                .await
            {
                Ok(xdebug) => {
                    self.functions.push(Placed {
                        id,
                        xdebug,
                        place: Place::Function { class, name },
                    });
                    answers.push(json!({ "id": id, "verified": true }));
                }
                Err(e) => answers.push(refused(id, e)),
            }
        }
        Ok(json!({ "breakpoints": answers }))
    }

    /// Sets the exception stops: every exception thrown (filter `all`), those nothing catches
    /// (`uncaught`), or those of the classes `catch CLASS` names.
    pub async fn set_exceptions(
        &mut self,
        dbgp: &Connection,
        arguments: &SetExceptionBreakpointsArguments,
    ) -> Result<Value, DbgpError> {
        for old in std::mem::take(&mut self.exceptions) {
            remove(dbgp, &old).await?;
        }
        // Xdebug stops on an exception by its class's name (`*`: every one thrown), and on a
        // PHP error by its kind's name: an exception nothing caught is a "Fatal error".
        let mut classes: Vec<String> = arguments
            .filters
            .iter()
            .filter_map(|f| match f.as_str() {
                "all" => Some("*".to_string()),
                "uncaught" => Some("Fatal error".to_string()),
                _ => None,
            })
            .collect();
        for option in &arguments.exception_options {
            if option.break_mode == ExceptionBreakMode::Never {
                continue;
            }
            // The path's first segment is the category, the classes are below it.
            if let Some(segment) = option.path.get(1).or(option.path.first()) {
                classes.extend(segment.names.iter().cloned());
            }
        }
        let mut answers = Vec::new();
        for class in classes {
            let args = [("t", "exception".to_string()), ("x", class)];
            match dbgp.command("breakpoint_set", &args, None).await {
                Ok(response) => {
                    self.exceptions
                        .push(response.attr("id").unwrap_or_default().to_string());
                    answers.push(json!({ "verified": true }));
                }
                Err(DbgpError::Refused { message, .. }) => {
                    answers.push(json!({ "verified": false, "message": message }));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(json!({ "breakpoints": answers }))
    }

    /// Asks Xdebug to set one breakpoint of `kind` with `args` and the options' condition and
    /// hit count; its id.
    async fn place(
        &self,
        dbgp: &Connection,
        kind: &str,
        args: &mut Vec<(&'static str, String)>,
        options: &BreakpointOptions,
    ) -> Result<String, DbgpError> {
        args.insert(0, ("t", kind.to_string()));
        if let Some(hits) = &options.hit_condition {
            let (operator, value) = match HitRule::parse(hits) {
                Some(HitRule::AtLeast(n)) => (">=", n),
                Some(HitRule::Exactly(n)) => ("==", n),
                Some(HitRule::Every(n)) => ("%", n),
                None => {
                    return Err(DbgpError::Refused {
                        code: 0,
                        message: format!("'{hits}' is no hit count (N, >=N, ==N or %N)"),
                    });
                }
            };
            args.push(("h", value.to_string()));
            args.push(("o", operator.to_string()));
        }
        let data = options.condition.as_deref();
        let response = dbgp.command("breakpoint_set", args, data).await?;
        Ok(response.attr("id").unwrap_or_default().to_string())
    }

    fn new_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// The breakpoints at a file's line.
    pub fn at_line(&self, file: &Path, line: u32) -> Vec<i64> {
        self.lines
            .get(file)
            .into_iter()
            .flatten()
            .filter(|p| p.place == Place::Line(file.to_path_buf(), line))
            .map(|p| p.id)
            .collect()
    }

    /// The function breakpoints that name a frame's function (`Class->method`,
    /// `Class::method` or `function`, as Xdebug's stack names it).
    pub fn at_function(&self, frame_name: &str) -> Vec<i64> {
        let (class, name) = match frame_name.split_once("->").or(frame_name.split_once("::")) {
            Some((class, name)) => (Some(class), name),
            None => (None, frame_name),
        };
        self.functions
            .iter()
            .filter(|p| match &p.place {
                Place::Function {
                    class: wanted,
                    name: wanted_name,
                } => {
                    wanted_name.eq_ignore_ascii_case(name)
                        && wanted.as_deref().map(str::to_ascii_lowercase)
                            == class.map(str::to_ascii_lowercase)
                }
                Place::Line(..) => false,
            })
            .map(|p| p.id)
            .collect()
    }
}

async fn remove(dbgp: &Connection, xdebug: &str) -> Result<(), DbgpError> {
    match dbgp
        .command("breakpoint_remove", &[("d", xdebug.to_string())], None)
        .await
    {
        Ok(_) | Err(DbgpError::Refused { .. }) => Ok(()),
        Err(e) => Err(e),
    }
}

fn refused(id: i64, error: DbgpError) -> Value {
    json!({ "id": id, "verified": false, "message": error.to_string() })
}

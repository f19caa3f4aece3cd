//! `print` of a plain variable path (`a.b.c`, `a[3].b`, `t.0`, `*p`) answered from the frame's
//! variables, the tree `locals` shows, before any expression evaluator is asked.
//!
//! An evaluator may answer a path wrongly where the variables do not: lldb's C++ expression
//! parser, given `args.paths.paths` where `args` is a Rust reference (a pointer in the debug
//! info), read the wrong memory and printed another vector. The variables tree follows
//! references as the adapter's own value formatting does (lldb shows a pointer's pointee as its
//! children, GDB as one child `*p`), so the answer is the one `locals` shows. Anything else
//! (a call, arithmetic, a cast, a name the tree lacks) goes to the evaluator as before.

use super::Session;
use crate::daemon::variables;
use crate::dap::requests::{Scopes, ScopesArguments, Variables, VariablesArguments};
use crate::dap::types::{EvaluateBody, Variable};

/// One step down a path: a member (`.name`, `.0`) or an element (`[3]`).
#[derive(Debug, PartialEq, Eq)]
enum Step<'a> {
    Member(&'a str),
    Index(&'a str),
}

/// A parsed plain path: `derefs` leading `*`, a root variable, then steps.
#[derive(Debug, PartialEq, Eq)]
struct VariablePath<'a> {
    derefs: usize,
    root: &'a str,
    steps: Vec<Step<'a>>,
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Parses `expression` as a plain path, or `None` if it is anything more.
fn parse(expression: &str) -> Option<VariablePath<'_>> {
    let text = expression.trim();
    let rest = text.trim_start_matches('*');
    let derefs = text.len() - rest.len();
    let end = rest.find(|c: char| !is_name_char(c)).unwrap_or(rest.len());
    let root = &rest[..end];
    if root.is_empty() || root.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let mut rest = &rest[end..];
    let mut steps = Vec::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            let end = after
                .find(|c: char| !is_name_char(c))
                .unwrap_or(after.len());
            if end == 0 {
                return None;
            }
            steps.push(Step::Member(&after[..end]));
            rest = &after[end..];
        } else if let Some(after) = rest.strip_prefix('[') {
            let end = after.find(']')?;
            let index = &after[..end];
            if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            steps.push(Step::Index(index));
            rest = &after[end + 1..];
        } else {
            return None;
        }
    }
    Some(VariablePath {
        derefs,
        root,
        steps,
    })
}

/// Whether `child` is what `step` names: `.name` a member, `.0` a tuple field (lldb `0`, GDB
/// `__0`), `[3]` an element.
fn names(step: &Step<'_>, child: &str) -> bool {
    match step {
        Step::Member(name) => {
            child == *name
                || (name.bytes().all(|b| b.is_ascii_digit()) && child == format!("__{name}"))
        }
        Step::Index(index) => {
            child.strip_prefix('[').and_then(|c| c.strip_suffix(']')) == Some(index)
        }
    }
}

/// A pointer's pointee, which a path steps through as Rust's `.` does: the one child named `*p`
/// (lldb, for a pointer to a scalar; GDB, for a C pointer), or the one child `value` of a pointer
/// or reference in Rust's spelling (`&T`, `*mut T`: GDB's Rust printers). lldb shows a pointer
/// to a struct as the struct's members instead, which the path finds directly.
fn pointee<'a>(parent: &Variable, children: &'a [Variable]) -> Option<&'a Variable> {
    let ty = parent.type_name.as_deref().unwrap_or("").trim_start();
    let rust_pointer = ty.starts_with('*') || ty.starts_with('&');
    match children {
        [only] if only.name.starts_with('*') || (rust_pointer && only.name == "value") => {
            Some(only)
        }
        _ => None,
    }
}

impl Session {
    /// The frame's variable at the plain path `expression`, as an evaluation's answer; `None`
    /// when `expression` is not a plain path or the tree does not hold it (the evaluator then
    /// answers). A bare name is left to the evaluator, which reads it right and fresh: GDB's
    /// tree keeps the values of the stop until the program moves, so after `set x 10` it would
    /// still say the old value.
    pub(super) async fn variable_at_path(
        &self,
        expression: &str,
        frame_id: i64,
    ) -> Option<EvaluateBody> {
        let path = parse(expression).filter(|p| p.derefs > 0 || !p.steps.is_empty())?;
        let scopes = self
            .dap()
            .request_typed::<Scopes>(&ScopesArguments { frame_id })
            .await
            .ok()?
            .scopes;
        let mut current = None;
        for scope in variables::locals_scopes(&scopes) {
            let children = self.children(scope.variables_reference).await?;
            if let Some(found) = children.into_iter().find(|v| v.name == path.root) {
                current = Some(found);
                break;
            }
        }
        let mut current = current?;
        for step in &path.steps {
            let mut children = self.children(current.variables_reference).await?;
            if !children.iter().any(|c| names(step, &c.name)) {
                let through = pointee(&current, &children)?.variables_reference;
                children = self.children(through).await?;
            }
            current = children.into_iter().find(|c| names(step, &c.name))?;
        }
        for _ in 0..path.derefs {
            let children = self.children(current.variables_reference).await?;
            current = pointee(&current, &children)?.clone();
        }
        Some(EvaluateBody {
            result: current.value,
            type_name: current.type_name,
            variables_reference: current.variables_reference,
            named_variables: current.named_variables,
            indexed_variables: current.indexed_variables,
            memory_reference: None,
        })
    }

    /// The children of a value (none for a leaf or on any failure).
    async fn children(&self, reference: i64) -> Option<Vec<Variable>> {
        if reference <= 0 {
            return None;
        }
        let arguments = VariablesArguments {
            variables_reference: reference,
            start: None,
            count: None,
        };
        let body = self
            .dap()
            .request_typed::<Variables>(&arguments)
            .await
            .ok()?;
        Some(body.variables)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_parse_and_expressions_do_not() {
        assert_eq!(
            parse("args.paths.paths"),
            Some(VariablePath {
                derefs: 0,
                root: "args",
                steps: vec![Step::Member("paths"), Step::Member("paths")],
            })
        );
        assert_eq!(
            parse("*points[1].y"),
            Some(VariablePath {
                derefs: 1,
                root: "points",
                steps: vec![Step::Index("1"), Step::Member("y")],
            })
        );
        assert_eq!(
            parse("pair.0").map(|p| p.steps),
            Some(vec![Step::Member("0")])
        );
        for expression in [
            "a + 1", "f()", "a->b", "a[i]", "1x", "a.", "(a)", "a[1", "&a", "",
        ] {
            assert_eq!(parse(expression), None, "{expression}");
        }
    }

    #[test]
    fn pointees_are_told_from_a_one_member_struct() {
        let var = |name: &str, ty: &str| Variable {
            name: name.into(),
            value: String::new(),
            type_name: Some(ty.into()),
            variables_reference: 0,
            named_variables: None,
            indexed_variables: None,
        };
        let star = [var("*p", "int")];
        assert!(pointee(&var("p", "int *"), &star).is_some());
        let gdb = [var("value", "values::Args")];
        assert!(pointee(&var("args", "*mut values::Args"), &gdb).is_some());
        assert!(pointee(&var("args", "&values::Args"), &gdb).is_some());
        // lldb: a pointer to a struct whose one member is `value` shows that member.
        assert!(pointee(&var("w", "Wrapper *"), &gdb).is_none());
        assert!(pointee(&var("p", "*mut Pair"), &[var("a", "int"), var("b", "int")]).is_none());
    }

    #[test]
    fn steps_name_children_as_lldb_and_gdb_call_them() {
        assert!(names(&Step::Member("0"), "0"));
        assert!(names(&Step::Member("0"), "__0"));
        assert!(names(&Step::Index("3"), "[3]"));
        assert!(!names(&Step::Index("3"), "[30]"));
        assert!(!names(&Step::Member("x"), "__x"));
    }
}

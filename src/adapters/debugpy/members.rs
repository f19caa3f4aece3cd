//! Which of an object's members debugpy lists are its methods, and which of a frame's locals
//! are no part of the program.
//!
//! pydevd sorts an object's members into groups (`_pydevd_bundle/pydevd_resolver.py`,
//! `get_var_scope`): dunders, then names that start with `_` ("protected"), then routines
//! ("function variables"), then classes. The session groups routines (the methods it counts among
//! what a listing left out) and shows protected members inline, as data. But the name is looked at
//! first: a method called `_callSetUp` is "protected", never a routine, and a unittest
//! `TestCase`'s `self` listed twenty of them among its data. What pydevd's `inspect.isroutine`
//! check would have found is known by the member's type, which pydevd sends.

/// The type names of Python's routines: functions, bound methods, built-in functions and
/// methods (`builtin_method` is how Python 3.11 names `re.Pattern.match` bound to a pattern), the
/// wrappers and descriptors of methods written in C, and Cython's functions.
pub(super) const METHOD_TYPES: &[&str] = &[
    "function",
    "method",
    "builtin_function_or_method",
    "builtin_method",
    "method-wrapper",
    "method_descriptor",
    "wrapper_descriptor",
    "classmethod_descriptor",
    "cython_function_or_method",
];

/// Python run in the program's process (a frameless `evaluate`, with the other set-up of
/// [`crate::adapters::DebugAdapter::program_setup`]) that leaves the class constants of
/// Python's built-in types out of their instances' members: `datetime`'s `max`, `min` and
/// `resolution` (see `class_constants.py`). In a namespace of its own.
pub(super) fn hide_class_constants() -> String {
    let source = serde_json::to_string(include_str!("class_constants.py")).unwrap_or_default();
    format!("exec({source}, {{}})")
}

/// Whether a Python frame's local is one of the temporaries pytest's assertion rewriting puts in
/// a test's frame (`@py_assert1`, `@py_format6`): names no Python code can write, which hold the
/// parts of an `assert` for pytest's report. The test's failure already says what they hold.
pub(crate) fn is_pytest_temporary(name: &str) -> bool {
    name.starts_with("@py_")
}

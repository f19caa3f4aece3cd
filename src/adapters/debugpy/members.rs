//! Which of an object's members debugpy lists are its methods.
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

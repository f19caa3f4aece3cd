//! Which frames of a stack are a runtime's own machinery, per language: what a reader skips on
//! the way from the program's code to where the process began (Rust's `core::ops::function`
//! shims and `std::rt`, Python's `runpy` and `importlib._bootstrap`, node's module loader, Go's
//! `runtime.main`). Each adapter answers with the rules of the languages it runs
//! ([`Profile::runtime_frames`](super::Profile::runtime_frames)); the text of a
//! stack folds a run of them into one line.

use crate::ipc::protocol::Machinery;

/// Whether the frame running a function (in a file, where known) is the runtime's machinery,
/// and whose: one per language.
pub type Rule = fn(&str, Option<&str>) -> Option<Machinery>;

/// Function-name prefixes of Rust's standard library that only carry a call along.
const RUST_SHIMS: &[&str] = &[
    "core::ops::function::",
    "std::rt::",
    "std::panicking::",
    "std::panic::",
    "std::sys::backtrace::",
    "core::panicking::",
];

/// Where Rust's standard library sources are, as a program's debug info names them: rustc's
/// remapped build path (`/rustc/<hash>/library/core/…`) or rustup's source component.
const RUST_LIBRARY_PATHS: &[&str] = &["/lib/rustlib/src/rust/library/"];

/// The C library's start-up and thread entry, under which every native program runs.
const C_START: &[&str] = &[
    "_start",
    "__libc_start_main",
    "__libc_start_main_impl",
    "__libc_start_call_main",
    "start_thread",
    "clone",
    "clone3",
    "__clone",
    "__clone3",
    "thread_start",
];

/// A native program's frame (lldb, GDB, CodeLLDB): Rust's standard library, or the C library's
/// start-up.
pub fn native(function: &str, file: Option<&str>) -> Option<Machinery> {
    let in_rust_library = file.is_some_and(|file| {
        let file = file.replace('\\', "/");
        (file.starts_with("/rustc/") && file.contains("/library/"))
            || RUST_LIBRARY_PATHS.iter().any(|path| file.contains(path))
    });
    // A trait's shim for a closure or fn pointer: `<fn() as core::ops::function::FnOnce<()>>::…`.
    let unqualified = function.trim_start_matches('<');
    let shim = RUST_SHIMS.iter().any(|prefix| {
        unqualified.starts_with(prefix) || function.contains(&format!(" as {prefix}"))
    });
    if in_rust_library || shim {
        return Some(Machinery::RustStd);
    }
    // A symbol may come with its module (`libc.so.6`__libc_start_call_main`).
    let symbol = function.rsplit('`').next().unwrap_or(function);
    C_START.contains(&symbol).then_some(Machinery::CRuntime)
}

/// A Python frame (debugpy, pdb): the interpreter running a module or importing one.
pub fn python(_function: &str, file: Option<&str>) -> Option<Machinery> {
    let file = file?.replace('\\', "/");
    let machinery = file.starts_with("<frozen runpy")
        || file.starts_with("<frozen importlib.")
        || file.ends_with("/runpy.py")
        || file.contains("/importlib/_bootstrap");
    machinery.then_some(Machinery::PythonRuntime)
}

/// A JavaScript frame (node): node's own scripts.
pub fn node(function: &str, file: Option<&str>) -> Option<Machinery> {
    let internal = file.is_some_and(|file| file.starts_with("node:internal/"))
        || (file.is_none() && function.starts_with("node:internal/"));
    internal.then_some(Machinery::NodeInternals)
}

/// A Go frame (Delve): the runtime's entry and exit around `main.main` and each goroutine.
pub fn go(function: &str, file: Option<&str>) -> Option<Machinery> {
    let in_runtime = file.is_some_and(|file| file.replace('\\', "/").contains("/src/runtime/"));
    (in_runtime && matches!(function, "runtime.main" | "runtime.goexit"))
        .then_some(Machinery::GoRuntime)
}

/// The packages of the JDK's classes, as the java adapter names their frames (in full).
const JDK_PACKAGES: &[&str] = &["java.", "jdk.", "sun.", "com.sun."];

/// A JVM frame (the java adapter names the JDK's in full, `java.lang.reflect.Method.invoke`):
/// the JDK's classes, and the hidden class the JVM spins for a lambda (`Main$$Lambda.run`,
/// which has no source), which only carry a call to the program's own code.
pub fn jvm(function: &str, file: Option<&str>) -> Option<Machinery> {
    let jdk = JDK_PACKAGES.iter().any(|p| function.starts_with(p));
    let lambda_class = file.is_none() && function.contains("$$Lambda");
    (jdk || lambda_class).then_some(Machinery::JvmRuntime)
}

/// How a folded run of `kind`'s frames is named: `… 6 frames in core/std`.
pub fn label(kind: Machinery) -> &'static str {
    match kind {
        Machinery::RustStd => "core/std",
        Machinery::CRuntime => "the C runtime",
        Machinery::PythonRuntime => "runpy/importlib",
        Machinery::NodeInternals => "node:internal",
        Machinery::GoRuntime => "the Go runtime",
        Machinery::JvmRuntime => "the JDK",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_shims_and_the_c_start_up_are_machinery_and_the_program_is_not() {
        let std_file =
            "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/ops/function.rs";
        assert_eq!(
            native("core::ops::function::FnOnce::call_once", Some(std_file)),
            Some(Machinery::RustStd)
        );
        assert_eq!(
            native("std::rt::lang_start_internal", None),
            Some(Machinery::RustStd)
        );
        assert_eq!(
            native("<fn() as core::ops::function::FnOnce<()>>::call_once", None),
            Some(Machinery::RustStd)
        );
        assert_eq!(
            native("libc.so.6`__libc_start_call_main", None),
            Some(Machinery::CRuntime)
        );
        assert_eq!(native("_start", None), Some(Machinery::CRuntime));
        assert_eq!(native("counter::main", Some("/src/counter.rs")), None);
        assert_eq!(native("main", Some("/src/ledger.c")), None);
    }

    #[test]
    fn python_node_and_go_machinery() {
        assert_eq!(
            python("_run_code", Some("<frozen runpy>")),
            Some(Machinery::PythonRuntime)
        );
        assert_eq!(
            python(
                "_call_with_frames_removed",
                Some("<frozen importlib._bootstrap>")
            ),
            Some(Machinery::PythonRuntime)
        );
        assert_eq!(python("main", Some("/src/app.py")), None);
        assert_eq!(
            node("Module._compile", Some("node:internal/modules/cjs/loader")),
            Some(Machinery::NodeInternals)
        );
        assert_eq!(node("main", Some("/src/app.js")), None);
        assert_eq!(
            go("runtime.main", Some("/usr/local/go/src/runtime/proc.go")),
            Some(Machinery::GoRuntime)
        );
        assert_eq!(
            go(
                "runtime.gopanic",
                Some("/usr/local/go/src/runtime/panic.go")
            ),
            None
        );
        assert_eq!(go("main.main", Some("/src/main.go")), None);
    }

    #[test]
    fn the_jdk_and_lambda_classes_are_jvm_machinery() {
        for function in [
            "java.lang.reflect.Method.invoke",
            "jdk.internal.reflect.DirectMethodHandleAccessor.invoke",
            "java.lang.invoke.LambdaForm$MH.invoke",
            "sun.launcher.LauncherHelper.main",
            "com.sun.tools.javac.launcher.Main.execute",
        ] {
            assert_eq!(
                jvm(function, Some("Method.java")),
                Some(Machinery::JvmRuntime),
                "{function}"
            );
        }
        assert_eq!(jvm("Main$$Lambda.run", None), Some(Machinery::JvmRuntime));
        assert_eq!(jvm("Cart.total", Some("/src/Cart.java")), None);
        assert_eq!(jvm("MainKt.main", Some("/src/Main.kt")), None);
    }
}

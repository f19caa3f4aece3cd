//! `debugger`: see the README. `main` stays thin: everything lives in the library.

fn main() {
    std::process::exit(debugger::cli::main());
}

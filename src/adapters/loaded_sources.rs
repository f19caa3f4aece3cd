//! How a runtime tells which source files the program loaded: what lets the end of a run say
//! that a breakpoint's file was never loaded, where a program ran another copy of it (the
//! installed package rather than the checkout the breakpoint names). Each adapter says its way
//! (`Profile::loaded_sources`); the session gathers what it is told
//! (`daemon/session/loaded_sources.rs`).

use std::path::Path;

/// An adapter's way of telling the files the program loaded.
#[derive(Clone, Copy, Debug, Default)]
pub enum LoadedSources {
    /// It does not. A compiled program's files are known when a breakpoint is set (a file it
    /// lacks leaves the breakpoint pending then), so there is nothing to tell at its end.
    #[default]
    Untold,
    /// DAP `loadedSource` events (reason `new`, the file in `source.path`): each file as the
    /// program loads it, or all of them as it exits. A run that told none said nothing (a
    /// program killed before it could), and no breakpoint is said to be unloaded then.
    Events,
    /// The program writes the real paths of its loaded files, one a line, to a file as it exits,
    /// once this console command (a frameless `evaluate`, given the file) has run in it before
    /// it starts. A file left empty (a program killed, or ended by `os._exit`) tells nothing.
    WrittenAtExit(fn(&Path) -> String),
}

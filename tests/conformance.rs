//! The conformance suite: the same scenarios, from one table, against every built-in adapter on
//! each language it debugs, with the same program in each language
//! (`tests/fixtures/conformance/`, lines found by their markers). A feature an adapter lacks
//! must be refused with the `unsupported` error, so nothing is passed over unsaid.
//!
//! One test per adapter and group of scenarios, so the adapters run in parallel; each group
//! runs in as few sessions as its scenarios allow. A whole run prints the table, scenario by
//! adapter, once its last test is done; `-- --nocapture` prints one line per cell as it comes
//! (`conformance | ADAPTER | FEATURE | pass`).
//!
//! Every test fails, never skips, when its adapter or its language's tools are missing.

mod common;
#[path = "conformance/mod.rs"]
mod suite;

use suite::adapters::{self, Row};
use suite::{Report, attach, particulars, running, stopping, test_runs};

/// Breakpoints, run control, inspection, a logpoint, the exit, output, `restart` and `stop`.
fn session(row: &'static Row) {
    running::scenario(row).finish();
}

/// An uncaught exception, `probe` and `test`.
fn stops(row: &'static Row) {
    let mut report = Report::new(row);
    stopping::exception(row, &mut report);
    stopping::probe(row, &mut report);
    test_runs::test(row, &mut report);
    report.finish();
}

/// `core` and `attach`.
fn processes(row: &'static Row) {
    let mut report = Report::new(row);
    stopping::core(row, &mut report);
    attach::attach(row, &mut report);
    report.finish();
}

macro_rules! rows {
    ($($row:ident: $session:ident, $stops:ident, $processes:ident;)*) => {
        /// Every row, in the table's order.
        static ROWS: &[&Row] = &[$(&adapters::$row),*];

        /// The reports a whole run makes, three per row: when the last is in, the suite's table
        /// is printed.
        const REPORTS: usize = 3 * ROWS.len();

        $(
            #[test]
            fn $session() {
                session(&adapters::$row);
            }

            #[test]
            fn $stops() {
                stops(&adapters::$row);
            }

            #[test]
            fn $processes() {
                processes(&adapters::$row);
            }
        )*
    };
}

rows! {
    LLDB_C: lldb_c_session, lldb_c_stops, lldb_c_processes;
    LLDB_RUST: lldb_rust_session, lldb_rust_stops, lldb_rust_processes;
    GDB_C: gdb_c_session, gdb_c_stops, gdb_c_processes;
    DEBUGPY: debugpy_session, debugpy_stops, debugpy_processes;
    PDB: pdb_session, pdb_stops, pdb_processes;
    DELVE: delve_session, delve_stops, delve_processes;
    NODE_JS: node_js_session, node_js_stops, node_js_processes;
    NODE_TS: node_ts_session, node_ts_stops, node_ts_processes;
    JAVA: java_session, java_stops, java_processes;
    KOTLIN: kotlin_session, kotlin_stops, kotlin_processes;
    XDEBUG: xdebug_session, xdebug_stops, xdebug_processes;
    RDBG: rdbg_session, rdbg_stops, rdbg_processes;
}

/// Beyond the table: what GDB, Delve and pdb show on the ledger programs, checked exactly.
#[test]
fn gdb_c_particulars() {
    particulars::gdb_on_c();
}

#[test]
fn delve_particulars() {
    particulars::delve_on_go();
}

#[test]
fn pdb_particulars() {
    particulars::pdb_on_python();
}

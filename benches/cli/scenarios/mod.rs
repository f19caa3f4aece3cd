//! What the bench measures: the list of scenarios in the order their rows appear in the table,
//! and the context they share.
//!
//! Each scenario is one small function that sets up its sessions, times them, and adds its rows.
//! Some figures compare against another scenario's (a ratio to the hello-world floor, or to a
//! plain start); such a scenario names the one it needs, so a filtered run measures that too
//! and every figure keeps its meaning whatever was selected.

mod breakpoints;
mod dbgp_client;
mod displays;
mod finishing;
mod first_stop;
mod inspection;
mod java;
mod launch;
mod mcp;
mod memory;
mod rust;
mod scale;
mod stepping;
mod test_command;
mod warm;

use std::path::{Path, PathBuf};

use crate::BenchResult;
use crate::inprocess::InProcess;
use crate::session::CliSession;
use crate::stats::Stats;
use crate::table::Table;
use crate::timeline::Timelines;

/// One measured part of the table.
pub struct Scenario {
    /// What to name on the command line to run it alone.
    pub name: &'static str,
    /// Scenarios whose figures this one's rows compare against.
    needs: &'static [&'static str],
    pub run: fn(&mut Context) -> BenchResult<()>,
}

/// Every scenario, in table order.
const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "inspection",
        needs: &[],
        run: inspection::floors_and_inspection,
    },
    Scenario {
        name: "step",
        needs: &[],
        run: stepping::next_wait,
    },
    Scenario {
        name: "stop-locals",
        needs: &[],
        run: stepping::continue_with_locals,
    },
    Scenario {
        name: "display",
        needs: &[],
        run: displays::next_with_display,
    },
    Scenario {
        name: "finish",
        needs: &[],
        run: finishing::finish_with_return_value,
    },
    Scenario {
        name: "launch",
        needs: &[],
        run: launch::start_to_breakpoint,
    },
    Scenario {
        name: "breakpoints",
        needs: &["inspection", "launch"],
        run: breakpoints::thousand_breakpoints,
    },
    Scenario {
        name: "output",
        needs: &[],
        run: scale::output_burst,
    },
    Scenario {
        name: "big-locals",
        needs: &[],
        run: scale::locals_beside_big_array,
    },
    Scenario {
        name: "crowd",
        needs: &["launch"],
        run: scale::twenty_sessions,
    },
    Scenario {
        name: "memory",
        needs: &[],
        run: memory::idle_and_flood,
    },
    Scenario {
        name: "rust",
        needs: &[],
        run: rust::rust_values,
    },
    Scenario {
        name: "test-command",
        needs: &[],
        run: test_command::failing_cargo_test,
    },
    Scenario {
        name: "warm",
        needs: &[],
        run: warm::warm_adapter,
    },
    Scenario {
        name: "warm-python",
        needs: &[],
        run: warm::warm_python,
    },
    Scenario {
        name: "mcp",
        needs: &[],
        run: mcp::status_round_trip,
    },
    Scenario {
        name: "first-stop-lldb",
        needs: &[],
        run: first_stop::lldb,
    },
    Scenario {
        name: "first-stop-gdb",
        needs: &[],
        run: first_stop::gdb,
    },
    Scenario {
        name: "first-stop-pdb",
        needs: &[],
        run: first_stop::pdb,
    },
    Scenario {
        name: "first-stop-pdb-after-calls",
        needs: &[],
        run: first_stop::pdb_after_calls,
    },
    Scenario {
        name: "first-stop-debugpy",
        needs: &[],
        run: first_stop::debugpy,
    },
    Scenario {
        name: "first-stop-delve",
        needs: &[],
        run: first_stop::delve,
    },
    Scenario {
        name: "first-stop-node",
        needs: &[],
        run: first_stop::node,
    },
    Scenario {
        name: "ruby-first-stop",
        needs: &[],
        run: first_stop::ruby,
    },
    Scenario {
        name: "php-first-stop",
        needs: &[],
        run: first_stop::php,
    },
    Scenario {
        name: "java-first-stop",
        needs: &[],
        run: java::first_stop,
    },
    Scenario {
        name: "java-step",
        needs: &[],
        run: java::step,
    },
    Scenario {
        name: "java-locals",
        needs: &[],
        run: java::big_locals,
    },
];

/// The scenarios whose names contain one of `filters` (all when there are none), with the ones
/// they need, in table order.
pub fn select(filters: &[String]) -> BenchResult<Vec<&'static Scenario>> {
    let mut wanted: Vec<&str> = SCENARIOS
        .iter()
        .map(|s| s.name)
        .filter(|name| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str())))
        .collect();
    if wanted.is_empty() {
        let names: Vec<&str> = SCENARIOS.iter().map(|s| s.name).collect();
        return Err(format!(
            "no scenario matches {filters:?}; the scenarios are: {}",
            names.join(", ")
        )
        .into());
    }
    // Needs name earlier scenarios, so one pass from the end reaches every transitive need.
    for scenario in SCENARIOS.iter().rev() {
        if wanted.contains(&scenario.name) {
            wanted.extend(scenario.needs);
        }
    }
    Ok(SCENARIOS
        .iter()
        .filter(|s| wanted.contains(&s.name))
        .collect())
}

/// Iteration counts: full, or `--quick`.
#[derive(Clone, Copy)]
pub struct Plan {
    cheap: usize,
    steps: usize,
    launches: usize,
    heavy: usize,
    crowds: usize,
    warmup: usize,
}

impl Plan {
    pub fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                cheap: 30,
                steps: 30,
                launches: 5,
                heavy: 5,
                crowds: 1,
                warmup: 3,
            }
        } else {
            Plan {
                cheap: 200,
                steps: 150,
                launches: 25,
                heavy: 20,
                crowds: 3,
                warmup: 10,
            }
        }
    }
}

/// Builds the binary as `cargo build --release` makes it, in a target dir of its own, and
/// returns its path.
///
/// The binary `cargo bench` builds beside the bench is not the one users get: a bench links the
/// dev-dependencies, and cargo builds the package's binary with their features too. proptest
/// turns on regex-syntax's Unicode tables, which our `regex` leaves out, and their pointers are
/// relocated at every start: 10,601 relative relocations instead of 4,931, 73k more instructions
/// for a `debugger --version` (callgrind). Both builds would write `target/release/debugger`,
/// hence the separate dir.
fn release_build() -> BenchResult<PathBuf> {
    let root = crate::common::repo_root();
    let target = root.join("target").join("bench-release");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("bench: building the release binary as users get it (target/bench-release)");
    let status = std::process::Command::new(cargo)
        .args([
            "build",
            "--release",
            "--locked",
            "--bin",
            "debugger",
            "--target-dir",
        ])
        .arg(&target)
        .current_dir(&root)
        .status()
        .map_err(|e| format!("run cargo build --release: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build --release failed ({status})").into());
    }
    Ok(target.join("release").join("debugger"))
}

/// What every scenario may use, and the figures later scenarios compare against.
pub struct Context {
    plan: Plan,
    /// The binary under measurement: `DEBUGGER_BENCH_BIN`, else the one users get
    /// ([`release_build`]).
    bin: PathBuf,
    pub inproc: InProcess,
    pub table: Table,
    /// A private directory for the programs the bench generates rather than takes from
    /// `fixtures/` (the hello-world floor, the 100-file program), removed when the bench ends.
    work: tempfile::TempDir,
    /// `start --break apply` to its first stop through the CLI, from the launch scenario: the
    /// 1,000-breakpoint start and the 20 sessions are set against it.
    launch: Option<Stats>,
    /// The first-stop scenarios' timelines, one column per adapter: `probe`, and `start` to
    /// its first stop.
    pub probe_timelines: Timelines,
    pub launch_timelines: Timelines,
}

impl Context {
    /// The context measuring the binary users get, or `DEBUGGER_BENCH_BIN`.
    pub fn new(plan: Plan) -> BenchResult<Context> {
        let bin = match std::env::var_os("DEBUGGER_BENCH_BIN") {
            Some(bin) => PathBuf::from(bin),
            None => release_build()?,
        };
        Context::measuring(plan, bin, Table::default())
    }

    /// A context measuring `bin`, its rows going to `table`.
    pub fn measuring(plan: Plan, bin: PathBuf, table: Table) -> BenchResult<Context> {
        let work = tempfile::Builder::new()
            .prefix("debugger-bench-")
            .tempdir()
            .map_err(|e| format!("create the bench's work dir: {e}"))?;
        Ok(Context {
            plan,
            bin,
            inproc: InProcess::new(work.path())?,
            table,
            work,
            launch: None,
            probe_timelines: Timelines::default(),
            launch_timelines: Timelines::default(),
        })
    }

    pub fn bin(&self) -> &Path {
        &self.bin
    }

    /// A new session of the measured binary (not started yet), stopped when dropped.
    fn session(&self) -> CliSession {
        CliSession::new(&self.bin)
    }

    /// Prints the timelines the first-stop scenarios gathered, if any ran.
    pub fn print_timelines(&self) {
        let phases = ["", "start: "];
        if !self.probe_timelines.is_empty() {
            println!(
                "\n{}",
                self.probe_timelines.render(
                    "Timeline of `probe` (median from the command's spawn; in brackets, the step from the mark above)",
                    &phases,
                )
            );
        }
        if !self.launch_timelines.is_empty() {
            println!(
                "\n{}",
                self.launch_timelines.render(
                    "Timeline of `start --break F` to its first stop (median from start's spawn)",
                    &phases,
                )
            );
        }
    }

    fn launch(&self) -> BenchResult<&Stats> {
        self.launch
            .as_ref()
            .ok_or_else(|| "the launch scenario was not run first".into())
    }
}

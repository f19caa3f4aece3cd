//! The launched program's stdout and stderr, read by the daemon itself: two FIFOs (or a pty with
//! `start --tty`, see `platform::ProgramStdio`) in a folder of the process's scratch folder
//! (`common/scratch.rs`), which the adapter opens for the program, pumped into the output buffer
//! each under its stream's name.
//!
//! Apart from the output buffer because it owns OS channels and tasks: one reading task per
//! stream, and a drain the session runs when the program ends, so that everything the program
//! wrote is in the buffer before the end is reported. The drain and the tasks take the same lock
//! around each read-and-append, so bytes of one stream never change order.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use tokio::task::JoinHandle;

use super::output::OutputBuffer;
use crate::adapters::DebugAdapter;
use crate::common::error::ErrorBody;
use crate::common::scratch;
use crate::common::user_files::{self, Role};
use crate::ipc::protocol::{LaunchSpec, StdioPaths};
use crate::platform::{NULL_DEVICE, ProgramStdio, StreamReader};

/// Bytes read at a time.
const READ_BYTES: usize = 64 * 1024;

/// Tells each run's channel folder from the last (a restart makes new ones before the old go).
static RUNS: AtomicU32 = AtomicU32::new(0);

struct Pump {
    readers: Vec<StreamReader>,
    output: Arc<OutputBuffer>,
    /// Held around each read-and-append (see the module comment).
    order: Mutex<()>,
}

impl Pump {
    /// Reads what reader `index` holds now into the buffer; false once it has nothing more
    /// (would block) or is finished.
    fn read_some(&self, index: usize) -> io::Result<bool> {
        let reader = &self.readers[index];
        let mut buf = vec![0u8; READ_BYTES];
        let _order = self.order.lock().unwrap_or_else(|p| p.into_inner());
        match reader.try_read(&mut buf) {
            Ok(0) => Ok(false),
            Ok(n) => {
                self.output.push_stream(reader.stream, &buf[..n]);
                Ok(true)
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(true),
            Err(e) => Err(e),
        }
    }
}

/// The program's channels while the session lives; dropping it stops the reading and removes
/// the channels.
pub struct ProgramIo {
    pump: Arc<Pump>,
    /// The program's stderr comes through the channels (else in the adapter's `output` events).
    carries_stderr: bool,
    paths: StdioPaths,
    tasks: Vec<JoinHandle<()>>,
    /// Keeps our writing ends open and the channels' folder in place: here, not in the pump the
    /// tasks share, so that dropping this removes them at once.
    _stdio: ProgramStdio,
}

impl ProgramIo {
    /// Makes the channels (a pty when `tty`) and starts reading them into `output`. `stdin` is
    /// the file the program reads; none means the null device.
    pub fn start(
        tty: bool,
        stdin: Option<PathBuf>,
        carries_stderr: bool,
        output: Arc<OutputBuffer>,
    ) -> io::Result<ProgramIo> {
        let dir = scratch::own_dir().join(format!("io-{}", RUNS.fetch_add(1, Ordering::SeqCst)));
        let stdio = ProgramStdio::create(&dir, tty)?;
        let paths = StdioPaths {
            stdin: stdin.unwrap_or_else(|| PathBuf::from(NULL_DEVICE)),
            stdout: stdio.stdout.clone(),
            stderr: stdio.stderr.clone(),
        };
        let mut readers = Vec::new();
        let mut stdio = stdio;
        std::mem::swap(&mut readers, &mut stdio.readers);
        let pump = Arc::new(Pump {
            readers,
            output,
            order: Mutex::new(()),
        });
        let tasks = (0..pump.readers.len())
            .map(|index| tokio::spawn(read_stream(pump.clone(), index)))
            .collect();
        Ok(ProgramIo {
            pump,
            carries_stderr,
            paths,
            tasks,
            _stdio: stdio,
        })
    }

    /// Whether the program's output of `category` (`stdout`, `stderr`) comes through the
    /// channels, so an `output` event of it would say it twice.
    pub fn carries(&self, category: Option<&str>) -> bool {
        category != Some("stderr") || self.carries_stderr
    }

    /// Where the adapter is to open the program's streams.
    pub fn paths(&self) -> &StdioPaths {
        &self.paths
    }

    /// Takes in everything the program has written so far (it ended, or stopped): called before
    /// the end or the stop is reported.
    pub fn drain(&self) {
        for index in 0..self.pump.readers.len() {
            while let Ok(true) = self.pump.read_some(index) {}
        }
    }
}

impl Drop for ProgramIo {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Pumps one stream until it fails or ends (a pty whose program side is gone).
async fn read_stream(pump: Arc<Pump>, index: usize) {
    loop {
        if let Err(e) = pump.readers[index].readable().await {
            tracing::warn!(
                "the program's {} cannot be read: {e}",
                pump.readers[index].stream
            );
            return;
        }
        loop {
            match pump.read_some(index) {
                Ok(true) => continue,
                Ok(false) => break,
                Err(e) => {
                    tracing::warn!(
                        "the program's {} cannot be read: {e}",
                        pump.readers[index].stream
                    );
                    return;
                }
            }
        }
    }
}

/// The channels for a launch, when the adapter takes them: `None` for a session whose adapter
/// runs the program with pipes of its own (or a program on another machine, `--connect`), and
/// for one that takes them only when asked (`StdioSupport::by_default`) and was not. Asking for
/// `--tty` or `--stdin` of an adapter that cannot take them is a usage error; where the OS has no
/// such channels (Windows), the default launch falls back to the adapter's own output.
pub fn for_launch(
    spec: &LaunchSpec,
    adapter: &dyn DebugAdapter,
    output: &Arc<OutputBuffer>,
) -> Result<Option<ProgramIo>, ErrorBody> {
    let asked = spec.tty || spec.stdin.is_some();
    let support = adapter.profile().stdio.filter(|_| spec.connect.is_none());
    let Some(support) = support else {
        if asked {
            return Err(ErrorBody::usage(
                format!(
                    "--tty and --stdin are not supported with {}{}",
                    adapter.name(),
                    if spec.connect.is_some() {
                        " at --connect"
                    } else {
                        ""
                    }
                ),
                "they work with the adapters of programs launched on this machine; without them the program's stdin is empty and its stdout and stderr are pipes",
            ));
        }
        return Ok(None);
    };
    if !asked && !support.by_default {
        return Ok(None);
    }
    // The adapter (or the daemon, for a process it runs) opens the file: one that is no regular
    // file would wait for a writer there.
    if let Some(file) = &spec.stdin {
        user_files::refuse_other_kinds(file, Role::Stdin)?;
    }
    match ProgramIo::start(spec.tty, spec.stdin.clone(), support.stderr, output.clone()) {
        Ok(io) => Ok(Some(io)),
        Err(e) if !asked => {
            tracing::warn!("the program's output comes through the adapter: {e}");
            Ok(None)
        }
        Err(e) => Err(ErrorBody::usage(
            e.to_string(),
            "start the program without --tty (and --stdin)",
        )),
    }
}

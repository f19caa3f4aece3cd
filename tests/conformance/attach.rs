//! `attach` to the program running on its own (mode `wait`), a breakpoint in it, and `detach`,
//! after which it runs on.

use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use super::adapters::{Row, require};
use super::{Feature, Report};

/// The program in mode `wait`, killed when dropped.
struct Waiting(Child);

impl Drop for Waiting {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The lines of the program's stdout, read on a thread of their own so the test can wait for one
/// with a limit.
fn lines_of(child: &mut Child) -> Receiver<String> {
    let stdout = child.stdout.take().expect("the program's stdout");
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    receiver
}

/// Whether the program prints `tick: N` for a N past `after` within 30 s: it runs.
fn ticks_past(ticks: &Receiver<String>, after: i64) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    std::iter::from_fn(|| {
        let left = deadline.saturating_duration_since(Instant::now());
        ticks.recv_timeout(left).ok()
    })
    .filter_map(|line| line.strip_prefix("tick: ")?.parse::<i64>().ok())
    .any(|n| n > after)
}

pub fn attach(row: &'static Row, report: &mut Report) {
    require(row);
    let language = row.language;
    // Declared first, dropped last: the session detaches before the program is killed.
    let mut waiting = Waiting(
        language
            .run("wait")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn the program"),
    );
    let ticks = lines_of(&mut waiting.0);
    let s = (row.session)();
    let pid = waiting.0.id().to_string();
    assert!(ticks_past(&ticks, -1), "the program never ticked");
    report.feature(
        Feature::Attach,
        || {
            let attached = s.data(&["attach", &pid, "--adapter", row.adapter]);
            assert_eq!(attached["adapter"], row.adapter, "{attached}");
            assert_eq!(attached["state"], "running", "{attached}");
            // GDB takes requests only once the program it stopped to attach runs again: a tick
            // printed after the attach says it does.
            while ticks.try_recv().is_ok() {}
            assert!(
                ticks_past(&ticks, -1),
                "the program did not run on after the attach"
            );
            let added = s.data(&["breakpoint", "add", &language.at("@tick_body")]);
            assert_eq!(added["verified"], true, "{added}\n{}", s.log());
            let stop = s.stop_after("continue");
            assert_eq!(stop["reason"], "breakpoint", "{stop}");
            let function = stop["frame"]["function"].as_str().unwrap_or("");
            assert!(function.contains("tick"), "{stop}");
            let n: i64 = s
                .value_of(&language.var("n"))
                .parse()
                .expect("n is a number");
            s.data(&["detach"]);
            assert!(
                ticks_past(&ticks, n),
                "the program did not run on after the detach"
            );
        },
        || s.run(&["--json", "attach", &pid, "--adapter", row.adapter]),
    );
}

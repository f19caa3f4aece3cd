//! The launched program's death, when its adapter never tells of it. GDB 16 does not notice a
//! SIGKILL sent to a program it holds stopped: the program is a zombie GDB never reaps, and a
//! `continue` would wait for a stop or an end that never comes. The daemon looks at the program
//! itself (`platform::unreaped_end`: its wait status while unreaped) and reports the end, once
//! the adapter has had a moment to do so itself.
//!
//! Apart from the event task because it is a timer of its own for the program's life; it holds
//! the session weakly, so it ends with it.

use std::sync::Weak;
use std::time::Duration;

use super::Shared;
use crate::daemon::run_state::Phase;
use crate::platform::{self, Ended};

/// How often the program is looked at; an end it shows twice in a row (the adapter has had this
/// long to report it) is reported.
const CHECK_EVERY: Duration = Duration::from_millis(250);

/// Watches the launched program `pid` until it ends or the session does.
pub(super) async fn watch(shared: Weak<Shared>, pid: u32) {
    let mut seen_ended = false;
    loop {
        tokio::time::sleep(CHECK_EVERY).await;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        if shared.run.get().phase.is_ended() || shared.program.is_ending() {
            return;
        }
        {
            let facts = shared.program.facts();
            if facts.pid != Some(pid) || facts.gone {
                return;
            }
        }
        let Some(end) = platform::unreaped_end(pid) else {
            seen_ended = false;
            continue;
        };
        if !std::mem::replace(&mut seen_ended, true) {
            continue;
        }
        tracing::info!(
            pid,
            ?end,
            "the program ended and its adapter did not say so"
        );
        // Ended because the adapter's helper that ran it died (it takes a traced program with
        // it): that is the adapter's death, not the program's end.
        if shared.lost_by_adapter(None) {
            return;
        }
        let (exit_code, signal) = match end {
            Ended::Code(code) => (Some(i64::from(code)), None),
            Ended::Signal(signal) => (None, Some(signal)),
        };
        {
            let mut facts = shared.program.facts();
            facts.gone = true;
            facts.exit_code = exit_code;
            facts.signal = signal;
        }
        shared.run.forget_brief_stop();
        shared.program.take_output();
        shared
            .run
            .set_if(Phase::Exited { exit_code, signal }, |s| !s.phase.is_ended());
        shared.program_ended();
        return;
    }
}

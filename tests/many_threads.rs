//! `backtrace --all` on a program of many alike threads: the stacks are read together (not one
//! request after another), and threads whose stacks are the same are shown once, under all
//! their ids, while JSON keeps every thread's stack.

mod common;

use common::{Session, at, build, line_of, require_lldb_dap};

const FIXTURE: &str = "c/pool.c";
const WORKERS: usize = 40;

#[test]
fn alike_threads_are_shown_once_under_all_their_ids() {
    require_lldb_dap();
    let s = Session::new();
    s.start(&build(FIXTURE), &["--break", &at(FIXTURE, "@pool_ready")]);
    let stop = s.data(&["continue", "--wait", "--timeout", "60"])["stop"].clone();
    assert_eq!(
        stop["frame"]["line"],
        line_of(FIXTURE, "@pool_ready"),
        "{stop}"
    );

    let all = s.data(&["bt", "--all"]);
    let stacks = all["threads"].as_array().expect("threads");
    assert_eq!(stacks.len(), WORKERS + 1, "{all}");
    assert_eq!(
        stacks[0]["thread_id"], stop["thread_id"],
        "the selected thread comes first"
    );
    let workers = stacks
        .iter()
        .filter(|stack| {
            stack["frames"]
                .as_array()
                .is_some_and(|frames| frames.iter().any(|f| f["function"] == "worker"))
        })
        .count();
    assert_eq!(workers, WORKERS, "{all}");

    let text = s.run(&["bt", "--all"]);
    let text = text.ok();
    let headers: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with("Thread"))
        .collect();
    assert_eq!(
        headers.len(),
        2,
        "main's stack, then the workers' once:\n{text}"
    );
    assert!(
        headers[1].ends_with(&format!(
            "and {} more ({WORKERS} threads, the same stack):",
            WORKERS - 8
        )),
        "{text}"
    );
    assert_eq!(
        text.lines()
            .filter(|line| line.contains(" worker (") && line.contains("pool.c:"))
            .count(),
        1,
        "{text}"
    );
}

//! Starting and ending: `launch` (Node started with `--inspect-brk`), `attach` (a running
//! Node, its inspector opened by SIGUSR1 when it has none), the CDP domains enabled on connect,
//! `disconnect`, and what is told when the process or the inspector goes.

use super::*;

impl Debuggee {
    pub(super) async fn launch(
        &mut self,
        arguments: &LaunchArguments,
    ) -> Result<Flow, RequestError> {
        if let Some(address) = &arguments.connect {
            return Err(format!(
                "a Node program cannot be started through {address}: to debug one that runs there, use 'debugger attach --connect {address}'"
            )
            .into());
        }
        let program = arguments
            .program
            .as_deref()
            .ok_or("launch needs a program")?;
        let args = arguments.args.clone();
        let mut runtime_args = arguments.runtime_args.clone();
        let program_path = std::path::Path::new(program);
        let node = arguments
            .runtime_executable
            .clone()
            .unwrap_or_else(|| self.settings.node.clone());
        if typescript::is_typescript(program_path) {
            // Ahead of the user's own runtime arguments, so theirs can still override it.
            let version = super::super::version(&node);
            let loader = typescript::loader_args(program_path, version.as_deref())?;
            runtime_args.splice(0..0, loader);
        }
        let env = arguments.env_pairs();
        let cwd = arguments.cwd.clone();
        let stdio = arguments.stdio.clone();
        let extra_env = self.children_environment(env.as_deref()).await;
        let launched = inspector::launch(
            LaunchPlan {
                node: &node,
                runtime_args: &runtime_args,
                program: std::path::Path::new(program),
                args: &args,
                cwd: cwd.as_deref(),
                env: env.as_deref(),
                extra_env: &extra_env,
                stdio: stdio.as_ref(),
            },
            self.settings.launch_timeout,
        )
        .await?;
        let pid = launched.child.id();
        let (cdp, events) = Cdp::connect(&launched.websocket).await?;
        let (kill_tx, exit) = output::watch_process(launched, self.out.clone(), cdp.clone());
        self.kill_node = Some(kill_tx);
        self.launched = true;
        // A script's folder holds the program's sources; a tool's (`npx`, `vitest`, `node`
        // itself: no script extension) does not, and the working directory is the project's.
        let is_script = program_path
            .extension()
            .is_some_and(|e| e != "exe" && !e.is_empty());
        let root = match (is_script, cwd.as_deref()) {
            (false, Some(cwd)) => Some(cwd),
            _ => program_path.parent(),
        };
        if let Some(folder) = root {
            self.focus.breakpoints.set_source_root(folder);
        }
        self.stop_on_entry = arguments.stop_on_entry;
        self.pause_in_assertions = arguments.pause_in_assertions;
        self.es_module = typescript::is_es_module(program_path);
        self.enable(&cdp, self.pause_in_assertions).await?;
        self.focus.cdp = Some(cdp);
        if let Some(pid) = pid {
            self.out.event(
                "process",
                json!({ "name": program, "systemProcessId": pid, "isLocalProcess": true, "startMethod": "launch" }),
            ).await;
        }
        Ok(Flow::Connected {
            events,
            exit: Some(exit),
        })
    }

    /// What the launched Node's environment gets so its child processes are debugged too (see
    /// `children`): nothing when that cannot be set up, and the program runs as it would.
    async fn children_environment(
        &self,
        env: Option<&[(String, String)]>,
    ) -> Vec<(String, String)> {
        let Some(children) = self.children.clone() else {
            return Vec::new();
        };
        let user_options = match env {
            Some(env) => env
                .iter()
                .find(|(k, _)| k == "NODE_OPTIONS")
                .map(|(_, v)| v.clone()),
            None => std::env::var("NODE_OPTIONS").ok(),
        };
        let folder = match crate::common::paths::ensure_runtime_dir() {
            Ok(folder) => folder,
            Err(e) => {
                tracing::warn!("child processes will not be debugged: {}", e.message);
                return Vec::new();
            }
        };
        match super::super::children::listen(&folder, user_options.as_deref(), children).await {
            Ok(hub) => hub.environment(),
            Err(e) => {
                tracing::warn!("child processes will not be debugged: {e}");
                Vec::new()
            }
        }
    }

    pub(super) async fn attach(
        &mut self,
        arguments: &AttachArguments,
    ) -> Result<Flow, RequestError> {
        let timeout = self.settings.launch_timeout;
        let websocket = match (arguments.process_id, arguments.address.as_deref()) {
            (_, Some(address)) => inspector::websocket_at(address, timeout).await?,
            (Some(pid), None) => {
                let pid = u32::try_from(pid).map_err(|_| format!("no process has pid {pid}"))?;
                inspector::attach_to_pid(pid, SIGNALLED_INSPECTOR_TIMEOUT).await?
            }
            (None, None) => return Err("attach needs a process id or an inspector address".into()),
        };
        let (cdp, events) = Cdp::connect(&websocket).await?;
        self.enable(&cdp, false).await?;
        self.focus.cdp = Some(cdp);
        if let Some(pid) = arguments.process_id {
            self.out.event(
                "process",
                json!({ "name": format!("pid {pid}"), "systemProcessId": pid, "isLocalProcess": true, "startMethod": "attach" }),
            ).await;
        }
        Ok(Flow::Connected { events, exit: None })
    }

    /// Turns on what the adapter listens to. The Runtime domain's events are only needed for an
    /// attached program's console output: for a launched one they would double every line it
    /// prints (its stdout is read directly), and make Node send each line over the inspector.
    pub(super) async fn enable(&mut self, cdp: &Cdp, assertions: bool) -> Result<(), RequestError> {
        if !self.launched {
            cdp.call("Runtime.enable", json!({})).await?;
        }
        cdp.call("Debugger.enable", json!({})).await?;
        // Stepping never stops in Node's own JavaScript (`step` into `require`, `finish` out of
        // the main module): it runs through it to the user's code. V8 never pauses on a caught
        // exception thrown there either, so a test's failed assertion (thrown in `node:assert`,
        // caught by the test runner) is seen only when `node:assert` is left out.
        let pattern = if assertions {
            "^node:(?!assert)"
        } else {
            "^node:"
        };
        let _ = cdp
            .call(
                "Debugger.setBlackboxPatterns",
                json!({ "patterns": [pattern] }),
            )
            .await;
        // Uncaught exceptions stop unless the client says otherwise in the configuration phase.
        let (state, rule) = self.exception_state(&["uncaught"]);
        self.focus.caught_rule = rule;
        cdp.call("Debugger.setPauseOnExceptions", json!({ "state": state }))
            .await?;
        Ok(())
    }

    pub(super) async fn disconnect(&mut self, arguments: &DisconnectArguments) {
        self.leave_children().await;
        if self.launched && arguments.terminate_debuggee {
            self.kill();
            return;
        }
        if let Some(cdp) = self.focus.cdp.take() {
            // Leaving a paused program paused would hang it: let it go first.
            if self.focus.paused.is_some() {
                let _ = cdp.call("Debugger.resume", json!({})).await;
            }
            cdp.close();
        }
        // A launched program left running is no longer ours to end.
        if let Some(kill) = self.kill_node.take() {
            drop(kill);
        }
    }

    /// Lets every child process go on without its debugger (it ends with the launched one).
    async fn leave_children(&mut self) {
        for thread in self.other_threads() {
            self.focus(thread);
            if let Some(cdp) = self.focus.cdp.take() {
                if self.focus.paused.take().is_some() {
                    let _ = cdp.call("Debugger.resume", json!({})).await;
                }
                cdp.close();
            }
        }
        self.focus(MAIN_THREAD);
        self.children = None;
    }

    /// Ends the Node process we launched, if it still runs.
    pub fn kill(&mut self) {
        self.focus(MAIN_THREAD);
        self.children = None;
        if let Some(kill) = self.kill_node.take() {
            let _ = kill.send(());
        }
        if let Some(cdp) = self.focus.cdp.take() {
            cdp.close();
        }
    }

    /// The launched process ended with `code`.
    pub async fn process_exited(&mut self, end: Option<super::super::output::ProcessEnd>) {
        self.focus(MAIN_THREAD);
        self.focus.cdp = None;
        self.focus.paused = None;
        self.forget_pause_objects();
        if let Some(end) = end {
            // `signal` is ours, beside DAP's `exitCode`: the session reads it (see
            // `ExitedEventBody`).
            self.out
                .event(
                    "exited",
                    json!({ "exitCode": end.code, "signal": end.signal }),
                )
                .await;
        }
        self.out.event("terminated", json!({})).await;
    }

    /// The inspector connection closed: for an attached program, the session is over.
    pub async fn inspector_closed(&mut self) {
        self.focus(MAIN_THREAD);
        self.focus.cdp = None;
        self.focus.paused = None;
        self.forget_pause_objects();
        if !self.launched {
            self.out.event("terminated", json!({})).await;
        }
    }
}

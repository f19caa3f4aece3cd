# The last part of the adapter (after tracing.py and adapter.py, in the same module): the
# session's requests, and running the program as `python FILE` or `python -m MODULE` would.

# `os._exit` itself, before `announce_immediate_exits` wraps it for the program.
_immediate_exit = os._exit

CAPABILITIES = {
    "supportsConfigurationDoneRequest": True,
    "supportsConditionalBreakpoints": True,
    "supportsHitConditionalBreakpoints": True,
    "supportsLogPoints": True,
    "supportsFunctionBreakpoints": True,
    "supportsEvaluateForHovers": True,
    "supportsSetVariable": True,
    "supportsExceptionInfoRequest": True,
    "supportsTerminateRequest": True,
    "exceptionBreakpointFilters": [
        {"filter": "raised", "label": "Raised Exceptions", "default": False},
        {"filter": "uncaught", "label": "Uncaught Exceptions", "default": True},
        {"filter": "userUnhandled", "label": "User Uncaught Exceptions", "default": False},
    ],
}

# Requests that read or change a stopped thread, run by that thread.
ON_STOPPED_THREAD = {
    "stackTrace": Adapter.stack_trace,
    "scopes": Adapter.scopes,
    "variables": Adapter.variables,
    "setVariable": Adapter.set_variable,
    "exceptionInfo": Adapter.exception_info,
}

RESUMING = {"continue": "continue", "next": "next", "stepIn": "stepIn", "stepOut": "stepOut"}


# The words of an evaluation interrupted at its limit, which the session reads
# (`evaluation_limits::INTERRUPTED_WORDS`).
INTERRUPTED = "evaluation interrupted: it ran past its limit of %d ms"


class EvaluationInterrupted(BaseException):
    """Raised in a thread whose evaluation ran past its limit: a BaseException, so that the
    program's `except Exception` does not take it for one of its own."""


# The signal that interrupts an evaluation in the main thread (see `run_bounded`): one whose
# default is to be ignored, so that one arriving after the evaluation does nothing.
INTERRUPT_SIGNAL = getattr(signal, "SIGURG", None)


def interrupting_signal(ident):
    """The signal that can interrupt an evaluation in thread `ident` where it blocks, or None.
    Only the main thread runs Python's signal handlers, and a handler that raises ends the
    blocking call it came in (`time.sleep`, a read of a pipe); a program's own handler of the
    signal is left alone."""
    if INTERRUPT_SIGNAL is None or not hasattr(signal, "pthread_kill"):
        return None
    if ident != threading.main_thread().ident:
        return None
    if signal.getsignal(INTERRUPT_SIGNAL) is not signal.SIG_DFL:
        return None
    return INTERRUPT_SIGNAL


def run_bounded(work, arguments):
    """Runs `work()` in this thread, interrupting it once it runs past the request's
    `timeoutMs`: the evaluation of a call that never returns must not hold the stopped thread,
    and every request after it, for good. In the main thread the interruption is a signal whose
    handler raises, which also ends a blocking system call; in another thread, an asynchronous
    exception, raised at the thread's next Python instruction (a blocking system call there is
    not interrupted, and the session says so)."""
    limit = arguments.get("timeoutMs")
    if not isinstance(limit, int) or limit <= 0:
        return work()
    import ctypes

    ident = threading.get_ident()
    finished = _thread.allocate_lock()
    finished.acquire()
    guard = _thread.allocate_lock()
    state = {"done": False, "fired": False}
    by_signal = interrupting_signal(ident)

    def on_signal(signum, frame):
        if not state["done"]:
            raise EvaluationInterrupted()

    def watch():
        if finished.acquire(timeout=limit / 1000.0):
            return
        with guard:
            if state["done"]:
                return
            if by_signal is not None:
                signal.pthread_kill(ident, by_signal)
            else:
                state["fired"] = True
                exception = ctypes.py_object(EvaluationInterrupted)
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), exception)

    if by_signal is not None:
        previous = signal.signal(by_signal, on_signal)
    # A thread of `_thread`'s: the program's `threading` never sees it, and nothing traces it.
    _thread.start_new_thread(watch, ())
    interrupted = False
    try:
        try:
            return work()
        finally:
            with guard:
                state["done"] = True
            finished.release()
            if by_signal is not None:
                signal.signal(by_signal, previous)
    except EvaluationInterrupted:
        interrupted = True
        raise LookupError(INTERRUPTED % limit)
    finally:
        if state["fired"] and not interrupted:
            # It fired just as the evaluation ended, and is still to be raised: here, not in
            # the program. (Clearing it instead, SetAsyncExc with NULL, leaves CPython's eval
            # breaker set for good.)
            try:
                for _ in range(1000000):
                    pass
            except EvaluationInterrupted:
                pass


def error_text(error):
    if isinstance(error, LookupError) and error.args:
        return str(error.args[0])
    return describe_exception(error)


class Requests:
    def __init__(self, adapter, prepared):
        self.adapter = adapter
        self.channel = adapter.channel
        # Started ahead of its launch (a warm one): see `enter_launch_context`.
        self.prepared = prepared
        # The variables a warm one takes from its launch, named by the daemon as it started it.
        names = os.environ.pop("DEBUGGER_LAUNCH_VARIABLES", "") if prepared else ""
        self.launch_variables = [name for name in names.split(",") if name]

    def serve(self):
        while True:
            request = self.channel.read()
            if request is None:
                break
            if request.get("type") != "request":
                continue
            try:
                self.handle(request)
            except BaseException as error:  # an evaluated exit() must not end the reader
                self.channel.respond(request, error=error_text(error))
        self.session_gone()

    def session_gone(self):
        """The session closed the connection: the program is ended, as a killed adapter's is."""
        self.channel.open = False
        if not self.adapter.detached:
            _immediate_exit(137)

    def handle(self, request):
        adapter, channel = self.adapter, self.channel
        command = request.get("command")
        arguments = request.get("arguments") or {}
        if command == "initialize":
            answer = dict(CAPABILITIES)
            if self.prepared:
                answer["debuggerWatchedPaths"] = watched_paths()
            channel.respond(request, answer)
        elif command == "launch":
            self.launch(request, arguments)
        elif command == "attach":
            channel.respond(
                request,
                error="this adapter runs the program itself and cannot attach; use debugpy",
            )
        elif command == "setBreakpoints":
            channel.respond(request, adapter.set_breakpoints(arguments))
        elif command == "setFunctionBreakpoints":
            channel.respond(request, adapter.set_function_breakpoints(arguments))
        elif command == "setExceptionBreakpoints":
            adapter.filters = set(arguments.get("filters") or [])
            adapter.traces_everything = "raised" in adapter.filters
            adapter.traces_user_code = "userUnhandled" in adapter.filters
            adapter.trace_running_frames()
            channel.respond(request, {"breakpoints": [{"verified": True} for _ in adapter.filters]})
        elif command == "configurationDone":
            channel.respond(request)
            adapter.start.set()
        elif command == "threads":
            names = {t.ident: t.name for t in threading.enumerate()}
            threads = [
                {"id": adapter.thread_id(ident), "name": name}
                for ident, name in names.items()
                if ident in adapter.tracers or ident == threading.main_thread().ident
            ]
            channel.respond(request, {"threads": sorted(threads, key=lambda t: t["id"])})
        elif command in ON_STOPPED_THREAD or command == "evaluate":
            self.on_stopped_thread(request, command, arguments)
        elif command in RESUMING:
            stop = adapter.stopped
            if stop is None:
                channel.respond(request, error="the program is running")
                return
            body = {"allThreadsContinued": False} if command == "continue" else None
            # From now on the program runs: a request that comes before the stopped thread has
            # woken (a pause right after a continue) is one for a running program.
            adapter.stopped = None
            channel.respond(request, body)
            stop.tasks.put(RESUMING[command])
        elif command == "pause":
            channel.respond(request)
            self.pause()
        elif command in ("disconnect", "terminate"):
            self.end(request, command, arguments)
        else:
            channel.respond(request, error="%s is not supported by this adapter" % command)

    def on_stopped_thread(self, request, command, arguments):
        adapter, channel = self.adapter, self.channel
        stop = adapter.stopped
        if command == "evaluate" and (stop is None or arguments.get("frameId") is None):
            channel.respond(request, run_bounded(lambda: adapter.evaluate(None, arguments), arguments))
            return
        if stop is None:
            channel.respond(request, error="the program is running; pause it first")
            return
        handler = ON_STOPPED_THREAD.get(command, Adapter.evaluate)

        def task():
            try:
                answer = run_bounded(lambda: handler(adapter, stop, arguments), arguments)
                channel.respond(request, answer)
            except BaseException as error:
                channel.respond(request, error=error_text(error))

        stop.tasks.put(task)

    def launch(self, request, arguments):
        adapter, channel = self.adapter, self.channel
        if sys.version_info < (3, 8):
            channel.respond(
                request,
                error="the pdb adapter needs Python 3.8 or later; this is %s (%s)"
                % (sys.version.split()[0], sys.executable),
            )
            return
        program = arguments.get("program")
        module = arguments.get("module")
        if not module and not (program and os.path.isfile(program)):
            channel.respond(request, error="cannot open %s: no such file" % program)
            return
        if self.prepared:
            try:
                enter_launch_context(arguments, self.launch_variables)
            except OSError as error:
                channel.respond(request, error="cannot start the program: %s" % error)
                return
        adapter.launch = arguments
        adapter.just_my_code = arguments.get("justMyCode", True) is not False
        channel.respond(request)
        channel.event(
            "process",
            {
                "name": module or program,
                "systemProcessId": os.getpid(),
                "isLocalProcess": True,
                "startMethod": "launch",
            },
        )
        channel.event("initialized")

    def pause(self):
        """Every thread of the program steps to its next line of Python; the first to get
        there stops (`user_line`) and the others run on."""
        adapter = self.adapter
        if adapter.stopped is not None or adapter.main_tracer is None:
            return
        adapter.pause_requested = True
        running = sys._current_frames()
        for ident, tracer in list(adapter.tracers.items()):
            frame = running.get(ident)
            while frame is not None and frame is not tracer.botframe:
                if frame.f_code.co_filename != SERVER_FILE:
                    frame.f_trace = tracer.trace_dispatch
                frame = frame.f_back
            tracer.pausing = True
            tracer.set_step()

    def end(self, request, command, arguments):
        adapter, channel = self.adapter, self.channel
        if command == "disconnect" and arguments.get("terminateDebuggee") is False:
            adapter.detached = True
            adapter.lines, adapter.functions, adapter.filters = {}, [], set()
            adapter.traces_everything = adapter.traces_user_code = False
            threading.settrace(None)
            channel.respond(request)
            stop = adapter.stopped
            if stop is not None:
                stop.tasks.put("continue")
            channel.open = False
            return
        flush_program_output()
        code = 137 if adapter.exit_code is None else adapter.exit_code
        channel.event("exited", {"exitCode": code})
        channel.event("terminated")
        channel.respond(request)
        _immediate_exit(code)


def exit_code_of(exit):
    code = exit.code
    if code is None:
        return 0
    if isinstance(code, int):
        # What the process's status will say: its low byte, on POSIX systems.
        return code & 0xFF if os.name == "posix" else code
    try:
        sys.stderr.write(str(code) + "\n")
    except Exception:
        pass
    return 1


def program_frames(adapter, trace):
    """The traceback's frames that are the program's, innermost first, with their lines; under
    justMyCode from the innermost of the user's own code (the library's frames within it are
    where the user's call went wrong, not where the user can look)."""
    frames = []
    while trace is not None:
        filename = trace.tb_frame.f_code.co_filename
        if filename != SERVER_FILE and os.path.normcase(filename) != _bdb_file:
            frames.append((trace.tb_frame, trace.tb_lineno))
        trace = trace.tb_next
    frames.reverse()
    if adapter.just_my_code:
        for index, (frame, _) in enumerate(frames):
            if not adapter.files.is_library(frame.f_code.co_filename):
                return frames[index:]
    return frames


def stop_at_uncaught(adapter, tracer, error):
    """Stops where an exception nobody caught was raised, if the `uncaught` filter is on."""
    if "uncaught" in adapter.filters or "raised" in adapter.filters:
        frames = program_frames(adapter, error.__traceback__)
        if frames:
            tracer.stop(
                frames[0][0], "exception", exception=error, break_mode="unhandled", frames=frames
            )


def watch_threads_for_uncaught(adapter):
    """An exception that ends a thread stops it first, then goes to the program's hook."""
    program_hook = threading.excepthook

    def hook(arguments):
        ident = threading.get_ident()
        tracer = adapter.tracers.get(ident)
        if tracer is not None and arguments.exc_value is not None and not adapter.detached:
            sys.settrace(None)
            stop_at_uncaught(adapter, tracer, arguments.exc_value)
        program_hook(arguments)

    threading.excepthook = hook


def trimmed(trace):
    while trace is not None and (
        trace.tb_frame.f_code.co_filename == SERVER_FILE
        or os.path.normcase(trace.tb_frame.f_code.co_filename) == _bdb_file
    ):
        trace = trace.tb_next
    return trace


def report_uncaught(error):
    """Prints the traceback Python would, from the program's first frame (not ours)."""
    error = error.with_traceback(trimmed(error.__traceback__))
    sys.excepthook(type(error), error, error.__traceback__)


def prepare_main(launch):
    """Makes `__main__` and `sys` what `python FILE ARGS` (or `-m MODULE`) would make them."""
    import __main__

    module = launch.get("module")
    import builtins

    main = {"__name__": "__main__", "__builtins__": builtins, "__doc__": None}
    if not getattr(sys.flags, "safe_path", False):
        first = os.getcwd() if module else os.path.dirname(os.path.realpath(launch["program"]))
        sys.path.insert(0, first)  # BOOT took out `-c`'s own first entry
    if module:
        import runpy

        try:
            _, spec, code = runpy._get_module_details(module)
        except Exception as error:  # runpy's own: "No module named x"
            sys.stderr.write("%s: %s\n" % (sys.executable, error))
            raise SystemExit(1)
        main.update(
            __file__=spec.origin,
            __package__=spec.parent,
            __loader__=spec.loader,
            __spec__=spec,
            __cached__=spec.cached,
        )
        sys.argv = [spec.origin] + list(launch.get("args") or [])
    else:
        path = launch["program"]
        with io.open_code(path) as file:
            code = compile(file.read(), path, "exec", dont_inherit=True)
        main.update(__file__=path, __cached__=None, __package__=None, __loader__=None, __spec__=None)
        sys.argv = [path] + list(launch.get("args") or [])
    __main__.__dict__.clear()
    __main__.__dict__.update(main)
    return code, __main__.__dict__


def run_program(adapter):
    launch = adapter.launch
    tracer = Tracer(adapter, MAIN_THREAD_ID, stop_at_entry=bool(launch.get("stopOnEntry")))
    adapter.main_tracer = tracer
    adapter.tracers[threading.main_thread().ident] = tracer
    try:
        code, main = prepare_main(launch)
    except SystemExit as exit:
        return exit_code_of(exit)
    except BaseException as error:
        report_uncaught(error)
        return 1
    threading.settrace(adapter.trace_new_thread)
    watch_threads_for_uncaught(adapter)
    announce_immediate_exits(adapter)
    try:
        tracer.run(code, main)
    except SystemExit as exit:
        return exit_code_of(exit)
    except BaseException as error:
        sys.settrace(None)
        stop_at_uncaught(adapter, tracer, error)
        report_uncaught(error)
        return 1
    return 0


def enter_launch_context(arguments, launch_variables):
    """A warm interpreter was started before its launch: in the folder and environment of the
    launch before, on the null device. The daemon gives it only a launch that starts the same
    way but for `launch_variables` (the process tree's tag), which it takes from the launch's
    `env`: the rest of its environment stays as its start made it (a version manager's shim
    adds variables of its own). It takes the launch's channels, as the program's process would
    have had them from its start."""
    env = arguments.get("env") or {}
    for key in launch_variables:
        if key in env:
            os.environ[key] = env[key]
        else:
            os.environ.pop(key, None)
    if arguments.get("cwd"):
        os.chdir(arguments["cwd"])
    stdio = arguments.get("stdio") or []
    for fd, (path, flags) in enumerate(zip(stdio, (os.O_RDONLY, os.O_WRONLY, os.O_WRONLY))):
        opened = os.open(path, flags)
        if opened != fd:
            os.dup2(opened, fd)
            os.close(opened)


def forked(adapter):
    """A child of `os.fork` (multiprocessing's default on Linux) runs undebugged: it must not
    speak on its parent's connection, nor stop where nobody would ever resume it."""
    adapter.channel.open = False
    adapter.detached = True
    adapter.lines, adapter.functions, adapter.filters = {}, [], set()
    adapter.traces_everything = adapter.traces_user_code = False
    sys.settrace(None)
    threading.settrace(None)


def announce_immediate_exits(adapter):
    """`os._exit(N)` ends the process at once, with no atexit: it says how it ends first, so the
    session hears a program's exit rather than its adapter's death."""
    def exit_now(code):
        adapter.exit_code = code
        announce_exit(adapter)
        _immediate_exit(code)

    os._exit = exit_now


def announce_exit(adapter):
    """Run last at the interpreter's exit (after the program's own atexit functions)."""
    flush_program_output()
    tell_loaded_files(adapter)
    code = adapter.exit_code if adapter.exit_code is not None else 0
    adapter.channel.event("exited", {"exitCode": code})
    adapter.channel.event("terminated")


def tell_loaded_files(adapter):
    """The files the program loaded, as `loadedSource` events before its exit is told: the
    session names a line breakpoint whose file never loaded. Only while one is set, the one
    thing the session wants them for."""
    if not adapter.lines:
        return
    for path in loaded_files():
        source = {"name": os.path.basename(path), "path": path}
        adapter.channel.event("loadedSource", {"reason": "new", "source": source})


def main(sock, reader, prepared=False):
    import socket

    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except OSError:
        pass
    adapter = Adapter(Channel(sock, reader))
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=lambda: forked(adapter))
    requests = Requests(adapter, prepared)
    # A thread of `_thread`'s, unknown to `threading`: the program's `threading.enumerate()`
    # and `active_count()` see only its own threads, as without a debugger.
    _thread.start_new_thread(requests.serve, ())
    adapter.start.wait()
    atexit.register(announce_exit, adapter)
    adapter.exit_code = run_program(adapter)
    sys.exit(adapter.exit_code)

"""The debugger's own Python adapter: a Debug Adapter Protocol server that runs inside the
program's interpreter, on bdb (the engine of Python's pdb).

The daemon starts `python -c BOOT` the way the program itself would be started (its folder, its
environment, its standard streams); BOOT dials back, reads this file from the connection and
calls `main`. There is no second interpreter to start and no package to import, so a one-shot
question costs about what `python -m pdb` costs.

The program runs on its own main thread; a reader thread answers the session. Whatever touches
a stopped frame (its stack, its variables, an evaluation) is handed to the stopped thread, so an
expression runs where the program runs. Threads the program starts are traced too, each by a
tracer of its own; one thread is stopped at a time (another reaching a breakpoint meanwhile waits
for it to resume), and the others run on.
"""

import _thread
import atexit
import bdb
import dis
import inspect
import io
import json
import os
import queue
import reprlib
import signal
import stat
import sys
import sysconfig
import threading
import traceback
import types

SERVER_FILE = "<debugger adapter>"
MAIN_THREAD_ID = 1
# Children listed for one container; the rest are counted in its value.
CHILDREN_LIMIT = 1000
VALUE_LIMIT = 4096
_bdb_file = os.path.normcase(os.path.abspath(bdb.__file__.rstrip("co")))


class Channel:
    """DAP messages over the connection: framed JSON, one writer at a time."""

    def __init__(self, sock, reader):
        self.sock = sock
        self.reader = reader
        self.lock = threading.Lock()
        self.seq = 0
        self.open = True

    def send(self, message):
        with self.lock:
            if not self.open:
                return
            self.seq += 1
            message["seq"] = self.seq
            body = json.dumps(message, default=str).encode("utf-8")
            try:
                self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            except OSError:
                self.open = False

    def event(self, name, body=None):
        message = {"type": "event", "event": name}
        if body is not None:
            message["body"] = body
        self.send(message)

    def respond(self, request, body=None, error=None):
        message = {
            "type": "response",
            "request_seq": request.get("seq", 0),
            "command": request.get("command", ""),
            "success": error is None,
        }
        if error is not None:
            message["message"] = error
        elif body is not None:
            message["body"] = body
        self.send(message)

    def read(self):
        """The next message, or None once the session has gone (or sent what is not DAP)."""
        length = None
        while True:
            line = self.reader.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                if length is None:
                    continue
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    return None
        data = self.reader.read(length)
        if len(data) < length:
            return None
        try:
            return json.loads(data.decode("utf-8"))
        except ValueError:
            return {}


def _library_roots():
    roots = set()
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            roots.add(os.path.normcase(os.path.realpath(sysconfig.get_path(name))))
        except (KeyError, TypeError):
            pass
    for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix):
        roots.add(os.path.normcase(os.path.realpath(os.path.join(prefix, "lib"))))
    return tuple(root + os.sep for root in roots if root)


class Files:
    """Canonical names of code files, which of them are libraries, and their lines with code."""

    def __init__(self):
        self.names = {}
        self.lines = {}
        self.library = {}
        self.code_objects = {}
        self.libraries = _library_roots()

    def canonical(self, filename):
        known = self.names.get(filename)
        if known is None:
            if filename.startswith("<"):
                known = filename
            else:
                known = os.path.normcase(os.path.realpath(filename))
            self.names[filename] = known
        return known

    def is_library(self, filename):
        known = self.library.get(filename)
        if known is None:
            path = self.canonical(filename)
            parts = path.split(os.sep)
            known = (
                path.startswith("<")
                or "site-packages" in parts
                or "dist-packages" in parts
                or path.startswith(self.libraries)
            )
            self.library[filename] = known
        return known

    def lines_of_code(self, code):
        """The lines where `code` itself (not the functions inside it) has code."""
        known = self.code_objects.get(code)
        if known is None:
            known = frozenset(line for _, line in dis.findlinestarts(code) if line)
            self.code_objects[code] = known
        return known

    def code_lines(self, path):
        """The lines of `path` where code starts, or an error message."""
        try:
            status = os.stat(path)
        except OSError as error:
            return "cannot read %s: %s" % (path, error.strerror)
        # A FIFO's open would wait for a writer, and the program with it.
        if not stat.S_ISREG(status.st_mode):
            return "%s is not a regular file" % path
        stamp = status.st_mtime_ns
        cached = self.lines.get(path)
        if cached and cached[0] == stamp:
            return cached[1]
        try:
            with io.open_code(path) as file:
                code = compile(file.read(), path, "exec", dont_inherit=True)
        except (OSError, SyntaxError, ValueError) as error:
            return "%s does not compile: %s" % (path, error)
        lines, pending = set(), [code]
        while pending:
            unit = pending.pop()
            lines.update(line for _, line in dis.findlinestarts(unit) if line)
            pending.extend(c for c in unit.co_consts if isinstance(c, types.CodeType))
        self.lines[path] = (stamp, lines)
        return lines


def hit_condition_matches(condition, hits):
    """DAP hit conditions: `N` (the Nth hit), `>N`, `>=N`, `<N`, `<=N`, `==N`, `%N`."""
    text = condition.strip()
    for operator in (">=", "<=", "==", ">", "<", "%"):
        if text.startswith(operator):
            number = int(text[len(operator):].strip())
            return {
                ">=": hits >= number,
                "<=": hits <= number,
                "==": hits == number,
                ">": hits > number,
                "<": hits < number,
                "%": number > 0 and hits % number == 0,
            }[operator]
    return hits == int(text)


class Breakpoint:
    def __init__(self, number, spec, line=None, name=None):
        self.id = number
        self.condition = spec.get("condition") or None
        self.hit_condition = spec.get("hitCondition") or None
        self.log_message = spec.get("logMessage")
        self.line = line
        self.name = name
        # A function breakpoint on a name the program's own file defines: that file's canonical
        # name and the first lines (`co_firstlineno`) of those definitions, the only functions it
        # stops in (see `Adapter.names_frame`).
        self.definitions = None
        self.hits = 0
        self.bound = False

    def error_in_settings(self):
        if self.hit_condition:
            try:
                hit_condition_matches(self.hit_condition, 1)
            except ValueError:
                return "the hit condition %r is not N, >N, >=N, <N, <=N, ==N or %%N" % (
                    self.hit_condition
                )
        if self.condition:
            try:
                compile(self.condition, "<condition>", "eval")
            except SyntaxError as error:
                return "the condition does not parse: %s" % error.msg
        return None


def safe_repr(value):
    try:
        if isinstance(value, (list, tuple, set, frozenset, dict)) and len(value) > 100:
            shortener = reprlib.Repr()
            shortener.maxlist = shortener.maxtuple = shortener.maxset = 100
            shortener.maxfrozenset = shortener.maxdict = 100
            shortener.maxstring = shortener.maxother = VALUE_LIMIT
            text = shortener.repr(value)
        else:
            text = repr(value)
    except Exception as error:  # a broken __repr__ is the program's, not ours
        text = "<repr failed: %s: %s>" % (type(error).__name__, error)
    if len(text) > VALUE_LIMIT:
        text = text[:VALUE_LIMIT] + "..."
    return text


SCALARS = (str, bytes, bytearray, int, float, complex, bool, type(None), range)


def children_of(value):
    """(name, value, evaluate suffix) for each child of `value`, and how many were left out."""
    if isinstance(value, SCALARS) or isinstance(value, types.ModuleType):
        return [], 0
    items = []
    if isinstance(value, dict):
        for key, child in value.items():
            items.append((safe_repr(key), child, "[%s]" % safe_repr(key)))
    elif isinstance(value, (list, tuple)):
        items = [(str(i), child, "[%d]" % i) for i, child in enumerate(value)]
    elif isinstance(value, (set, frozenset)):
        items = [(str(i), child, None) for i, child in enumerate(value)]
    else:
        attributes = getattr(value, "__dict__", None)
        if isinstance(attributes, dict):
            for key, child in attributes.items():
                if isinstance(key, str) and not _is_dunder(key):
                    items.append((key, child, "." + key))
        for slot in getattr(type(value), "__slots__", ()) or ():
            if isinstance(slot, str) and not _is_dunder(slot) and hasattr(value, slot):
                items.append((slot, getattr(value, slot), "." + slot))
    return items[:CHILDREN_LIMIT], max(0, len(items) - CHILDREN_LIMIT)


def _is_dunder(name):
    return name.startswith("__") and name.endswith("__")


class Stop:
    """One stop of one thread: its frames, and the queue of work it does until it resumes."""

    def __init__(self, tracer, frames, exception=None, break_mode="always"):
        self.tracer = tracer
        self.frames = frames
        self.exception = exception
        self.break_mode = break_mode
        self.tasks = queue.Queue()
        self.locals = {}
        # Frames whose locals `set` changed (see `write_back_locals`).
        self.changed = set()
        # A step that left a function by its `return`: (its name, the value), shown in the
        # caller's frame (see `Adapter.scopes`).
        self.returned = None

    def locals_of(self, frame):
        """The frame's locals, read once per stop so that assignments to them hold: before
        Python 3.13 `f_locals` is a copy, written back into the frame when the trace function
        returns, and each read of it copies the frame's values over it again."""
        if frame not in self.locals:
            self.locals[frame] = frame.f_locals
        return self.locals[frame]

    def serve(self):
        while True:
            task = self.tasks.get()
            if isinstance(task, str):
                return task
            task()


class Tracer(bdb.Bdb):
    """bdb for one thread, with the adapter's breakpoints and stops."""

    def __init__(self, adapter, thread_id, stop_at_entry=False):
        bdb.Bdb.__init__(self)
        self.adapter = adapter
        self.thread_id = thread_id
        self.stop_at_entry = stop_at_entry
        self.entered = {}
        self.hit = []
        self.leaving = None
        self.leaving_by = None
        self.pausing = False
        self.running_free = False
        # The frame an exception was last seen in, and the exception, for `userUnhandled`.
        self.raising = None
        self.reset()

    # bdb's own tracing, shaped to a debug adapter.

    def dispatch_call(self, frame, arg):
        # bdb's, less its hooks for a prompt: a frame is traced line by line only if it may stop.
        if self.botframe is None:
            self.botframe = frame.f_back
            if not self.stop_at_entry:
                self._set_stopinfo(self.botframe, None, -1)
        elif frame.f_code.co_filename == SERVER_FILE:
            return None
        if self.stop_here(frame) or self.break_anywhere(frame):
            return self.trace_dispatch
        return None

    def _set_stopinfo(self, stopframe, returnframe, stoplineno=0, *more, **named):
        bdb.Bdb._set_stopinfo(self, stopframe, returnframe, stoplineno, *more, **named)
        # Not stepping: a line stops only at a breakpoint (see `dispatch_line`).
        self.running_free = stopframe is self.botframe and stoplineno == -1

    def dispatch_line(self, frame):
        if self.running_free and not self.entered:
            # The common case, kept short: a traced frame's line with no breakpoint on it.
            files = self.adapter.files
            filename = frame.f_code.co_filename
            placed = self.adapter.lines.get(files.names.get(filename) or files.canonical(filename))
            if placed is None or frame.f_lineno not in placed:
                return self.trace_dispatch
        return bdb.Bdb.dispatch_line(self, frame)

    def dispatch_exception(self, frame, arg):
        adapter = self.adapter
        kind, value, trace = arg
        if (
            "raised" in adapter.filters
            and trace is not None
            and trace.tb_next is None
            and kind not in (StopIteration, GeneratorExit)
            and not (adapter.just_my_code and adapter.files.is_library(frame.f_code.co_filename))
        ):
            self.stop(frame, "exception", exception=value, break_mode="always")
            return self.trace_dispatch
        if adapter.traces_user_code and kind not in (StopIteration, GeneratorExit):
            self.raising = (frame, value)
        return bdb.Bdb.dispatch_exception(self, frame, arg)

    def set_continue(self):
        # bdb would drop tracing when it holds no breakpoints of its own; ours are elsewhere.
        self._set_stopinfo(self.botframe, None, -1)

    def stop_here(self, frame):
        if not bdb.Bdb.stop_here(self, frame):
            return False
        if frame is self.stopframe:
            return True  # the frame a `next` steps in, library or not: the user is there
        return not (self.adapter.just_my_code and self.is_library(frame))

    def is_library(self, frame):
        return self.adapter.files.is_library(frame.f_code.co_filename)

    def break_anywhere(self, frame):
        """Whether a frame just called may stop at a breakpoint: a function breakpoint names it,
        or one of its own lines holds one (bdb would trace every frame of the file)."""
        adapter = self.adapter
        code = frame.f_code
        if adapter.functions:
            matched = adapter.functions_matching(frame)
            if matched:
                self.entered[frame] = matched
                return True
        if adapter.traces_everything:
            return True
        if adapter.traces_user_code and not adapter.files.is_library(code.co_filename):
            return True
        in_file = adapter.lines.get(adapter.files.canonical(code.co_filename))
        return bool(in_file) and not adapter.files.lines_of_code(code).isdisjoint(in_file)

    def break_here(self, frame):
        adapter = self.adapter
        entered = self.entered.pop(frame, None) if self.entered else None
        in_file = adapter.lines.get(adapter.files.canonical(frame.f_code.co_filename))
        at_line = in_file.get(frame.f_lineno) if in_file else None
        if entered is None and at_line is None:
            return False
        candidates = list(entered or ())
        if at_line is not None:
            candidates.append(at_line)
        self.hit = [bp for bp in candidates if adapter.takes_hit(bp, frame)]
        return bool(self.hit)

    def dispatch_return(self, frame, arg):
        if self.raising is not None and self.raising[0] is frame:
            exception, self.raising = self.raising[1], None
            if self.leaves_user_code(frame):
                self.stop(frame, "exception", exception=exception, break_mode="userUnhandled")
                return self.trace_dispatch
        # A step that leaves the frame it was in (`finish`, or `next`/`step` at its return)
        # stops in the caller as the call returns, on the calling line: bdb would run on to
        # the caller's next line event, past a caller whose call is its last line. A generator
        # or coroutine suspended (at `yield`, `await`) has not returned: the step goes on when
        # it resumes, as bdb's does.
        if frame is self.leaving and (self.leaving_by == "stepOut" or not is_suspension(frame)):
            self.leaving = None
            caller = frame.f_back
            if caller is not None and caller is not self.botframe:
                if self.adapter.just_my_code and self.is_library(caller):
                    self._set_stopinfo(None, None)  # on to the next line of the user's code
                    if caller.f_trace is None:
                        caller.f_trace = self.trace_dispatch
                else:
                    returned = (frame.f_code.co_name, arg) if returns_normally(frame) else None
                    self.stop(caller, "step", frames=self.frames_from(caller), returned=returned)
                    return self.trace_dispatch
        return bdb.Bdb.dispatch_return(self, frame, arg)

    def leaves_user_code(self, frame):
        """Whether an exception ends a frame of the user's code for a library's that called it
        (a test runner's, which will catch it): `userUnhandled` stops there, at the user's line
        the exception left by. Up to the program's first frame, it is `uncaught`'s."""
        caller = frame.f_back
        return (
            caller is not None
            and caller is not self.botframe
            and not returns_normally(frame)
            and not is_suspension(frame)
            and not self.is_library(frame)
            and self.is_library(caller)
        )

    def user_line(self, frame):
        hit, self.hit = self.hit, []
        if self.entered:
            self.entered.pop(frame, None)  # stopped while stepping: break_here never ran
        adapter = self.adapter
        if hit:
            reason = "function breakpoint" if hit[0].name else "breakpoint"
            self.stop(frame, reason, hit_ids=[bp.id for bp in hit])
        elif self.pausing:
            self.pausing = False
            if not adapter.pause_requested:
                self.set_continue()  # another thread took the pause first
                return
            adapter.pause_requested = False
            for other in list(adapter.tracers.values()):
                if other is not self and other.pausing:
                    other.pausing = False
                    other.set_continue()
            self.stop(frame, "pause")
        elif self.stop_at_entry:
            self.stop_at_entry = False
            self.stop(frame, "entry")
        else:
            self.stop(frame, "step")

    # Stops.

    def frames_from(self, frame):
        frames = []
        while frame is not None and frame is not self.botframe:
            filename = frame.f_code.co_filename
            # A thread waiting for its turn to stop is inside bdb and the adapter: not its frames.
            if filename != SERVER_FILE and os.path.normcase(filename) != _bdb_file:
                frames.append((frame, frame.f_lineno))
            frame = frame.f_back
        return frames

    def stop(
        self, frame, reason, hit_ids=(), exception=None, break_mode="always", frames=None,
        returned=None,
    ):
        adapter = self.adapter
        with adapter.stop_lock:
            if adapter.detached:
                return
            if hit_ids:
                # Another thread's stop may have removed them while this one waited its turn.
                hit_ids = [number for number in hit_ids if adapter.is_set(number)]
                if not hit_ids:
                    return
            flush_program_output()
            stop = Stop(self, frames or self.frames_from(frame), exception, break_mode)
            stop.returned = returned
            body = {
                "reason": reason,
                "threadId": self.thread_id,
                "allThreadsStopped": False,
                "preserveFocusHint": False,
            }
            if hit_ids:
                body["hitBreakpointIds"] = list(hit_ids)
            if exception is not None:
                body["description"] = describe_exception(exception)
                body["text"] = type(exception).__name__
            adapter.stopped = stop
            adapter.channel.event("stopped", body)
            action = stop.serve()
            write_back_locals(stop)
            adapter.stopped = None
            adapter.references = [None]
        top = stop.frames[0][0] if stop.frames else frame
        if action != "continue":
            # A frame entered untraced (no breakpoint in it) sends no return event, so a step out
            # of it, or a `next` past its end, would run on past its caller.
            for each, _ in stop.frames:
                if each.f_trace is None:
                    each.f_trace = self.trace_dispatch
        self.leaving = top if action in ("next", "stepIn", "stepOut") else None
        self.leaving_by = action
        if action == "next":
            self.set_next(top)
        elif action == "stepIn":
            self.set_step()
        elif action == "stepOut":
            self.set_return(top)
        else:
            self.set_continue()
        if self.pausing:
            self.set_step()  # a pause that came while this thread woke from its stop


def is_suspension(frame):
    """Whether a return event of a generator or coroutine frame is a `yield` or an `await`
    (it will resume) rather than its end."""
    if not frame.f_code.co_flags & RESUMABLE or frame.f_lasti < 0:
        return False
    code = frame.f_code.co_code
    return frame.f_lasti < len(code) and dis.opname[code[frame.f_lasti]] == "YIELD_VALUE"


def returns_normally(frame):
    """Whether a frame's return event is a `return` rather than an exception leaving it (whose
    event has the value None too): the frame is then at a return instruction."""
    code = frame.f_code.co_code
    return 0 <= frame.f_lasti < len(code) and dis.opname[code[frame.f_lasti]] in RETURNS


RETURNS = ("RETURN_VALUE", "RETURN_CONST")


# Generators, coroutines and async generators: a call event comes at each resumption too.
RESUMABLE = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def write_back_locals(stop):
    """Before Python 3.13 only the frame whose trace call returns gets its `f_locals` copy
    written back; a `set` in an outer frame (`up`, then `set`) is written back here."""
    if sys.version_info >= (3, 13) or not stop.changed:
        return
    try:
        import ctypes

        write = ctypes.pythonapi.PyFrame_LocalsToFast
        write.argtypes = [ctypes.py_object, ctypes.c_int]
        write.restype = None
        for frame in stop.changed:
            write(frame, 0)
    except (ImportError, AttributeError, OSError):
        pass  # no ctypes: the outer frame keeps its values, as under pdb


def flush_program_output():
    """Writes out what the program printed and its streams still hold (a pipe's are buffered),
    so the session has all of it at a stop and at the end."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # a stream the program closed or replaced
            pass


def describe_exception(exception):
    """`Type: message`: the last line Python prints for it (a SyntaxError's lines before show
    the file and the caret)."""
    lines = traceback.format_exception_only(type(exception), exception)
    return (lines[-1] if lines else type(exception).__name__).strip()

# The second part of the adapter (after tracing.py, in the same module): the session's
# breakpoints and threads, and the inspection of a stopped thread.


def qualified_name(frame, local_names=None):
    """The function's qualified name (`Cart.total`): the code's own from Python 3.11; before,
    a method's is made from the class of its `self` or `cls`. In a stop, `local_names` is the
    stop's copy of the frame's locals: reading `f_locals` anew (before 3.13) would write the
    frame's values over what `set` put in that copy."""
    code = frame.f_code
    known = getattr(code, "co_qualname", None)
    if known:
        return known
    if code.co_argcount and code.co_varnames[0] in ("self", "cls"):
        names = frame.f_locals if local_names is None else local_names
        owner = names.get(code.co_varnames[0])
        if owner is not None:
            owner = owner if isinstance(owner, type) else type(owner)
            return getattr(owner, "__qualname__", owner.__name__) + "." + code.co_name
    return code.co_name


class Adapter:
    """The session's requests, answered from the reader thread or by the stopped thread."""

    def __init__(self, channel):
        self.channel = channel
        self.files = Files()
        self.lines = {}
        self.functions = []
        self.filters = set()
        # The `raised` filter needs every frame traced, to see each exception where it is raised.
        self.traces_everything = False
        # The `userUnhandled` filter needs the user's frames traced, to see an exception leave
        # one of them for a library's (a test runner's) frame.
        self.traces_user_code = False
        self.next_id = 1
        self.just_my_code = True
        self.stop_lock = threading.Lock()
        self.stopped = None
        self.references = [None]
        self.pause_requested = False
        self.detached = False
        self.launch = None
        self.start = threading.Event()
        self.thread_ids = {threading.main_thread().ident: MAIN_THREAD_ID}
        self.tracers = {}
        self.main_tracer = None
        self.exit_code = None

    # Breakpoints.

    def takes_hit(self, bp, frame):
        """Whether a breakpoint reached in `frame` stops there (a logpoint logs instead)."""
        if bp.condition:
            try:
                if not eval(bp.condition, frame.f_globals, frame.f_locals):
                    return False
            except Exception:
                pass  # a condition that fails stops, as pdb's do, so the user sees why
        bp.hits += 1
        if bp.hit_condition and not hit_condition_matches(bp.hit_condition, bp.hits):
            return False
        if bp.log_message is not None:
            self.channel.event(
                "output",
                {"category": "console", "output": self.interpolate(bp.log_message, frame) + "\n"},
            )
            return False
        return True

    def interpolate(self, message, frame):
        out, i = [], 0
        while i < len(message):
            c = message[i]
            if message.startswith("{{", i) or message.startswith("}}", i):
                out.append(c)
                i += 2
            elif c == "{":
                end = message.find("}", i)
                if end < 0:
                    out.append(message[i:])
                    break
                expression = message[i + 1:end]
                try:
                    value = eval(expression, frame.f_globals, frame.f_locals)
                    out.append(value if isinstance(value, str) else safe_repr(value))
                except Exception as error:
                    out.append("<error: %s>" % describe_exception(error))
                i = end + 1
            else:
                out.append(c)
                i += 1
        return "".join(out)

    def is_set(self, number):
        """Whether breakpoint `number` is still set."""
        if any(bp.id == number for bp in self.functions):
            return True
        return any(bp.id == number for placed in self.lines.values() for bp in placed.values())

    def functions_matching(self, frame):
        code = frame.f_code
        if code.co_filename == SERVER_FILE:
            return None
        if code.co_flags & RESUMABLE and frame.f_lineno != code.co_firstlineno:
            return None  # a generator or coroutine resumed, not called
        qualname = qualified_name(frame)
        full = "." + frame.f_globals.get("__name__", "") + "." + qualname
        matched = [bp for bp in self.functions if self.names_frame(bp, code, qualname, full)]
        for bp in matched:
            if not bp.bound:
                bp.bound = True
                if bp.line is None:
                    # Where it stops: the first line of code after the `def` line.
                    later = [n for n in self.files.lines_of_code(code) if n > code.co_firstlineno]
                    bp.line = min(later) if later else code.co_firstlineno
                answer = self.breakpoint_answer(bp, frame.f_code.co_filename)
                self.channel.event("breakpoint", {"reason": "changed", "breakpoint": answer})
        return matched

    def names_frame(self, bp, code, qualname, full):
        """Whether function breakpoint `bp` stops in a call of `code` (`qualname` in the module
        of `full`), as debugpy's do: a name the program's file defines stops in that definition
        only (the one its answer named), not in a neighbour's or the library's function of the
        same name; any other stops in the user's code, and in a library (under justMyCode) only
        when it names the module too (`json.loads`): a bare `parent` must not stop in every
        import's `ModuleSpec.parent`."""
        if not full.endswith("." + bp.name):
            return False
        if bp.definitions is not None:
            path, first_lines = bp.definitions
            return (
                code.co_firstlineno in first_lines
                and self.files.canonical(code.co_filename) == path
            )
        if self.just_my_code and self.files.is_library(code.co_filename):
            return not (qualname == bp.name or qualname.endswith("." + bp.name))
        return True

    def breakpoint_answer(self, bp, path, message=None):
        answer = {"id": bp.id, "verified": message is None}
        if bp.line is not None:
            answer["line"] = bp.line
        if path:
            answer["source"] = {"name": os.path.basename(path), "path": path}
        if message:
            answer["message"] = message
        return answer

    def set_breakpoints(self, arguments):
        path = (arguments.get("source") or {}).get("path") or ""
        canonical = self.files.canonical(os.path.abspath(path)) if path else ""
        lines = self.files.code_lines(path) if path else "no file was named"
        placed, answers = {}, []
        for spec in arguments.get("breakpoints") or []:
            bp = Breakpoint(self.next_id, spec, line=spec.get("line"))
            self.next_id += 1
            message = bp.error_in_settings()
            if message is None and isinstance(lines, str):
                message = lines
            elif message is None:
                line = min((n for n in lines if n >= bp.line), default=None)
                if line is None:
                    message = "line %d of %s holds no code" % (bp.line, os.path.basename(path))
                else:
                    bp.line = line
            if message is None:
                existing = placed.get(bp.line)
                placed[bp.line] = bp if existing is None else existing
                bp = placed[bp.line]
            answers.append(self.breakpoint_answer(bp, path, message))
        if placed:
            self.lines[canonical] = placed
        else:
            self.lines.pop(canonical, None)
        self.trace_running_frames()
        return {"breakpoints": answers}

    def set_function_breakpoints(self, arguments):
        functions, answers = [], []
        for spec in arguments.get("breakpoints") or []:
            bp = Breakpoint(self.next_id, spec, name=spec.get("name", ""))
            self.next_id += 1
            message = bp.error_in_settings()
            path = None
            if message is None:
                functions.append(bp)
                path, definitions = self.defined_in_program(bp.name)
                if definitions:
                    bp.line = definitions[0][1]
                    first_lines = frozenset(first for first, _ in definitions)
                    bp.definitions = (self.files.canonical(path), first_lines)
                bp.bound = bp.line is not None
                if bp.line is None:
                    message = "no function named %s has been called yet" % bp.name
                    if self.just_my_code:
                        message += (
                            " in your code (a library's is named with its module, as json.loads;"
                            " or start with --no-just-my-code)"
                        )
            answer = self.breakpoint_answer(bp, path, message)
            answers.append(answer)
        self.functions = functions
        return {"breakpoints": answers}

    def defined_in_program(self, name):
        """Where the program's own file defines function `name` (`f`, `Class.f`), if it does:
        the file and, for each definition in the order of the file, the first line of its code
        object (`co_firstlineno`: its first decorator's, or its `def`) and the first line of its
        body, where it stops. One elsewhere is found when it is first called."""
        program = (self.launch or {}).get("program")
        if not program or (self.launch or {}).get("module"):
            return None, []
        try:
            import ast

            with io.open_code(program) as file:
                tree = ast.parse(file.read(), program)
        except (OSError, SyntaxError, ValueError):
            return None, []
        found = []
        pending = [(tree, "")]
        while pending:
            node, prefix = pending.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    qualname = prefix + child.name
                    if not isinstance(child, ast.ClassDef) and (
                        name == qualname or qualname.endswith("." + name)
                    ):
                        body = child.body
                        if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(
                            getattr(body[0], "value", None), ast.Constant
                        ):
                            body = body[1:]  # a docstring runs no line
                        first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                        found.append((first, body[0].lineno if body else child.lineno))
                    pending.append((child, qualname + "."))
        return (program, sorted(found)) if found else (None, [])

    def trace_running_frames(self):
        """Breakpoints set while the program runs: frames already running get line events too."""
        for ident, frame in sys._current_frames().items():
            tracer = self.tracers.get(ident)
            while tracer is not None and frame is not None and frame is not tracer.botframe:
                if frame.f_code.co_filename != SERVER_FILE and frame.f_trace is None:
                    frame.f_trace = tracer.trace_dispatch
                frame = frame.f_back

    # Threads.

    def thread_id(self, ident):
        if ident not in self.thread_ids:
            self.thread_ids[ident] = len(self.thread_ids) + 1
        return self.thread_ids[ident]

    def trace_new_thread(self, frame, event, arg):
        ident = threading.get_ident()
        tracer = Tracer(self, self.thread_id(ident))
        self.tracers[ident] = tracer
        sys.settrace(tracer.trace_dispatch)
        return tracer.trace_dispatch(frame, event, arg)

    # Inspection, run by the stopped thread.

    def reference(self, item):
        self.references.append(item)
        return len(self.references) - 1

    def variable(self, name, value, evaluate_name):
        children, _ = children_of(value)
        answer = {
            "name": name,
            "value": safe_repr(value),
            "type": type(value).__name__,
            "variablesReference": self.reference(("value", value, evaluate_name)) if children else 0,
        }
        if evaluate_name:
            answer["evaluateName"] = evaluate_name
        return answer

    def frames_of_thread(self, stop, thread_id):
        """The stopped thread's frames, or another thread's as it runs at this moment."""
        if thread_id is None or thread_id == stop.tracer.thread_id:
            return stop.frames
        for ident, number in list(self.thread_ids.items()):
            tracer = self.tracers.get(ident)
            if number == thread_id and tracer is not None:
                return tracer.frames_from(sys._current_frames().get(ident))
        raise LookupError("no thread %s" % thread_id)

    def stack_trace(self, stop, arguments):
        all_frames = self.frames_of_thread(stop, arguments.get("threadId"))
        start = arguments.get("startFrame") or 0
        levels = arguments.get("levels") or len(all_frames)
        frames = []
        for frame, line in all_frames[start:start + levels]:
            code = frame.f_code
            entry = {
                "id": self.reference(("frame", frame)),
                "name": qualified_name(frame, stop.locals_of(frame)),
                "line": line,
                "column": 1,
            }
            if code.co_filename.startswith("<"):
                entry["source"] = {"name": code.co_filename}
                entry["presentationHint"] = "subtle"
            else:
                entry["source"] = {
                    "name": os.path.basename(code.co_filename),
                    "path": os.path.abspath(code.co_filename),
                }
            frames.append(entry)
        return {"stackFrames": frames, "totalFrames": len(all_frames)}

    def scopes(self, stop, arguments):
        frame = self.frame(arguments.get("frameId"))
        scopes = [
            {
                "name": "Locals",
                "presentationHint": "locals",
                "variablesReference": self.reference(("scope", frame)),
                "expensive": False,
            }
        ]
        if stop.returned is not None and stop.frames and frame is stop.frames[0][0]:
            scopes.append(
                {
                    "name": "Return value",
                    "presentationHint": "returnValue",
                    "variablesReference": self.reference(("returned", stop.returned)),
                    "expensive": False,
                }
            )
        if stop.locals_of(frame) is not frame.f_globals:
            scopes.append(
                {
                    "name": "Globals",
                    "variablesReference": self.reference(("globals", frame)),
                    "expensive": True,
                }
            )
        return {"scopes": scopes}

    def frame(self, frame_id):
        item = self.item(frame_id)
        if item[0] != "frame":
            raise LookupError("no frame %s" % frame_id)
        return item[1]

    def item(self, number):
        if not isinstance(number, int) or not 0 < number < len(self.references):
            raise LookupError("no such reference: %s (they last until the program runs again)" % number)
        return self.references[number]

    def variables(self, stop, arguments):
        item = self.item(arguments.get("variablesReference"))
        if item[0] in ("scope", "globals"):
            frame = item[1]
            names = stop.locals_of(frame) if item[0] == "scope" else frame.f_globals
            plain = [
                self.variable(name, value, name)
                for name, value in list(names.items())
                if not _is_dunder(name)
            ]
            return {"variables": plain}
        if item[0] == "returned":
            name, value = item[1]
            return {"variables": [self.variable("(return) %s" % name, value, None)]}
        _, value, evaluate_name = item
        children, left_out = children_of(value)
        variables = [
            self.variable(name, child, evaluate_name + suffix if evaluate_name and suffix else None)
            for name, child, suffix in children
        ]
        if left_out:
            variables.append(
                {"name": "...", "value": "%d more" % left_out, "variablesReference": 0}
            )
        return {"variables": variables}

    def evaluate(self, stop, arguments):
        expression = arguments.get("expression", "")
        frame_id = arguments.get("frameId")
        if stop is not None and frame_id is not None:
            frame = self.frame(frame_id)
            globals_, locals_ = frame.f_globals, stop.locals_of(frame)
        else:
            import __main__

            globals_ = locals_ = __main__.__dict__
        try:
            code = compile(expression, "<expression>", "eval")
        except SyntaxError:
            if arguments.get("context") != "repl":
                raise
            exec(compile(expression, "<expression>", "exec"), globals_, locals_)
            return {"result": "", "variablesReference": 0}
        value = eval(code, globals_, locals_)
        answer = self.variable("", value, expression)
        return {
            "result": answer["value"],
            "type": answer["type"],
            "variablesReference": answer["variablesReference"],
        }

    def set_variable(self, stop, arguments):
        item = self.item(arguments.get("variablesReference"))
        name, text = arguments.get("name", ""), arguments.get("value", "")
        if item[0] in ("scope", "globals"):
            frame = item[1]
            value = eval(text, frame.f_globals, stop.locals_of(frame))
            target = stop.locals_of(frame) if item[0] == "scope" else frame.f_globals
            target[name] = value
            stop.changed.add(frame)
        elif item[0] == "value":
            container = item[1]
            import __main__

            value = eval(text, __main__.__dict__)
            if name.startswith("[") and name.endswith("]"):
                name = name[1:-1]  # the session's path writes an element as `[0]`, `["k"]`
            if isinstance(container, dict):
                key = next((k for k in container if name in (safe_repr(k), str(k))), None)
                if key is None:
                    import ast

                    key = ast.literal_eval(name)
                container[key] = value
            elif isinstance(container, list):
                container[int(name)] = value
            else:
                setattr(container, name, value)
        else:
            raise LookupError("%s cannot be set" % name)
        answer = self.variable(name, value, None)
        return {"value": answer["value"], "type": answer["type"], "variablesReference": answer["variablesReference"]}

    def exception_info(self, stop, arguments):
        exception = stop.exception
        if exception is None:
            raise LookupError("the thread did not stop at an exception")
        details = {
            "message": str(exception),
            "typeName": type(exception).__name__,
            "fullTypeName": type(exception).__module__ + "." + type(exception).__qualname__,
            "stackTrace": "".join(traceback.format_tb(exception.__traceback__)),
        }
        return {
            "exceptionId": type(exception).__name__,
            "description": describe_exception(exception),
            "breakMode": stop.break_mode,
            "details": details,
        }

# Pretty printers the session puts before Rust's own GDB printers (gdb_load_rust_pretty_printers.py)
# so that a value reads as Rust's `{:?}` writes it:
# - the collections as `["a", "b"]` and `{"k": 1}` where Rust's printers say `Vec(size=2)`, with
#   the same children (a map's named by their keys, where GDB's DAP would list `key0`, `val0`);
# - Rc, Arc and RefCell as `Rc("rc") strong=1 weak=0`, `RefCell(4)`;
# - `PathBuf`, `&Path` and `&OsStr` as their text, which Rust's printers leave raw;
# - a pointer (a Box: GDB drops the name rustc gives its pointer type) as its address and what it
#   points to, not an address alone, which is the same at every stop while the value changes;
# - enums, structs, tuples and arrays, which Rust's printers leave to GDB, as GDB's own Rust
#   printing writes them (`Some(3)`, `Circle{radius: 2}`): GDB's DAP would show an empty value and
#   a child per variant. Their children are the fields of the variant the value holds.
#
# Sent to GDB in one "python exec(...)" command (see rust_formatters.rs).

import itertools
import re

import gdb
import gdb_lookup

# How many elements a summary shows, and how deep summaries nest (a Vec of Vecs of Vecs).
DEBUGGER_RUST_SHOWN = 16
DEBUGGER_RUST_NESTING = 2


class DebuggerRustState:
    # Set while GDB formats a value for DebuggerRustValue.to_string, so that the value itself is
    # printed by GDB (not by that printer again), and what it holds by the printers here.
    busy = False
    # How many summaries are being written, one inside the other.
    depth = 0


def debugger_rust_text(value):
    if DebuggerRustState.depth > DEBUGGER_RUST_NESTING:
        return "…"
    DebuggerRustState.depth += 1
    try:
        if not isinstance(value, gdb.Value):
            value = gdb.Value(value)
        return debugger_rust_plain(value.format_string(styling=False))
    except (gdb.error, gdb.MemoryError):
        return "<not readable>"
    finally:
        DebuggerRustState.depth -= 1


# GDB writes a value with its types' full paths (`values::Point {x: 1}`,
# `core::option::Option<alloc::string::String>::None`); Rust's `{:?}` writes `Point { x: 1 }` and
# `None`. Text inside quotes is left as it is.
DEBUGGER_RUST_QUOTED = re.compile(r"(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')")
DEBUGGER_RUST_MODULE = re.compile(r"\b[a-z_][a-z0-9_]*::")


def debugger_rust_plain(text):
    parts = DEBUGGER_RUST_QUOTED.split(text)
    for i in range(0, len(parts), 2):
        part = DEBUGGER_RUST_MODULE.sub("", parts[i])
        part = debugger_rust_without_enum_types(part)
        part = re.sub(r"(\w) \(", r"\1(", part)
        part = re.sub(r"(\w)\{", r"\1 {", part)
        part = re.sub(r"\{(?=[^\s}…])", "{ ", part)
        part = re.sub(r"(?<=[^\s{…])\}", " }", part)
        parts[i] = part
    return "".join(parts)


def debugger_rust_without_enum_types(text):
    # `Type::Variant` and `Type<Args>::Variant` become `Variant`.
    at = text.find("::")
    while at > 0:
        start = at
        open_count = 0
        if text[start - 1] == ">":
            while start > 0:
                start -= 1
                # The arrow of a `fn() -> T` is no bracket.
                if text[start] == ">" and text[start - 1 : start] != "-":
                    open_count += 1
                elif text[start] == "<":
                    open_count -= 1
                    if open_count == 0:
                        break
        while open_count == 0 and start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        if open_count == 0 and at + 2 < len(text) and text[at + 2].isupper() and start < at:
            text = text[:start] + text[at + 2:]
            at = text.find("::", start)
        else:
            at = text.find("::", at + 2)
    return text


def debugger_rust_size(rust):
    # The element count in Rust's own summary ("Vec(size=2)").
    found = re.search(r"size=(\d+)", str(rust.to_string()))
    return int(found.group(1)) if found else None


def debugger_rust_joined(items, opening, closing, count):
    items = list(items)
    if count is not None and count > len(items):
        return opening + ", ".join(items + ["…"]) + closing + " (len %d)" % count
    return opening + ", ".join(items) + closing


def debugger_rust_pairs(rust):
    # A map's children, which Rust's printer gives as key0, val0, key1, val1, ...
    children = iter(rust.children())
    for (_, key), (_, value) in zip(children, children):
        yield key, value


DEBUGGER_RUST_SEQUENCES = {
    "StdVec": "[]",
    "StdVecDeque": "[]",
    "StdSlice": "[]",
    "StdHashSet": "{}",
    "StdBTreeSet": "{}",
}
DEBUGGER_RUST_MAPS = ("StdHashMap", "StdBTreeMap")
DEBUGGER_RUST_COUNTED = {"StdRc": "Rc", "StdArc": "Arc"}


class DebuggerRustSummary:
    # A standard type's one-line text, from Rust's printer's children. A leaf: used inside
    # another value's text, where children would be printed again.
    def __init__(self, rust, kind):
        self.rust = rust
        self.kind = kind

    def to_string(self):
        kind, rust = self.kind, self.rust
        shown = DEBUGGER_RUST_SHOWN
        if kind in DEBUGGER_RUST_SEQUENCES:
            brackets = DEBUGGER_RUST_SEQUENCES[kind]
            if DebuggerRustState.depth >= DEBUGGER_RUST_NESTING:
                return brackets[0] + "…" + brackets[1]
            items = itertools.islice(rust.children(), shown)
            texts = (debugger_rust_text(v) for _, v in items)
            return debugger_rust_joined(texts, brackets[0], brackets[1], debugger_rust_size(rust))
        if kind in DEBUGGER_RUST_MAPS:
            if DebuggerRustState.depth >= DEBUGGER_RUST_NESTING:
                return "{…}"
            pairs = itertools.islice(debugger_rust_pairs(rust), shown)
            texts = (debugger_rust_text(k) + ": " + debugger_rust_text(v) for k, v in pairs)
            return debugger_rust_joined(texts, "{", "}", debugger_rust_size(rust))
        fields = dict(rust.children())
        if kind in DEBUGGER_RUST_COUNTED:
            return "%s(%s) strong=%d weak=%d" % (
                DEBUGGER_RUST_COUNTED[kind],
                debugger_rust_text(fields["value"]),
                int(fields["strong"]),
                int(fields["weak"]),
            )
        text = "RefCell(%s)" % debugger_rust_text(fields["value"])
        borrow = int(fields["borrow"])
        if borrow > 0:
            return text + " borrow=%d" % borrow
        if borrow < 0:
            return text + " borrow_mut=%d" % -borrow
        return text


class DebuggerRustCollection(DebuggerRustSummary):
    # The same, with children for expansion: a sequence's elements, a map's values named by
    # their keys, a counted or borrowed value's value and counts.
    def children(self):
        if self.kind in DEBUGGER_RUST_MAPS:
            return ((debugger_rust_text(k), v) for k, v in debugger_rust_pairs(self.rust))
        return self.rust.children()

    def display_hint(self):
        return "array" if self.kind in DEBUGGER_RUST_SEQUENCES else None


class DebuggerRustText:
    # A leaf whose text is computed: a path, an OsStr.
    def __init__(self, text):
        self.text = text

    def to_string(self):
        return self.text


def debugger_rust_quoted(data):
    text = bytes(data).decode("utf-8", "replace")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def debugger_rust_borrowed_text(value):
    # &Path and &OsStr: a pointer to the bytes and their length.
    length = int(value["length"])
    data = gdb.selected_inferior().read_memory(int(value["data_ptr"]), min(length, 4096))
    return debugger_rust_quoted(data) + ("…" if length > 4096 else "")


class DebuggerRustPointer:
    # A pointer (a Box, a raw pointer) as its address and what it points to; its child is the
    # pointee, named `value` as GDB's DAP names it.
    def __init__(self, value):
        self.value = value

    def to_string(self):
        address = int(self.value)
        if address == 0:
            return "0x0"
        return "0x%x %s" % (address, debugger_rust_text(self.value.dereference()))

    def children(self):
        if int(self.value) == 0:
            return iter(())
        return iter((("value", self.value.dereference()),))


class DebuggerRustValue:
    def __init__(self, value):
        self.value = value

    def to_string(self):
        DebuggerRustState.busy = True
        try:
            text = self.value.format_string(styling=False)
        finally:
            DebuggerRustState.busy = False
        return debugger_rust_plain(text)

    def num_children(self):
        kind = self.value.type.strip_typedefs()
        if kind.code == gdb.TYPE_CODE_ARRAY:
            low, high = kind.range()
            return high - low + 1
        return len(list(self.children()))

    def children(self):
        value = self.value
        kind = value.type.strip_typedefs()
        if kind.code == gdb.TYPE_CODE_ARRAY:
            low, high = kind.range()
            return (("[%d]" % i, value[i]) for i in range(low, high + 1))
        fields = kind.fields()
        # An enum: an unnamed artificial discriminant, then the variant the value holds.
        if fields and fields[0].name is None and fields[0].artificial:
            if len(fields) < 2:
                return iter(())
            value = value[fields[1]]
            fields = value.type.strip_typedefs().fields()
        return ((f.name, value[f]) for f in fields if f.name is not None)


DEBUGGER_RUST_BORROWED = re.compile(r"^&(mut )?(std::path::Path|std::ffi::os_str::OsStr)$")
DEBUGGER_RUST_CHARS = ("i8", "u8", "char", "c_char")


def debugger_rust_lookup(value):
    kind = value.type.strip_typedefs()
    code = kind.code
    name = kind.name or ""
    rust = gdb_lookup.printer(value)
    if rust is not None:
        rust_type = gdb_lookup.classify_rust_type(kind)
        summarised = (
            rust_type in DEBUGGER_RUST_SEQUENCES
            or rust_type in DEBUGGER_RUST_MAPS
            or rust_type in DEBUGGER_RUST_COUNTED
            or rust_type == "StdRefCell"
        )
        if not summarised:
            return rust
        if DebuggerRustState.busy or DebuggerRustState.depth > 0:
            return DebuggerRustSummary(rust, rust_type)
        return DebuggerRustCollection(rust, rust_type)
    if DEBUGGER_RUST_BORROWED.match(name):
        return DebuggerRustText(debugger_rust_borrowed_text(value))
    if name == "std::path::PathBuf":
        return DebuggerRustText(debugger_rust_text(value["inner"]))
    # Inside another value's text, values are leaves.
    nested = DebuggerRustState.busy or DebuggerRustState.depth > 0
    if code == gdb.TYPE_CODE_PTR:
        target = kind.target().strip_typedefs()
        if target.code in (gdb.TYPE_CODE_VOID, gdb.TYPE_CODE_FUNC, gdb.TYPE_CODE_PTR):
            return None
        if (target.name or "") in DEBUGGER_RUST_CHARS:
            return None
        pointer = DebuggerRustPointer(value)
        return DebuggerRustText(pointer.to_string()) if nested else pointer
    if nested:
        return None
    if code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION, gdb.TYPE_CODE_ARRAY):
        return DebuggerRustValue(value)
    return None


# Before Rust's printers, which this one calls for the values it does not reshape.
gdb.current_progspace().pretty_printers.insert(0, debugger_rust_lookup)

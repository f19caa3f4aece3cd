# Summaries the session adds on top of Rust's own LLDB formatters (lldb_lookup.py), so that a
# value reads as Rust's `{:?}` writes it: a Vec as `["a", "b"]`, not `size=2`; a HashMap as
# `{"k": 1}`; a struct inside them as `Point { x: 1, y: 2 }`. Strings are leaves:
# their text is the whole value, not a list of characters to expand.
#
# Sent to LLDB in one "script exec(...)" command (see rust_formatters.rs), so the names live in
# LLDB's script session, where "type summary add -F NAME" finds them. No backticks in the code:
# LLDB's command line runs what is between them.

DEBUGGER_RUST_SHOWN = 16
# An element's summary may be a collection's summary in turn, and so on down: a summary reads at
# most this many items in all, and collections nested at most two deep, else a value of nested
# collections would take minutes (it did, on ripgrep's SearchWorker). [nesting, items read].
DEBUGGER_RUST_BUDGET = 48
DEBUGGER_RUST_STATE = [0, 0]


def debugger_rust_item(value, depth=0):
    text = value.GetSummary() or value.GetValue()
    if text:
        return text
    count = value.GetNumChildren()
    name = (value.GetTypeName() or "").split("<")[0].split("::")[-1]
    if count == 0 or depth > 0:
        return name + (" {…}" if count else "")
    fields = [value.GetChildAtIndex(i) for i in range(min(count, 4))]
    shown = ", ".join(
        (f.GetName() or "") + ": " + debugger_rust_item(f, depth + 1) for f in fields
    )
    return name + " { " + shown + (", … }" if count > 4 else " }")


def debugger_rust_items(valobj, render, opening, closing):
    state = DEBUGGER_RUST_STATE
    if state[0] == 0:
        state[1] = 0
    count = valobj.GetNumChildren()
    if state[0] >= 2 or state[1] >= DEBUGGER_RUST_BUDGET:
        return opening + ("…" if count else "") + closing
    state[0] += 1
    shown = []
    try:
        for i in range(min(count, DEBUGGER_RUST_SHOWN)):
            if state[1] >= DEBUGGER_RUST_BUDGET:
                break
            state[1] += 1
            shown.append(render(valobj.GetChildAtIndex(i)))
    finally:
        state[0] -= 1
    if len(shown) < count:
        return opening + ", ".join(shown + ["…"]) + closing + " (len %d)" % count
    return opening + ", ".join(shown) + closing


def debugger_rust_sequence(valobj, _dict):
    return debugger_rust_items(valobj, debugger_rust_item, "[", "]")


def debugger_rust_set(valobj, _dict):
    return debugger_rust_items(valobj, debugger_rust_item, "{", "}")


def debugger_rust_entry(entry):
    key = debugger_rust_item(entry.GetChildAtIndex(0))
    return key + ": " + debugger_rust_item(entry.GetChildAtIndex(1))


def debugger_rust_map(valobj, _dict):
    return debugger_rust_items(valobj, debugger_rust_entry, "{", "}")


class debugger_rust_leaf:
    def __init__(self, valobj, _dict):
        pass

    def num_children(self):
        return 0

    def get_child_index(self, _name):
        return -1

    def get_child_at_index(self, _index):
        return None

    def update(self):
        return True

    def has_children(self):
        return False


# Rust's providers read a collection's length from memory, and LLDB 19 lays some niche-packed
# enums out so that a provider reads a pointer as a length (93825003056768 elements, in ripgrep's
# DecompressionReaderBuilder): LLDB then walks the children for minutes and lldb-dap answers
# nothing. Every provider Rust's catch-all binds is wrapped so that it admits at most this many
# children; a real collection longer than that shows its first ones.
DEBUGGER_RUST_MAX_CHILDREN = 10000

import lldb_lookup

debugger_rust_original_lookup = lldb_lookup.synthetic_lookup


class DebuggerRustCapped:
    def __init__(self, inner):
        self.inner = inner

    def num_children(self, *_max):
        return min(self.inner.num_children(), DEBUGGER_RUST_MAX_CHILDREN)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def debugger_rust_capped_lookup(valobj, internal_dict):
    return DebuggerRustCapped(debugger_rust_original_lookup(valobj, internal_dict))


lldb_lookup.synthetic_lookup = debugger_rust_capped_lookup

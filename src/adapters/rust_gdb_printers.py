# A pretty printer the session adds after Rust's own GDB printers (gdb_load_rust_pretty_printers.py)
# for the Rust values they leave to GDB: enums, structs, tuples and arrays. Through GDB's DAP those
# show an empty value and a child per variant ("some = {Some = {...}}"); with this, the value is
# what GDB's own Rust printing writes ("Some(3)", "Circle{radius: 2}", "[10, 20, 30]"), and the
# children are the fields of the variant the value holds.
#
# Sent to GDB in one "python exec(...)" command (see rust_formatters.rs).

import gdb


class DebuggerRustValue:
    # Set while GDB formats a value for to_string, so that the value itself is printed by GDB
    # (not by this printer again), and what it holds by Rust's printers.
    busy = False

    def __init__(self, value):
        self.value = value

    def to_string(self):
        DebuggerRustValue.busy = True
        try:
            text = self.value.format_string(styling=False)
        finally:
            DebuggerRustValue.busy = False
        # An enum's value starts with its type's path: "core::option::Option<u32>::Some(3)".
        prefix = str(self.value.type.strip_typedefs()) + "::"
        return text[len(prefix):] if text.startswith(prefix) else text

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


def debugger_rust_lookup(value):
    if DebuggerRustValue.busy:
        return None
    code = value.type.strip_typedefs().code
    if code in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION, gdb.TYPE_CODE_ARRAY):
        return DebuggerRustValue(value)
    return None


gdb.current_progspace().pretty_printers.append(debugger_rust_lookup)

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


# A struct as Rust's `{:?}` writes it, `Point { x: 1, y: 2 }`, where LLDB would show
# `values::Point @ 0x7fff…`: an address that is the same at every stop while the fields change.
# Its first fields only, and a struct inside it to one level more (`Config {…}` below that).
DEBUGGER_RUST_STRUCTS = [0]
DEBUGGER_RUST_FIELDS = 4


def debugger_rust_struct(valobj, _dict):
    kind = valobj.GetType().GetCanonicalType().GetTypeClass()
    if kind not in (lldb.eTypeClassStruct, lldb.eTypeClassUnion):
        return ""
    raw = valobj.GetNonSyntheticValue()
    if raw.GetNumChildren() > 0 and raw.GetChildAtIndex(0).GetName() == "$variants$":
        return lldb_lookup.ClangEncodedEnumSummaryProvider(valobj, _dict)
    name = (valobj.GetTypeName() or "").split("<")[0].split("::")[-1]
    count = valobj.GetNumChildren()
    if count == 0:
        return name
    if DEBUGGER_RUST_STRUCTS[0] >= 2 or DEBUGGER_RUST_STATE[0] >= 2:
        return name + " {…}"
    DEBUGGER_RUST_STRUCTS[0] += 1
    try:
        fields = [valobj.GetChildAtIndex(i) for i in range(min(count, DEBUGGER_RUST_FIELDS))]
        # A tuple struct's fields are numbered (LLDB: `0`, rustc's DWARF: `__0`).
        numbered = all((f.GetName() or "").lstrip("_").isdigit() for f in fields)
        shown = ", ".join(
            ("" if numbered else (f.GetName() or "") + ": ") + debugger_rust_item(f)
            for f in fields
        )
    finally:
        DEBUGGER_RUST_STRUCTS[0] -= 1
    more = count > DEBUGGER_RUST_FIELDS
    if numbered:
        return name + "(" + shown + (", …)" if more else ")")
    return name + " { " + shown + (", … }" if more else " }")


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


# PathBuf and OsString read in one memory read: Rust's summary reads them a byte per child,
# milliseconds for each path.
def debugger_rust_bytes_text(valobj, _dict):
    vec = valobj.GetNonSyntheticValue()
    for _ in range(6):
        if vec.GetChildMemberWithName("len").IsValid():
            break
        vec = vec.GetChildAtIndex(0).GetNonSyntheticValue()
    length = vec.GetChildMemberWithName("len").GetValueAsUnsigned()
    pointer = vec.GetChildMemberWithName("buf").GetNonSyntheticValue()
    for _ in range(8):
        if pointer.TypeIsPointerType():
            break
        pointer = pointer.GetChildAtIndex(0).GetNonSyntheticValue()
    if not pointer.TypeIsPointerType():
        return ""
    if length == 0:
        return '""'
    shown = min(length, 4096)
    error = lldb.SBError()
    data = valobj.GetProcess().ReadMemory(pointer.GetValueAsUnsigned(), shown, error)
    if error.Fail():
        return ""
    return '"' + data.decode("utf-8", "replace") + '"' + ("…" if shown < length else "")


# A leaf still answers for its members by name, which Rust's summaries read (a path's length).
class debugger_rust_leaf:
    def __init__(self, valobj, _dict):
        self.raw = valobj.GetNonSyntheticValue()

    def num_children(self):
        return 0

    def get_child_index(self, name):
        return self.raw.GetIndexOfChildWithName(name)

    def get_child_at_index(self, index):
        child = self.raw.GetChildAtIndex(index)
        child.SetPreferSyntheticValue(True)
        return child

    def update(self):
        return True

    def has_children(self):
        return False


def debugger_rust_keyed(child):
    return (child.GetName() or "") + ": " + debugger_rust_item(child)


def debugger_rust_keyed_map(valobj, _dict):
    return debugger_rust_items(valobj, debugger_rust_keyed, "{", "}")


# A HashMap's entries as its values named by their keys, as a BTreeMap's are (and GDB's), where
# Rust's provider makes each entry a `("k", 1)` tuple named by its place in the table.
class debugger_rust_hash_map:
    def __init__(self, valobj, internal_dict):
        self.inner = lldb_lookup.synthetic_lookup(valobj, internal_dict)
        self.names = None

    def update(self):
        self.names = None
        return self.inner.update()

    def num_children(self, *_max):
        return self.inner.num_children()

    def get_child_at_index(self, index):
        entry = self.inner.get_child_at_index(index)
        if entry is None:
            return None
        # The tuple's own members, which have addresses (its synthetic children may not).
        raw = entry.GetNonSyntheticValue()
        key, value = raw.GetChildAtIndex(0), raw.GetChildAtIndex(1)
        key.SetPreferSyntheticValue(True)
        name = debugger_rust_item(key)
        return value.CreateValueFromAddress(name, value.GetLoadAddress(), value.GetType())

    def get_child_index(self, name):
        if self.names is None:
            count = self.num_children()
            self.names = [self.get_child_at_index(i).GetName() for i in range(count)]
        return self.names.index(name) if name in self.names else -1

    def has_children(self):
        return True


# Rc, Arc and RefCell as Rust's `{:?}` shows what they hold, with what a debugger user also asks
# of them: the counts that keep the value alive, and whether it is borrowed now.
def debugger_rust_counted(valobj, _dict):
    kind = "Arc" if "::sync::" in (valobj.GetTypeName() or "") else "Rc"
    strong = valobj.GetChildMemberWithName("strong").GetValueAsUnsigned()
    weak = valobj.GetChildMemberWithName("weak").GetValueAsUnsigned()
    inner = debugger_rust_item(valobj.GetChildAtIndex(0))
    return "%s(%s) strong=%d weak=%d" % (kind, inner, strong, weak)


def debugger_rust_cell(valobj, _dict):
    inner = "RefCell(" + debugger_rust_item(valobj.GetChildAtIndex(0)) + ")"
    borrow = valobj.GetChildMemberWithName("borrow").GetValueAsSigned()
    if borrow > 0:
        return inner + " borrow=%d" % borrow
    if borrow < 0:
        return inner + " borrow_mut=%d" % -borrow
    return inner


# A Box, and a reference LLDB reads as a plain pointer (`int *`: LLDB 19 drops the name rustc
# gives the pointer type), show what they point to, as Rust's `{:?}` does, not an address that
# is the same at every stop while what it points to changes.
# A pointer to a pointer reads one level only (a pointer may point at itself). An empty summary
# is none (LLDB would show a returned None as the text "None").
def debugger_rust_pointee(valobj, _dict):
    address = valobj.GetValueAsUnsigned()
    if address == 0:
        return "null"
    state = DEBUGGER_RUST_STATE
    if state[0] >= 2 or (valobj.GetTypeName() or "").endswith("* *"):
        return ""
    target = valobj.Dereference()
    if not target.IsValid() or target.GetError().Fail():
        return ""
    if target.GetType().GetCanonicalType().GetBasicType() in DEBUGGER_RUST_C_CHARS:
        error = lldb.SBError()
        text = valobj.GetProcess().ReadCStringFromMemory(address, 256, error)
        return "" if error.Fail() or text is None else '"%s"' % text
    state[0] += 1
    try:
        return debugger_rust_item(target)
    finally:
        state[0] -= 1


# A C string (an FFI `*const c_char`) reads as its text, as LLDB's own summary for `char *` does.
DEBUGGER_RUST_C_CHARS = (lldb.eBasicTypeChar, lldb.eBasicTypeSignedChar, lldb.eBasicTypeUnsignedChar)


# BTreeMap and BTreeSet, which Rust's LLDB formatters leave raw (a root node and a length): the
# entries in key order, read from the tree's nodes. A map's children are named by their keys.
# Node layout: LeafNode { parent, parent_idx, len, keys: [K; 11], vals: [V; 11] }, and an
# InternalNode is a LeafNode followed by its edges (pointers to the children nodes).
class debugger_rust_btree:
    def __init__(self, valobj, _dict):
        self.valobj = valobj
        self.entries = []

    def update(self):
        self.entries = []
        raw = self.valobj.GetNonSyntheticValue()
        is_set = "BTreeSet<" in (raw.GetTypeName() or "")
        if is_set:
            raw = raw.GetChildMemberWithName("map").GetNonSyntheticValue()
        length = raw.GetChildMemberWithName("length").GetValueAsUnsigned()
        if length == 0:
            return False
        root = debugger_rust_node_ref(raw.GetChildMemberWithName("root"), 0)
        if root is None:
            return False
        height = root.GetChildMemberWithName("height").GetValueAsUnsigned()
        node = root.GetChildMemberWithName("node").GetNonSyntheticValue()
        pointer = node.GetChildMemberWithName("pointer")
        leaf_type = pointer.GetType().GetPointeeType()
        if not leaf_type.IsValid():
            return False
        limit = min(length, DEBUGGER_RUST_MAX_CHILDREN)
        self.walk(pointer.GetValueAsUnsigned(), height, leaf_type, limit, 0)
        if is_set:
            self.entries = [("[%d]" % i, k, None) for i, (k, _) in enumerate(self.entries)]
        else:
            self.entries = [(debugger_rust_item(k), k, v) for k, v in self.entries]
        return False

    def walk(self, address, height, leaf_type, limit, depth):
        if address == 0 or depth > 32:
            return
        leaf = self.valobj.CreateValueFromAddress("leaf", address, leaf_type)
        count = min(leaf.GetChildMemberWithName("len").GetValueAsUnsigned(), 11)
        keys = leaf.GetChildMemberWithName("keys")
        values = leaf.GetChildMemberWithName("vals")
        process = self.valobj.GetProcess()
        edges = address + leaf_type.GetByteSize()
        for i in range(count + 1):
            if len(self.entries) >= limit:
                return
            if height > 0:
                error = lldb.SBError()
                child = process.ReadPointerFromMemory(edges + 8 * i, error)
                if error.Success():
                    self.walk(child, height - 1, leaf_type, limit, depth + 1)
            if i < count:
                self.entries.append(
                    (debugger_rust_slot(keys, i), debugger_rust_slot(values, i))
                )

    def num_children(self, *_max):
        return len(self.entries)

    def get_child_index(self, name):
        for i, entry in enumerate(self.entries):
            if entry[0] == name:
                return i
        return -1

    def get_child_at_index(self, index):
        if index < 0 or index >= len(self.entries):
            return None
        name, key, value = self.entries[index]
        shown = value if value is not None else key
        return shown.CreateValueFromAddress(name, shown.GetLoadAddress(), shown.GetType())

    def has_children(self):
        return True


def debugger_rust_node_ref(value, depth):
    # The NodeRef { height, node } inside the root's Option, however LLDB lays the enum out
    # (LLDB 19: $variants$ / $variant$ / value / __0).
    value = value.GetNonSyntheticValue()
    if value.GetChildMemberWithName("height").IsValid():
        return value
    if depth > 5:
        return None
    for i in range(value.GetNumChildren()):
        found = debugger_rust_node_ref(value.GetChildAtIndex(i), depth + 1)
        if found is not None:
            return found
    return None


def debugger_rust_slot(array, index):
    # The value inside array[index]: MaybeUninit<T> { value: ManuallyDrop<T> { value: T } },
    # where newer toolchains wrap T once more, in MaybeDangling<T>(T).
    slot = array.GetChildAtIndex(index).GetNonSyntheticValue()
    for _ in range(2):
        slot = slot.GetChildMemberWithName("value").GetNonSyntheticValue()
    if "MaybeDangling<" in (slot.GetTypeName() or ""):
        slot = slot.GetChildAtIndex(0)
    return slot


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


# Which variant an enum holds. LLDB 19 names each variant `$variant$N` after its discriminant
# value, but keeps only that value's low 32 bits; Rust's provider compares the whole value read
# from memory with N. Where the discriminant hides in a Vec's capacity (Option<String>,
# Option<PathBuf>, Cow<str>: no capacity reaches 2^63, so None is 2^63), that reads every None
# as Some, and a Some of an empty String (capacity 0) as None. Such a variant's value is
# 2^63 + N; whether the enum is one is told by the member its discriminant overlays. Other
# niches (a null pointer, an enum's spare tags) are small and kept whole.
DEBUGGER_RUST_CAPACITY_NICHE = 1 << 63
DEBUGGER_RUST_NICHES = {}
# A capacity's type: Rust 1.95's, and the one before it.
DEBUGGER_RUST_CAPACITY_TYPES = ("niche_types::UsizeNoHighBit", "raw_vec::Cap")


def debugger_rust_variant_index(self, all_variants):
    dataful = None
    for i in range(all_variants.GetNumChildren()):
        variant = all_variants.GetChildAtIndex(i)
        if not variant.GetChildMemberWithName("$discr$").IsValid():
            dataful = i
    for i in range(all_variants.GetNumChildren()):
        variant = all_variants.GetChildAtIndex(i)
        discr = variant.GetChildMemberWithName("$discr$")
        name = variant.GetName() or ""
        if not discr.IsValid() or not name.startswith("$variant$"):
            continue
        try:
            expected = int(name[len("$variant$"):])
        except ValueError:
            continue
        if dataful is not None and discr.GetByteSize() == 8:
            if debugger_rust_in_capacity(all_variants, dataful, i):
                expected |= DEBUGGER_RUST_CAPACITY_NICHE
        if discr.GetValueAsUnsigned() == expected:
            return i
    return 0 if dataful is None else dataful


def debugger_rust_in_capacity(all_variants, dataful, index):
    # By the types' layout: a value inside a summarised one often has no address of its own.
    kind = all_variants.GetType()
    key = (kind.GetName(), index)
    if key not in DEBUGGER_RUST_NICHES:
        variant = kind.GetFieldAtIndex(index)
        discr_at = variant.GetOffsetInBytes() + debugger_rust_field_offset(
            variant.GetType(), "$discr$"
        )
        holder = kind.GetFieldAtIndex(dataful)
        value = debugger_rust_field(holder.GetType(), "value")
        found = None
        if value is not None:
            at = discr_at - holder.GetOffsetInBytes() - value.GetOffsetInBytes()
            found = debugger_rust_type_at(value.GetType(), at, 0)
        DEBUGGER_RUST_NICHES[key] = found is not None and any(
            name in found for name in DEBUGGER_RUST_CAPACITY_TYPES
        )
    return DEBUGGER_RUST_NICHES[key]


def debugger_rust_field(kind, name):
    for i in range(kind.GetNumberOfFields()):
        field = kind.GetFieldAtIndex(i)
        if field.GetName() == name:
            return field
    return None


def debugger_rust_field_offset(kind, name):
    field = debugger_rust_field(kind, name)
    return 0 if field is None else field.GetOffsetInBytes()


def debugger_rust_type_at(kind, offset, depth):
    # The type names, outermost first, of the nested fields of `kind` that hold byte `offset`.
    # Through an enum inside (niches nest: Option<Result<DirEntry, Error>>), the variant that
    # holds data, never a discriminant.
    names = kind.GetName() or ""
    if depth > 16:
        return names
    fields = [kind.GetFieldAtIndex(i) for i in range(kind.GetNumberOfFields())]
    fields = [f for f in fields if f.GetName() != "$discr$"]
    dataful = [f for f in fields if f.GetName() == "$variant$"]
    for field in dataful or fields:
        start = field.GetOffsetInBytes()
        if start <= offset < start + field.GetType().GetByteSize():
            return names + " " + debugger_rust_type_at(field.GetType(), offset - start, depth + 1)
    return names


lldb_lookup.ClangEncodedEnumProvider._getCurrentVariantIndex = debugger_rust_variant_index


# An enum's struct variant as Rust writes it, `Circle { radius: 2 }`, where Rust's provider
# writes `Circle{radius:2}`.
import lldb_providers


def debugger_rust_variant_fields(valobj, _dict):
    fields = lldb_providers.aggregate_field_summary(valobj, _dict)
    shown = (
        "%s: %s" % (valobj.GetChildAtIndex(i).GetName(), text) for i, text in enumerate(fields)
    )
    return " { " + ", ".join(shown) + " }"


lldb_providers.StructSummaryProvider = debugger_rust_variant_fields

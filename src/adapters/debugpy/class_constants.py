# Leaves the class constants of Python's built-in types out of their instances' members (see
# HIDE_CLASS_CONSTANTS in members.rs): run in the program's process before it runs. pydevd lists
# an object's members by `dir()`, which names its type's attributes too, so a `datetime` showed
# `max`, `min` and `resolution`, datetimes of their own, beside its year and month. A member is
# left out when the first class of the type's MRO that holds it is written in C (no heap type)
# and holds a plain value there, not a descriptor: `year` is a descriptor that reads the
# instance, `max` a constant of the class. Classes written in Python keep every member, as does
# a class itself. A pydevd laid out otherwise is left as it is.
def _hide_class_constants(resolver):
    heap_type = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class written in Python

    def is_class_constant(cls, name):
        for base in cls.__mro__:
            held = base.__dict__
            if name in held:
                plain = not hasattr(type(held[name]), "__get__")
                return plain and not base.__flags__ & heap_type
        return False

    default = resolver.DefaultResolver
    get_names = default.get_names

    def get_names_without_class_constants(self, var):
        names, used___dict__ = get_names(self, var)
        if used___dict__ or isinstance(var, type):
            return names, used___dict__
        try:
            cls = type(var)
            own = getattr(var, "__dict__", None)
            if not isinstance(own, dict):
                own = {}
            kept = [
                name
                for name in names
                if name in own or not isinstance(name, str) or not is_class_constant(cls, name)
            ]
        except Exception:
            return names, used___dict__
        return kept, used___dict__

    default.get_names = get_names_without_class_constants


try:
    _hide_class_constants(__import__("_pydevd_bundle.pydevd_resolver", fromlist=["DefaultResolver"]))
except Exception:
    pass

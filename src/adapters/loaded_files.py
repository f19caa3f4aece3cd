"""The files a Python program has loaded (shared by our pdb server, which tells them as
`loadedSource` events as the program exits, and a debugpy launch, which writes them to a file
the daemon names as the program exits): what lets the end of a run say that a breakpoint's file
was never loaded, the program having imported another copy of it."""


def loaded_files():
    """The real paths of the files the program's modules came from, `__main__`'s among them,
    each once, sorted."""
    import os
    import sys

    files = set()
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path:
            try:
                files.add(os.path.realpath(path))
            except (OSError, ValueError):
                pass
    return sorted(files)

"""What a Python started ahead of its launch read as it started (shared by our pdb server, which
reports it in its answer to `initialize`, and a kept debugpy launch, which is asked it through
an `evaluate`): the daemon gives such a Python a launch only while all of it is unchanged."""


def watched_paths():
    """What the daemon checks before it gives this (warm) interpreter a launch, with their
    modification times (none: missing): the folders its start-up read (`sys.path`: where `site`
    found packages and `.pth` files, and the user's site folder, read only if it exists), so
    that a package installed or removed since sends the launch to a new interpreter; and the
    files a version manager's shim picks the Python by (`.python-version`, `.tool-versions` in
    the working folder and above it, pyenv's global `version`), so that `pyenv local 3.12`
    does too."""
    import os
    import site
    import sys

    paths = [os.path.abspath(p) for p in sys.path if p]
    if getattr(site, "ENABLE_USER_SITE", False):
        paths.append(site.getusersitepackages())
    folder = os.getcwd()
    while True:
        paths.extend(os.path.join(folder, name) for name in (".python-version", ".tool-versions"))
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    pyenv_root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    paths.append(os.path.join(pyenv_root, "version"))
    watched = []
    for path in dict.fromkeys(paths):
        try:
            watched.append([path, os.stat(path).st_mtime_ns])
        except OSError:
            watched.append([path, None])
    return watched

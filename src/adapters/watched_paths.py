"""What a Python started ahead of its launch read as it started (shared by our pdb server, which
reports it in its answer to `initialize`, and a kept debugpy launch, which is asked it through
an `evaluate`): the daemon gives such a Python a launch only while all of it is unchanged."""


def watched_paths():
    """What the daemon checks before it gives this (warm) interpreter a launch, with their
    modification times (none: missing): the folders its start-up read (`sys.path`: where `site`
    found packages and `.pth` files, and the user's site folder, read only if it exists), so
    that a package installed or removed since sends the launch to a new interpreter. The files a
    version manager's shim picked this Python by are read before it started, by the daemon
    (`version_manager_files`, the adapters' `start_inputs`)."""
    import os
    import site
    import sys

    paths = [os.path.abspath(p) for p in sys.path if p]
    if getattr(site, "ENABLE_USER_SITE", False):
        paths.append(site.getusersitepackages())
    watched = []
    for path in dict.fromkeys(paths):
        try:
            watched.append([path, os.stat(path).st_mtime_ns])
        except OSError:
            watched.append([path, None])
    return watched

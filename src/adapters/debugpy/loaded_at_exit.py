# Writes the program's loaded files (`loaded_files`, from loaded_files.py, which comes first) to
# the file `_OUT` as the program exits (see loaded_files.rs): run in the program's process before
# it runs, so its own atexit functions, registered later, run first and what they import counts.
# Only the process it ran in writes: a forked child that exits by itself ran on as a program of
# its own.
def _write_loaded_files(out, pid):
    import os

    if os.getpid() != pid:
        return
    try:
        with open(out, "w", encoding="utf-8", errors="surrogateescape") as file:
            file.write("\n".join(loaded_files()))
    except OSError:
        pass


__import__("atexit").register(_write_loaded_files, _OUT, __import__("os").getpid())

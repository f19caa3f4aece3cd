# Keeps debugpy from describing its environment where no log keeps the description (see
# QUIET_ENVIRONMENT in start.rs): run in the adapter before it starts, and in the program before it
# runs. Anything laid out otherwise is left as it is.
def _quiet(log, in_program):
    describe = log.describe_environment

    def logging_info():
        return any("info" in f.levels for f in list(log._files.values()))

    if in_program:
        # Decided now, the program's logs being set up by then; and with a builtin, not a
        # function of ours, which pydevd would trace: a stop on entry stopped in it.
        if not logging_info():
            log.describe_environment = id
        return

    def describe_environment(header):
        if logging_info():
            describe(header)

    log.describe_environment = describe_environment


try:
    _quiet(
        __import__("debugpy.common.log", fromlist=["log"]),
        globals().get("_IN_PROGRAM", False),
    )
except Exception:
    pass

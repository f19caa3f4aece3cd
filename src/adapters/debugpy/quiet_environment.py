# Keeps debugpy from describing its environment where no log keeps the description (see
# QUIET_ENVIRONMENT in start.rs): run in the adapter before it starts, and in the program before it
# runs. Anything laid out otherwise is left as it is.
def _quiet(log):
    describe = log.describe_environment

    def describe_environment(header):
        if any("info" in f.levels for f in list(log._files.values())):
            describe(header)

    log.describe_environment = describe_environment


try:
    _quiet(__import__("debugpy.common.log", fromlist=["log"]))
except Exception:
    pass

"""A breakpoint changed in place over MCP: `start` with gdb's 'LOC if COND', then the
breakpoint tool's `modify` action gives it another condition, keeping its id, and the next stop
honours it; then its condition is removed (`no_condition`), and both a condition and its removal
at once are refused (arguments clap refuses are the call's JSON-RPC error).

ARGS: program, location (a function), variable (an argument of it), first and second (values of
the variable under the two conditions)."""

import asyncio

from mcp import MCPError

from common import ARGS, call, connect, data, emit, text

VARIABLE = ARGS["variable"]


async def main():
    async with connect("Modify Test") as session:
        where = f"{ARGS['location']} if {VARIABLE} == {ARGS['first']}"
        started = await call(session, "start", program=ARGS["program"], breakpoints=[where],
                             stop_on_entry=True)
        assert not started.is_error, text(started)
        [added] = started.structured_content["breakpoints"]
        assert added["condition"] == f"{VARIABLE} == {ARGS['first']}", added

        changed = await data(session, "breakpoint", action="modify", ids=[added["id"]],
                             condition=f"{VARIABLE} == {ARGS['second']}")
        assert changed["id"] == added["id"], changed
        assert changed["condition"] == f"{VARIABLE} == {ARGS['second']}", changed

        stopped = await data(session, "execute", action="continue", wait=True, timeout=60)
        assert stopped["stop"]["reason"] == "breakpoint", stopped
        value = await data(session, "evaluate", action="print", expression=[VARIABLE])

        try:
            both = await call(session, "breakpoint", action="modify", ids=[added["id"]],
                              condition="1", no_condition=True)
            raise AssertionError(f"both were taken: {text(both)}")
        except MCPError as e:
            refused = str(e)
        cleared = await data(session, "breakpoint", action="modify", ids=[added["id"]],
                             no_condition=True)
        assert cleared.get("condition") is None, cleared
        await data(session, "stop")
        emit({"value": value["value"], "refused": refused})


asyncio.run(main())

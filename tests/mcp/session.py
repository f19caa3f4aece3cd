"""One language's session over MCP, the shape an agent follows: start with a breakpoint, which
answers with the first stop, locals, evaluate, backtrace, select up and back, output, stop.

ARGS: program, breakpoint (FILE:LINE), function (where it stops), line, variable (a local
there), expression and value (what evaluate prints), output (text the program printed by then,
or null), adapter (optional)."""

import asyncio

from common import ARGS, call, connect, data, emit, session_of, text


async def main():
    async with connect("Session Test") as session:
        start = {"program": ARGS["program"], "breakpoints": [ARGS["breakpoint"]]}
        if ARGS.get("adapter"):
            start["adapter"] = ARGS["adapter"]
        started = await call(session, "start", wait=60, **start)
        assert not started.is_error, text(started)
        name = session_of(started)
        assert name.startswith("session-test-"), name

        # The start answers with the first stop: no continue is needed to reach it.
        stopped = started.structured_content
        stop = stopped["stop"]
        assert stop["reason"] == "breakpoint", stopped
        assert stop["frame"]["function"].endswith(ARGS["function"]), stop["frame"]
        assert stop["frame"]["line"] == ARGS["line"], stop["frame"]

        local_names = [v["name"] for v in (await data(session, "locals"))["variables"]]
        assert ARGS["variable"] in local_names, local_names

        value = await data(session, "evaluate", action="print", expression=[ARGS["expression"]])
        assert value["value"] == ARGS["value"], value
        evaluated = await data(session, "evaluate", action="eval", expression=ARGS["expression"])
        assert evaluated["value"] == ARGS["value"], evaluated

        frames = (await data(session, "backtrace"))["frames"]
        assert frames[0]["function"].endswith(ARGS["function"]), frames
        assert len(frames) >= 2, frames
        await data(session, "select", action="up")
        await data(session, "select", action="frame", index=0)

        shown = await call(session, "output")
        assert not shown.is_error, text(shown)
        if ARGS.get("output"):
            assert ARGS["output"] in text(shown), text(shown)

        status = await data(session, "status")
        assert status["state"] == "stopped", status
        await data(session, "stop")
        gone = await call(session, "status")
        assert gone.is_error and gone.structured_content["error"]["code"] == "no_session", text(gone)
        emit({"session": name})


asyncio.run(main())

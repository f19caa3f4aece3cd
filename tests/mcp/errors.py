"""Errors: a probe that hits nothing, an argument too large to send, and a failing command is a tool result with isError and our code, message and hint;
an unknown tool, an unknown method and bad arguments are JSON-RPC errors; the server keeps
serving after each. ARGS: program, breakpoint."""

import asyncio

from mcp import MCPError
from mcp.types import INVALID_PARAMS, METHOD_NOT_FOUND

from common import ARGS, call, connect, data, emit, text


async def refused(coroutine, code):
    try:
        await coroutine
    except MCPError as e:
        assert e.code == code, (e.code, e)
        return str(e)
    raise AssertionError("no JSON-RPC error")


async def main():
    async with connect() as session:
        none = await call(session, "locals")
        assert none.is_error
        error = none.structured_content["error"]
        assert error["code"] == "no_session", error
        assert error["hint"] and "hint: " in text(none), text(none)

        # probe: one call, no session; a breakpoint never hit is its error, with the report.
        probed = await data(session, "probe", program=ARGS["program"], breakpoints=[ARGS["breakpoint"]])
        assert len(probed["hits"]) == 1, probed
        missed = await call(session, "probe", program=ARGS["program"], breakpoints=["nosuchfunction"])
        assert missed.is_error and missed.structured_content["error"]["code"] == "not_hit", text(missed)
        assert "no breakpoint was hit" in text(missed), text(missed)

        await data(session, "start", program=ARGS["program"], breakpoints=[ARGS["breakpoint"]])
        await data(session, "await", timeout=60)
        bad = await call(session, "evaluate", action="print", expression=["no_such_name"])
        assert bad.is_error and bad.structured_content["error"]["code"] == "adapter", text(bad)
        # An argument larger than a command may carry is the caller's error, told in its size.
        huge = await call(session, "evaluate", action="print", expression=["x" * (17 * 1024 * 1024)])
        assert huge.is_error and huge.structured_content["error"]["code"] == "usage", text(huge)
        assert "17.0 MiB long" in text(huge), text(huge)
        gone = await call(session, "select", action="frame", index=999)
        assert gone.is_error, text(gone)

        unknown = await refused(call(session, "no_such_tool"), INVALID_PARAMS)
        assert "no_such_tool" in unknown, unknown
        wrong = await refused(call(session, "backtrace", limit="many"), INVALID_PARAMS)
        assert "many" in wrong, wrong
        extra = await refused(call(session, "status", bogus=1), INVALID_PARAMS)
        assert "bogus" in extra, extra
        await refused(call(session, "execute", wait=True), INVALID_PARAMS)
        # A continuation of an answer that was never cut would run the command again: refused.
        again = await refused(call(session, "execute", action="next", offset=3), INVALID_PARAMS)
        assert "without offset" in again, again
        await refused(session.list_resources(), METHOD_NOT_FOUND)

        # A probe beside the session: its end kills what is left of its own tree, never the
        # session's daemon, which this server started too.
        beside = await data(session, "probe", program=ARGS["program"], breakpoints=[ARGS["breakpoint"]])
        assert len(beside["hits"]) == 1, beside

        still = await data(session, "status")
        assert still["state"] == "stopped", still
        await data(session, "stop")
        emit({"unknown": unknown, "wrong": wrong})


asyncio.run(main())

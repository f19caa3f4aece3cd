"""Displays over MCP: the `display` tool adds an expression (answering its value at the stop),
lists and removes them; every stop report of `execute` and `await` carries `displays` with the
same fields as the CLI's JSON, and the waiting tools' `print` adds a one-off to one report; an
unknown id is an error naming the ids there are.

ARGS: program, breakpoint (where `variable` is 0 at the first stop and 1 at the second),
variable, missing (a name not in scope there)."""

import asyncio

from common import ARGS, call, connect, data, emit, text

VARIABLE = ARGS["variable"]


async def main():
    async with connect("Display Test") as session:
        started = await data(session, "start", program=ARGS["program"],
                             breakpoints=[ARGS["breakpoint"]], wait=60, print=[VARIABLE])
        [once] = started["stop"]["displays"]
        assert once["id"] is None and once["value"] == "0", once

        added = await data(session, "display", expression=[VARIABLE])
        assert added["id"] == 1 and added["value"] == "0", added
        missing = await data(session, "display", expression=[ARGS["missing"]])
        assert missing["id"] == 2 and missing["value"] is None and missing["error"], missing

        stopped = await data(session, "execute", action="continue", wait=True, timeout=60,
                             print=[f"{VARIABLE} + 10"])
        kept, gone, extra = stopped["stop"]["displays"]
        assert kept == {"id": 1, "expression": VARIABLE, "value": "1", "old_value": "0",
                        "changed": True, "error": None}, kept
        assert gone["id"] == 2 and gone["error"] and gone["value"] is None, gone
        assert extra["id"] is None and extra["value"] == "11", extra

        listed = await data(session, "display")
        assert [d["id"] for d in listed["displays"]] == [1, 2], listed
        unknown = await call(session, "display", remove=9)
        assert unknown.is_error, text(unknown)
        assert unknown.structured_content["error"]["code"] == "usage", text(unknown)
        removed = await data(session, "display", remove=2)
        assert [d["id"] for d in removed["displays"]] == [1], removed

        again = await data(session, "await", timeout=60, print=[VARIABLE])
        assert [d["id"] for d in again["displays"]] == [1, None], again
        await data(session, "stop")
        emit({"unknown": text(unknown)})


asyncio.run(main())

"""Two MCP clients at once, of the same name, get separate sessions: each starts the program,
and each sees its own stop. ARGS: program, breakpoint."""

import asyncio

from common import ARGS, call, connect, data, emit, session_of, text


async def client():
    async with connect("Twin") as session:
        started = await call(session, "start", program=ARGS["program"], breakpoints=[ARGS["breakpoint"]])
        assert not started.is_error, text(started)
        stop = await data(session, "await", timeout=60)
        assert stop["reason"] == "breakpoint", stop
        listed = await data(session, "sessions")
        name = session_of(started)
        await data(session, "stop")
        return name, listed


async def main():
    (one, listed), (two, _) = await asyncio.gather(client(), client())
    assert one != two, (one, two)
    assert {one, two} <= {"twin-1", "twin-2"}, (one, two)
    emit({"sessions": [one, two], "listed": listed})


asyncio.run(main())

"""Two MCP clients at once, of the same name, get separate sessions: each starts the program and
sees its own stop, and both sessions are listed while both are alive. ARGS: program,
breakpoint."""

import asyncio
from contextlib import AsyncExitStack

from common import ARGS, call, connect, data, emit, session_of, text


async def started(client):
    result = await call(client, "start", program=ARGS["program"], breakpoints=[ARGS["breakpoint"]])
    assert not result.is_error, text(result)
    stop = await data(client, "await", timeout=60)
    assert stop["reason"] == "breakpoint", stop
    return session_of(result)


async def main():
    async with AsyncExitStack() as stack:
        # Both connections open at once (entered in turn: anyio's scopes belong to one task).
        one = await stack.enter_async_context(connect("Twin"))
        two = await stack.enter_async_context(connect("Twin"))
        names = await asyncio.gather(started(one), started(two))
        assert names[0] != names[1], names
        assert set(names) == {"twin-1", "twin-2"}, names
        listed = await data(one, "sessions")
        await asyncio.gather(data(one, "stop"), data(two, "stop"))
    emit({"sessions": names, "listed": listed})


asyncio.run(main())

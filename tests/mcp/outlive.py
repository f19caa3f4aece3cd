"""Sessions and the connection's end: a session started over MCP is left running when the
connection ends (the Rust side reads it with `debugger status --session NAME`), unless it was
started with end_with_client. ARGS: program, breakpoint."""

import asyncio

from common import ARGS, connect, data, emit, session_of, call, text


async def main():
    async with connect("Outlive Test") as session:
        kept = await call(session, "start", program=ARGS["program"], breakpoints=[ARGS["breakpoint"]])
        assert not kept.is_error, text(kept)
        await data(session, "await", timeout=60)
        ended = await call(session, "start", session=ARGS["owned"], program=ARGS["program"],
                           breakpoints=[ARGS["breakpoint"]], end_with_client=True)
        assert not ended.is_error, text(ended)
        assert session_of(ended) == ARGS["owned"]
        await data(session, "await", session=ARGS["owned"], timeout=60)
        emit({"kept": session_of(kept), "owned": session_of(ended)})


asyncio.run(main())

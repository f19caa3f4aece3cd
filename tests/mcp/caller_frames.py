"""A caller's frame over MCP: the probe tool's `prints` take '@FRAME:EXPR' as `--print` does, and
a print naming a variable the hit's frame lacks says which caller has it; `evaluate` takes the
same form in a session. ARGS: program, breakpoint (in a function whose caller has `i`)."""

import asyncio

from common import ARGS, call, connect, data, emit, text


async def main():
    async with connect() as session:
        probed = await data(
            session, "probe", program=ARGS["program"], breakpoints=[ARGS["breakpoint"]],
            prints=["i", "@main:i", "@1:i"], hits=2,
        )
        hits = probed["hits"]
        assert len(hits) == 2, probed
        caller = [[p.get("value") for p in hit["prints"][1:]] for hit in hits]
        missing = hits[0]["prints"][0]["error"]

        await data(session, "start", program=ARGS["program"], breakpoints=[ARGS["breakpoint"]])
        printed = await data(session, "evaluate", action="print", expression=["@main:i"])
        bad = await call(session, "evaluate", action="print", expression=["i"])
        assert bad.is_error, text(bad)
        await data(session, "stop")
        emit({
            "caller": caller, "missing": missing, "printed": printed["value"],
            "print_error": bad.structured_content["error"]["message"],
        })


asyncio.run(main())

"""A wait that runs out: execute continue with wait on a program that never stops returns
state=running with a hint, not an error, after progress notifications; the program still runs,
and pause stops it. A client that set a log level hears the next stop of a session it left
running, as a log message carrying the stop report. ARGS: program, breakpoint."""

import asyncio
import time

from common import ARGS, call, connect, data, emit, text


async def main():
    messages = []

    async def on_log(params):
        messages.append(params)

    async with connect(logging_callback=on_log) as session:
        await data(session, "start", program=ARGS["program"])
        progress = []

        async def on_progress(done, total, message):
            progress.append((done, total, message))

        result = await call(session, "execute", progress=on_progress, action="continue", wait=True, timeout=5)
        assert not result.is_error, text(result)
        running = result.structured_content
        assert running["state"] == "running", running
        assert "await" in running["hint"], running
        assert "Still running" in text(result), text(result)
        assert progress, "progress notifications while waiting"
        assert all(total == 5 for _, total, _ in progress), progress
        waited = await call(session, "await", progress=on_progress, timeout=1)
        assert waited.structured_content["state"] == "running", text(waited)
        assert (await data(session, "status"))["state"] == "running"
        paused = await data(session, "execute", action="pause", wait=True, timeout=30)
        assert paused["stop"]["reason"] == "pause", paused

        await session.set_logging_level("info")
        await data(session, "breakpoint", action="add", locations=[ARGS["breakpoint"]])
        resumed = await data(session, "execute", action="continue")
        assert resumed["state"] == "running", resumed
        deadline = time.monotonic() + 60
        while not messages:
            assert time.monotonic() < deadline, "no stop was pushed"
            await asyncio.sleep(0.05)
        pushed = messages[0].data
        assert pushed["stop"]["reason"] == "breakpoint", pushed
        assert pushed["stop"]["frame"]["function"] == "tick", pushed
        assert pushed["text"].startswith("Stopped at breakpoint 1"), pushed
        await data(session, "stop")
        emit({"progress": len(progress)})


asyncio.run(main())

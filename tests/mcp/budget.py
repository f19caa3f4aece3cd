"""The byte budget: an answer longer than max_bytes is cut at a line, says how much is left and
the offset that shows it, in the text and in structuredContent; following the offsets shows
every line once. ARGS: program (prints more than the budget), last (its last output line)."""

import asyncio
import time

from common import ARGS, call, connect, data, emit, text


async def main():
    async with connect() as session:
        await data(session, "start", program=ARGS["program"])
        exited = await data(session, "await", timeout=60)
        assert exited["reason"] == "exited", exited
        # Output events can trail the exit a little: poll for the last line, with a deadline.
        deadline = time.monotonic() + 30
        whole = ""
        while ARGS["last"] not in whole:
            assert time.monotonic() < deadline, whole
            await asyncio.sleep(0.05)
            whole = text(await call(session, "output", max_bytes=1_000_000))

        first = await call(session, "output", max_bytes=256)
        assert len(text(first).encode()) <= 256, text(first)
        more = first.structured_content["more"]
        assert more["remaining_lines"] > 0, more
        assert f"ask again with offset={more['next_offset']}" in text(first), text(first)

        seen, offset, parts = [], 0, 0
        while True:
            part = await call(session, "output", max_bytes=256, offset=offset)
            parts += 1
            lines = text(part).splitlines()
            seen.extend(l for l in lines if not (l.startswith("[") and "ask again with offset=" in l))
            more = part.structured_content.get("more")
            if not more or more["next_offset"] is None:
                break
            offset = more["next_offset"]
        assert seen == whole.splitlines(), (seen, whole)
        assert parts > 1
        await data(session, "stop")
        emit({"parts": parts})


asyncio.run(main())

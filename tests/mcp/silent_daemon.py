"""A daemon that does not answer (the test stopped it with SIGSTOP): the `sessions` tool still
answers, listing it under `not_answering` beside the session that answers, and the `stop` tool
ends it by its pid. Each call is bounded far beyond its need, so a regression fails, not hangs.

ARGS: silent (the stopped daemon's session), silent_pid (its pid), other (a session that answers)."""

import asyncio

from common import ARGS, connect, data, emit

HUNG = 60


def bounded(call):
    return asyncio.wait_for(call, HUNG)


async def main():
    async with connect() as client:
        listed = await bounded(data(client, "sessions"))
        answered = [s["session"] for s in listed["sessions"]]
        assert ARGS["other"] in answered and ARGS["silent"] not in answered, listed
        quiet = listed.get("not_answering") or []
        assert [d["session"] for d in quiet] == [ARGS["silent"]], listed
        assert quiet[0]["daemon_pid"] == ARGS["silent_pid"], listed
        stopped = await bounded(data(client, "stop", session=ARGS["silent"]))
        assert "was killed" in stopped["message"], stopped
        again = await bounded(data(client, "sessions"))
        assert not again.get("not_answering"), again
        emit({"stopped": stopped["message"]})


asyncio.run(main())

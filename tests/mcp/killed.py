"""A session started with end_with_client ends when its server is killed outright (SIGKILL), not
only when the server closes in its own time. ARGS: program, breakpoint, owned."""

import asyncio
import os
import signal

from common import ARGS, connect, data, emit, session_of, call, text


def server_pid():
    """The `debugger mcp` process: the one child of this script (the SDK's stdio transport)."""
    children = []
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        with open(f"/proc/{os.getpid()}/task/{task}/children") as listed:
            children += [int(pid) for pid in listed.read().split()]
    assert len(children) == 1, f"children: {children}"
    return children[0]


async def main():
    async with connect("Killed Test") as session:
        started = await call(session, "start", session=ARGS["owned"], program=ARGS["program"],
                             breakpoints=[ARGS["breakpoint"]], end_with_client=True)
        assert not started.is_error, text(started)
        assert session_of(started) == ARGS["owned"]
        stop = await data(session, "await", session=ARGS["owned"], timeout=60)
        status = await data(session, "status", session=ARGS["owned"])
        assert status["state"] == "stopped", status
        server = server_pid()
        os.kill(server, signal.SIGKILL)
        emit({"owned": session_of(started), "program_pid": status["debuggee_pid"],
              "server": server, "stop": stop})
        # The transport cannot close a killed server's pipes cleanly: leave without it.
        os._exit(0)


asyncio.run(main())

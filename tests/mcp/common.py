"""What every scenario script shares: start `debugger mcp` as a real MCP client does (the
official Python SDK's stdio transport), call tools, read their answers.

A script gets its parameters as one JSON object in argv[1] and ends by printing one JSON object
(what the Rust test checks on its side); its own checks are asserts.
"""

import json
import os
import sys
from contextlib import asynccontextmanager

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.types import Implementation

# The test's private environment: runtime dir, state dir, config. DEBUGGER_SESSION is left
# out, so each connection names its own session.
PASSED = ("DEBUGGER_RUNTIME_DIR", "DEBUGGER_STATE_DIR", "DEBUGGER_CONFIG", "DEBUGGER_LOG", "PATH", "HOME")

ARGS = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}


def server():
    env = {k: os.environ[k] for k in PASSED if k in os.environ}
    return StdioServerParameters(command=os.environ["DEBUGGER_BIN"], args=["mcp"], env=env, cwd=os.getcwd())


@asynccontextmanager
async def connect(client_name="mcp-test", **options):
    async with stdio_client(server()) as (read, write):
        info = Implementation(name=client_name, version="1.0")
        async with ClientSession(read, write, client_info=info, **options) as session:
            await session.initialize()
            yield session


async def call(client, tool, progress=None, **arguments):
    """A tool's result, whatever it is (isError included). `session` may be among the arguments:
    the tool's, not this client's."""
    return await client.call_tool(tool, arguments, progress_callback=progress)


def text(result):
    return "".join(c.text for c in result.content if c.type == "text")


def session_of(result):
    return result.meta["session"]


async def data(client, tool, **arguments):
    """A tool's structuredContent, asserting it is no error."""
    result = await call(client, tool, **arguments)
    assert not result.is_error, f"{tool} {arguments}: {text(result)}"
    assert result.structured_content is not None, f"{tool}: no structuredContent"
    return result.structured_content


def emit(value):
    print(json.dumps(value), flush=True)

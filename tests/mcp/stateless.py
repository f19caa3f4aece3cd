"""MCP 2026-07-28, the stateless revision. The SDK's `Client` in its default mode probes
`server/discover` and, answered, speaks that revision: no `initialize`, the protocol version,
client capabilities and client name in every request's `_meta`. Over it: the tool list, and a C
session started, stopped at its breakpoint, read and stopped. Then the lines no SDK sends,
written raw: a version the server does not speak (the spec's UnsupportedProtocolVersionError),
a request missing a required `_meta` field, a method the revision removed, and the
`resultType`, caching hints and server name the revision puts on results.

ARGS: guide (the instructions), program, breakpoint (FILE:LINE), line (where it stops)."""

import asyncio
import json
import os
import subprocess

from mcp import Client
from mcp.types import Implementation

from common import ARGS, PASSED, call, data, emit, server, session_of, text

VERSION = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
CLIENT = "io.modelcontextprotocol/clientInfo"
SERVER = "io.modelcontextprotocol/serverInfo"


async def over_the_sdk():
    info = Implementation(name="Stateless Agent", version="1.0")
    async with Client(server(), client_info=info) as client:
        assert client.protocol_version == "2026-07-28", client.protocol_version
        assert client.server_info is not None and client.server_info.name == "debugger"
        discovered = client.session.discover_result
        assert discovered is not None and "2026-07-28" in discovered.supported_versions
        assert discovered.instructions == ARGS["guide"]
        assert discovered.capabilities.tools is not None

        tools = (await client.list_tools()).tools
        assert {"start", "status", "stop", "execute"} <= {t.name for t in tools}

        started = await call(client, "start", program=ARGS["program"], breakpoints=[ARGS["breakpoint"]])
        assert not started.is_error, text(started)
        name = session_of(started)
        assert name.startswith("stateless-agent-"), name
        stopped = await data(client, "execute", action="continue", wait=True, timeout=60)
        assert stopped["stop"]["reason"] == "breakpoint", stopped
        assert stopped["stop"]["frame"]["line"] == ARGS["line"], stopped
        status = await data(client, "status")
        assert status["state"] == "stopped", status
        await data(client, "stop")
        gone = await call(client, "status")
        assert gone.is_error and gone.structured_content["error"]["code"] == "no_session", text(gone)
        return name


def meta(version="2026-07-28", capabilities=True):
    fields = {VERSION: version, CLIENT: {"name": "Raw Agent", "version": "0"}}
    if capabilities:
        fields[CAPABILITIES] = {}
    return {"_meta": fields}


def raw():
    requests = [
        {"id": 1, "method": "server/discover", "params": meta(version="1900-01-01")},
        {"id": 2, "method": "tools/list", "params": meta(capabilities=False)},
        {"id": 3, "method": "server/discover", "params": {}},
        {"id": 4, "method": "ping", "params": meta()},
        {"id": 5, "method": "server/discover", "params": meta()},
        {"id": 6, "method": "tools/list", "params": meta()},
        {"id": 7, "method": "tools/call", "params": {"name": "status", "arguments": {}, **meta()}},
    ]
    answers = exchange(requests)

    unsupported = answers[1]["error"]
    assert unsupported["code"] == -32022, unsupported
    assert unsupported["data"]["requested"] == "1900-01-01", unsupported
    assert "2026-07-28" in unsupported["data"]["supported"], unsupported
    assert answers[2]["error"]["code"] == -32602, answers[2]
    assert answers[3]["error"]["code"] == -32602, answers[3]
    assert answers[4]["error"]["code"] == -32601, answers[4]

    for cacheable in (answers[5]["result"], answers[6]["result"]):
        assert cacheable["resultType"] == "complete", cacheable.keys()
        assert cacheable["ttlMs"] >= 0 and cacheable["cacheScope"] in ("public", "private")
        assert cacheable["_meta"][SERVER]["name"] == "debugger", cacheable["_meta"]
    assert answers[5]["result"]["supportedVersions"][0] == "2026-07-28", answers[5]
    assert len(answers[6]["result"]["tools"]) > 20

    status = answers[7]["result"]
    assert status["resultType"] == "complete" and status["isError"], status
    assert status["structuredContent"]["error"]["code"] == "no_session", status
    # No initialize named the client: the default session is named from the request's _meta.
    assert status["_meta"]["session"].startswith("raw-agent-"), status["_meta"]

    # One connection may speak both: a handshake, then a stateless request.
    both = exchange([
        {"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                                      "clientInfo": {"name": "raw", "version": "0"}}},
        {"id": 2, "method": "tools/list", "params": meta()},
    ])
    legacy = both[1]["result"]
    assert legacy["protocolVersion"] == "2025-11-25" and "resultType" not in legacy, legacy
    assert both[2]["result"]["resultType"] == "complete", both[2]
    return len(answers) + len(both)


def exchange(requests):
    """Sends `requests` to a fresh server, ends its input, and returns its answers by id."""
    payload = "".join(json.dumps({"jsonrpc": "2.0", **r}) + "\n" for r in requests).encode()
    env = {k: os.environ[k] for k in PASSED if k in os.environ}
    done = subprocess.run([os.environ["DEBUGGER_BIN"], "mcp"], input=payload,
                          capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done
    answers = {a["id"]: a for a in map(json.loads, done.stdout.decode().splitlines())}
    assert len(answers) == len(requests), answers
    return answers


async def main():
    name = await over_the_sdk()
    emit({"session": name, "raw_answers": raw()})


asyncio.run(main())

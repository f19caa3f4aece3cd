"""Malformed input: no SDK sends it, so this one writes the lines itself. Junk, bytes that are
not UTF-8, a batch, a
message without "jsonrpc", a bad id, a log level MCP has not, and unknown methods get JSON-RPC errors; notifications and
stray responses get nothing; the server answers the valid requests around them all, and ends
cleanly when its input does."""

import json
import os
import subprocess

from common import PASSED, emit

env = {k: os.environ[k] for k in PASSED if k in os.environ}
lines = [
    "this is not json",
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}',
    "[1, 2, 3]",
    '{"id":2,"method":"ping"}',
    '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}',
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","id":"r1","result":{}}',
    '{"jsonrpc":"2.0","id":3,"method":"no/such/method"}',
    '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"status","arguments":[1]}}',
    '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"status","arguments":{"max_bytes":"lots"}}}',
    '{"jsonrpc":"2.0","id":6,"method":"ping"}',
    '{"jsonrpc":"2.0","id":7,"method":"tools/list"}',
    '{"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":"nonsense"}}',
    '{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"warning"}}',
    "",
]
# A line that is not UTF-8 at all, among the others.
payload = b"\n".join(line.encode() for line in lines[:3]) + b"\n\xff\xfe{\x80}\n"
payload += b"\n".join(line.encode() for line in lines[3:]) + b"\n"
done = subprocess.run([os.environ["DEBUGGER_BIN"], "mcp"], input=payload,
                      capture_output=True, env=env, timeout=60)
assert done.returncode == 0, done
answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
by_id = {json.dumps(a.get("id")): a for a in answers}
errors = [a["error"]["code"] for a in answers if "error" in a]
assert errors.count(-32700) == 2, answers
assert errors.count(-32600) == 3, answers
assert by_id["3"]["error"]["code"] == -32601, by_id["3"]
assert by_id["4"]["error"]["code"] == -32602 and by_id["5"]["error"]["code"] == -32602
assert by_id["1"]["result"]["protocolVersion"] == "2025-06-18", by_id["1"]
assert by_id["6"]["result"] == {}, by_id["6"]
assert len(by_id["7"]["result"]["tools"]) > 20
assert by_id["8"]["error"]["code"] == -32602 and "warning" in by_id["8"]["error"]["message"], by_id["8"]
assert by_id["9"]["result"] == {}, by_id["9"]
assert len(answers) == 13, answers
emit({"answers": len(answers)})

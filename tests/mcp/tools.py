"""tools/list: every tool the issue names is there, each schema is a valid JSON Schema whose
properties say their types, and the server's instructions are the agents' guide."""

import asyncio

from jsonschema import Draft202012Validator

from common import ARGS, connect, emit

WANTED = {
    "start", "attach", "stop", "status", "breakpoint", "watch", "execute", "await", "context",
    "backtrace", "threads", "select", "locals", "evaluate", "output", "memory", "disassemble",
    "catch", "raw", "probe", "doctor",
}


async def main():
    async with connect() as session:
        assert session.protocol_version in ("2025-11-25", "2025-06-18"), session.protocol_version
        assert session.instructions == ARGS["guide"], "instructions are `debugger guide`"
        listed = (await session.list_tools()).tools
        names = {tool.name for tool in listed}
        assert WANTED <= names, f"missing: {WANTED - names}"
        for tool in listed:
            assert len(tool.description) > 20, tool.name
            for schema in (tool.input_schema, tool.output_schema):
                Draft202012Validator.check_schema(schema)
                assert schema["type"] == "object", tool.name
            for name, prop in tool.input_schema["properties"].items():
                assert "type" in prop and prop.get("description"), f"{tool.name}.{name}: {prop}"
            # The arguments every tool takes are accepted by its schema.
            if not tool.input_schema.get("required"):
                common = {"max_bytes": 4096, "offset": 0}
                if tool.name not in ("probe", "sessions", "doctor"):
                    common["session"] = "s"
                Draft202012Validator(tool.input_schema).validate(common)
        by_name = {tool.name: tool for tool in listed}
        execute = by_name["execute"].input_schema
        assert execute["required"] == ["action"]
        assert execute["properties"]["action"]["enum"] == ["continue", "next", "step", "finish", "pause"]
        assert execute["properties"]["timeout"]["default"] == 25
        assert by_name["await"].input_schema["properties"]["timeout"]["default"] == 25
        bp = by_name["breakpoint"].input_schema["properties"]
        assert {"log", "condition", "hit_count", "action"} <= set(bp), bp.keys()
        assert by_name["locals"].annotations.read_only_hint is True
        assert "session" not in by_name["probe"].input_schema["properties"], "probe has no session"
        emit({"tools": sorted(names)})


asyncio.run(main())

"""One MCP session against mbank through the official MCP Python SDK, calling every tool on a
root of several projects, and recording the JSON-RPC messages it exchanged.

Run by tests/it/mcp_sdk_sessions.rs in a virtual environment it makes (`pip install mcp`):

    python mcp_sessions.py --mode auto|legacy --root ROOT --transcript OUT.json \\
        (--url http://127.0.0.1:PORT/mcp | --command MBANK ARG...)

The root holds projects alpha, beta and gamma, each with a memory bank; the server's
Infinity project is its working folder. In a protocol version without sessions
(2026-07-28, what mode "auto" picks), every tool is given its project; a call that names
none must fail and say how to name one. In "legacy" mode (the initialize handshake) the
session remembers set_memory_bank_path. Any unexpected answer exits 1 naming it.

The transcript holds every message in order: {"from": "client"|"server", "message": ...,
"headers": {...}} (the per-message HTTP headers the SDK set), with the root's path written
as {root}.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from contextlib import AsyncExitStack

import anyio
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


class Recording:
    """A transport that passes every message through, noting it."""

    def __init__(self, inner, log):
        self.inner = inner
        self.log = log
        self.stack = AsyncExitStack()

    async def __aenter__(self):
        read, write = await self.stack.enter_async_context(self.inner)
        to_server_send, to_server_recv = anyio.create_memory_object_stream(100)
        to_client_send, to_client_recv = anyio.create_memory_object_stream(100)
        group = await self.stack.enter_async_context(anyio.create_task_group())
        self.group = group

        async def outgoing():
            async with to_server_recv:
                async for item in to_server_recv:
                    headers = getattr(getattr(item, "metadata", None), "headers", None)
                    self.log.append(
                        {
                            "from": "client",
                            "message": item.message.model_dump(
                                by_alias=True, mode="json", exclude_unset=True
                            ),
                            "headers": dict(headers or {}),
                        }
                    )
                    await write.send(item)
            await write.aclose()

        async def incoming():
            async with to_client_send:
                async for item in read:
                    if not isinstance(item, Exception):
                        self.log.append(
                            {
                                "from": "server",
                                "message": item.message.model_dump(
                                    by_alias=True, mode="json", exclude_unset=True
                                ),
                            }
                        )
                    await to_client_send.send(item)

        group.start_soon(outgoing)
        group.start_soon(incoming)
        return to_client_recv, to_server_send

    async def __aexit__(self, *exc):
        self.group.cancel_scope.cancel()
        return await self.stack.__aexit__(*exc)


def answer(result):
    """A tool result's JSON (structured content, else its text) and whether it failed."""
    if result.structured_content is not None:
        value = result.structured_content
    else:
        value = json.loads(result.content[0].text)
    return bool(result.is_error), value


class Session:
    def __init__(self, client, stateless):
        self.client = client
        self.stateless = stateless
        self.problems = []

    async def call(self, tool, args, *, fails=None):
        result = await self.client.call_tool(tool, args)
        failed, value = answer(result)
        if fails is None and failed:
            self.problems.append(f"{tool} {json.dumps(args)} failed: {json.dumps(value)}")
        if fails is not None:
            text = json.dumps(value)
            if not failed or fails not in text:
                self.problems.append(f"{tool} {json.dumps(args)} should fail with {fails!r}: {text}")
        return value


async def run(client, stateless):
    s = Session(client, stateless)
    tools = {t.name for t in (await client.list_tools()).tools}
    expected = {
        "initialize_memory_bank", "list_projects", "memory_bank_read", "memory_bank_write",
        "memory_bank_update", "list_project_files", "validate_project", "set_memory_bank_path",
        "read_memory_bank_file", "write_memory_bank_file", "list_memory_bank_files",
        "get_memory_bank_status", "track_progress", "update_active_context", "log_decision",
        "switch_mode", "get_current_mode", "activate_project", "store_memory", "get_memory",
        "list_memories", "update_memory", "delete_memory", "get_context", "search_memory",
        "save_memory",
    }
    if tools != expected:
        s.problems.append(f"tools listed: {sorted(tools)}")

    # Cline's tools: the project by name.
    projects = await s.call("list_projects", {})
    if sorted(p["name"] for p in projects) != ["alpha", "beta", "gamma"]:
        s.problems.append(f"list_projects: {projects}")
    read = await s.call("memory_bank_read", {"projectPath": "alpha", "fileName": "activeContext.md"})
    await s.call("memory_bank_write", {"projectPath": "alpha", "fileName": "notes.md", "content": "# Notes\n- one\n"})
    await s.call(
        "memory_bank_update",
        {
            "projectPath": "alpha",
            "fileName": "activeContext.md",
            "content": read["content"] + "\n- reviewed by the SDK\n",
            "expectedVersion": read["version"],
        },
    )
    await s.call("list_project_files", {"projectPath": "beta"})
    await s.call("validate_project", {"projectPath": "beta"})
    await s.call("initialize_memory_bank", {"projectPath": "delta"})
    # What an agent loads at session start, within a budget.
    fitted = await s.call("get_context", {"project": "alpha", "maxTokens": 200})
    if fitted.get("tokens", 201) > 200 or not fitted.get("files"):
        s.problems.append(f"get_context: {fitted}")
    # Search over every project, its snippets within a budget.
    found = await s.call("search_memory", {"query": "reviewed by the SDK", "maxTokens": 60})
    results = found.get("results") or []
    if found.get("tokens", 61) > 60 or not results or results[0].get("project") != "alpha":
        s.problems.append(f"search_memory: {found}")

    # Memory Bank MCP's tools, each naming its project.
    for tool, args in [
        ("read_memory_bank_file", {"filename": "productContext.md"}),
        ("write_memory_bank_file", {"filename": "extra.md", "content": "# Extra\n"}),
        ("list_memory_bank_files", {}),
        ("get_memory_bank_status", {}),
        ("track_progress", {"action": "Implementation", "description": "SDK session"}),
        ("update_active_context", {"tasks": ["one", "two"], "nextSteps": ["three"]}),
        ("log_decision", {"title": "Use the SDK", "context": "c", "decision": "d", "alternatives": ["none"]}),
        ("switch_mode", {"mode": "code"}),
        ("get_current_mode", {}),
        ("save_memory", {"scope": "project", "fact": "The SDK session saved this"}),
    ]:
        await s.call(tool, {"projectPath": "gamma", **args})
    hint = "keeps no session" if stateless else None
    # The project chosen for the session: remembered only where there is one.
    chosen = await s.call("set_memory_bank_path", {"path": "beta"})
    if stateless:
        if chosen.get("remembered") is not False:
            s.problems.append(f"set_memory_bank_path in a stateless version: {chosen}")
        await s.call("read_memory_bank_file", {"filename": "progress.md"}, fails=hint)
        await s.call("track_progress", {"action": "a", "description": "d"}, fails=hint)
    else:
        status = await s.call("get_memory_bank_status", {})
        if status.get("project") != "beta":
            s.problems.append(f"set_memory_bank_path not remembered: {status}")
        await s.call("read_memory_bank_file", {"filename": "progress.md"})
    # A named project wins over the session's.
    named = await s.call("get_memory_bank_status", {"projectPath": "alpha"})
    if named.get("project") != "alpha":
        s.problems.append(f"projectPath ignored: {named}")

    # Resources, with the project in the URI.
    listed = await client.list_resources()
    if len(listed.resources) != 5:
        s.problems.append(f"resources: {listed}")
    text = await client.read_resource("memory-bank://progress?project=gamma")
    if "SDK session" not in text.contents[0].text:
        s.problems.append(f"resource: {text}")

    # Infinity: the project id activate_project returns.
    activated = await s.call("activate_project", {})
    project_id = activated["project_id"]
    if stateless:
        await s.call("list_memories", {}, fails="activate_project")
    pid = {"project_id": project_id}
    stored = await s.call("store_memory", {**pid, "title": "T", "type": "design_doc", "content": "# T\n"})
    memory_id = stored["memory_id"]
    got = await s.call("get_memory", {**pid, "memory_id": memory_id})
    await s.call("list_memories", {**pid, "type": "design_doc"})
    await s.call(
        "update_memory",
        {**pid, "memory_id": memory_id, "content": "# T2\n", "expectedVersion": got["memory"]["version"]},
    )
    await s.call("delete_memory", {**pid, "memory_id": memory_id})
    await s.call("list_memories", {"project_id": "not-this-project"}, fails="not this server's project")
    return s.problems


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["auto", "legacy"], required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--transcript", required=True)
    parser.add_argument("--url")
    parser.add_argument("--cwd")
    parser.add_argument("--command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.url:
        inner = streamable_http_client(args.url)
    else:
        # The server gets this process's environment (the test's hermetic HOME, clock, data
        # folder), not the SDK's default subset of it.
        params = StdioServerParameters(
            command=args.command[0], args=args.command[1:], cwd=args.cwd, env=dict(os.environ)
        )
        inner = stdio_client(params)
    log = []
    version = None
    try:
        with anyio.fail_after(120):
            async with Client(Recording(inner, log), mode=args.mode, cache=None) as client:
                version = client.protocol_version
                stateless = version >= "2026-07-28"
                problems = await run(client, stateless)
    finally:
        # Written whatever happened, to show where a failed session stopped.
        text = json.dumps({"mode": args.mode, "protocolVersion": version, "messages": log}, indent=1)
        with open(args.transcript, "w") as out:
            out.write(text.replace(args.root, "{root}"))
    expected_version = "2026-07-28" if args.mode == "auto" else None
    if expected_version and version != expected_version:
        problems.append(f"negotiated {version}, not {expected_version}")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        sys.exit(1)
    print(f"ok: {args.mode} {version}, {len(log)} messages")


anyio.run(main)

#!/usr/bin/env python3
"""`storesim mcp` driven by the official MCP Python SDK's client (PyPI `mcp`, pinned in .ci/run).

As an agent client uses it: start `storesim mcp --session FILE` over stdio, initialize, list
the tools, buy, advance the clock, read the status as a tool and as a resource, and get a tool
error for an unknown product; then check the CLI sees what the agent did, and that unknown tools
and a broken session file answer errors and change nothing.

    .build/interop-venv/bin/python Scripts/mcp_test.py .build/debug/storesim
"""

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from mcp import Client, MCPError, StdioServerParameters

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCT = "com.example.premium.monthly"
failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def text_of(result):
    return "\n".join(item.text for item in result.content if getattr(item, "type", "") == "text")


async def agent(binary, work, session):
    params = StdioServerParameters(command=binary, args=["mcp", "--session", session], cwd=work)
    async with Client(params) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        check({"init", "buy", "advance", "status", "transactions", "refund", "expect"} <= set(tools), "tools listed")
        check("quantity" in tools["buy"].input_schema["properties"], "buy's schema has --quantity")

        bought = await client.call_tool("buy", {"arguments": [PRODUCT]})
        check(not bought.is_error, "buy: " + text_of(bought)[:60].replace("\n", " "))
        check((bought.structured_content or {}).get("result") == "purchased", "buy's structured content")
        # The text item is what a person reads (`purchased ...`), not the JSON again.
        check(bought.content[0].text.startswith("purchased"), "buy's text is human text: " + bought.content[0].text[:40])

        advanced = await client.call_tool("advance", {"arguments": ["1mo"]})
        check(not advanced.is_error, "advance 1mo")
        check(advanced.content[0].text.splitlines()[-1].startswith("now 2026-"), "advance's text ends with the new now")
        check(isinstance((advanced.structured_content or {}).get("events"), list), "advance's structured events")

        status = await client.call_tool("status", {})
        check("subscribed" in text_of(status), "status as text: " + text_of(status).splitlines()[-1])
        rows = (status.structured_content or {}).get("result") or []
        check(rows and rows[0]["state"] == "subscribed", "status as JSON: subscribed")

        # Another process changes the session while the server runs; the agent's next call sees it.
        subprocess.run([binary, "buy", "com.example.coins.100", "--session", session], cwd=work, check=True,
                       capture_output=True)
        listed = await client.call_tool("transactions", {})
        products = [row["productId"] for row in (listed.structured_content or {}).get("result", [])]
        check("com.example.coins.100" in products, "the agent sees the purchase the CLI made meanwhile")

        resource = await client.read_resource("storesim://session/status", cache_mode="bypass")
        body = json.loads(resource.contents[0].text)
        check(body[0]["transaction"]["productId"] == PRODUCT, "status resource names the product")
        resources = await client.list_resources()
        check(len(resources.resources) == 4, "four resources listed")

        refused = await client.call_tool("buy", {"arguments": ["com.example.nope"]})
        check(refused.is_error, "unknown product is a tool error: " + text_of(refused))
        check(text_of(refused) == "product 'com.example.nope' is not in the configuration", "its one-line message")

        try:
            await client.call_tool("fly", {})
            check(False, "an unknown tool is a protocol error")
        except MCPError as error:
            check(error.error.code == -32602, f"unknown tool: {error.error.code} {error.error.message}")

        bad = await client.call_tool("buy", {"colour": "red"})
        check(bad.is_error, "an argument buy does not take is a tool error: " + text_of(bad)[:70])


async def broken(binary, work, session):
    with open(session, "wb") as f:
        f.write(b'{"broken": ')
    params = StdioServerParameters(command=binary, args=["mcp", "--session", session], cwd=work)
    async with Client(params) as client:
        result = await client.call_tool("buy", {"arguments": [PRODUCT]})
        check(result.is_error, "broken session: buy is a tool error: " + text_of(result)[:80])
    with open(session, "rb") as f:
        check(f.read() == b'{"broken": ', "broken session: the file is as it was")


def main():
    # A server that stops answering fails the check instead of holding CI.
    signal.alarm(180)
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "storesim"))
    work = tempfile.mkdtemp()
    try:
        shutil.copy(os.path.join(ROOT, "Configurations", "Premium.storekit"), work)
        session = os.path.join(work, "session.json")
        subprocess.run(
            [binary, "init", "Premium.storekit", "--start", "2026-01-01T00:00:00Z", "--session", session],
            cwd=work, check=True, capture_output=True)
        asyncio.run(agent(binary, work, session))
        cli = subprocess.run([binary, "transactions", "--json", "--session", session], cwd=work, capture_output=True, text=True)
        check(len(json.loads(cli.stdout)) == 3, "the CLI sees the agent's purchase and its renewal")
        api = subprocess.run([binary, "api", "GET", "/inApps/v1/subscriptions/2000000000000001", "--session", session],
                             cwd=work, capture_output=True, text=True)
        check(api.stdout.startswith("HTTP/1.1 200"), "serve's route table (storesim api) answers for the agent's subscription")
        closed = subprocess.run([binary, "mcp", "--session", session], cwd=work, input="", capture_output=True)
        check(closed.returncode == 0 and closed.stdout == b"", "closed stdin: exit 0, nothing written")
        asyncio.run(broken(binary, work, os.path.join(work, "broken.json")))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"{len(failures)} MCP checks failed", file=sys.stderr)
        sys.exit(1)
    print("mcp: the official SDK client listed, bought, advanced, read the status and got the errors")


main()

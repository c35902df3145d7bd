"""The official MCP Python SDK (2.x) as a client of the browser: drives the
browse scenario of tests/mcp_eras.test.mjs and prints what it saw as one
JSON object on stdout.

    python3 mcp_python_client.py URL TOKEN MODE PAGE_URL

MODE is "auto" (the SDK's default: it probes server/discover and speaks the
stateless protocol when the server offers it) or a protocol version to pin
(for instance 2026-07-28). The browser is logged in already.
"""

import asyncio
import json
import sys

from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import Implementation


def structured(result):
    if result.is_error:
        raise RuntimeError(f"tool failed: {result.content}")
    return result.structured_content


def text(result):
    if result.is_error:
        raise RuntimeError(f"tool failed: {result.content}")
    return result.content[0].text


def ref_of(snapshot, role, name):
    for line in snapshot.splitlines():
        if line.strip().startswith(f'- {role} "{name}"') and "[ref=" in line:
            return line.split("[ref=", 1)[1].split("]", 1)[0]
    raise RuntimeError(f'no {role} "{name}" in the snapshot:\n{snapshot}')


async def main(url, token, mode, page):
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    transport = streamable_http_client(url, http_client=http)
    client = Client(
        transport,
        mode=mode,
        client_info=Implementation(name="python-sdk-test", version="2"),
    )
    seen = {}
    async with client:
        seen["protocol"] = client.protocol_version
        tools = (await client.list_tools()).tools
        seen["tools"] = len(tools)
        click = next(t for t in tools if t.name == "click")
        seen["click_params"] = sorted(click.input_schema.get("properties", {}))
        opened = structured(await client.call_tool("open", {"url": page}))
        first = opened["tab"]
        seen["first_tab"] = first
        snapshot = text(await client.call_tool("snapshot", {"tab": first}))
        name = ref_of(snapshot, "textbox", "Name")
        structured(await client.call_tool("fill", {"ref": name, "value": "Ada", "tab": first}))
        second = structured(await client.call_tool("tab_new", {"url": page + "?second"}))
        seen["second_tab"] = second["tab"]
        value = structured(await client.call_tool("get_value", {"ref": name, "tab": first}))
        seen["first_value"] = value["value"]
        seen["front_url"] = structured(await client.call_tool("get_url", {}))["url"]
        seen["first_url"] = structured(await client.call_tool("get_url", {"tab": first}))["url"]
        gone = await client.call_tool("get_url", {"tab": 987654})
        seen["closed_tab_error"] = gone.structured_content["error"]["code"]
        structured(await client.call_tool("tab_close", {}))
    print(json.dumps(seen))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))

"""The official MCP Python SDK (2.x) as a client of the browser, for the
scenarios of tests/mcp_eras.test.mjs and tests/ask_elicit.test.mjs. Prints what it saw as JSON lines on
stdout, the last one its summary.

    python3 mcp_python_client.py URL TOKEN MODE browse PAGE_URL
    python3 mcp_python_client.py URL TOKEN MODE login-wait
    python3 mcp_python_client.py URL TOKEN legacy ask-form MESSAGE

MODE is "auto" (the SDK's default: it probes server/discover and speaks the
stateless protocol when the server offers it), "legacy" (a 2025-11-25
session, opened by initialize) or a protocol version to pin (for instance
2026-07-28).

browse: the browser is logged in; fill a form in one tab, open another,
read the first one's field back by its tab id.

login-wait: nobody is logged in; call get_url with a form-elicitation
callback, which prints what it was asked and answers with the line read
from stdin (accept, decline), as the client's user would.

ask-form: in a 2025-11-25 session of a client that shows forms only, call
ask_person with MESSAGE; the form elicitation it brings is answered Can't
with a note, as the client's user would. Prints what it was asked, then
the tool's result.
"""

import asyncio
import json
import sys

import anyio

from mcp.client import Client
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import ElicitationCapability, ElicitResult, FormElicitationCapability, Implementation


def structured(result):
    if result.is_error:
        raise RuntimeError(f"tool failed: {result.content}")
    return result.structured_content


def text(result):
    if result.is_error:
        raise RuntimeError(f"tool failed: {result.content}")
    return result.content[0].text


def ref_of(snapshot, role, name):
    # A line starts with the element's ref: e5 button "Save".
    for line in snapshot.splitlines():
        ref, _, rest = line.strip().partition(" ")
        if rest.startswith(f'{role} "{name}"') and ref[:1] in ("e", "f"):
            return ref
    raise RuntimeError(f'no {role} "{name}" in the snapshot:\n{snapshot}')


def connect(url, token, mode, **callbacks):
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    return Client(
        streamable_http_client(url, http_client=http),
        mode=mode,
        client_info=Implementation(name="python-sdk-test", version="2"),
        **callbacks,
    )


async def login_wait(url, token, mode):
    async def answer(context, params):
        print(json.dumps({"asked": params.message}), flush=True)
        line = await anyio.to_thread.run_sync(sys.stdin.readline)
        return ElicitResult(action=line.strip())

    async with connect(url, token, mode, elicitation_callback=answer) as client:
        result = await client.call_tool("get_url", {})
        print(json.dumps({"is_error": bool(result.is_error), "result": result.structured_content}))


def forms_only():
    """The SDK declares both elicitation modes whenever it is given a
    callback; this client stands for one that shows forms only (a URL-mode
    client gets a link instead, tests/ask_elicit.test.mjs)."""
    declared = ClientSession._build_capabilities

    def form(self, version):
        capabilities = declared(self, version)
        if capabilities.elicitation is not None:
            capabilities.elicitation = ElicitationCapability(form=FormElicitationCapability())
        return capabilities

    ClientSession._build_capabilities = form


async def ask_form(url, token, mode, message):
    forms_only()

    async def answer(context, params):
        fields = sorted(params.requested_schema.get("properties", {}))
        print(json.dumps({"asked": params.message, "mode": params.mode, "fields": fields}), flush=True)
        return ElicitResult(action="accept", content={"answer": "cant", "note": "no phone at hand"})

    async with connect(url, token, mode, elicitation_callback=answer) as client:
        result = await client.call_tool("ask_person", {"message": message, "timeout": 60000})
        print(json.dumps({"protocol": client.protocol_version, "result": structured(result)}))


async def browse(url, token, mode, page):
    seen = {}
    async with connect(url, token, mode) as client:
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
    url, token, mode, scenario, *rest = sys.argv[1:]
    if scenario == "browse":
        asyncio.run(browse(url, token, mode, *rest))
    elif scenario == "ask-form":
        asyncio.run(ask_form(url, token, mode, *rest))
    else:
        asyncio.run(login_wait(url, token, mode))

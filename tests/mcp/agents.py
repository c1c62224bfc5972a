"""Two agents over MCP with the official MCP Python SDK (`mcp` on PyPI), each with its own
key, against one running nspd. Run by tests/tests/agents.rs:

    python agents.py MCP_URL KEY_A KEY_B

For each key it lists the tabs (list_tabs and resources/list) and reads the state of
every tab the other agent sees but it does not; the first agent leases its first tab
with `lease_tab` and releases it. It prints one JSON line:
{"a": {"tabs": [...], "resources": [...], "foreign": [errors]}, "b": {...},
 "lease": {...}, "release": {...}}.
"""

import asyncio
import json
import re
import sys
import warnings

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

warnings.simplefilter("ignore")

FRAME = re.compile(r"\n<page-content-([0-9a-f]{16})>\n(.*)\n</page-content-\1>\Z", re.S)


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def tabs_of(url, key):
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    client = Client(streamable_http_client(url, http_client=http), mode="legacy")
    async with client:
        listed = await client.call_tool("list_tabs", {})
        text = text_of(listed)
        assert not listed.is_error, text
        body = FRAME.search(text).group(2)
        tabs = sorted(t["pid"] for t in json.loads(body)["tabs"])
        resources = await client.list_resources()
        uris = sorted(str(r.uri) for r in resources.resources)
        return client, tabs, uris


async def refused(url, key, pids):
    """get_state and resources/read on each of `pids`, as the agent of `key`."""
    http = create_mcp_http_client(headers={"Authorization": f"Bearer {key}"})
    client = Client(streamable_http_client(url, http_client=http), mode="legacy")
    errors = []
    async with client:
        for pid in pids:
            got = await client.call_tool("get_state", {"tab": pid})
            errors.append({"pid": pid, "is_error": bool(got.is_error), "text": text_of(got)[:300]})
            try:
                await client.read_resource(f"nsp://tab/{pid}/state")
                errors.append({"pid": pid, "resource": "read"})
            except Exception as e:  # the SDK raises the JSON-RPC error
                errors.append({"pid": pid, "resource": "refused", "text": str(e)[:300]})
    return errors


async def main():
    url, key_a, key_b = sys.argv[1:4]
    _, a_tabs, a_res = await tabs_of(url, key_a)
    _, b_tabs, b_res = await tabs_of(url, key_b)
    out = {
        "a": {"tabs": a_tabs, "resources": a_res,
              "foreign": await refused(url, key_a, [p for p in b_tabs if p not in a_tabs])},
        "b": {"tabs": b_tabs, "resources": b_res,
              "foreign": await refused(url, key_b, [p for p in a_tabs if p not in b_tabs])},
    }
    if a_tabs:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {key_a}"})
        client = Client(streamable_http_client(url, http_client=http), mode="legacy")
        async with client:
            for name, ttl in (("lease", 30000), ("release", 0)):
                got = await client.call_tool("lease_tab", {"tab": a_tabs[0], "ttl_ms": ttl})
                assert not got.is_error, text_of(got)
                out[name] = json.loads(text_of(got))
    print(json.dumps(out))


asyncio.run(main())

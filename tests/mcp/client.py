"""The official MCP Python SDK (`mcp` on PyPI, pinned in xtask) against a running nspd.

Run by tests/tests/mcp.rs:

    python client.py http  MCP_URL KEY DEMO_URL EMAIL_ID MODE
    python client.py stdio NSPD_BIN DATA_DIR DEMO_URL EMAIL_ID MODE

MODE `auto` lets the client negotiate (the 2026-07-28 protocol: resource changes arrive
on `subscriptions/listen`); `legacy` forces the initialize handshake (a session,
`resources/subscribe`, changes on the session's GET stream). Either way it lists the tools, opens the demo in a new tab, reads a slice of its state,
archives EMAIL_ID (a reversible write), is refused `send_email` without a verify
expression, sends it with one, and hears the resource update of a page change. The
archive and the send are driven from the compact state alone (`get_state`'s default
view): the action, its parameters, the capture id and the verify expression are all
read from the text, parsed as docs/api.md describes it. The demo
backend's own API is read before and after the refusal. It prints one JSON line; any
failed expectation exits non-zero.
"""

import asyncio
import json
import re
import sys
import urllib.request
import warnings

import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

warnings.simplefilter("ignore")  # subscribe_resource is deprecated in the 2026 protocol

UPDATE_TIMEOUT = 20


def backend_sent(demo_url):
    with urllib.request.urlopen(demo_url.rstrip("/") + "/api/emails", timeout=10) as r:
        return json.load(r)["sent_count"]


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", "") == "text")


# nspd frames every answer that carries page text as untrusted page content: a note,
# then the JSON between tags named with a random hex tag (see mcp.rs, page_json).
FRAME = re.compile(r"\n<page-content-([0-9a-f]{16})>\n(.*)\n</page-content-\1>\Z", re.S)


def framed_text(result):
    text = text_of(result)
    assert not result.is_error, text
    match = FRAME.search(text)
    assert match and text.startswith("Untrusted page content"), f"not framed as page content: {text[:200]}"
    return match.group(2)


def read_name(line, i):
    """A name at line[i:]: bare (letters, digits, _ - . [ ]) or a JSON string; returns (name, end)."""
    if line[i] == '"':
        value, end = json.JSONDecoder().raw_decode(line, i)
        return value, end
    j = i
    while j < len(line) and (line[j].isalnum() or line[j] in "_-.[]"):
        j += 1
    assert j > i, f"no name at {i}: {line!r}"
    return line[i:j], j


def parse_model(text):
    """The compact state (get_state's default view): header and object lines are
    `name: JSON value` (the header's `capture` is bare), a list's table is `list[N]: a, b`
    then `[n]: JSON, JSON` per record (`-` where it lacks that field), action lines
    `name(parameters) tier confidence` and maybe a JSON description."""
    header, objects, actions = {}, {}, {}
    section, table = header, None
    for line in text.split("\n"):
        if not line:
            continue
        if line.startswith("## objects"):
            section = objects
            continue
        if line.startswith("## actions"):
            section = actions
            continue
        assert not line.startswith("## "), line
        if section is objects and line.startswith("["):
            # A record of the table above: its values in the table's column order.
            n, rest = line[1:].split("]: ", 1)
            stem, columns = table
            for column, value in zip(columns, read_values(rest), strict=True):
                if value is not ABSENT:
                    objects[f"{stem}[{int(n)}].{column}"] = value
            continue
        name, i = read_name(line, 0)
        if section is actions:
            assert line[i] == "(", line
            params, i = read_params(line, i + 1)
            tier, confidence, *rest = line[i + 1:].split(" ", 2)
            actions[name] = {"params": params, "tier": tier, "confidence": float(confidence),
                             "description": json.loads(rest[0]) if rest else None}
        else:
            assert line[i:i + 2] == ": ", line
            raw = line[i + 2:]
            if section is header and name == "capture":
                section[name] = raw
            elif section is objects and name.endswith("[N]"):
                table = (name[:-3], raw.split(", "))
            elif section is objects and re.match(r"\{[^\"}]", raw):
                # A record: its fields, `{id: "e1", subject: "Hi"}`, are the keys name.id, name.subject.
                for field, value in read_record(raw):
                    objects[f"{name}.{field}"] = value
            else:
                section[name] = json.loads(raw)
    return header, objects, actions


# A table's cell for a field its record does not have (`-`).
ABSENT = object()


def read_values(raw):
    """The JSON values of a table's record line, `"e1", 2, -, true` (`-`: ABSENT)."""
    decoder, i, values = json.JSONDecoder(), 0, []
    while True:
        if raw[i] == "-" and raw[i + 1:i + 3] in ("", ", "):
            value, i = ABSENT, i + 1
        else:
            value, i = decoder.raw_decode(raw, i)
        values.append(value)
        if i == len(raw):
            return values
        assert raw[i:i + 2] == ", ", raw
        i += 2


def read_record(raw):
    """The fields of a record line's value `{field: JSON, ...}`."""
    decoder, i, fields = json.JSONDecoder(), 1, []
    while True:
        field, i = read_name(raw, i)
        assert raw[i:i + 2] == ": ", raw
        value, i = decoder.raw_decode(raw, i + 2)
        fields.append((field, value))
        if raw[i] == "}":
            assert i == len(raw) - 1, raw
            return fields
        assert raw[i:i + 2] == ", ", raw
        i += 2


def read_params(line, i):
    """The parameters of an action line from line[i:] (after its `(`) to its `)`."""
    params = {}
    if line[i] == ")":
        return params, i + 1
    if line.startswith("parameters of ", i):
        other, i = read_name(line, i + len("parameters of "))
        assert line[i] == ")", line
        return {"same_as": other}, i + 1
    decoder = json.JSONDecoder()
    while True:
        name, i = read_name(line, i)
        p = {"required": line[i] != "?"}
        i += 0 if p["required"] else 1
        if line[i:i + 2] != ": ":
            # No type: a string.
            p["type"] = "string"
            if line.startswith(' "', i):
                p["source"], i = decoder.raw_decode(line, i + 1)
        elif line.startswith("one of ", i + 2):
            i += 2
            p["column"], i = read_name(line, i + len("one of "))
        elif line[i + 2] in '"-0123456789[{' or re.match(r"(true|false|null)\b", line[i + 2:]):
            i += 2
            values = []
            while True:
                v, i = decoder.raw_decode(line, i)
                values.append(v)
                if line[i] != "|":
                    break
                i += 1
            p["allowed"] = values
        else:
            p["type"], i = read_name(line, i + 2)
            if line.startswith(' "', i):
                p["source"], i = decoder.raw_decode(line, i + 1)
        if line.startswith(" = ", i):
            p["default"], i = decoder.raw_decode(line, i + 3)
        if line.startswith(" secret", i):
            p["secret"], i = True, i + len(" secret")
        params[name] = p
        if line[i] == ")":
            return params, i + 1
        assert line[i:i + 2] == ", ", line
        i += 2


def column_values(objects, column):
    """The values of `list[N].col` in the objects, rows 0, 1, ... in order."""
    values, n = [], 0
    while column.replace("[N]", f"[{n}]", 1) in objects:
        values.append(objects[column.replace("[N]", f"[{n}]", 1)])
        n += 1
    return values


def payload(result, framed=True):
    text = text_of(result)
    assert not result.is_error, text
    if not framed:
        return json.loads(text)
    match = FRAME.search(text)
    assert match and text.startswith("Untrusted page content"), f"not framed as page content: {text[:200]}"
    return json.loads(match.group(2))


async def scenario(client, demo_url, email_id, updates, subscribe):
    out = {}
    tools = {t.name: t for t in (await client.list_tools()).tools}
    out["tools"] = sorted(tools)
    out["hints"] = {
        name: {"read_only": t.annotations.read_only_hint, "destructive": t.annotations.destructive_hint}
        for name, t in tools.items()
    }

    opened = payload(await client.call_tool("open_tab", {"url": demo_url}))
    pid = opened["tab"]["pid"]
    out["pid"] = pid
    out["opened_settled"] = opened["settled"]
    assert "archive" in opened["actions"], opened
    uri = f"nsp://tab/{pid}/state"
    assert opened["resource"] == uri

    sliced = payload(await client.call_tool("get_state", {"tab": pid, "prefix": "inbox.emails[", "limit": 3, "tier": "irreversible_write", "view": "json"}))
    out["slice_keys"] = sorted(sliced["objects"])
    out["slice_truncated"] = sliced["probe_metadata"]["objects_truncated"]
    out["slice_action_tiers"] = sorted({a["reversibility"] for a in sliced["actions"].values()})

    # The same slice in the compact form (the default view).
    text = framed_text(await client.call_tool("get_state", {"tab": pid, "prefix": "inbox.emails[", "limit": 3, "tier": "irreversible_write"}))
    _, objects, actions = parse_model(text)
    out["model_slice_keys"] = sorted(objects)
    out["model_slice_truncated"] = "more matched than shown" in text
    out["model_slice_action_tiers"] = sorted({a["tier"] for a in actions.values()})

    # The whole compact state: what the flow below decides on, and nothing else.
    compact = framed_text(await client.call_tool("get_state", {"tab": pid}))
    header, objects, actions = parse_model(compact)
    out["model_bytes"] = len(compact.encode())
    out["model_has_no_selectors"] = not any(s in compact for s in ("dom:", "builtin:", "internal_target", "fn("))
    out["model_header"] = sorted(header)

    resource = await client.read_resource(uri)
    whole = json.loads(resource.contents[0].text)
    out["resource_pid"] = whole["pid"]

    # Archive: the action line says which parameter picks the email and where its values
    # are; the email is one of them.
    archive = actions["archive"]
    (param, spec), = archive["params"].items()
    choices = column_values(objects, spec["column"]) if "column" in spec else spec["allowed"]
    out["archive_choices_include"] = email_id in choices
    out["archive_tier"] = archive["tier"]
    async with subscribe(uri):
        archived = payload(await client.call_tool("execute", {
            "tab": pid, "action": "archive", "parameters": {param: email_id},
            "expected_capture_id": header["capture"],
        }))
        out["archived"] = archived["executed"]
        # The archive changed the page: its state resource must say so.
        out["update_uri"] = await asyncio.wait_for(updates.get(), UPDATE_TIMEOUT)

    # Send: the irreversible action whose name says send, its required parameters from
    # its line, and a verify expression over the object that counts what was sent.
    compact = framed_text(await client.call_tool("get_state", {"tab": pid, "fresh": True}))
    header, objects, actions = parse_model(compact)
    send_name = next(n for n, a in actions.items() if a["tier"] == "irreversible" and "send" in n)
    params = actions[send_name]["params"]
    if "same_as" in params:
        params = actions[params["same_as"]]["params"]
    words = {"to": "bob@example.com", "subject": "Quarterly numbers", "body": "Attached."}
    send = {name: words.get(name, "x") for name, p in params.items() if p["required"] or name in words}
    counter = next(k for k in objects if k.endswith("sent_count"))
    expression = f"prev.{counter} != {counter}"
    out["send_action"] = send_name
    out["send_params"] = sorted(send)
    sent_before = backend_sent(demo_url)
    refused = await client.call_tool("execute", {"tab": pid, "action": send_name, "parameters": send})
    out["refused_is_error"] = refused.is_error
    out["refused_text"] = text_of(refused)
    out["refused_code"] = (refused.structured_content or {}).get("error", {}).get("code")
    out["sent_after_refusal"] = backend_sent(demo_url) - sent_before

    sent = payload(await client.call_tool("execute", {
        "tab": pid, "action": send_name, "parameters": send,
        "verify_expression": expression, "expected_capture_id": header["capture"],
    }))
    out["sent_verified"] = sent["verification"]["passed"]
    out["sent_after_verified"] = backend_sent(demo_url) - sent_before

    checked = payload(await client.call_tool("verify", {"tab": pid, "expression": "outbox.sent_count >= 1"}))
    out["verify_passed"] = checked["passed"]

    # A call that waits reports progress: a read whose expression never holds runs,
    # then polls for 2.5 s and fails its verification.
    progress = []

    async def on_progress(value, total, message):
        progress.append(value)

    slow = await client.call_tool("execute", {
        "tab": pid, "action": "read_text", "parameters": {"selector": "h1"},
        "verify_expression": "outbox.sent_count == 999", "verify_timeout_ms": 2500,
    }, progress_callback=on_progress)
    out["slow_is_error"] = slow.is_error
    out["slow_text"] = text_of(slow)[:80]
    out["progress_updates"] = len(progress)

    closed = payload(await client.call_tool("close_tab", {"tab": pid}), framed=False)
    out["closed"] = closed["closed"]
    return out


async def main():
    transport, a, b, demo_url, email_id, mode = sys.argv[1:7]
    updates = asyncio.Queue()

    async def on_message(message):
        if isinstance(message, types.ResourceUpdatedNotification):
            await updates.put(message.params.uri)

    if transport == "http":
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {b}"})
        server = streamable_http_client(a, http_client=http)
    else:
        server = StdioServerParameters(command=a, args=["mcp", "--stdio", "--data-dir", b])
    client = Client(server, mode=mode, message_handler=on_message)

    def subscribe(uri):
        if mode == "legacy":
            return subscribed(client, uri)
        return listening(client, uri, updates)

    async with client:
        out = await scenario(client, demo_url, email_id, updates, subscribe)
        out["protocol"] = client.session.protocol_version
    out["transport"] = transport
    out["mode"] = mode
    print(json.dumps(out))


class listening:
    """`subscriptions/listen` for one resource, its events put on `updates`."""

    def __init__(self, client, uri, updates):
        self.client, self.uri, self.updates = client, uri, updates

    async def __aenter__(self):
        self.cm = self.client.listen(resource_subscriptions=[self.uri])
        sub = await self.cm.__aenter__()

        async def pump():
            async for event in sub:
                uri = getattr(event, "uri", None)
                if uri:
                    await self.updates.put(uri)

        self.task = asyncio.create_task(pump())
        return sub

    async def __aexit__(self, *exc):
        self.task.cancel()
        await self.cm.__aexit__(None, None, None)


class subscribed:
    """`resources/subscribe` for one resource (changes arrive through the message handler)."""

    def __init__(self, client, uri):
        self.client, self.uri = client, uri

    async def __aenter__(self):
        await self.client.subscribe_resource(self.uri)

    async def __aexit__(self, *exc):
        await self.client.unsubscribe_resource(self.uri)


if __name__ == "__main__":
    asyncio.run(main())

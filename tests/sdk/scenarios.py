"""Scenarios driven through the published NSP Python SDK (nelieo-nsp==0.1.3), unpatched.

Run by tests/tests/sdk.rs: `python scenarios.py PORT KEY SCENARIO [ARG]`. Each scenario
prints one JSON line with what it observed and exits non-zero when the SDK did not
behave as an agent relies on. Ground truth (what the app's backend recorded) is checked
by the Rust side, not here.
"""

import asyncio
import json
import sys

import nelieo_nsp as nsp
from nelieo_nsp.exceptions import (
    NSPConfidenceTooLowError,
    NSPIrreversibleNotConfirmedError,
)


def emit(**fields):
    print(json.dumps(fields), flush=True)


async def attach_and_read(client, name):
    apps = await client.list_apps()
    session = await client.attach(name)
    state = session.state
    return apps, session, state


async def scenario_read(client, _arg):
    assert await client.ping(), "ping() must reach the daemon"
    apps, session, state = await attach_and_read(client, "Demo Mail")
    assert any(a.app_name == "Demo Mail" for a in apps), [a.app_name for a in apps]
    assert state.runtime == "v8"
    assert state.confidence >= 0.95, state.confidence
    assert state.action("archive") is not None, list(state.actions)
    assert state.action("send_email").is_destructive
    assert state.can_execute("send_email")
    fresh = await client.get_state(session.pid, fresh=True)
    # The rest of the read surface: waiting, attaching by pid and by app_id, refresh.
    waited = await client.wait_for_app("Demo Mail", timeout=10, poll_interval=0.2)
    assert waited.pid == session.pid
    by_pid = await client.attach_by_pid(session.pid)
    by_id = await client.attach(session.app_id, fuzzy=False)
    assert by_pid.app_id == by_id.app_id == session.app_id
    unread = session.get_int("inbox.unread_count")
    await session.wait_for_key("inbox.unread_count", unread, timeout=5)
    refreshed = await session.refresh(fresh_probe=True)
    assert refreshed.pid == session.pid and session.get_str("inbox.emails[0].id")
    assert session.get_bool("inbox.emails[0].is_read") in (True, False)
    assert session.get_float("outbox.sent_count") == float(session.get_int("outbox.sent_count"))
    assert str(session.state.summary().app_name) == "Demo Mail"
    emit(
        pid=session.pid,
        app_id=session.app_id,
        unread=session.get_int("inbox.unread_count"),
        sent=session.get_int("outbox.sent_count"),
        fresh_capture=fresh.capture_id != state.capture_id,
        email_ids=[v for k, v in sorted(state.keys_with_prefix("inbox.emails[").items()) if k.endswith(".id")],
    )


async def scenario_archive(client, email_id):
    session = await client.attach("demo mail")  # fuzzy, case-insensitive match
    before = session.get_int("inbox.unread_count")
    resp = await session.execute("archive", parameters={"email_id": email_id})
    assert resp.success and resp.executed, resp
    emit(action_id=resp.action_id, latency_ms=resp.latency_ms, before=before, after=session.get_int("inbox.unread_count"))


async def scenario_send_unconfirmed(client, _arg):
    session = await client.attach("Demo Mail")
    try:
        await session.execute("send_email", parameters={"to": "bob@example.com", "subject": "x", "body": "y"}, verify=False)
    except NSPIrreversibleNotConfirmedError as e:
        emit(raised="NSPIrreversibleNotConfirmedError", code=e.code)
        return
    raise AssertionError("verify=False on an irreversible action must raise before any request")


async def scenario_send_verified(client, _arg):
    session = await client.attach("Demo Mail")
    resp = await session.execute(
        "send_email",
        parameters={"to": "bob@example.com", "subject": "Quarterly numbers", "body": "Attached."},
        verify=True,
        verify_expression="prev.outbox.sent_count != outbox.sent_count",
    )
    assert resp.success, resp
    assert resp.verification is not None and resp.verification.passed, resp.verification
    emit(
        passed=resp.verification.passed,
        poll_cycles=resp.verification.poll_cycles,
        explanation=resp.verification.explanation,
        sent=session.get_int("outbox.sent_count"),
    )


async def scenario_low_confidence(client, action):
    apps = await client.list_apps()
    session = await client.session(apps[0].pid)
    # A discovered write: a builtin aimed at a made-up selector is refused for the
    # selector (nspd resolves it in the page first), not for confidence.
    name = action or next(
        n
        for n, a in session.actions.items()
        if a.reversibility != "read" and not (a.internal_target or "").startswith("builtin:")
    )
    schema = session.state.action(name)
    params = {p.name: "x" for p in schema.parameters if p.required}
    try:
        await session.execute(name, parameters=params, verify=True, verify_expression="prev.context.url != context.url")
    except NSPConfidenceTooLowError as e:
        body = e.response_body or {}
        emit(raised="NSPConfidenceTooLowError", action=name, actual=body.get("actual_confidence"), required=body.get("required_confidence"))
        return
    raise AssertionError(f"{name} on a page under the floor must raise NSPConfidenceTooLowError")


async def scenario_watch(client, email_id):
    session = await client.attach("Demo Mail")
    async with session.watch() as stream:
        # Change the page through the API, then expect the stream to report it.
        await session.execute("mark_read", parameters={"email_id": email_id})
        event = await asyncio.wait_for(stream.__anext__(), timeout=20)
    emit(pid=event.pid, sequence=event.sequence, changed_keys=event.changed_keys)


async def scenario_act(client, request):
    """One action on the first tab, described by a JSON argument: action, parameters,
    verify (default: the SDK's own choice), verify_expression. Prints what happened,
    or which SDK exception was raised with its code; used on real apps, whose action
    names come from the probe."""
    req = json.loads(request)
    apps = await client.list_apps()
    session = await client.session(apps[0].pid)
    try:
        resp = await session.execute(
            req["action"],
            parameters=req.get("parameters") or {},
            verify=req.get("verify"),
            verify_expression=req.get("verify_expression"),
        )
    except Exception as e:  # every refusal the SDK raises carries a code
        emit(raised=type(e).__name__, code=getattr(e, "code", None), message=str(e))
        return
    emit(
        success=resp.success,
        executed=resp.executed,
        passed=None if resp.verification is None else resp.verification.passed,
        url=session.state.context.url,
    )


SCENARIOS = {
    "act": scenario_act,
    "read": scenario_read,
    "archive": scenario_archive,
    "send_unconfirmed": scenario_send_unconfirmed,
    "send_verified": scenario_send_verified,
    "low_confidence": scenario_low_confidence,
    "watch": scenario_watch,
}


async def main():
    port, key, scenario = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    arg = sys.argv[4] if len(sys.argv) > 4 else None
    async with nsp.NSPClient(api_key=key, port=port, timeout=60.0) as client:
        await SCENARIOS[scenario](client, arg)


if __name__ == "__main__":
    asyncio.run(main())

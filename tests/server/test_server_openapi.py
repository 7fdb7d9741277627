"""The server's OpenAPI description against the server itself (schemathesis):
requests made from the description, valid ones and ones that break it, each
answered with no 5xx, with a status the description lists for that call and
with the body it describes (an error is ``{"error": sentence, "request_id": id}``); a request that
breaks the description is refused (4xx). On SQLite and PostgreSQL.

A request the description admits may still be refused (``422``) for what only
the server knows (an invited name no account has, a table the player already
left): schemathesis's check that every such request is accepted is left out."""

from __future__ import annotations

from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from server_support import Server

# schemathesis is imported by the tests that use it: every parallel worker
# collects this module, and importing it costs about a second of CPU

EXAMPLES = 8
"""Requests made per call of the API and per kind (valid, not valid)."""


def _fails(server: Server, token: str, operation: Any, mode: Any) -> list[str]:
    """What was wrong with the answers to requests ``operation``'s description
    makes in ``mode`` (a schemathesis ``GenerationMode``; at most
    :data:`EXAMPLES` of them)."""
    import schemathesis
    from schemathesis.checks import positive_data_acceptance

    found: list[str] = []

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    def ask(case: Any) -> None:
        answer = case.call(base_url=server.url, headers={"Authorization": f"Bearer {token}"},
                           timeout=60)
        try:
            case.validate_response(answer, excluded_checks=[positive_data_acceptance])
        except Exception as exc:  # schemathesis's failure group: each says what and how
            found.append(f"{operation.label} ({mode.value}): {str(exc)[:600]}")

    try:
        ask()
    except Exception as exc:
        # a call with nothing to vary (no parameter, no body) has no invalid request
        if type(exc).__name__ != "Unsatisfiable" or mode is schemathesis.GenerationMode.POSITIVE:
            found.append(f"{operation.label} ({mode.value}): {type(exc).__name__}: "
                         f"{str(exc)[:600]}")
    return found


def test_the_server_answers_as_its_openapi_description_says(server: Server) -> None:
    import schemathesis

    _name, token = server.account()
    text = httpx.get(server.url + "/api/openapi.json", timeout=60).json()
    schema = schemathesis.openapi.from_dict(text)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 31  # every call of the API (follows and mutes too), the
    # WebSockets aside
    fails = [fail for operation in operations
             for mode in (schemathesis.GenerationMode.POSITIVE,
                          schemathesis.GenerationMode.NEGATIVE)
             for fail in _fails(server, token, operation, mode)]
    assert fails == []
    assert "Traceback" not in server.log.read_text(errors="replace")


def test_every_error_status_is_described_with_its_body(server: Server) -> None:
    text = httpx.get(server.url + "/api/openapi.json", timeout=60).json()
    for path, calls in text["paths"].items():
        for method, call in calls.items():
            statuses = {int(s) for s in call["responses"]}
            assert any(200 <= s < 300 for s in statuses), (method, path)
            for status in statuses - set(range(200, 300)):
                body = call["responses"][str(status)]["content"]["application/json"]["schema"]
                assert body == {"$ref": "#/components/schemas/ErrorAnswer"}, (method, path, status)
            # a call that reads parameters or a body can be refused as not valid
            if call.get("parameters") or call.get("requestBody"):
                assert 422 in statuses, (method, path)
    assert text["components"]["schemas"]["ErrorAnswer"]["required"] == ["error", "request_id"]

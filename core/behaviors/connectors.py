"""`camunda:connector` with `http-connector`: a service task's HTTP call. The request is built
from the connector's input parameters (`url`, `method`, `headers`, `payload`), the response
offered to its output parameters as `response`, `statusCode` and `headers`, whose values become
variables of the task's execution.

Decide-side, as a delegate is: the call happens while the command decides (with a timeout), and
what it returns is recorded as the variables it sets; replay never calls again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import httpx

from ..errors import ProcessEngineError
from ..model import Activity, ConnectorSpec
from ..scope import set_variable
from ..session import InstanceSession
from .io import value_of

TIMEOUT_SECONDS = 30.0  # an HTTP call holds its command: bounded


def call_http(
    session: InstanceSession, execution_id: str, activity: Activity, spec: ConnectorSpec
) -> None:
    request = {
        p.name: value_of(session, p.value, execution_id, activity.id, f"input parameter '{p.name}'")
        for p in spec.inputs
    }
    url = request.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ProcessEngineError(
            f"the http-connector of '{activity.id}' needs an http or https url, not {url!r}"
        )
    method = str(request.get("method") or "GET").upper()
    headers = request.get("headers") or {}
    if not isinstance(headers, Mapping):
        raise ProcessEngineError(
            f"the headers of the http-connector of '{activity.id}' are not a map"
        )
    payload = request.get("payload")
    content = (
        payload if isinstance(payload, str | bytes) or payload is None else json.dumps(payload)
    )
    try:
        reply = httpx.request(
            method,
            url,
            headers={str(k): str(v) for k, v in headers.items()},
            content=content,
            timeout=TIMEOUT_SECONDS,
        )
    except httpx.HTTPError as exc:
        raise ProcessEngineError(
            f"the http-connector of '{activity.id}' failed: {type(exc).__name__}: {exc}"
        ) from exc
    response: dict[str, Any] = {
        "response": reply.text,
        "statusCode": reply.status_code,
        "headers": dict(reply.headers),
    }
    for parameter in spec.outputs:
        value = value_of(
            session,
            parameter.value,
            execution_id,
            activity.id,
            f"output parameter '{parameter.name}'",
            extra=response,
        )
        set_variable(session, execution_id, parameter.name, value)

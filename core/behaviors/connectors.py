"""`camunda:connector` with `http-connector`: a service task's HTTP call. The request is built
from the connector's input parameters (`url`, `method`, `headers`, `payload`), the response
offered to its output parameters as `response`, `statusCode` and `headers`, whose values become
variables of the task's execution.

Pure, as every decision is: the request is decided here and its answer asked of the command's
recorded calls (`core/outbound.py`). The engine makes the call itself, with no lock held, under
its outbound policy (allow-list, deadline, size cap), and decides the command again with the
answer; replay reads the variables the answer set and never calls again.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..errors import ProcessEngineError
from ..model import Activity, ConnectorSpec
from ..outbound import HttpRequest, OutboundFailure
from ..scope import set_variable
from ..session import InstanceSession
from .io import value_of


def call_http(
    session: InstanceSession, execution_id: str, activity: Activity, spec: ConnectorSpec
) -> None:
    inputs = {
        p.name: value_of(session, p.value, execution_id, activity.id, f"input parameter '{p.name}'")
        for p in spec.inputs
    }
    url = inputs.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ProcessEngineError(
            f"the http-connector of '{activity.id}' needs an http or https url, not {url!r}"
        )
    method = str(inputs.get("method") or "GET").upper()
    headers = inputs.get("headers") or {}
    if not isinstance(headers, Mapping):
        raise ProcessEngineError(
            f"the headers of the http-connector of '{activity.id}' are not a map"
        )
    payload = inputs.get("payload")
    content = (
        payload if isinstance(payload, str | bytes) or payload is None else json.dumps(payload)
    )
    if isinstance(content, str):
        content = content.encode()
    request = HttpRequest(
        method=method,
        url=url,
        headers=tuple((str(k), str(v)) for k, v in headers.items()),
        body=content,
    )
    answer = session.ctx.outbound.answer(request, activity.id)
    if isinstance(answer, OutboundFailure):
        raise ProcessEngineError(f"the http-connector of '{activity.id}' failed: {answer.message}")
    response: dict[str, Any] = {
        "response": answer.text,
        "statusCode": answer.status,
        "headers": dict(answer.headers),
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

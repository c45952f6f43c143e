"""`camunda:connector` http-connector through the public Engine API, against a local HTTP
server: the request from the connector's inputs, the response's `response`, `statusCode` and
`headers` to its outputs; another connector id is refused at deploy naming the element.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from flowledger import Engine, ModelError, ProcessEngineError
from tests.core.test_jobs import chain, process

received: list[tuple[str, str, str | None, bytes]] = []


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        received.append((self.command, self.path, self.headers.get("X-Order"), body))
        data = json.dumps({"accepted": True}).encode()
        self.send_response(201)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        return None


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


def connector_task(connector_id: str = "http-connector", url: str = "${base}/orders") -> str:
    return (
        '<serviceTask id="call"><extensionElements><camunda:connector>'
        f"<camunda:connectorId>{connector_id}</camunda:connectorId><camunda:inputOutput>"
        f'<camunda:inputParameter name="url">{url}</camunda:inputParameter>'
        '<camunda:inputParameter name="method">POST</camunda:inputParameter>'
        '<camunda:inputParameter name="headers"><camunda:map>'
        '<camunda:entry key="X-Order">${orderId}</camunda:entry></camunda:map>'
        "</camunda:inputParameter>"
        '<camunda:inputParameter name="payload">${payload}</camunda:inputParameter>'
        '<camunda:outputParameter name="status">${statusCode}</camunda:outputParameter>'
        '<camunda:outputParameter name="body">${response}</camunda:outputParameter>'
        "</camunda:inputOutput></camunda:connector></extensionElements></serviceTask>"
    )


def test_an_http_connector_sends_the_request_and_maps_the_response(
    engine: Engine, server: str
) -> None:
    received.clear()
    engine.deploy(process(chain(connector_task(), '<userTask id="after"/>')))
    pi = engine.start_process_instance(
        "p", {"base": server, "orderId": "o-7", "payload": '{"item": "book"}'}
    )
    assert received == [("POST", "/orders", "o-7", b'{"item": "book"}')]
    variables = engine.get_variables(pi.id)
    assert variables["status"] == 201
    assert json.loads(variables["body"]) == {"accepted": True}
    assert engine.verify().problems == []  # replay reads the recorded response, calls nothing


def test_an_unreachable_url_fails_the_command_naming_the_task(engine: Engine) -> None:
    engine.deploy(process(chain(connector_task(url="http://127.0.0.1:1/nothing"))))
    with pytest.raises(ProcessEngineError, match="the http-connector of 'call' failed"):
        engine.start_process_instance("p", {"orderId": "o", "payload": ""})
    assert engine.historic_process_instances() == []


def test_another_connector_is_refused_at_deploy(engine: Engine) -> None:
    with pytest.raises(
        ModelError, match="camunda:connector 'soap-http-connector' is not supported"
    ):
        engine.deploy(process(chain(connector_task("soap-http-connector"))))


def test_a_message_throw_event_sends_by_connector(engine: Engine, server: str) -> None:
    received.clear()
    task = connector_task()
    extensions = task[task.index("<extensionElements>") : task.index("</serviceTask>")]
    engine.deploy(
        process(
            chain(
                '<intermediateThrowEvent id="notify"><messageEventDefinition messageRef="M">'
                f"{extensions}</messageEventDefinition></intermediateThrowEvent>"
            )
        ).replace("</definitions>", '<message id="M" name="orderPlaced"/></definitions>')
    )
    pi = engine.start_process_instance("p", {"base": server, "orderId": "o-8", "payload": "placed"})
    assert received == [("POST", "/orders", "o-8", b"placed")]
    assert engine.historic_process_instance(pi.id).state == "COMPLETED"

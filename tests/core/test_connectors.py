"""`camunda:connector` http-connector through the public Engine API, against local HTTP servers.

What a user gets: the request from the connector's inputs, the response's `response`,
`statusCode` and `headers` to its outputs; and what an operator relies on: off unless enabled,
only allow-listed hosts (checked after name resolution, redirects included), one deadline and a
size cap per call, and no call made while the engine holds its write path.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from flowledger import ControllableClock, Engine, ModelError, OutboundPolicy, ProcessEngineError
from flowledger.core.outbound import HttpRequest, HttpResponse, OutboundFailure
from flowledger.engine.outbound import Outbound
from tests.core.test_jobs import chain, process

received: list[tuple[str, str, str | None, bytes]] = []
# Held by /held until the test lets it go: a remote service that takes its time.
release = threading.Event()
entered = threading.Event()


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        received.append((self.command, self.path, self.headers.get("X-Order"), body))
        if self.path.startswith("/held"):
            entered.set()
            release.wait(30)
        if self.path.startswith("/moved"):
            self.send_response(307)
            self.send_header("Location", self.headers["X-Location"])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = json.dumps({"accepted": True, "path": self.path}).encode()
        self.send_response(201)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/trickle":  # a byte every 0.3 s, forever as far as a caller knows
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            for _ in range(1000):
                try:
                    self.wfile.write(b"x")
                    self.wfile.flush()
                except OSError:
                    return
                time.sleep(0.3)
            return
        if self.path.startswith("/big"):  # 2 MiB, chunked unless asked for a length
            size = 2 * 1024 * 1024
            self.send_response(200)
            if "length" in self.path:
                self.send_header("Content-Length", str(size))
                self.end_headers()
                self.wfile.write(b"y" * size)
                return
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for _ in range(size // 65536):
                try:
                    self.wfile.write(b"10000\r\n" + b"y" * 65536 + b"\r\n")
                except OSError:
                    return
            self.wfile.write(b"0\r\n\r\n")
            return
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        return None


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        return None  # a caller that hung up at its deadline or size cap: expected here


def serve() -> tuple[ThreadingHTTPServer, int]:
    httpd = QuietServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, httpd.server_address[1]


@pytest.fixture
def port() -> Iterator[int]:
    httpd, port = serve()
    release.clear()
    entered.clear()
    try:
        yield port
    finally:
        release.set()
        httpd.shutdown()


@pytest.fixture
def server(port: int) -> str:
    return f"http://127.0.0.1:{port}"


def allowing(*hosts: str, **settings: float) -> OutboundPolicy:
    return OutboundPolicy(connectors=frozenset({"http"}), http_allow=hosts, **settings)  # type: ignore[arg-type]


@pytest.fixture
def engine(db_url: str, clock: ControllableClock) -> Iterator[Engine]:
    """An engine whose operator enabled the http-connector for this machine's loopback."""
    with Engine(db_url, clock=clock, outbound=allowing("127.0.0.1")) as e:
        yield e


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
    variables = engine.runtime_service.get_variables(pi.id)
    assert variables["status"] == 201
    assert json.loads(variables["body"]) == {"accepted": True, "path": "/orders"}
    assert engine.verify().problems == []  # replay reads the recorded response, calls nothing


def test_an_unreachable_url_fails_the_command_naming_the_task(engine: Engine) -> None:
    engine.deploy(process(chain(connector_task(url="http://127.0.0.1:1/nothing"))))
    with pytest.raises(ProcessEngineError, match="the http-connector of 'call' failed"):
        engine.start_process_instance("p", {"orderId": "o", "payload": ""})
    assert engine.history_service.historic_process_instances() == []


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
    assert engine.history_service.historic_process_instance(pi.id).state == "COMPLETED"


# -- off by default ------------------------------------------------------------------------


def test_a_connector_on_an_engine_without_it_is_refused_at_deploy_saying_how_to_enable(
    db_url: str, clock: ControllableClock
) -> None:
    with Engine(db_url, clock=clock) as plain:
        with pytest.raises(ModelError) as refused:
            plain.deploy(process(chain(connector_task())))
        assert refused.value.problems[0].element_id == "call"
        assert "not enabled on this engine" in str(refused.value)
        assert "--connector http" in str(refused.value)


def test_a_stored_model_with_a_connector_calls_nothing_once_the_connector_is_disabled(
    db_url: str, clock: ControllableClock, server: str
) -> None:
    with Engine(db_url, clock=clock, outbound=allowing("127.0.0.1")) as enabled:
        enabled.deploy(process(chain(connector_task(), '<userTask id="after"/>')))
    received.clear()
    with Engine(db_url, clock=clock) as disabled:
        with pytest.raises(ProcessEngineError, match="not enabled on this engine"):
            disabled.start_process_instance("p", {"base": server, "orderId": "o", "payload": ""})
        assert disabled.outbound.stats.refused == 1
    assert received == []


# -- the allow-list ------------------------------------------------------------------------


def test_a_host_off_the_allow_list_is_refused_naming_the_flag(
    db_url: str, clock: ControllableClock, port: int
) -> None:
    received.clear()
    with Engine(db_url, clock=clock, outbound=allowing("api.example.com")) as e:
        e.deploy(process(chain(connector_task(), '<userTask id="after"/>')))
        with pytest.raises(ProcessEngineError) as refused:
            e.start_process_instance(
                "p", {"base": f"http://127.0.0.1:{port}", "orderId": "o", "payload": ""}
            )
        assert f"127.0.0.1:{port} is not on the http-connector's allow-list" in str(refused.value)
        assert f"--http-allow 127.0.0.1:{port}" in str(refused.value)
        assert e.history_service.historic_process_instances() == []
    assert received == []


def test_a_loopback_address_behind_a_pattern_is_refused_after_name_resolution(port: int) -> None:
    """`local*` admits the name `localhost`, but what it resolves to is loopback: only an entry
    naming it explicitly reaches it (a public-looking name rebound to 127.0.0.1 gets no
    further)."""
    request = HttpRequest("GET", f"http://localhost:{port}/")
    answer = Outbound(allowing("local*")).call(request, "call")
    assert isinstance(answer, OutboundFailure)
    assert "resolves to 127.0.0.1, a loopback address" in answer.message
    explicit = Outbound(allowing("localhost")).call(request, "call")
    assert isinstance(explicit, HttpResponse) and explicit.text == "ok"


def test_ports_and_networks_in_the_allow_list(port: int) -> None:
    request = HttpRequest("GET", f"http://127.0.0.1:{port}/")
    assert isinstance(Outbound(allowing(f"127.0.0.1:{port}")).call(request, "c"), HttpResponse)
    assert isinstance(Outbound(allowing("127.0.0.0/8")).call(request, "c"), HttpResponse)
    other_port = Outbound(allowing(f"127.0.0.1:{port + 1}")).call(request, "c")
    assert isinstance(other_port, OutboundFailure) and "allow-list" in other_port.message


def test_a_redirect_to_a_target_off_the_allow_list_is_not_followed(port: int) -> None:
    received.clear()
    other, other_port = serve()
    try:
        outbound = Outbound(allowing(f"127.0.0.1:{port}"))
        moved = HttpRequest(
            "POST",
            f"http://127.0.0.1:{port}/moved",
            headers=(("X-Location", f"http://127.0.0.1:{other_port}/inside"),),
        )
        answer = outbound.call(moved, "call")
        assert isinstance(answer, OutboundFailure)
        assert f"127.0.0.1:{other_port} is not on the http-connector's allow-list" in answer.message
        assert [r[1] for r in received] == ["/moved"]
        within = HttpRequest(
            "POST", f"http://127.0.0.1:{port}/moved", headers=(("X-Location", "/landed"),)
        )
        followed = outbound.call(within, "call")
        assert isinstance(followed, HttpResponse)
        assert json.loads(followed.text)["path"] == "/landed"
    finally:
        other.shutdown()


@pytest.mark.parametrize("entry", ["", "host:99999", "host:port", "[::1", "10.0.0.0/33", "a/b"])
def test_a_malformed_allow_list_entry_is_refused_when_the_engine_is_made(entry: str) -> None:
    with pytest.raises(ValueError, match=r"--http-allow|empty"):
        allowing(entry)


def test_an_unknown_connector_name_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown connector soap"):
        OutboundPolicy(connectors=frozenset({"soap"}))


# -- one deadline, one size cap --------------------------------------------------------------


def test_a_trickling_server_is_cut_off_at_the_deadline(port: int) -> None:
    """A byte every 0.3 s resets any per-read timeout; the call's one deadline still ends it."""
    outbound = Outbound(allowing("127.0.0.1", deadline_seconds=1.0))
    answer = outbound.call(HttpRequest("GET", f"http://127.0.0.1:{port}/trickle"), "call")
    assert isinstance(answer, OutboundFailure)
    assert "deadline of 1 s" in answer.message and "--http-deadline" in answer.message
    assert outbound.stats.deadline_hit == 1
    assert outbound.stats.last_problem is not None and "call" in outbound.stats.last_problem


@pytest.mark.parametrize("path", ["/big", "/big-length"])
def test_an_answer_over_the_size_cap_is_refused_while_it_streams(port: int, path: str) -> None:
    outbound = Outbound(allowing("127.0.0.1", max_response_bytes=1024 * 1024))
    answer = outbound.call(HttpRequest("GET", f"http://127.0.0.1:{port}{path}"), "call")
    assert isinstance(answer, OutboundFailure)
    assert "size cap of 1,048,576 bytes" in answer.message
    assert outbound.stats.size_cap_hit == 1


def test_a_failed_call_fails_the_command_and_commits_nothing(engine: Engine, port: int) -> None:
    engine.deploy(process(chain(connector_task(url="${base}/big"), '<userTask id="after"/>')))
    with pytest.raises(ProcessEngineError, match="the http-connector of 'call' failed"):
        engine.start_process_instance(
            "p", {"base": "http://127.0.0.1:1", "orderId": "o", "payload": ""}
        )
    assert engine.history_service.historic_process_instances() == []


# -- no call while the write path is held ----------------------------------------------------


def test_other_instances_never_wait_for_a_remote_service(engine: Engine, server: str) -> None:
    """While one start waits on a held endpoint, another start commits: the call runs with no
    lock or transaction of the engine's held."""
    engine.deploy(process(chain(connector_task(url="${base}/held"), '<userTask id="after"/>')))
    engine.deploy(process(chain('<userTask id="plain"/>'), process_id="q"))
    outcome: list[object] = []

    def start_calling() -> None:
        try:
            outcome.append(
                engine.start_process_instance("p", {"base": server, "orderId": "o", "payload": ""})
            )
        except BaseException as exc:
            outcome.append(exc)

    caller = threading.Thread(target=start_calling)
    caller.start()
    assert entered.wait(10), "the connector never reached the server"
    other = engine.start_process_instance("q")  # would wait for the caller's write lock
    assert engine.tasks(process_instance_id=other.id)[0].task_definition_key == "plain"
    assert not outcome, "the held call returned early"
    release.set()
    caller.join(30)
    assert not caller.is_alive()
    assert len(engine.tasks(process_instance_id=outcome[0].id)) == 1  # type: ignore[attr-defined]


def test_a_concurrent_change_decides_the_command_again_with_the_recorded_answer(
    engine: Engine, server: str
) -> None:
    """Completing `first` reaches the connector; while its call is out, a variable of the same
    instance is set. The completion is decided again on the moved state, uses the answer it
    already has (the request is the same) and commits both."""
    received.clear()
    engine.deploy(
        process(
            chain(
                '<userTask id="first"/>',
                connector_task(url="${base}/held"),
                '<userTask id="after"/>',
            )
        )
    )
    pi = engine.start_process_instance("p", {"base": server, "orderId": "o-1", "payload": "x"})
    task = engine.tasks(process_instance_id=pi.id)[0]
    done: list[BaseException | None] = []

    def complete() -> None:
        try:
            engine.complete_task(task.id)
            done.append(None)
        except BaseException as exc:
            done.append(exc)

    worker = threading.Thread(target=complete)
    worker.start()
    assert entered.wait(10)
    engine.runtime_service.set_variables(pi.id, {"note": "set meanwhile"})
    release.set()
    worker.join(30)
    assert done == [None]
    assert len(received) == 1  # decided twice, called once
    variables = engine.runtime_service.get_variables(pi.id)
    assert variables["note"] == "set meanwhile" and variables["status"] == 201
    assert [t.task_definition_key for t in engine.tasks(process_instance_id=pi.id)] == ["after"]
    assert engine.verify().problems == []


def test_delegates_and_connectors_in_one_command_with_a_job(engine: Engine, server: str) -> None:
    """An asynchronous connector task runs as a job: its call is made outside the job's
    transaction too, and a failure becomes the job's failure."""
    received.clear()
    async_task = connector_task().replace(
        '<serviceTask id="call">', '<serviceTask id="call" camunda:asyncBefore="true">'
    )
    engine.deploy(process(chain(async_task, '<userTask id="after"/>')))
    pi = engine.start_process_instance("p", {"base": server, "orderId": "o-9", "payload": "j"})
    assert received == []
    job = engine.management_service.jobs(process_instance_id=pi.id)[0]
    engine.management_service.execute_job(job.id)
    assert received == [("POST", "/orders", "o-9", b"j")]
    assert engine.runtime_service.get_variables(pi.id)["status"] == 201


def test_settings_reach_the_engine(tmp_path: Path) -> None:
    with Engine(f"sqlite:///{tmp_path / 'x.db'}", outbound=allowing("h", deadline_seconds=3)) as e:
        assert e.outbound.policy.deadline_seconds == 3
        assert e.outbound.policy.enabled_connector_ids == frozenset({"http-connector"})

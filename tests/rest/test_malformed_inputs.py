"""A fixed corpus of malformed inputs against every engine-rest endpoint the app serves.

The endpoints are read from the app itself (`rest.app.create_litestar`), so a new endpoint is
covered without touching this file: its path ids, its query parameters (the fields of the query
Struct its POST twin reads, and what Camunda's reference document lists for it) and its JSON
body (the fields of the Struct the handler decodes) all get the corpus. Every answer must be a
non-5xx (except the few 500s Camunda itself documents), every 4xx must carry Camunda's
`{"type", "message"}` body, and a refused input must append nothing to the event log (the
command log may keep a "rejected" row: the audit trail of a refused command).

Deterministic and bounded: the corpus is a fixed list, one test per endpoint, every problem of
an endpoint reported at once. Path parameters that are not the one under test name real objects
(a fresh instance waiting in a user task and an external task), so a body or a query reaches
the handler's own checks instead of a 404.
"""

from __future__ import annotations

import json
import re
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import quote

import httpx
import msgspec
import pytest
from litestar.handlers import HTTPRouteHandler

from flowledger import Engine
from flowledger.rest.app import create_litestar
from flowledger.rest.paths import BASE_PATH
from tests.support import BPMN_DIR

from .server import LiveServer
from .test_openapi_contract import REFERENCE_SPEC
from .test_schemathesis import DELIBERATE_SERVER_ERRORS

FUZZ_TARGET = BPMN_DIR / "rest_e2e_fuzz_target.bpmn"
# Requests whose bodies are multipart forms rather than JSON (the handler reads the form itself).
MULTIPART = {("POST", "/deployment/create")}
SKIPPED_PREFIXES = ("/openapi",)  # the served OpenAPI document and its viewers: static pages
PARAMETER = re.compile(r"\{([^}:]+)(?::[^}]*)?\}")

# -- the corpus ---------------------------------------------------------------------------------

LONG_ID = "i" * 4000
BAD_IDS = {
    "long": LONG_ID,
    "nul": "a\x00b",
    "unicode": "ünïcødé-€-😀-\u202e",
    "dot-dot": "../../engine",
    "percent": "%25%",
}
# Query strings per kind of parameter: each parameter gets the values of its kind.
BAD_QUERY_VALUES: dict[str, tuple[str, ...]] = {
    "int": ("abc", "99999999999999999999999"),
    "float": ("abc", "1e999"),
    "bool": ("maybe",),
    "date": ("2026-13-45T25:61:00.000+0000",),
    "list": ("a," * 3000,),
    # long, non-ASCII, quotes, LIKE wildcards and a backslash at once
    "str": ("x" * 10_000 + "ünï€😀'\"%_\\",),
    "dict": ("{}",),
    "other": ("x" * 10_000,),
}
# Once per endpoint that takes query parameters.
GENERIC_QUERIES: dict[str, dict[str, str]] = {
    "nul value": {"fuzz": "a\x00b"},
    "nul name": {"fu\x00zz": "1"},
    "unknown sort key": {"sortBy": "noSuchKey", "sortOrder": "asc"},
    "bad sort order": {"sortBy": "id", "sortOrder": "sideways"},
    "sort key alone": {"sortBy": "id"},
    "negative first": {"firstResult": "-1"},
    "huge max": {"maxResults": "99999999999999999999"},
    "text max": {"maxResults": "ten"},
}
LONG_NAME = "v" * 300
# Typed variables that do not fit their type, and names no column can hold.
BAD_VARIABLES: dict[str, dict[str, Any]] = {
    "Integer 1.5": {"x": {"value": 1.5, "type": "Integer"}},
    "Integer text": {"x": {"value": "seven", "type": "Integer"}},
    "Integer huge": {"x": {"value": 2**40, "type": "Integer"}},
    "Long huge": {"x": {"value": 2**70, "type": "Long"}},
    "Short huge": {"x": {"value": 70_000, "type": "Short"}},
    "Double text": {"x": {"value": "pi", "type": "Double"}},
    "Boolean text": {"x": {"value": "yes", "type": "Boolean"}},
    "String object": {"x": {"value": {}, "type": "String"}},
    "String list": {"x": {"value": [1], "type": "String"}},
    "Date text": {"x": {"value": "tomorrow", "type": "Date"}},
    "Bytes number": {"x": {"value": 100000000, "type": "Bytes"}},
    "Bytes object": {"x": {"value": {}, "type": "Bytes"}},
    "Bytes float": {"x": {"value": 1.5, "type": "Bytes"}},
    "Bytes negative": {"x": {"value": -1, "type": "Bytes"}},
    "Bytes list": {"x": {"value": [1, 2], "type": "Bytes"}},
    "Bytes not base64": {"x": {"value": "***", "type": "Bytes"}},
    "Json not json": {"x": {"value": "{", "type": "Json"}},
    "Object bad format": {
        "x": {"value": "{}", "type": "Object", "valueInfo": {"serializationDataFormat": 7}}
    },
    "unknown type": {"x": {"value": 1, "type": "NoSuchType"}},
    "type not text": {"x": {"value": 1, "type": 5}},
    "valueInfo list": {"x": {"value": 1, "valueInfo": []}},
    "entry not object": {"x": 5},
    "300-char name": {LONG_NAME: {"value": 1}},
    "nul name": {"a\x00b": {"value": 1}},
    "nul value": {"x": {"value": "a\x00b", "type": "String"}},
    "empty name": {"": {"value": 1}},
}
# Entries of BAD_VARIABLES Camunda refuses with a 400 wherever variables are set: a value that
# does not fit its declared type, or that no column can hold. Accepting one stores a wrong value.
REFUSED_VARIABLES = set(BAD_VARIABLES) - {"empty name"}
# A JSON value nested deeper than any parser's stack.
DEEP = "[" * 100_000 + "]" * 100_000
HUGE_ARRAY = [0] * 200_000
# JSON values per kind of field: (values of a wrong type, edge values: NUL characters, 300-char
# strings, numbers beyond 64 bits, impossible dates). Each field gets one of each, alternating
# along the fields, so that every value is tried on an endpoint with a few fields of its kind.
WRONG_VALUES: dict[str, tuple[tuple[Any, ...], tuple[Any, ...]]] = {
    "str": ((123, {"a": 1}), ("a\x00b", "s" * 300)),
    "int": (("12", 1.5), (2**64, -(2**64))),
    "float": (("1.5", [1]), (1e308,)),
    "bool": (("yes", 2), ("\x00",)),
    "list": (("x", {"a": 1}), ([None, {"a": []}], ["\x00"])),
    "dict": (([], "x"), ({"k": "\x00"},)),
    "date": ((12, "yesterday"), ("2026-13-45T25:61:00.000+0000", "99999-01-01T00:00:00.000+0000")),
    "other": (({"a": [{"b": None}]},), ("\x00",)),
}


def wrong_values(kind: str, index: int) -> tuple[Any, Any]:
    """The two values the `index`-th field of its kind gets."""
    wrong, edge = WRONG_VALUES[kind]
    return wrong[index % len(wrong)], edge[index % len(edge)]


# -- the endpoints --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Endpoint:
    method: str
    path: str  # relative to the base path, parameters as `{name}`
    body: type[msgspec.Struct] | None  # the JSON body Struct the handler decodes, if any

    @property
    def name(self) -> str:
        return f"{self.method} {self.path}"

    @property
    def parameters(self) -> list[str]:
        return PARAMETER.findall(self.path)


def _body_struct(handler: HTTPRouteHandler) -> type[msgspec.Struct] | None:
    data = handler.parsed_fn_signature.parameters.get("data")
    if data is None:
        return None
    for candidate in (data.annotation, *typing.get_args(data.annotation)):
        if isinstance(candidate, type) and issubclass(candidate, msgspec.Struct):
            return candidate
    return None


def served_endpoints() -> list[Endpoint]:
    """Every (method, path) the app routes under the base path, with its body Struct."""
    # The routes are built without running anything: an in-memory engine is enough.
    with Engine("sqlite://", history_level="full") as engine:  # /history/detail has rows
        app = create_litestar(engine)
    found: dict[tuple[str, str], Endpoint] = {}
    for route in app.routes:
        path = PARAMETER.sub(r"{\1}", route.path.removeprefix(BASE_PATH))
        if path.startswith(SKIPPED_PREFIXES):
            continue
        for handler in getattr(route, "route_handlers", []):
            for method in handler.http_methods:
                if method not in ("OPTIONS", "HEAD"):
                    found[(method, path)] = Endpoint(method, path, _body_struct(handler))
    return sorted(found.values(), key=lambda e: (e.path, e.method))


ENDPOINTS = served_endpoints()

# -- parameter and field kinds ---------------------------------------------------------------------


def _kind(t: msgspec.inspect.Type) -> str:
    if isinstance(t, msgspec.inspect.UnionType):
        inner = [x for x in t.types if not isinstance(x, msgspec.inspect.NoneType)]
        return _kind(inner[0]) if len(inner) == 1 else "other"
    kinds: list[tuple[type[Any], str]] = [
        (msgspec.inspect.StrType, "str"),
        (msgspec.inspect.BoolType, "bool"),
        (msgspec.inspect.IntType, "int"),
        (msgspec.inspect.FloatType, "float"),
        (msgspec.inspect.DateTimeType, "date"),
        (msgspec.inspect.ListType, "list"),
        (msgspec.inspect.SetType, "list"),
        (msgspec.inspect.DictType, "dict"),
    ]
    for cls, kind in kinds:
        if isinstance(t, cls):
            return kind
    return "other"


@cache
def struct_fields(cls: type[msgspec.Struct]) -> tuple[msgspec.inspect.Field, ...]:
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    return info.fields


def _is_variables(t: msgspec.inspect.Type) -> bool:
    """A `{name: VariableValueDto}` map (optional or not)."""
    if isinstance(t, msgspec.inspect.UnionType):
        return any(_is_variables(x) for x in t.types)
    return (
        isinstance(t, msgspec.inspect.DictType)
        and isinstance(t.value_type, msgspec.inspect.StructType)
        and {f.encode_name for f in t.value_type.fields} >= {"value", "type"}
    )


def _inner_struct(t: msgspec.inspect.Type) -> msgspec.inspect.StructType | None:
    """The Struct of a `Struct` or `list[Struct]` field (optional or not)."""
    if isinstance(t, msgspec.inspect.UnionType):
        for x in t.types:
            if (inner := _inner_struct(x)) is not None:
                return inner
        return None
    if isinstance(t, msgspec.inspect.ListType):
        return _inner_struct(t.item_type)
    return t if isinstance(t, msgspec.inspect.StructType) else None


@cache
def _reference_queries() -> dict[tuple[str, str], dict[str, str]]:
    """Camunda's documented query parameters per (METHOD, path shape), with their kind."""
    spec = json.loads(REFERENCE_SPEC.read_text())
    found: dict[tuple[str, str], dict[str, str]] = {}
    for route, item in spec["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict):
                continue
            params: dict[str, str] = {}
            for p in operation.get("parameters", []):
                if p.get("in") == "query":
                    params[p["name"]] = _reference_kind(p.get("schema", {}))
            found[(method.upper(), _shape(route))] = params
    return found


def _reference_kind(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if kind == "integer":
        return "int"
    if kind == "boolean":
        return "bool"
    if kind == "array":
        return "list"
    if kind == "string":
        return "date" if schema.get("format") == "date-time" else "str"
    return "other"


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path)


def query_parameters(endpoint: Endpoint) -> dict[str, str]:
    """Query parameters of `endpoint` with their kind: Camunda's documented ones, and the
    fields of the query Struct of its POST twin (a GET list reads the same Struct)."""
    params = dict(_reference_queries().get((endpoint.method, _shape(endpoint.path)), {}))
    if endpoint.method in ("GET", "DELETE"):
        twin = next((e for e in ENDPOINTS if e.method == "POST" and e.path == endpoint.path), None)
        if twin is not None and twin.body is not None:
            for f in struct_fields(twin.body):
                params.setdefault(f.encode_name, _kind(f.type))
    return params


def is_list(endpoint: Endpoint) -> bool:
    """A list or count: it reads paging and sorting from the query string."""
    documented = _reference_queries().get((endpoint.method, _shape(endpoint.path)), {})
    return (
        "firstResult" in documented
        or "maxResults" in documented
        or (
            endpoint.method in ("GET", "POST")
            and not endpoint.parameters
            and any(e.method == "POST" and e.path == endpoint.path and e.body for e in ENDPOINTS)
        )
    )


# -- the target objects --------------------------------------------------------------------------


@dataclass
class Target:
    """Real objects the path parameters name: a fresh instance of the fuzz target, waiting in a
    user task and an external task, renewed whenever an accepted input changed something."""

    rest: LiveServer
    ids: dict[str, str] = field(default_factory=dict)

    def renew(self) -> None:
        engine = self.rest.engine
        if not self.ids or engine.repository_service.deployment(self.ids["deployment"]) is None:
            # the first time, or an accepted input deleted the deployment
            deployment = engine.deploy(FUZZ_TARGET, name="malformed")
            definition = deployment.process_definitions[0]
            self.ids.update(deployment=deployment.id, key=definition.key)
            self.ids["process-definition"] = definition.id
        instance = engine.start_process_instance(
            definition_id=self.ids["process-definition"], variables={"amount": 42}
        )
        task = engine.tasks(process_instance_id=instance.id)[0]
        external = engine.external_task_service.external_tasks(process_instance_id=instance.id)[0]
        client = self.rest.client
        variable = client.get("/variable-instance", params={"processInstanceIdIn": instance.id})
        activity = client.get(
            "/history/activity-instance", params={"processInstanceId": instance.id}
        )
        detail = client.get("/history/detail", params={"processInstanceId": instance.id})
        resources = client.get(f"/deployment/{self.ids['deployment']}/resources")
        self.ids |= {
            "process-instance": instance.id,
            "execution": task.execution_id,
            "task": task.id,
            "external-task": external.id,
            "variable-instance": variable.json()[0]["id"],
            "history/activity-instance": activity.json()[0]["id"],
            "history/detail": detail.json()[0]["id"],
            "resourceId": resources.json()[0]["id"],
        }
        self.ids["history/variable-instance"] = self.ids["variable-instance"]
        self.ids["history/process-instance"] = instance.id

    def value(self, path: str, parameter: str) -> str:
        """The real object `parameter` of `path` names."""
        if parameter == "id":
            resource = path.split("/{")[0].lstrip("/")
            return self.ids.get(resource, self.ids["process-instance"])
        if parameter == "varName":
            return "amount"
        return self.ids.get(parameter, "fuzz")


@pytest.fixture(scope="module")
def target(rest: LiveServer) -> Target:
    found = Target(rest)
    found.renew()
    return found


# -- requests and their checks ---------------------------------------------------------------------


@dataclass
class Case:
    """One malformed request: `label` says what is wrong with it."""

    label: str
    path_values: dict[str, str] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)
    json_body: Any = None
    raw_body: bytes | None = None
    files: list[tuple[str, tuple[str, bytes, str]]] | None = None
    data: dict[str, str] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    must_refuse: bool = False  # a 2xx is wrong too


def minimal_body(cls: type[msgspec.Struct] | None) -> dict[str, Any] | None:
    """The body a handler needs to get past decoding: required fields with plain values."""
    if cls is None:
        return None
    plain = {"str": "fuzz", "int": 1, "float": 1.0, "bool": False, "list": [], "dict": {}}
    return {f.encode_name: plain.get(_kind(f.type)) for f in struct_fields(cls) if f.required}


def path_cases(endpoint: Endpoint) -> Iterator[Case]:
    body = minimal_body(endpoint.body)
    for parameter in endpoint.parameters:
        for label, value in BAD_IDS.items():
            yield Case(f"path {parameter}={label}", {parameter: value}, json_body=body)


def query_cases(endpoint: Endpoint) -> Iterator[Case]:
    body = minimal_body(endpoint.body)
    params = query_parameters(endpoint)
    for name, kind in sorted(params.items()):
        for value in BAD_QUERY_VALUES[kind]:
            label = f"query {name} ({kind}) = {_describe(value, 40)}"
            yield Case(label, params={name: value}, json_body=body)
    if params or is_list(endpoint):
        for label, query in GENERIC_QUERIES.items():
            if label in ("nul value", "nul name") or is_list(endpoint):
                yield Case(f"query {label}", params=query, json_body=body)


def _field_cases(cls: type[msgspec.Struct]) -> Iterator[tuple[str, dict[str, Any], bool]]:
    """(label, body, must be refused) with one field wrong at a time, nested Structs one level
    deep."""
    base = minimal_body(cls) or {}
    seen: dict[str, int] = {}
    for f in struct_fields(cls):
        name = f.encode_name
        if _is_variables(f.type):
            for label, variables in BAD_VARIABLES.items():
                yield f"{name}: {label}", {**base, name: variables}, label in REFUSED_VARIABLES
            continue
        if name == "businessKey":
            yield f"{name} of 300 characters", {**base, name: "b" * 300}, False
        kind = _kind(f.type)
        index = seen[kind] = seen.get(kind, -1) + 1
        for value in wrong_values(kind, index):
            yield f"{name} ({kind}) = {_describe(value)}", {**base, name: value}, False
        inner = _inner_struct(f.type)
        if inner is not None:
            as_list = kind == "list"
            for i, g in enumerate(inner.fields):
                for value in wrong_values(_kind(g.type), i):
                    entry = {g.encode_name: value}
                    label = f"{name}.{g.encode_name} ({_kind(g.type)}) = {_describe(value)}"
                    yield label, {**base, name: [entry] if as_list else entry}, False


def body_cases(endpoint: Endpoint) -> Iterator[Case]:
    if endpoint.body is None:
        return
    json_type = {"Content-Type": "application/json"}
    for label, raw in (
        ("invalid JSON", b'{"a": '),
        ("not UTF-8", b'{"a": "\xff\xfe"}'),
        ("deeply nested", DEEP.encode()),
        ("body is a list", b"[]"),
        ("body is a string", b'"text"'),
        ("body is a number", b"12"),
        ("unknown fields", b'{"noSuchField": 1, "\\u0000": 2}'),
    ):
        yield Case(f"body {label}", raw_body=raw, headers=json_type)
    fields = struct_fields(endpoint.body)
    lists = [f.encode_name for f in fields if _kind(f.type) == "list"]
    huge_at = lists[0] if lists else (fields[0].encode_name if fields else "x")
    base = minimal_body(endpoint.body) or {}
    yield Case(f"body huge array in {huge_at}", json_body={**base, huge_at: HUGE_ARRAY})
    for label, body, refused in _field_cases(endpoint.body):
        yield Case(f"body {label}", json_body=body, must_refuse=refused)
    if {f.encode_name for f in fields} >= {"value", "type"}:  # the body is one variable
        for label, variables in BAD_VARIABLES.items():
            value = variables.get("x")
            if isinstance(value, dict):
                yield Case(f"body variable {label}", json_body=value, must_refuse=True)


BPMN = FUZZ_TARGET.read_bytes()
XML = "text/xml"
BILLION_LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
    b'<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
    b"<definitions>&lol3;</definitions>"
)


def multipart_cases() -> Iterator[Case]:
    def form(label: str, data: dict[str, str], *files: tuple[str, bytes]) -> Case:
        parts = [(f"part-{i}", (name, content, XML)) for i, (name, content) in enumerate(files)]
        return Case(f"multipart {label}", data=data, files=parts or None)

    named = {"deployment-name": "malformed"}
    yield form("no resources", named)
    yield form("empty resource", named, ("empty.bpmn", b""))
    yield form("not XML", named, ("junk.bpmn", b"\x00\xff\x00 not xml"))
    yield form("truncated BPMN", named, ("cut.bpmn", BPMN[: len(BPMN) // 2]))
    yield form("entity expansion", named, ("bomb.bpmn", BILLION_LAUGHS))
    yield form("BPMN without process", named, ("none.bpmn", b"<definitions/>"))
    yield form("300-char file name", named, ("f" * 300 + ".bpmn", BPMN))
    yield form("NUL in file name", named, ("a\x00b.bpmn", BPMN))
    yield form("300-char deployment name", {"deployment-name": "n" * 300}, ("a.bpmn", BPMN))
    yield form("NUL in deployment name", {"deployment-name": "a\x00b"}, ("a.bpmn", BPMN))
    yield form("NUL in source", {**named, "deployment-source": "a\x00b"}, ("a.bpmn", BPMN))
    yield form(
        "bad duplicate filtering",
        {**named, "enable-duplicate-filtering": "maybe"},
        ("a.bpmn", BPMN),
    )
    yield form(
        "bad activation time", {**named, "deployment-activation-time": "soon"}, ("a.bpmn", BPMN)
    )
    yield form("tenant", {**named, "tenant-id": "t\x00"}, ("a.bpmn", BPMN))
    yield Case(
        "multipart part without file name",
        data={**named, "resource": BPMN.decode()},
    )
    yield Case("multipart JSON instead of a form", json_body={"deployment-name": "x"})
    yield Case(
        "multipart broken boundary",
        raw_body=b'--nope\r\nContent-Disposition: form-data; name="a"\r\n\r\nx',
        headers={"Content-Type": "multipart/form-data; boundary=other"},
    )


def cases(endpoint: Endpoint) -> list[Case]:
    if (endpoint.method, endpoint.path) in MULTIPART:
        return [*path_cases(endpoint), *query_cases(endpoint), *multipart_cases()]
    return [*path_cases(endpoint), *query_cases(endpoint), *body_cases(endpoint)]


def _url(endpoint: Endpoint, case: Case, target: Target) -> str:
    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        value = case.path_values.get(name)
        if value is None:
            value = target.value(endpoint.path, name)
        return quote(value, safe="")

    return PARAMETER.sub(fill, endpoint.path)


def send(client: httpx.Client, endpoint: Endpoint, case: Case, target: Target) -> httpx.Response:
    url = _url(endpoint, case, target)
    content = case.raw_body
    if content is None and case.json_body is not None and case.files is None and not case.data:
        content = msgspec.json.encode(case.json_body)
        case.headers.setdefault("Content-Type", "application/json")
    return client.request(
        endpoint.method,
        url,
        params=case.params or None,
        content=content,
        data=case.data,
        files=case.files,
        headers=case.headers,
    )


def _describe(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} chars)"


def problem_with(endpoint: Endpoint, case: Case, answer: httpx.Response, moved: int) -> str | None:
    """What is wrong with `answer` to a malformed input, or None."""
    status = answer.status_code
    if case.must_refuse and status < 400:
        return f"accepted ({status}): {_describe(answer.text, 300)}"
    try:
        body = answer.json()
    except ValueError:
        body = None
    shaped = (
        isinstance(body, dict)
        and isinstance(body.get("type"), str)
        and isinstance(body.get("message"), str)
    )
    if status >= 500:
        allowed = DELIBERATE_SERVER_ERRORS.get((endpoint.method, endpoint.path), {})
        if not (shaped and body["type"] in allowed):
            return f"answered {status} {_describe(answer.text, 300)}"
    elif status >= 400 and not shaped:
        return f"answered {status} without Camunda's error body: {_describe(answer.text, 300)}"
    if status >= 300 and moved:
        return f"answered {status} but appended {moved} events to the log"
    return None


def run_case(endpoint: Endpoint, case: Case, target: Target) -> str | None:
    engine = target.rest.engine
    head = engine.log_position()
    try:
        answer = send(target.rest.client, endpoint, case, target)
    except httpx.HTTPError as exc:
        return f"no answer: {type(exc).__name__}: {exc}"
    moved = engine.log_position() - head
    problem = problem_with(endpoint, case, answer, moved)
    if moved:
        target.renew()  # an accepted input may have completed or deleted the target objects
    if problem is None:
        return None
    shown = {
        "path": case.path_values,
        "query": case.params,
        "body": case.json_body if case.raw_body is None else case.raw_body,
        "form": case.data,
        "files": [name for _, (name, _, _) in case.files or []],
    }
    given = ", ".join(f"{k}={_describe(v)}" for k, v in shown.items() if v)
    return f"{endpoint.name} [{case.label}] {given}: {problem}"


@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=[e.name for e in ENDPOINTS])
def test_malformed_inputs_are_refused_cleanly(target: Target, endpoint: Endpoint) -> None:
    problems = [p for case in cases(endpoint) if (p := run_case(endpoint, case, target))]
    if problems:  # every one of them, not only the first
        pytest.fail(f"{len(problems)} malformed inputs handled badly:\n" + "\n".join(problems))


def test_every_resource_of_the_app_is_covered() -> None:
    """The enumeration really reads the app: each resource module's routes are in it."""
    resources = {e.path.split("/")[1] for e in ENDPOINTS}
    assert {"deployment", "process-definition", "task", "external-task", "history"} <= resources
    assert any(e.body is not None for e in ENDPOINTS)
    assert ("POST", "/deployment/create") in {(e.method, e.path) for e in ENDPOINTS}

"""Every call out of the engine goes through here: the http-connector now, later mail, webhooks
and exporters.

One policy, in one place: off unless the operator enabled it; only allow-listed hosts, checked
after name resolution, the connection made to the address that was checked (no DNS rebinding);
loopback, private, link-local and metadata addresses only when listed explicitly; redirects only
to allowed targets; one total deadline per call (resolution, connect and every read); a cap on
the answer's size, read as a stream. The command bus calls with no lock held: a slow or hostile
service delays the one command that asked, never another.

Must not: run inside a write transaction, read the environment's proxy settings, or raise for a
call that failed (a failure is an answer, recorded as such).
"""

from __future__ import annotations

import fnmatch
import ipaddress
import logging
import socket
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

import httpx

from flowledger.core.outbound import Answer, HttpRequest, HttpResponse, OutboundFailure

__all__ = [
    "CONNECTORS",
    "DEADLINE_SECONDS",
    "MAX_REDIRECTS",
    "MAX_RESPONSE_BYTES",
    "Outbound",
    "OutboundPolicy",
    "OutboundStats",
    "connector_name",
]

log = logging.getLogger("flowledger.engine.outbound")

DEADLINE_SECONDS = 10.0  # one call: resolution, connect, request and every byte of the answer
MAX_RESPONSE_BYTES = 10 * 1024 * 1024  # an answer larger than this is refused, not kept
MAX_REDIRECTS = 5
_CHUNK = 64 * 1024

# The connectors an operator can enable, by the name `serve --connector` takes, and the
# camunda:connectorId each one runs.
CONNECTORS = {"http": "http-connector"}

_METADATA = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254")
)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def connector_name(connector_id: str) -> str | None:
    """`serve --connector` name of a camunda:connectorId, or None for one we do not run."""
    return next((name for name, cid in CONNECTORS.items() if cid == connector_id), None)


@dataclass(frozen=True, slots=True)
class _Allowed:
    """One allow-list entry: a host pattern (`api.example.com`, `*.example.com`), an address or
    a network (`127.0.0.1`, `10.0.0.0/8`, `[::1]`), with an optional port (`host:8080`)."""

    host: str
    port: int | None
    network: ipaddress.IPv4Network | ipaddress.IPv6Network | None

    @classmethod
    def parse(cls, entry: str) -> _Allowed:
        text = entry.strip().lower()
        if not text:
            raise ValueError("an empty --http-allow entry")
        host, port = text, None
        if text.startswith("["):  # [v6]:port
            end = text.find("]")
            if end < 0:
                raise ValueError(f"--http-allow '{entry}': no closing ']'")
            host, rest = text[1:end], text[end + 1 :]
            if rest:
                port = _port(entry, rest.removeprefix(":"))
        elif text.count(":") == 1:
            host, port_text = text.split(":")
            port = _port(entry, port_text)
        network = None
        try:
            network = ipaddress.ip_network(host, strict=False)
        except ValueError:
            if "/" in host or not host:
                message = f"--http-allow '{entry}' is neither a host nor a network"
                raise ValueError(message) from None
        return cls(host, port, network)

    def matches(self, host: str, port: int) -> bool:
        if self.port is not None and self.port != port:
            return False
        if self.network is not None:
            try:
                return ipaddress.ip_address(host) in self.network
            except ValueError:
                return False
        return fnmatch.fnmatchcase(host, self.host)

    @property
    def explicit(self) -> bool:
        """Names one host or address, not a pattern: may reach special addresses."""
        return self.network is not None or not any(c in self.host for c in "*?[")

    def admits(self, address: IPAddress) -> bool:
        """Whether a resolved address may be reached under this entry."""
        if self.network is not None:
            return address in self.network
        return (address.is_global and address not in _METADATA) or self.explicit


def _port(entry: str, text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"--http-allow '{entry}': '{text}' is not a port")
    return int(text)


@dataclass(frozen=True)
class OutboundPolicy:
    """What the operator allows the engine to call. Nothing, unless told.

    `connectors`: the enabled connectors by name (`{"http"}`); `http_allow`: the hosts the
    http-connector may reach (see `_Allowed`); `deadline_seconds`: one call's total time;
    `max_response_bytes`: the largest answer kept."""

    connectors: frozenset[str] = frozenset()
    http_allow: tuple[str, ...] = ()
    deadline_seconds: float = DEADLINE_SECONDS
    max_response_bytes: int = MAX_RESPONSE_BYTES
    max_redirects: int = MAX_REDIRECTS

    def __post_init__(self) -> None:
        unknown = sorted(set(self.connectors) - set(CONNECTORS))
        if unknown:
            raise ValueError(
                f"unknown connector {', '.join(unknown)}: this engine runs {', '.join(CONNECTORS)}"
            )
        for entry in self.http_allow:
            _Allowed.parse(entry)
        if not 0 < self.deadline_seconds <= 600:
            raise ValueError("the outbound deadline must be between 0 and 600 seconds")
        if self.max_response_bytes <= 0:
            raise ValueError("the outbound response cap must be a positive number of bytes")

    @property
    def enabled_connector_ids(self) -> frozenset[str]:
        return frozenset(CONNECTORS[name] for name in self.connectors)


@dataclass
class OutboundStats:
    """What the engine's calls came to, for `/actuator/health`: refusals and limits hit are
    counted (and logged), never silent."""

    calls: int = 0
    answered: int = 0
    refused: int = 0
    failed: int = 0
    deadline_hit: int = 0
    size_cap_hit: int = 0
    last_problem: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def count(self, name: str, problem: str | None = None) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + 1)
            if problem is not None:
                self.last_problem = problem

    def as_dict(self) -> dict[str, int | str | None]:
        return {
            "calls": self.calls,
            "answered": self.answered,
            "refused": self.refused,
            "failed": self.failed,
            "deadlineHit": self.deadline_hit,
            "sizeCapHit": self.size_cap_hit,
            "lastProblem": self.last_problem,
        }


class _Refused(Exception):
    """The policy says no; the message names the rule and how to change it."""


class _Stop(Exception):
    """The deadline or the size cap ended the call."""

    def __init__(self, message: str, stat: str) -> None:
        super().__init__(message)
        self.stat = stat


class Outbound:
    """Makes the calls a policy allows. Thread-safe: every call has its own connection."""

    def __init__(self, policy: OutboundPolicy | None = None) -> None:
        self.policy = policy or OutboundPolicy()
        self._allowed = [_Allowed.parse(e) for e in self.policy.http_allow]
        self.stats = OutboundStats()

    def call(self, request: HttpRequest, element_id: str) -> Answer:
        """The answer to `request`, or the failure that took its place; never raises for the
        call's own sake. Returns by the deadline even when the remote side does not."""
        self.stats.count("calls")
        if "http" not in self.policy.connectors:
            return self._refused(
                element_id,
                "the http-connector is not enabled on this engine (enable it with "
                "`flowledger serve --connector http --http-allow HOST`, or "
                "Engine(outbound=OutboundPolicy(connectors={'http'}, http_allow=[...])))",
            )
        deadline = time.monotonic() + self.policy.deadline_seconds
        box: list[tuple[Answer, str]] = []
        stop = threading.Event()

        def run() -> None:
            try:
                box.append(self._follow(request, deadline, stop))
            except BaseException as exc:  # the caller must get an answer, whatever happened
                box.append((OutboundFailure(f"{type(exc).__name__}: {exc}"), "failed"))

        worker = threading.Thread(target=run, name="flowledger-outbound", daemon=True)
        worker.start()
        # The worker gives up at the deadline on its own; the join bounds what a resolver or a
        # socket that ignores its timeout could add.
        worker.join(self.policy.deadline_seconds + 0.5)
        if not box:
            stop.set()
            box.append((OutboundFailure(self._deadline_message()), "deadline_hit"))
        answer, stat = box[0]
        if isinstance(answer, OutboundFailure):
            self.stats.count(stat, f"{element_id}: {answer.message}")
            log.warning("outbound call of '%s' failed: %s", element_id, answer.message)
        else:
            self.stats.count("answered")
        return answer

    def _refused(self, element_id: str, why: str) -> OutboundFailure:
        message = f"refused: {why}"
        self.stats.count("refused", f"{element_id}: {message}")
        log.warning("outbound call of '%s' %s", element_id, message)
        return OutboundFailure(message)

    def _deadline_message(self) -> str:
        return (
            f"no complete answer within the deadline of {self.policy.deadline_seconds:g} s "
            "(`serve --http-deadline SECONDS` changes it)"
        )

    def _follow(
        self, request: HttpRequest, deadline: float, stop: threading.Event
    ) -> tuple[Answer, str]:
        """The call, following allowed redirects; with the statistic its outcome counts in."""
        method, url, body = request.method, request.url, request.body
        headers = list(request.headers)
        if not any(k.lower() == "accept-encoding" for k, _ in headers):
            # Unasked, a server compresses nothing: the size cap counts what is kept.
            headers.append(("Accept-Encoding", "identity"))
        for _ in range(self.policy.max_redirects + 1):
            try:
                answer, location = self._once(method, url, headers, body, deadline, stop)
            except _Refused as exc:
                return OutboundFailure(f"refused: {exc}"), "refused"
            except _Stop as exc:
                return OutboundFailure(str(exc)), exc.stat
            except httpx.TimeoutException:
                return OutboundFailure(self._deadline_message()), "deadline_hit"
            except (httpx.HTTPError, OSError) as exc:
                return OutboundFailure(f"{type(exc).__name__}: {exc}"), "failed"
            if location is None:
                return answer, "answered"
            url = str(httpx.URL(url).join(location))
            if answer.status == 303 or (answer.status in (301, 302) and method == "POST"):
                method, body = "GET", None
                headers = [(k, v) for k, v in headers if k.lower() != "content-type"]
        message = f"more than {self.policy.max_redirects} redirects (the last to {url})"
        return OutboundFailure(message), "failed"

    def _once(
        self,
        method: str,
        url: str,
        headers: list[tuple[str, str]],
        body: bytes | None,
        deadline: float,
        stop: threading.Event,
    ) -> tuple[HttpResponse, str | None]:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https"):
            raise _Refused(f"'{url}' is not an http or https url")
        host = (parts.hostname or "").lower()
        if not host:
            raise _Refused(f"'{url}' names no host")
        port = parts.port or (443 if scheme == "https" else 80)
        entries = [e for e in self._allowed if e.matches(host, port)]
        if not entries:
            raise _Refused(
                f"{host}:{port} is not on the http-connector's allow-list "
                f"(`serve --http-allow {host}:{port}` allows it)"
            )
        address = self._resolve(host, port, entries, deadline)
        literal = f"[{address}]" if address.version == 6 else str(address)
        netloc = f"{literal}:{parts.port}" if parts.port else literal
        target = urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))
        sent = [(k, v) for k, v in headers if k.lower() != "host"]
        sent.append(("Host", parts.netloc.rsplit("@", 1)[-1]))
        extensions = {"sni_hostname": host} if scheme == "https" else {}
        remaining = _left(deadline, self._deadline_message())
        with httpx.Client(
            trust_env=False, follow_redirects=False, timeout=httpx.Timeout(remaining)
        ) as client:
            req = client.build_request(method, target, headers=sent, content=body)
            req.extensions.update(extensions)
            reply = client.send(req, stream=True)
            try:
                data = self._read(reply, deadline, stop)
            finally:
                reply.close()
        answer = HttpResponse(
            status=reply.status_code,
            headers=tuple((k, v) for k, v in reply.headers.items()),
            text=data.decode(reply.charset_encoding or "utf-8", errors="replace"),
        )
        location = reply.headers.get("location")
        if reply.status_code in (301, 302, 303, 307, 308) and location:
            return answer, location
        return answer, None

    def _resolve(self, host: str, port: int, entries: list[_Allowed], deadline: float) -> IPAddress:
        """The address to connect to: every address the name resolves to must be admitted (a
        name that also resolves to a private address is refused), and the first is used."""
        try:
            addresses: Iterable[IPAddress] = [ipaddress.ip_address(host)]
        except ValueError:
            _left(deadline, self._deadline_message())
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
            addresses = list(dict.fromkeys(ipaddress.ip_address(i[4][0]) for i in infos))
        chosen: IPAddress | None = None
        for address in addresses:
            if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
                address = address.ipv4_mapped
            if not any(e.admits(address) for e in entries):
                raise _Refused(
                    f"{host} resolves to {address}, a {_kind(address)} address, which the "
                    f"allow-list names only by a pattern (list '{host}' or '{address}' "
                    "explicitly with --http-allow to reach it)"
                )
            chosen = chosen or address
        if chosen is None:
            raise _Refused(f"{host} resolves to no address")
        return chosen

    def _read(self, reply: httpx.Response, deadline: float, stop: threading.Event) -> bytes:
        cap = self.policy.max_response_bytes
        declared = reply.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > cap:
            raise _Stop(self._too_large(f"declares {int(declared):,} bytes"), "size_cap_hit")
        chunks: list[bytes] = []
        size = 0
        for chunk in reply.iter_bytes(_CHUNK):
            size += len(chunk)
            if size > cap:
                raise _Stop(self._too_large(f"went past {cap:,} bytes"), "size_cap_hit")
            chunks.append(chunk)
            if stop.is_set() or time.monotonic() > deadline:
                raise _Stop(self._deadline_message(), "deadline_hit")
        return b"".join(chunks)

    def _too_large(self, what: str) -> str:
        return (
            f"the answer {what}, over the size cap of {self.policy.max_response_bytes:,} bytes "
            "(`serve --http-max-bytes N` changes it)"
        )


def _left(deadline: float, message: str) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _Stop(message, "deadline_hit")
    return remaining


def _kind(address: IPAddress) -> str:
    if address in _METADATA:
        return "cloud metadata"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_private:
        return "private"
    return "non-public"

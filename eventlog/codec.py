"""msgspec JSON codec for commits: lists of tagged event Structs, upcasting old schema versions.

Pure: no I/O. The event vocabulary is handed in, so the store stays independent of the engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import msgspec

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class Opener(Protocol):
    """Turns the sealed values of decoded events back into what they were (or says they are
    erased). Called only for a commit whose bytes hold `marker`; it may read the key table."""

    marker: bytes

    def __call__(self, events: list[Any]) -> list[Any]: ...


class UpcasterRegistry:
    """Functions that lift a stored event dict from `(type, version)` to `version + 1`."""

    def __init__(self) -> None:
        self._steps: dict[tuple[str, int], Upcaster] = {}

    def register(self, event_type: str, from_version: int) -> Callable[[Upcaster], Upcaster]:
        def decorate(fn: Upcaster) -> Upcaster:
            key = (event_type, from_version)
            if key in self._steps:
                raise ValueError(f"upcaster for {event_type} v{from_version} already registered")
            self._steps[key] = fn
            return fn

        return decorate

    def upcast(self, raw: dict[str, Any], current_version: int) -> dict[str, Any]:
        from .errors import CodecError

        event_type = str(raw.get("type"))
        version = raw.get("v", 1)
        if not isinstance(version, int) or isinstance(version, bool):
            raise CodecError(f"event {event_type} has a schema version that is not a number")
        while version < current_version:
            step = self._steps.get((event_type, version))
            if step is None:
                raise CodecError(
                    f"no upcaster registered for event {event_type} v{version} "
                    f"(current version is v{current_version})"
                )
            try:
                raw = step(dict(raw))
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                # a stored event the upcaster cannot read is damaged, not a fault of the reader
                raise CodecError(
                    f"event {event_type} v{version} cannot be upcast: {type(exc).__name__} {exc}"
                ) from exc
            version += 1
            raw["v"] = version
        return raw


class EventCodec:
    """Encodes the events of one commit as a JSON array and decodes them back.

    `union` is the tagged union of event Structs (tag field "type"); `versions` maps each
    event type to its current schema version. Events written at an older version are
    decoded through the registered upcasters.
    """

    def __init__(
        self,
        union: Any,
        versions: dict[str, int],
        upcasters: UpcasterRegistry | None = None,
        opener: Opener | None = None,
    ) -> None:
        self._union = union
        self.opener = opener
        self._versions = versions
        self._upcasters = upcasters or UpcasterRegistry()
        self._encoder = msgspec.json.Encoder()
        self._decoder: msgspec.json.Decoder[list[Any]] = msgspec.json.Decoder(list[union])
        self._one: msgspec.json.Decoder[Any] = msgspec.json.Decoder(union)
        self._raw = msgspec.json.Decoder(list[dict[str, Any]])

    @property
    def upcasters(self) -> UpcasterRegistry:
        return self._upcasters

    def encode(self, events: Sequence[Any]) -> bytes:
        return self._encoder.encode(events)

    def encode_one(self, event: Any) -> bytes:
        return self._encoder.encode(event)

    def decode(self, data: bytes | str) -> list[Any]:
        """The commit's events, with sealed values opened when the codec has an opener."""
        events = self._decode(data)
        opener = self.opener
        if opener is not None:
            raw = data if isinstance(data, bytes) else data.encode()
            if opener.marker in raw:
                return opener(events)
        return events

    def decode_sealed(self, data: bytes | str) -> list[Any]:
        """The commit's events as the log holds them: sealed values stay sealed (exports)."""
        return self._decode(data)

    def _decode(self, data: bytes | str) -> list[Any]:
        from .errors import CodecError

        try:
            events = self._decoder.decode(data)
        except msgspec.ValidationError:
            return self._decode_slow(data)
        except msgspec.DecodeError as exc:
            raise CodecError(f"commit is not valid JSON: {exc}") from exc
        versions = self._versions
        for event in events:
            if getattr(event, "v", 1) != versions.get(type(event).__name__, 1):
                return self._decode_slow(data)
        return events

    def _decode_slow(self, data: bytes | str) -> list[Any]:
        from .errors import CodecError

        try:
            raws = self._raw.decode(data)
        except msgspec.DecodeError as exc:
            raise CodecError(f"commit is not valid JSON: {exc}") from exc
        out = []
        for raw in raws:
            current = self._versions.get(str(raw.get("type")))
            if current is None:
                raise CodecError(f"unknown event type {raw.get('type')!r}")
            raw = self._upcasters.upcast(raw, current)
            try:
                out.append(msgspec.convert(raw, self._union))
            except msgspec.ValidationError as exc:
                raise CodecError(
                    f"event {raw.get('type')} does not match its schema: {exc}"
                ) from exc
        return out

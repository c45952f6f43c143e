"""Property tests of the event codec: every engine event round-trips, old versions are upcast.

Upcasting runs on a fresh codec and registry over a test-only union, never the engine's registry.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flowledger.core import events as ev
from flowledger.engine.storage.codec import make_codec
from flowledger.engine.storage.codec import upcasters as codec_upcasters
from flowledger.eventlog import CodecError, EventCodec, UpcasterRegistry

# -- strategies for msgspec Structs, from msgspec's own view of their field types ---------------

_INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)
_DATETIMES = st.one_of(
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    st.datetimes(
        min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
    ),
)


def _strategy(t: msgspec.inspect.Type) -> st.SearchStrategy[Any]:
    mi = msgspec.inspect
    if isinstance(t, mi.StrType):
        return st.text(max_size=16)
    if isinstance(t, mi.BoolType):
        return st.booleans()
    if isinstance(t, mi.IntType):
        return _INT64
    if isinstance(t, mi.FloatType):
        # JSON has no NaN or infinity: the engine refuses such variable values (regression test:
        # tests/properties/test_stateful.py::test_non_finite_double_survives_replay).
        return st.floats(allow_nan=False, allow_infinity=False)
    if isinstance(t, mi.NoneType):
        return st.none()
    if isinstance(t, mi.BytesType):
        return st.binary(max_size=16)
    if isinstance(t, mi.DateTimeType):
        return _DATETIMES
    if isinstance(t, mi.UnionType):
        return st.one_of(*(_strategy(member) for member in t.types))
    if isinstance(t, mi.ListType):
        return st.lists(_strategy(t.item_type), max_size=3)
    if isinstance(t, mi.DictType):
        return st.dictionaries(_strategy(t.key_type), _strategy(t.value_type), max_size=3)
    if isinstance(t, mi.StructType):
        return struct_strategy(t.cls)
    if isinstance(t, mi.VarTupleType):
        return st.lists(_strategy(t.item_type), max_size=3).map(tuple)
    if isinstance(t, mi.TupleType):
        return st.tuples(*(_strategy(item) for item in t.item_types))
    if isinstance(t, mi.AnyType):
        # plain JSON data (a batch's parameters, an operation log value): what the engine keeps
        # there round-trips as JSON does, never as a Python object
        return st.none() | st.booleans() | _INT64 | st.text(max_size=16)
    raise NotImplementedError(f"no strategy for {t!r}")


def struct_strategy(cls: type[msgspec.Struct], **fixed: Any) -> st.SearchStrategy[Any]:
    """Instances of a Struct with every field (defaulted ones too) drawn from its declared type."""
    info = msgspec.inspect.type_info(cls)
    assert isinstance(info, msgspec.inspect.StructType)
    fields = {f.name: _strategy(f.type) for f in info.fields}
    fields.update({name: st.just(value) for name, value in fixed.items()})
    return st.builds(cls, **fields)


def event_strategy(cls: type[ev.Event]) -> st.SearchStrategy[ev.Event]:
    """Engine events as the engine writes them: at the type's current schema version."""
    return struct_strategy(cls, v=ev.CURRENT_VERSIONS[cls.__name__])


ENGINE_CODEC = make_codec()
any_event = st.one_of(*(event_strategy(cls) for cls in ev.EVENT_TYPES))


@pytest.mark.parametrize("event_type", ev.EVENT_TYPES, ids=lambda cls: cls.__name__)
@settings(max_examples=50)  # per event type: 28 types
@given(data=st.data())
def test_every_event_type_round_trips(event_type: type[ev.Event], data: st.DataObject) -> None:
    event = data.draw(event_strategy(event_type), label="event")
    assert ENGINE_CODEC.decode(ENGINE_CODEC.encode([event])) == [event]


@given(events=st.lists(any_event, max_size=6))
def test_a_commit_of_mixed_events_round_trips(events: list[ev.Event]) -> None:
    encoded = ENGINE_CODEC.encode(events)
    assert ENGINE_CODEC.decode(encoded) == events
    assert ENGINE_CODEC.decode(encoded.decode()) == events  # str input too


def test_every_event_type_has_a_strategy_and_a_current_version() -> None:
    assert set(ev.CURRENT_VERSIONS) == {cls.__name__ for cls in ev.EVENT_TYPES}
    for cls in ev.EVENT_TYPES:
        event_strategy(cls).validate()


# -- upcasting, on a test-only vocabulary --------------------------------------------------------


class SampleEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    v: int = 1


class Greeted(SampleEvent, tag=True, frozen=True):
    """v1: {"name"}; v2 renamed it to "full_name"; v3 added "greetings"."""

    full_name: str
    greetings: int


class Waved(SampleEvent, tag=True, frozen=True):
    hand: str


SampleUnion = Greeted | Waved
SAMPLE_VERSIONS = {"Greeted": 3, "Waved": 1}


def sample_codec() -> EventCodec:
    registry = UpcasterRegistry()

    @registry.register("Greeted", 1)
    def rename(raw: dict[str, Any]) -> dict[str, Any]:
        raw["full_name"] = raw.pop("name")
        return raw

    @registry.register("Greeted", 2)
    def count(raw: dict[str, Any]) -> dict[str, Any]:
        raw["greetings"] = 1
        return raw

    return EventCodec(SampleUnion, SAMPLE_VERSIONS, registry)


def _old_greeted(version: int, name: str) -> dict[str, Any]:
    if version == 1:
        return {"type": "Greeted", "v": 1, "name": name}
    return {"type": "Greeted", "v": 2, "full_name": name}


_names = st.text(max_size=20)


@given(version=st.sampled_from((1, 2)), name=_names)
def test_an_old_event_is_lifted_through_the_upcasters(version: int, name: str) -> None:
    stored = msgspec.json.encode([_old_greeted(version, name)])
    assert sample_codec().decode(stored) == [Greeted(v=3, full_name=name, greetings=1)]


@given(
    commit=st.lists(
        st.one_of(
            st.tuples(st.sampled_from((1, 2)), _names),
            st.builds(Greeted, v=st.just(3), full_name=_names, greetings=st.integers(0, 9)),
            st.builds(Waved, v=st.just(1), hand=st.sampled_from(("left", "right"))),
        ),
        max_size=5,
    )
)
def test_a_commit_mixing_old_and_current_events(commit: list[Any]) -> None:
    raw: list[Any] = []
    expected: list[Any] = []
    for item in commit:
        if isinstance(item, tuple):
            raw.append(_old_greeted(*item))
            expected.append(Greeted(v=3, full_name=item[1], greetings=1))
        else:
            raw.append(item)
            expected.append(item)
    codec = sample_codec()
    assert codec.decode(msgspec.json.encode(raw)) == expected
    assert codec.decode(codec.encode(expected)) == expected


def test_a_version_without_an_upcaster_is_refused() -> None:
    stored = msgspec.json.encode([{"type": "Greeted", "v": 0, "nom": "x"}])
    with pytest.raises(CodecError, match="no upcaster"):
        sample_codec().decode(stored)


def test_an_upcaster_is_registered_once() -> None:
    registry = UpcasterRegistry()
    registry.register("Greeted", 1)(lambda raw: raw)
    with pytest.raises(ValueError, match="already registered"):
        registry.register("Greeted", 1)(lambda raw: raw)


def test_the_engine_registry_is_untouched() -> None:
    before = dict(codec_upcasters._steps)
    sample_codec()
    assert codec_upcasters._steps == before  # the test upcasters live on their own registry


# -- refusing what cannot be decoded -------------------------------------------------------------

_known = {cls.__name__ for cls in ev.EVENT_TYPES} | set(SAMPLE_VERSIONS)
unknown_types = st.text(min_size=1, max_size=20).filter(lambda name: name not in _known)


@given(event_type=unknown_types, version=st.integers(min_value=0, max_value=5))
def test_an_unknown_event_type_is_refused(event_type: str, version: int) -> None:
    stored = msgspec.json.encode([{"type": event_type, "v": version}])
    for codec in (ENGINE_CODEC, sample_codec()):
        with pytest.raises(CodecError, match="unknown event type"):
            codec.decode(stored)


@given(event=any_event, event_type=unknown_types)
def test_an_unknown_event_among_known_ones_is_refused(event: ev.Event, event_type: str) -> None:
    raw = [ev.to_dict(event), {"type": event_type, "v": 1}]
    with pytest.raises(CodecError, match="unknown event type"):
        ENGINE_CODEC.decode(msgspec.json.encode(raw))


json_values = st.recursive(
    st.none()
    | st.booleans()
    | _INT64
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=8,
)
_type_names = st.sampled_from(sorted(ev.CURRENT_VERSIONS)) | st.text(max_size=12)
# Event-shaped objects: a known or unknown type tag, any version (numbers or not), any fields.
event_like = st.fixed_dictionaries(
    {"type": _type_names | json_values},
    optional={"v": json_values},
).flatmap(
    lambda head: st.dictionaries(st.text(max_size=12), json_values, max_size=4).map(
        lambda rest: {**rest, **head}
    )
)
malformed_commits = st.one_of(
    st.binary(max_size=40),
    json_values.map(msgspec.json.encode),
    st.lists(event_like | json_values, min_size=1, max_size=3).map(msgspec.json.encode),
)


@given(data=malformed_commits)
def test_a_malformed_commit_is_a_codec_error(data: bytes) -> None:
    """Whatever a stored commit holds, decoding it either succeeds or raises CodecError."""
    try:
        decoded = ENGINE_CODEC.decode(data)
    except CodecError:
        return
    assert decoded == []  # the only valid commit these strategies can produce: no events


@pytest.mark.parametrize("version", ["x", None, [1], {}], ids=repr)
def test_a_version_that_is_not_a_number_is_a_codec_error(version: object) -> None:
    stored = msgspec.json.encode([{"type": "VariableSet", "v": version}])
    with pytest.raises(CodecError):
        ENGINE_CODEC.decode(stored)


def test_a_field_of_the_wrong_type_is_a_codec_error() -> None:
    stored = msgspec.json.encode([{"type": "Waved", "v": 1, "hand": 5}])
    with pytest.raises(CodecError, match="does not match its schema"):
        sample_codec().decode(stored)

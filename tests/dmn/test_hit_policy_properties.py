"""Property: a generated decision table evaluated over generated inputs gives what a plain
reference implementation of its hit policy gives over the same rules, matched in Python."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from flowledger.core.dmn import DecisionPolicyViolation, evaluate_decision, parse_dmn

from .models import table

# An input entry and the Python predicate it stands for.
Entry = tuple[str, Any]


def _entries() -> st.SearchStrategy[Entry]:
    n = st.integers(-20, 20)
    return st.one_of(
        st.just(("-", lambda x: True)),
        n.map(lambda a: (str(a), lambda x, a=a: x == a)),
        n.map(lambda a: (f"< {a}", lambda x, a=a: x < a)),
        n.map(lambda a: (f">= {a}", lambda x, a=a: x >= a)),
        st.tuples(n, n).map(lambda ab: _interval("[", *sorted(ab))),
        st.tuples(n, n).map(lambda ab: _interval("(", *sorted(ab))),
    )


def _interval(opening: str, lo: int, hi: int) -> Entry:
    if opening == "[":
        return f"[{lo}..{hi}]", lambda x: lo <= x <= hi
    return f"({lo}..{hi}]", lambda x: lo < x <= hi


POLICIES = [
    ("UNIQUE", None),
    ("FIRST", None),
    ("ANY", None),
    ("RULE ORDER", None),
    ("COLLECT", None),
    ("COLLECT", "SUM"),
    ("COLLECT", "MIN"),
    ("COLLECT", "MAX"),
    ("COLLECT", "COUNT"),
]


def _reference(
    policy: str, aggregation: str | None, outs: list[int]
) -> list[dict[str, int]] | None:
    """What the hit policy gives for the matched rules' outputs, in rule order (None: a
    violation)."""
    rows = [{"y": o} for o in outs]
    if policy == "UNIQUE":
        return None if len(rows) > 1 else rows
    if policy == "FIRST":
        return rows[:1]
    if policy == "ANY":
        return None if len(set(outs)) > 1 else rows[:1]
    if aggregation is None:
        return rows
    if aggregation == "COUNT":
        return [{"y": len(outs)}]
    if not outs:
        return []
    return [{"y": {"SUM": sum, "MIN": min, "MAX": max}[aggregation](outs)}]


@settings(max_examples=60, deadline=None)
@given(
    rules=st.lists(st.tuples(_entries(), st.integers(0, 3)), min_size=1, max_size=6),
    policy=st.sampled_from(POLICIES),
    x=st.integers(-25, 25),
)
def test_a_generated_table_follows_its_hit_policy(
    rules: list[tuple[Entry, int]], policy: tuple[str, str | None], x: int
) -> None:
    source = table(
        [("x", "integer")],
        [("y", "integer")],
        [(f"r{i}", [entry[0]], [str(out)]) for i, (entry, out) in enumerate(rules)],
        hit_policy=policy[0],
        aggregation=policy[1],
    )
    outs = [out for (_text, matches), out in rules if matches(x)]
    expected = _reference(*policy, outs)

    try:
        got = evaluate_decision(parse_dmn(source, "t.dmn"), "t", {"x": x}).result
    except DecisionPolicyViolation:
        got = None

    assert got == expected

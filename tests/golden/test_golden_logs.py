"""Golden logs: logs written by earlier engine versions (tests/golden/*.zip, see make.py) load
into a fresh database of the suite's kind, every hash intact, and come out as they did then:
the same final state of every instance and the same rows in every projected table.

What later versions add (a new state field, a new column) is not in the expected files and is
not compared; everything that was there must be there, equal.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
import sqlalchemy as sa

from flowledger import Engine
from flowledger.projections.tables import HISTORY_TABLES, REPOSITORY_TABLES, RUNTIME_TABLES

from .make import table_rows

HERE = Path(__file__).resolve().parent
GOLDEN = sorted(HERE.glob("*.zip"))
TABLES = {t.name: t for t in (*HISTORY_TABLES, *RUNTIME_TABLES, *REPOSITORY_TABLES)}


def test_there_is_a_golden_log() -> None:
    assert GOLDEN, "tests/golden holds no golden logs"


def within(expected: Any, actual: Any, where: str = "") -> list[str]:
    """Where `actual` differs from `expected`, ignoring what `actual` has beyond it."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: expected an object, found {actual!r}"]
        out = []
        for key, value in expected.items():
            if key not in actual:
                out.append(f"{where}.{key}: missing")
            else:
                out.extend(within(value, actual[key], f"{where}.{key}"))
        return out
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return [f"{where}: expected {len(expected)} items, found {actual!r}"]
        return [
            d
            for i, (e, a) in enumerate(zip(expected, actual, strict=True))
            for d in within(e, a, f"{where}[{i}]")
        ]
    return [] if expected == actual else [f"{where}: expected {expected!r}, found {actual!r}"]


@pytest.mark.parametrize("golden", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_a_golden_log_replays_to_the_same_states_and_tables(golden: Path, db_url: str) -> None:
    expected = json.loads(golden.with_name(f"{golden.stem}.expected.json").read_text())

    with Engine(db_url, history_level="full") as engine:
        engine.audit_service.import_package(golden)
        states = {
            stream: msgspec.to_builtins(engine.replay(stream)) for stream in expected["states"]
        }
        report = engine.verify()

    assert report.ok, report.problems
    differences = within(expected["states"], json.loads(msgspec.json.encode(states)), "states")
    assert not differences, differences[:20]
    sql = sa.create_engine(db_url)
    try:
        with sql.connect() as conn:
            for name, rows in expected["tables"].items():
                columns = set(rows[0]) if rows else set()
                found = [
                    {k: v for k, v in row.items() if k in columns}
                    for row in table_rows(conn, TABLES[name])
                ]
                key = lambda r: msgspec.json.encode(r, order="sorted")  # noqa: E731
                assert sorted(found, key=key) == sorted(rows, key=key), name
    finally:
        sql.dispose()

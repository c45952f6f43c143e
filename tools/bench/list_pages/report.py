"""The list-pages report: Markdown tables of the timings (the list pages, the cockpit's page
data), the slow pages and their plans.

Formatting only: no database, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .pages import PAGE_SIZE
from .timing import Timing


def report(
    timings: Sequence[Timing],
    target_ms: float,
    before: Mapping[str, Mapping[str, Any]] | None,
    notes: Sequence[str] = (),
) -> str:
    """The list pages' table, then the cockpit's (its `notes` above it), then what is slow."""
    lists = [t for t in timings if t.view is None]
    cockpit = [t for t in timings if t.view is not None]
    lines = _list_table(lists, target_ms, before) if lists else []
    if cockpit:
        if lines:
            lines.append("")
        lines += ["## cockpit page data", "", *(f"- {n}" for n in notes), ""]
        lines += _cockpit_table(cockpit, target_ms, before)
    served = [t for t in timings if t.served]
    slow = [t for t in served if t.median_ms > target_ms]
    lines.append("")
    lines.append(
        f"{len(served) - len(slow)} of {len(served)} requests under {target_ms:g} ms (median)"
        + ("" if not slow else "; over it (marked **):")
    )
    for t in slow:
        lines.append(f"  {t.key}: {t.median_ms:.1f} ms")
    missing = [t for t in timings if not t.served]
    if missing:
        lines.append(f"not served (no such route): {', '.join(t.key for t in missing)}")
    for t in timings:
        if t.plan:
            lines.append("")
            lines.append(f"plan of the slowest statement of {t.key} ({t.median_ms:.1f} ms):")
            lines.extend(f"    {line}" for line in t.plan)
    return "\n".join(lines)


def _before(t: Timing, before: Mapping[str, Mapping[str, Any]]) -> str:
    old = before.get(t.key)
    return f" {old['median_ms']:.1f} |" if old else " - |"


def _list_table(
    timings: Sequence[Timing], target_ms: float, before: Mapping[str, Mapping[str, Any]] | None
) -> list[str]:
    head = "| endpoint | query | page | rows | median ms | p95 ms | first call ms | db ms | stmts |"
    rule = "|---|---|---|---:|---:|---:|---:|---:|---:|"
    if before is not None:
        head += " before median ms |"
        rule += "---:|"
    lines = [head, rule]
    for t in timings:
        page = "count" if t.first is None else f"{t.first}+{PAGE_SIZE}"
        mark = " **" if t.median_ms > target_ms else ""
        row = (
            f"| {t.endpoint} | {t.label} | {page} | {t.rows:,} | {t.median_ms:.1f}{mark} | "
            f"{t.p95_ms:.1f} | {t.first_call_ms:.1f} | {t.db_ms:.1f} | {t.statements} |"
        )
        lines.append(row + (_before(t, before) if before is not None else ""))
    return lines


def _cockpit_table(
    timings: Sequence[Timing], target_ms: float, before: Mapping[str, Mapping[str, Any]] | None
) -> list[str]:
    head = (
        "| page | request | what | answered by | rows | median ms | p95 ms | first call ms "
        "| db ms | stmts |"
    )
    rule = "|---|---|---|---|---:|---:|---:|---:|---:|---:|"
    if before is not None:
        head += " before median ms |"
        rule += "---:|"
    lines = [head, rule]
    for t in timings:
        if not t.served:
            row = f"| {t.view} | {t.endpoint} | {t.label} | {t.shape} | | not served | | | | |"
        else:
            mark = " **" if t.median_ms > target_ms else ""
            row = (
                f"| {t.view} | {t.endpoint} | {t.label} | {t.shape} | {t.rows:,} | "
                f"{t.median_ms:.1f}{mark} | {t.p95_ms:.1f} | {t.first_call_ms:.1f} | "
                f"{t.db_ms:.1f} | {t.statements} |"
            )
        lines.append(row + (_before(t, before) if before is not None else ""))
    return lines

"""The list-pages report: one Markdown table of the timings, the slow pages and their plans.

Formatting only: no database, no clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .pages import PAGE_SIZE
from .timing import Timing


def report(
    timings: Sequence[Timing], target_ms: float, before: Mapping[str, Mapping[str, Any]] | None
) -> str:
    lines = []
    head = "| endpoint | query | page | rows | median ms | p95 ms | first call ms | db ms | stmts |"
    rule = "|---|---|---|---:|---:|---:|---:|---:|---:|"
    if before is not None:
        head += " before median ms |"
        rule += "---:|"
    lines += [head, rule]
    for t in timings:
        page = "count" if t.first is None else f"{t.first}+{PAGE_SIZE}"
        mark = " **" if t.median_ms > target_ms else ""
        row = (
            f"| {t.endpoint} | {t.label} | {page} | {t.rows:,} | {t.median_ms:.1f}{mark} | "
            f"{t.p95_ms:.1f} | {t.first_call_ms:.1f} | {t.db_ms:.1f} | {t.statements} |"
        )
        if before is not None:
            old = before.get(t.key)
            row += f" {old['median_ms']:.1f} |" if old else " - |"
        lines.append(row)
    slow = [t for t in timings if t.median_ms > target_ms]
    lines.append("")
    lines.append(
        f"{len(timings) - len(slow)} of {len(timings)} requests under {target_ms:g} ms (median)"
        + ("" if not slow else "; over it (marked **):")
    )
    for t in slow:
        lines.append(f"  {t.key}: {t.median_ms:.1f} ms")
    for t in timings:
        if t.plan:
            lines.append("")
            lines.append(f"plan of the slowest statement of {t.key} ({t.median_ms:.1f} ms):")
            lines.extend(f"    {line}" for line in t.plan)
    return "\n".join(lines)

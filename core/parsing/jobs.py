"""Element settings that make jobs: `camunda:asyncBefore` (alias `camunda:async`),
`camunda:asyncAfter`, `camunda:exclusive`, `camunda:jobPriority` and the
`camunda:failedJobRetryTimeCycle` extension element.

Pure: reports bad values on the context, naming the element and the value.
"""

from __future__ import annotations

from lxml import etree

from ..model import DEFAULT_JOB_SETTINGS, JobSettings
from ..timers import TimerError, parse_retry_cycle
from .context import BPMN, CAMUNDA_NAMESPACES, ParseContext, local, ns


def _flag(ctx: ParseContext, el: etree._Element, name: str, default: bool) -> bool:
    value = ctx.camunda(el, name)
    if value is None or not value.strip():
        return default
    text = value.strip().lower()
    if text not in ("true", "false"):
        ctx.problem(f"camunda:{name} must be true or false, not '{value}'", el)
        return default
    return text == "true"


def read_async(ctx: ParseContext, el: etree._Element) -> tuple[bool, bool]:
    """(async before, async after) of a flow node."""
    before = _flag(ctx, el, "asyncBefore", False) or _flag(ctx, el, "async", False)
    after = _flag(ctx, el, "asyncAfter", False)
    # A boundary event may be asynchronous as any flow node (Camunda's BpmnParse reads both on
    # it): the job runs once the event fired, on the token that leaves it.
    return before, after


def read_job_settings(ctx: ParseContext, el: etree._Element) -> JobSettings:
    exclusive = _flag(ctx, el, "exclusive", True)
    priority_text = ctx.camunda(el, "jobPriority")
    priority = ctx.expression(priority_text, el, "camunda:jobPriority")
    cycle_text: str | None = None
    cycle_expression = None
    for ext in el:
        if ns(ext) != BPMN or local(ext) != "extensionElements":
            continue
        for child in ext:
            if ns(child) in CAMUNDA_NAMESPACES and local(child) == "failedJobRetryTimeCycle":
                text = (child.text or "").strip()
                if "${" in text or "#{" in text:
                    cycle_expression = ctx.expression(text, child, "failedJobRetryTimeCycle")
                    continue
                try:
                    parse_retry_cycle(text)
                except TimerError as exc:
                    ctx.problem(str(exc), child)
                    continue
                cycle_text = text
    settings = JobSettings(exclusive, priority, cycle_text, cycle_expression)
    return DEFAULT_JOB_SETTINGS if settings == DEFAULT_JOB_SETTINGS else settings

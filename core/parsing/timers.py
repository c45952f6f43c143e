"""Timer event definitions (`timerEventDefinition`) of events and of timeout task listeners,
read as Camunda reads them.

Pure: reports a definition without exactly one value, or an expression that does not compile,
on the context; a literal that does not parse is a warning (it fails when the timer is made).
"""

from __future__ import annotations

from lxml import etree

from ..model import TimerEventDefinition
from ..timers import KINDS as TIMER_KINDS
from ..timers import TimerError, parse_timer
from .context import BPMN, ParseContext, local, ns


def read_timer(
    ctx: ParseContext,
    definition: etree._Element,
    owner: tuple[str | None, str] | None = None,
) -> TimerEventDefinition | None:
    """A timer's value as Camunda would read it: exactly one of timeDate, timeDuration and
    timeCycle, and a literal value (an expression is read when the timer starts). A literal
    that does not parse deploys, as in Camunda, with a warning naming the value; the timer
    fails when it is created (and a process's timer start event, created at deployment, is
    refused by the process's checks). `owner`: the element to name and how to name the timer's
    holder inside it, when that is not the event around the definition (a timeout task
    listener's timer is named by its user task)."""
    # Named by its event, the element a modeler clicks on, not by the definition inside it.
    event = definition.getparent()
    event_id = event.get("id") if event is not None else None
    definition_id = definition.get("id")
    of = f" (timerEventDefinition '{definition_id}')" if definition_id else ""
    if owner is not None:
        event_id, holder = owner
        of = f" ({holder}{of.replace(' (', ', ').rstrip(')')})"
    values = [c for c in definition if ns(c) == BPMN and local(c) in TIMER_KINDS]
    if len(values) != 1:
        ctx.problem(
            f"a timerEventDefinition{of} needs exactly one of timeDate, timeDuration and "
            f"timeCycle (found {len(values)})",
            definition,
            event_id,
        )
        return None
    kind, text = local(values[0]), (values[0].text or "").strip()
    if "${" in text or "#{" in text:
        expression = ctx.expression(text, values[0], f"the {kind}{of}", event_id)
        return None if expression is None else TimerEventDefinition(kind, text, None, expression)
    try:
        return TimerEventDefinition(kind, text, parse_timer(kind, text))
    except TimerError as exc:
        reason = f"{exc}{of}"
        ctx.warning(f"{reason}: the timer will fail when it is created", values[0], event_id)
        return TimerEventDefinition(kind, text, invalid=reason)

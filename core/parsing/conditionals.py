"""The conditional event definition: its `<condition>` expression and the camunda:variableName
and camunda:variableEvents that narrow which variable changes re-evaluate it.

Pure: a missing or broken condition and an unknown variable event are problems on the context,
named by the event that carries the definition.
"""

from __future__ import annotations

from lxml import etree

from ..model import ConditionalEventDefinition
from .context import BPMN, ParseContext, local, ns, split_list

# camunda:variableEvents may list these (Camunda's VariableListener event names).
VARIABLE_EVENTS = ("create", "update", "delete")


def read_conditional(
    ctx: ParseContext, definition: etree._Element
) -> ConditionalEventDefinition | None:
    """The definition as Camunda reads it (BpmnParse.parseConditionalEventDefinition); None
    when its condition is missing or does not compile (reported)."""
    event = definition.getparent()
    event_id = event.get("id") if event is not None else None
    conditions = [c for c in definition if ns(c) == BPMN and local(c) == "condition"]
    text = (conditions[0].text or "").strip() if conditions else ""
    if not text:
        ctx.problem(
            "a conditional event must contain a condition (<condition>${...}</condition>) "
            "to evaluate",
            definition,
            event_id,
        )
        return None
    language = (conditions[0].get("language") or "").strip().lower()
    if language and language != "juel":
        ctx.problem(
            f"a conditional event's condition in the script language '{language}' is not "
            "supported: use an expression (${...})",
            conditions[0],
            event_id,
        )
        return None
    expression = ctx.expression(text, conditions[0], "the condition", event_id)
    events = tuple(e.strip() for e in split_list(ctx.camunda(definition, "variableEvents") or ""))
    events = tuple(e for e in events if e)
    for name in events:
        if name not in VARIABLE_EVENTS:
            # Camunda only warns, and the event then never fires on a variable change: a typo
            # that silently disables the event is refused here instead.
            ctx.problem(
                f"variable event '{name}' of camunda:variableEvents is not valid: possible "
                f"variable change events are {', '.join(VARIABLE_EVENTS)}",
                definition,
                event_id,
            )
    if expression is None:
        return None
    variable_name = (ctx.camunda(definition, "variableName") or "").strip() or None
    return ConditionalEventDefinition(expression, variable_name, events)

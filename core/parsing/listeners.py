"""Execution and task listeners (`camunda:executionListener`, `camunda:taskListener`): the event
each listens to and what it runs, read as Camunda reads them.

Pure: reports what cannot run (an unknown event, no implementation or two, field injection, a
script language other than JUEL or Python, Python while scripts are off) on the context.
"""

from __future__ import annotations

from dataclasses import replace

from lxml import etree

from ..model import Listener
from .context import BPMN, CAMUNDA_NAMESPACES, ParseContext, local, ns
from .scripts import python_code
from .timers import read_timer

EXECUTION_EVENTS = ("start", "end")
TAKE_EVENTS = ("take",)
TASK_EVENTS = ("create", "assignment", "complete", "delete", "timeout")


def read_listeners(
    ctx: ParseContext,
    extensions: etree._Element | None,
    tag: str,
    events: tuple[str, ...],
    default_event: str | None = None,
) -> tuple[Listener, ...]:
    """The listeners of `tag` (executionListener or taskListener) among the extension
    elements, for `events` (an omitted event is `default_event`)."""
    if extensions is None:
        return ()
    found: list[Listener] = []
    for el in extensions:
        if ns(el) not in CAMUNDA_NAMESPACES or local(el) != tag:
            continue
        listener = _listener(ctx, el, tag, events, default_event)
        if listener is not None:
            found.append(listener)
    return tuple(found)


def extension_elements(el: etree._Element) -> etree._Element | None:
    for child in el:
        if isinstance(child.tag, str) and local(child) == "extensionElements":
            return child
    return None


def _listener(
    ctx: ParseContext,
    el: etree._Element,
    tag: str,
    events: tuple[str, ...],
    default_event: str | None,
) -> Listener | None:
    event = (el.get("event") or default_event or "").strip()
    if event not in events:
        ctx.problem(
            f"a camunda:{tag} here listens to one of {', '.join(events)}, not "
            f"'{event or '(no event)'}'",
            el,
        )
        return None
    if any(ns(c) in CAMUNDA_NAMESPACES and local(c) == "field" for c in el):
        ctx.problem(f"field injection (camunda:field) into a camunda:{tag} is not supported", el)
        return None
    scripts = [c for c in el if ns(c) in CAMUNDA_NAMESPACES and local(c) == "script"]
    chosen = [
        (kind, value)
        for kind, value in (
            ("expression", el.get("expression")),
            ("delegateExpression", el.get("delegateExpression")),
            ("class", el.get("class")),
        )
        if value
    ]
    if scripts:
        chosen.append(("script", ""))
    if len(chosen) != 1:
        ctx.problem(
            f"a camunda:{tag} needs exactly one of expression, delegateExpression, class or a "
            f"camunda:script (found {', '.join(k for k, _v in chosen) or 'none'})",
            el,
        )
        return None
    kind, value = chosen[0]
    listener: Listener | None
    if kind == "class":
        listener = Listener(event, "class", class_name=value.strip())
    elif kind == "script":
        listener = _script(ctx, scripts[0], event, tag)
    else:
        expression = ctx.expression(value, el, f"the {event} camunda:{tag}")
        listener = None if expression is None else Listener(event, kind, expression=expression)
    if listener is not None and event == "timeout":
        return _timeout(ctx, el, listener)
    return listener


def _timeout(ctx: ParseContext, el: etree._Element, listener: Listener) -> Listener | None:
    """A timeout task listener, as Camunda's BpmnParse.parseTimeoutTaskListener reads it: an
    `id` (its timer job names it) and a timerEventDefinition (duration, date or cycle)."""
    listener_id = (el.get("id") or "").strip()
    timers = [c for c in el if ns(c) == BPMN and local(c) == "timerEventDefinition"]
    if not listener_id:
        ctx.problem("a timeout camunda:taskListener needs an id", el, _task_id(el))
    if len(timers) != 1:
        ctx.problem(
            f"a timeout camunda:taskListener needs one timerEventDefinition (found {len(timers)})",
            el,
            _task_id(el),
        )
    if not listener_id or len(timers) != 1:
        return None
    timer = read_timer(ctx, timers[0], (_task_id(el), f"timeout listener '{listener_id}'"))
    if timer is None:
        return None
    return replace(listener, id=listener_id, timer=timer)


def _task_id(el: etree._Element) -> str | None:
    # taskListener -> extensionElements -> userTask
    extensions = el.getparent()
    task = extensions.getparent() if extensions is not None else None
    return task.get("id") if task is not None else None


def _script(ctx: ParseContext, el: etree._Element, event: str, tag: str) -> Listener | None:
    language = (el.get("scriptFormat") or "").strip().lower()
    text = el.text or ""
    if language == "juel":
        expression = ctx.expression(text, el, f"the script of the {event} camunda:{tag}")
        return None if expression is None else Listener(event, "script", expression=expression)
    if language == "python":
        if not ctx.allow_scripts:
            ctx.problem(
                f"the {event} camunda:{tag} is a python script: it runs only on an engine "
                "created with allow_scripts=True (scripts are off by default)",
                el,
            )
            return None
        code, result_code = python_code(ctx, text, el)
        return Listener(event, "script", code=code, result_code=result_code)
    ctx.problem(
        f"the {event} camunda:{tag} is a script in '{language or '(none)'}': only juel and "
        "python scripts run (python on an engine with allow_scripts=True)",
        el,
    )
    return None

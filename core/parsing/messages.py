"""The messages and signals of a document as events and receive tasks name them (`messageRef`,
`signalRef`).

Pure: reports a missing or nameless message or signal on the context.
"""

from __future__ import annotations

from collections.abc import Mapping

from lxml import etree

from ..expressions import Expression
from ..limits import MAX_MESSAGE_NAME
from ..model import MessageEventDefinition, SignalEventDefinition
from .context import ParseContext


def read_message(ctx: ParseContext, el: etree._Element) -> MessageEventDefinition | None:
    """The message `el` (a messageEventDefinition or a receive task) names by `messageRef`: a
    <message> of the document with a name, which may be an expression (Camunda resolves it when
    the event subscribes)."""
    found = _named(ctx, el, "message", ctx.messages)
    return None if found is None else MessageEventDefinition(*found)


def read_signal(ctx: ParseContext, el: etree._Element) -> SignalEventDefinition | None:
    """The signal a signalEventDefinition names by `signalRef` (a <signal> of the document)."""
    found = _named(ctx, el, "signal", ctx.signals)
    return None if found is None else SignalEventDefinition(*found)


def _named(
    ctx: ParseContext, el: etree._Element, what: str, declared: Mapping[str, str]
) -> tuple[str, Expression | None] | None:
    """The name (and its expression, if it is one) of the <message> or <signal> `el` refers to."""
    attribute = f"{what}Ref"
    ref = (el.get(attribute) or "").strip()
    if not ref:
        ctx.problem(f"a {what} event needs a {attribute} naming a <{what}> of the document", el)
        return None
    # A QName (`tns:newInvoice`) names the element of its namespace: the document's own.
    name = declared.get(ref, declared.get(ref.rpartition(":")[2]))
    if name is None:
        ctx.problem(f"{attribute} '{ref}' names no <{what}> of the document", el)
        return None
    if not name:
        ctx.problem(f"the {what} '{ref}' has no name", el)
        return None
    if "${" in name or "#{" in name:
        expression = ctx.expression(name, el, f"the name of {what} '{ref}'")
        return None if expression is None else (name, expression)
    if len(name) > MAX_MESSAGE_NAME:
        ctx.problem(
            f"the name of {what} '{ref}' has {len(name)} characters; at most "
            f"{MAX_MESSAGE_NAME} fit a subscription",
            el,
        )
        return None
    return name, None

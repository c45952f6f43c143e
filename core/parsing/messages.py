"""The messages of a document as events and receive tasks name them (`messageRef`).

Pure: reports a missing or nameless message on the context.
"""

from __future__ import annotations

from lxml import etree

from ..limits import MAX_MESSAGE_NAME
from ..model import MessageEventDefinition
from .context import ParseContext


def read_message(ctx: ParseContext, el: etree._Element) -> MessageEventDefinition | None:
    """The message `el` (a messageEventDefinition or a receive task) names by `messageRef`: a
    <message> of the document with a name, which may be an expression (Camunda resolves it when
    the event subscribes)."""
    ref = (el.get("messageRef") or "").strip()
    if not ref:
        ctx.problem("a message event needs a messageRef naming a <message> of the document", el)
        return None
    # A QName (`tns:newInvoice`) names the message of its namespace: the document's own.
    name = ctx.messages.get(ref, ctx.messages.get(ref.rpartition(":")[2]))
    if name is None:
        ctx.problem(f"messageRef '{ref}' names no <message> of the document", el)
        return None
    if not name:
        ctx.problem(f"the message '{ref}' has no name", el)
        return None
    if "${" in name or "#{" in name:
        expression = ctx.expression(name, el, f"the name of message '{ref}'")
        return None if expression is None else MessageEventDefinition(name, expression)
    if len(name) > MAX_MESSAGE_NAME:
        ctx.problem(
            f"the name of message '{ref}' has {len(name)} characters; at most "
            f"{MAX_MESSAGE_NAME} fit a subscription",
            el,
        )
        return None
    return MessageEventDefinition(name)

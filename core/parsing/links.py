"""Link events: a link throw event continues the flow at the link catch event of the same name.

As Camunda's parser does, a link throw is no activity: every sequence flow into it is read as a
flow into its catch event, so a token passes from the flow before the throw straight into the
catch (nothing is recorded for the throw; the catch is an activity that leaves at once). Pure:
reports problems on the context, naming the element.
"""

from __future__ import annotations

from lxml import etree

from .. import element_kinds as kinds
from ..model import EventDefinition, LinkEventDefinition
from .context import BPMN, ParseContext, local, ns

Nodes = dict[str, tuple[etree._Element, str]]


def read_definition(ctx: ParseContext, el: etree._Element) -> EventDefinition:
    """A link catch event's linkEventDefinition: its name (checked with the throws)."""
    return LinkEventDefinition((el.get("name") or "").strip())


def _link_name(el: etree._Element) -> str | None:
    """The name of the event's linkEventDefinition; None: it carries no link."""
    for child in el:
        if ns(child) == BPMN and local(child) == kinds.LINK:
            return (child.get("name") or "").strip()
    return None


def resolve_links(
    ctx: ParseContext,
    nodes: Nodes,
    flows: Nodes,
    refused: set[str],
) -> dict[str, str]:
    """Where each link throw event continues: throw id -> its catch event's id. The throws leave
    `nodes` (they are no activities); a throw that cannot be resolved is reported and refused.

    Camunda's rules: a link name is caught by one catch event in the process; a throw's catch
    is in the same scope (a sequence flow cannot leave its subprocess); a throw has no
    outgoing flows (its path continues at the catch)."""
    catches: dict[str, str] = {}
    throws: dict[str, str] = {}
    for node_id, (el, _scope) in nodes.items():
        name = _link_name(el)
        if name is None:
            continue
        if local(el) == kinds.THROW_EVENT_TAG:
            throws[node_id] = name
        elif local(el) != kinds.CATCH_EVENT_TAG:
            continue  # reported by the event parser: links are intermediate events only
        elif not name:
            ctx.problem("a link catch event needs the name of its link", el, node_id)
        elif name in catches:
            ctx.problem(
                f"link catch events '{catches[name]}' and '{node_id}' both catch the link "
                f"'{name}': a link name has one catch event in a process",
                el,
                node_id,
            )
        else:
            catches[name] = node_id
    sources = {el.get("sourceRef") for el, _scope in flows.values()}
    resolved: dict[str, str] = {}
    for throw_id, name in throws.items():
        el, scope_id = nodes.pop(throw_id)
        refused.add(throw_id)
        catch_id = catches.get(name)
        if not name:
            ctx.problem("a link throw event needs the name of its link", el, throw_id)
        elif catch_id is None:
            ctx.problem(
                f"link throw event '{throw_id}' continues at the link '{name}', but no link "
                "catch event of that name exists",
                el,
                throw_id,
            )
        elif nodes[catch_id][1] != scope_id:
            ctx.problem(
                f"link throw event '{throw_id}' and its catch event '{catch_id}' are in "
                "different scopes: a link cannot leave or enter a subprocess",
                el,
                throw_id,
            )
        elif throw_id in sources:
            ctx.problem(
                f"link throw event '{throw_id}' cannot have outgoing sequence flows: its path "
                f"continues at '{catch_id}'",
                el,
                throw_id,
            )
        else:
            resolved[throw_id] = catch_id
    return resolved

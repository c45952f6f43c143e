"""`camunda:inputOutput`: input and output parameters, each a text, expression, list, map or
script value, read as Camunda reads them.

Pure: reports what cannot run (a script language other than JUEL or Python, Python while scripts
are off, a parameter without a name) on the context.
"""

from __future__ import annotations

from lxml import etree

from .. import element_kinds as kinds
from ..model import InputOutput, MappedValue, Parameter
from .context import CAMUNDA_NAMESPACES, ParseContext, local, ns
from .scripts import python_code

# Where Camunda refuses a mapping (BpmnParse: "camunda:inputOutput mapping unsupported for
# element type ...").
UNSUPPORTED_ON = (kinds.START_EVENT_TAG, kinds.BOUNDARY_EVENT_TAG)


def _camunda_children(el: etree._Element, name: str) -> list[etree._Element]:
    return [c for c in el if ns(c) in CAMUNDA_NAMESPACES and local(c) == name]


def read_input_output(
    ctx: ParseContext, extensions: etree._Element, node: etree._Element
) -> InputOutput | None:
    """The activity's `camunda:inputOutput`, if its extension elements hold one."""
    found = _camunda_children(extensions, "inputOutput")
    if not found:
        return None
    if local(node) in UNSUPPORTED_ON or (
        local(node) == kinds.SUB_PROCESS.tag and (node.get("triggeredByEvent") or "") == "true"
    ):
        ctx.problem(
            f"camunda:inputOutput mapping is not supported on a {local(node)}"
            + (" that is an event subprocess" if local(node) == kinds.SUB_PROCESS.tag else ""),
            found[0],
        )
        return None
    mapping = found[0]
    inputs = tuple(parameters(ctx, mapping, "inputParameter"))
    outputs = tuple(parameters(ctx, mapping, "outputParameter"))
    return InputOutput(inputs, outputs)


def parameters(ctx: ParseContext, mapping: etree._Element, tag: str) -> list[Parameter]:
    parameters: list[Parameter] = []
    for el in _camunda_children(mapping, tag):
        name = (el.get("name") or "").strip()
        if not name:
            ctx.problem(f"a camunda:{tag} needs a name", el)
            continue
        parameters.append(Parameter(name, _value(ctx, el, f"{tag} '{name}'")))
    return parameters


def _value(ctx: ParseContext, el: etree._Element, what: str) -> MappedValue:
    """The value a parameter or a map entry holds: its text, or its one nested list, map,
    script or value (Camunda's BpmnParseUtil refuses a second one)."""
    nested = _elements(el)
    if len(nested) > 1:
        ctx.problem(
            f"the {what} holds {len(nested)} elements: a parameter or map entry holds at most "
            "one (a camunda:list or camunda:map holds many)",
            el,
        )
        return MappedValue("null")
    if not nested:
        return _text(ctx, el, what)
    return _nested(ctx, nested[0], what)


def _nested(ctx: ParseContext, child: etree._Element, what: str) -> MappedValue:
    """A list, map, script or value element, at any depth: a list's items are such elements
    themselves, a map entry holds one (or text)."""
    kind = local(child)
    if kind == "list":
        items = tuple(
            _nested(ctx, item, f"{what} (list item {number})")
            for number, item in enumerate(_elements(child), 1)
        )
        return MappedValue("list", items=items)
    if kind == "map":
        entries: list[tuple[str, MappedValue]] = []
        for entry in _camunda_children(child, "entry"):
            key = entry.get("key")
            if not key:
                ctx.problem(f"a map entry of the {what} needs a key", entry)
                continue
            entries.append((key, _value(ctx, entry, f"{what} (entry '{key}')")))
        # Camunda keeps a map in a TreeMap: its entries sorted by key, a repeated key's last
        # value winning. Sorted here once, so that every evaluation records the same order.
        return MappedValue("map", entries=tuple(sorted(dict(entries).items())))
    if kind == "script":
        return _script(ctx, child, what)
    if kind == "value":
        return _text(ctx, child, what)
    ctx.problem(f"camunda:{kind} is not a value of the {what}", child)
    return MappedValue("null")


def _text(ctx: ParseContext, el: etree._Element, what: str) -> MappedValue:
    """A text value, trimmed as Camunda trims it: an expression, a constant, or null."""
    text = (el.text or "").strip()
    if not text:
        return MappedValue("null")
    if "${" in text or "#{" in text:
        expression = ctx.expression(text, el, f"the {what}")
        return MappedValue("expression", text=text, expression=expression)
    return MappedValue("text", text=text)


def _elements(el: etree._Element) -> list[etree._Element]:
    """The camunda elements inside `el` (a list's items: value, list, map or script)."""
    return [c for c in el if isinstance(c.tag, str) and ns(c) in CAMUNDA_NAMESPACES]


def _script(ctx: ParseContext, el: etree._Element, what: str) -> MappedValue:
    language = (el.get("scriptFormat") or "").strip().lower()
    text = el.text or ""
    if el.get("resource") or ctx.camunda(el, "resource"):
        ctx.problem(f"the script of the {what} is loaded from a resource: not supported", el)
        return MappedValue("null")
    if language == "juel":
        expression = ctx.expression(text, el, f"the script of the {what}")
        return MappedValue("expression", text=text, expression=expression)
    if language == "python":
        if not ctx.allow_scripts:
            ctx.problem(
                f"the {what} is a python script: it runs only on an engine created with "
                "allow_scripts=True (scripts are off by default)",
                el,
            )
            return MappedValue("null")
        code, result_code = python_code(ctx, text, el)
        return MappedValue("script", code=code, result_code=result_code)
    ctx.problem(
        f"the {what} is a script in '{language or '(none)'}': only juel and python scripts run "
        "(python on an engine with allow_scripts=True)",
        el,
    )
    return MappedValue("null")

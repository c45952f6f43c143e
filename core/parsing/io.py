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
    """The value `el` holds: its one nested list, map or script, else its text."""
    nested = [c for c in el if isinstance(c.tag, str) and ns(c) in CAMUNDA_NAMESPACES]
    if not nested:
        text = el.text or ""
        if not text.strip():
            return MappedValue("null")
        if "${" in text or "#{" in text:
            expression = ctx.expression(text, el, f"the {what}")
            return MappedValue("expression", text=text, expression=expression)
        return MappedValue("text", text=text)
    child = nested[0]
    kind = local(child)
    if kind == "list":
        items = tuple(_value(ctx, item, f"{what} (list item)") for item in _elements(child))
        return MappedValue("list", items=items)
    if kind == "map":
        entries: list[tuple[str, MappedValue]] = []
        for entry in _camunda_children(child, "entry"):
            key = entry.get("key")
            if key is None:
                ctx.problem(f"a map entry of the {what} needs a key", entry)
                continue
            entries.append((key, _value(ctx, entry, f"{what} (entry '{key}')")))
        return MappedValue("map", entries=tuple(entries))
    if kind == "script":
        return _script(ctx, child, what)
    ctx.problem(f"camunda:{kind} is not a value of the {what}", child)
    return MappedValue("null")


def _elements(el: etree._Element) -> list[etree._Element]:
    """A list's items: camunda:value, list, map or script elements."""
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

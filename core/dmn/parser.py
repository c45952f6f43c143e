"""DMN 1.1 to 1.3 XML (as Camunda Modeler writes it, with `camunda:` attributes) into a
`DecisionRequirements`. Hardened as the BPMN parser is (`parsing.xml`); every problem names the
resource, the decision, the element and the line, all reported at once, and nothing of a refused
resource is deployed. Expressions are compiled here once to refuse a syntax error at deploy:
FEEL by default (Camunda 7.13 and later), JUEL where `expressionLanguage` says so: on the
expression itself, else on `definitions` (Camunda's global expression language).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from lxml import etree

from ..errors import ModelError, ModelProblem
from ..expressions import ExpressionSyntaxError, compile_expression
from ..feel import FeelSyntaxError, parse_expression, parse_unary_tests
from ..parsing.context import line, local, ns
from ..parsing.xml import read_document, refuse
from .model import (
    AGGREGATIONS,
    HIT_POLICIES,
    TYPE_REFS,
    Decision,
    DecisionInput,
    DecisionOutput,
    DecisionRequirements,
    DecisionRule,
    DecisionTable,
    LiteralExpression,
)

DMN_NAMESPACES = (
    "http://www.omg.org/spec/DMN/20151101/dmn.xsd",  # DMN 1.1
    "http://www.omg.org/spec/DMN/20151101/dmn11.xsd",  # DMN 1.1 as early Camunda docs wrote it
    "http://www.omg.org/spec/DMN/20180521/MODEL/",  # DMN 1.2
    "https://www.omg.org/spec/DMN/20191111/MODEL/",  # DMN 1.3
    "http://www.omg.org/spec/DMN/20191111/MODEL/",
)
CAMUNDA_DMN = "http://camunda.org/schema/1.0/dmn"
FEEL_LANGUAGES = frozenset(
    {
        "feel",
        "feel-scala",
        "feel-scala-unary-tests",
        "http://www.omg.org/spec/feel/20140401",
        "https://www.omg.org/spec/dmn/20191111/feel/",
        "http://www.omg.org/spec/dmn/20180521/feel/",
    }
)
JUEL_LANGUAGES = frozenset({"juel", "javascript-juel"})
_TTL_DAYS = re.compile(r"P(\d+)D")


class _Parse:
    def __init__(self, resource: str, default_language: str | None = None) -> None:
        self.resource = resource
        self.problems: list[ModelProblem] = []
        # `definitions`' expressionLanguage unless it is FEEL (Camunda's
        # DmnExpressionTransformHelper): the language of every expression that names none
        self.default_language = default_language

    def language(self, el: etree._Element | None) -> str | None:
        """The expression language of `el`: its own, else the resource's default."""
        own = el.get("expressionLanguage") if el is not None else None
        return own if own is not None else self.default_language

    def problem(self, message: str, element_id: str | None, el: etree._Element | None) -> None:
        self.problems.append(ModelProblem(message, self.resource, element_id, line(el)))


def parse_dmn(source: bytes, resource_name: str) -> DecisionRequirements:
    """Parse one DMN resource; raises ModelError listing every problem found."""
    root = read_document(source, resource_name, "DMN")
    if ns(root) not in DMN_NAMESPACES or local(root) != "definitions":
        raise refuse(
            "not a DMN 1.1, 1.2 or 1.3 document: the root element must be DMN's definitions, "
            f"found {root.tag}",
            resource_name,
            line(root),
        )
    language = root.get("expressionLanguage")
    if language is not None and language.strip().lower() in FEEL_LANGUAGES:
        language = None
    parse = _Parse(resource_name, language)
    decisions: list[Decision] = []
    seen: set[str] = set()
    for el in _children(root, "decision"):
        decision = _decision(parse, el)
        if decision is None:
            continue
        if decision.id in seen:
            parse.problem("a decision id is used twice", decision.id, el)
        seen.add(decision.id)
        decisions.append(decision)
    if not decisions and not parse.problems:
        parse.problem("the resource holds no decision", None, root)
    _check_requirements(parse, decisions)
    requirements = DecisionRequirements(
        id=root.get("id") or "",
        name=root.get("name"),
        namespace=root.get("namespace"),
        resource=resource_name,
        decisions=tuple(decisions),
    )
    _check_columns(parse, requirements, line(root))
    if parse.problems:
        raise ModelError(parse.problems)
    return requirements


# What the repository and history columns hold (ACT_RE_DECISION_DEF, ACT_HI_DEC_IN/OUT): a
# longer text is refused at deploy, on every database alike, instead of failing (PostgreSQL,
# MariaDB) or being kept whole (SQLite) when an evaluation is recorded.
_KEY, _ID, _TAG = 255, 64, 64


def _check_columns(
    parse: _Parse, requirements: DecisionRequirements, root_line: int | None
) -> None:
    def fits(what: str, value: str | None, limit: int, element: str | None, at: int | None) -> None:
        if value is not None and len(value) > limit:
            parse.problems.append(
                ModelProblem(
                    f"{what} may hold at most {limit} characters: '{value[:32]}…' has {len(value)}",
                    parse.resource,
                    element,
                    at,
                )
            )

    fits("the definitions' id", requirements.id, _KEY, None, root_line)
    fits("the definitions' name", requirements.name, _KEY, None, root_line)
    fits("the definitions' namespace", requirements.namespace, _KEY, None, root_line)
    for d in requirements.decisions:
        fits("a decision id", d.id, _KEY, d.id[:_ID], d.line)
        fits("a decision name", d.name, _KEY, d.id, d.line)
        fits("camunda:versionTag", d.version_tag, _TAG, d.id, d.line)
        logic = d.logic
        if isinstance(logic, LiteralExpression):
            fits("the variable name", logic.variable_name, _KEY, d.id, d.line)
            continue
        for clause in logic.inputs:
            fits("an input id", clause.id, _ID, d.id, clause.line)
            fits(f"the label of input '{clause.id}'", clause.label, _KEY, d.id, clause.line)
        for out in logic.outputs:
            fits("an output id", out.id, _ID, d.id, out.line)
            fits(f"the label of output '{out.id}'", out.label, _KEY, d.id, out.line)
            fits(f"the name of output '{out.id}'", out.name, _KEY, d.id, out.line)
        for rule in logic.rules:
            fits("a rule id", rule.id, _ID, d.id, rule.line)


def _children(el: etree._Element, name: str) -> Iterator[etree._Element]:
    dmn = ns(el)
    return (c for c in el if ns(c) == dmn and local(c) == name)


def _child(el: etree._Element, name: str) -> etree._Element | None:
    return next(_children(el, name), None)


def _text(el: etree._Element | None) -> str:
    text = _child(el, "text") if el is not None else None
    return (text.text or "").strip() if text is not None else ""


def _camunda(el: etree._Element, name: str) -> str | None:
    return el.get(f"{{{CAMUNDA_DMN}}}{name}")


def _decision(parse: _Parse, el: etree._Element) -> Decision | None:
    decision_id = el.get("id") or ""
    if not decision_id:
        parse.problem("a decision has no id", None, el)
        return None
    table_el = _child(el, "decisionTable")
    literal_el = _child(el, "literalExpression")
    logic: DecisionTable | LiteralExpression | None
    if table_el is not None:
        logic = _table(parse, decision_id, table_el)
    elif literal_el is not None:
        logic = _literal(parse, decision_id, el, literal_el)
    else:
        parse.problem(
            "the decision has neither a decision table nor a literal expression", decision_id, el
        )
        return None
    required = []
    for requirement in _children(el, "informationRequirement"):
        needed = _child(requirement, "requiredDecision")
        if needed is not None:
            required.append((needed.get("href") or "").lstrip("#"))
    return (
        None
        if logic is None
        else Decision(
            id=decision_id,
            name=el.get("name"),
            logic=logic,
            required=tuple(required),
            version_tag=_camunda(el, "versionTag"),
            history_time_to_live=_ttl(parse, decision_id, el),
            line=line(el),
        )
    )


def _ttl(parse: _Parse, decision_id: str, el: etree._Element) -> int | None:
    raw = (_camunda(el, "historyTimeToLive") or "").strip()
    if not raw:
        return None
    if raw.isdigit():
        return int(raw)
    days = _TTL_DAYS.fullmatch(raw)
    if days:
        return int(days.group(1))
    parse.problem(
        f"camunda:historyTimeToLive {raw!r}: expected a number of days or P<n>D", decision_id, el
    )
    return None


def _type_ref(parse: _Parse, decision_id: str, el: etree._Element | None) -> str | None:
    if el is None:
        return None
    type_ref = el.get("typeRef")
    if type_ref is None:
        return None
    # DMN 1.1 models may prefix the type with a namespace (`feel:string`)
    name = type_ref.split(":", 1)[1] if ":" in type_ref else type_ref
    if name not in TYPE_REFS:
        parse.problem(
            f"unknown typeRef {type_ref!r} (expected one of {', '.join(sorted(TYPE_REFS))})",
            decision_id,
            el,
        )
    return name


def _table(parse: _Parse, decision_id: str, el: etree._Element) -> DecisionTable | None:
    policy = " ".join((el.get("hitPolicy") or "UNIQUE").split()).upper()
    if policy not in HIT_POLICIES:
        parse.problem(
            f"unknown hit policy {el.get('hitPolicy')!r} (expected one of "
            f"{', '.join(HIT_POLICIES)})",
            decision_id,
            el,
        )
    aggregation = el.get("aggregation")
    if aggregation is not None:
        aggregation = aggregation.strip().upper()
        if policy != "COLLECT":
            parse.problem(
                f"aggregation {aggregation} applies to the COLLECT hit policy only, not {policy}",
                decision_id,
                el,
            )
        elif aggregation not in AGGREGATIONS:
            parse.problem(
                f"unknown aggregation {aggregation!r} (expected one of {', '.join(AGGREGATIONS)})",
                decision_id,
                el,
            )
    inputs = tuple(_input(parse, decision_id, i) for i in _children(el, "input"))
    outputs = tuple(_output(parse, decision_id, o) for o in _children(el, "output"))
    if not outputs:
        parse.problem("the decision table has no output", decision_id, el)
    if len(outputs) > 1:
        for output in outputs:
            if not output.name:
                parse.problem(
                    f"output '{output.id}' has no name: a table with several outputs names each",
                    decision_id,
                    el,
                )
    # An aggregation over several outputs deploys, as in Camunda: it fails (a policy
    # violation) only when a rule matches.
    rules = tuple(_rule(parse, decision_id, r, inputs, outputs) for r in _children(el, "rule"))
    return DecisionTable(
        id=el.get("id"),
        hit_policy=policy,
        aggregation=aggregation,
        inputs=inputs,
        outputs=outputs,
        rules=rules,
    )


def _input(parse: _Parse, decision_id: str, el: etree._Element) -> DecisionInput:
    expression_el = _child(el, "inputExpression")
    text = _text(expression_el)
    language = parse.language(expression_el)
    input_id = el.get("id") or ""
    if expression_el is None:
        parse.problem(f"input '{input_id}' has no input expression", decision_id, el)
    else:
        _check(
            parse,
            decision_id,
            expression_el,
            f"input expression of '{input_id}'",
            text,
            language,
            False,
        )
    return DecisionInput(
        id=input_id,
        label=el.get("label"),
        expression=text,
        expression_language=language,
        type_ref=_type_ref(parse, decision_id, expression_el),
        input_variable=_camunda(el, "inputVariable") or "cellInput",
        line=line(el),
    )


def _output(parse: _Parse, decision_id: str, el: etree._Element) -> DecisionOutput:
    values_el = _child(el, "outputValues")
    values: tuple[str, ...] = ()
    if values_el is not None:
        values = tuple(_split_values(_text(values_el)))
    return DecisionOutput(
        id=el.get("id") or "",
        label=el.get("label"),
        name=el.get("name"),
        type_ref=_type_ref(parse, decision_id, el),
        values=values,
        line=line(el),
    )


def _split_values(text: str) -> list[str]:
    """The items of an `outputValues` list ("high","medium","low"), commas in quotes kept."""
    items, current, quoted, escaped = [], "", False, False
    for ch in text:
        if escaped:
            current, escaped = current + ch, False
            continue
        if ch == "\\" and quoted:
            current, escaped = current + ch, True
            continue
        if ch == '"':
            quoted = not quoted
        if ch == "," and not quoted:
            items.append(current.strip())
            current = ""
            continue
        current += ch
    if current.strip():
        items.append(current.strip())
    return [i for i in items if i]


def _rule(
    parse: _Parse,
    decision_id: str,
    el: etree._Element,
    inputs: tuple[DecisionInput, ...],
    outputs: tuple[DecisionOutput, ...],
) -> DecisionRule:
    rule_id = el.get("id") or ""
    entries = list(_children(el, "inputEntry"))
    results = list(_children(el, "outputEntry"))
    where = f"rule '{rule_id}'"
    if len(entries) != len(inputs):
        parse.problem(
            f"{where} has {len(entries)} input entries for {len(inputs)} inputs", decision_id, el
        )
    if len(results) != len(outputs):
        parse.problem(
            f"{where} has {len(results)} output entries for {len(outputs)} outputs",
            decision_id,
            el,
        )
    for i, entry in enumerate(entries):
        _check(
            parse,
            decision_id,
            entry,
            f"{where}, input entry {i + 1}",
            _text(entry),
            parse.language(entry),
            True,
        )
    for i, entry in enumerate(results):
        _check(
            parse,
            decision_id,
            entry,
            f"{where}, output entry {i + 1}",
            _text(entry),
            parse.language(entry),
            False,
        )
    description = _child(el, "description")
    return DecisionRule(
        id=rule_id,
        input_entries=tuple(_text(e) for e in entries),
        output_entries=tuple(_text(e) for e in results),
        description=(description.text or "").strip() or None if description is not None else None,
        line=line(el),
        input_languages=tuple(parse.language(e) for e in entries),
        output_languages=tuple(parse.language(e) for e in results),
    )


def _literal(
    parse: _Parse, decision_id: str, decision_el: etree._Element, el: etree._Element
) -> LiteralExpression | None:
    variable = _child(decision_el, "variable")
    text = _text(el)
    language = parse.language(el)
    _check(parse, decision_id, el, "literal expression", text, language, False)
    return LiteralExpression(
        text=text,
        expression_language=language,
        variable_name=(variable.get("name") if variable is not None else None) or decision_id,
        type_ref=_type_ref(parse, decision_id, variable),
    )


def _check(
    parse: _Parse,
    decision_id: str,
    el: etree._Element,
    what: str,
    text: str,
    language: str | None,
    unary: bool,
) -> None:
    """Compile an expression to refuse a syntax error at deploy (an empty one is allowed)."""
    if not text:
        return
    kind = (language or "feel").strip().lower()
    compile_: Callable[[str], object]
    if kind in JUEL_LANGUAGES:
        try:
            compile_expression(text)
        except ExpressionSyntaxError as exc:
            parse.problem(f"{what}: {exc}", decision_id, el)
        return
    if kind not in FEEL_LANGUAGES:
        parse.problem(
            f"{what}: expression language {language!r} is not supported (FEEL or JUEL)",
            decision_id,
            el,
        )
        return
    compile_ = parse_unary_tests if unary else parse_expression
    try:
        compile_(text)
    except FeelSyntaxError as exc:
        parse.problem(f"{what}: {exc}", decision_id, el)


def _check_requirements(parse: _Parse, decisions: list[Decision]) -> None:
    """Every required decision exists in the resource, and the requirements have no cycle."""
    by_id = {d.id: d for d in decisions}
    for decision in decisions:
        for needed in decision.required:
            if needed not in by_id:
                parse.problem(
                    f"requires decision '{needed}', which the resource does not hold",
                    decision.id,
                    None,
                )
    # Depth first without recursion (a long chain of requirements must not exhaust the stack).
    done: set[str] = set()
    for start in decisions:
        if start.id in done:
            continue
        path: list[str] = [start.id]
        on_path = {start.id}
        stack = [iter(start.required)]
        while stack:
            following = next(stack[-1], None)
            if following is None:
                stack.pop()
                finished = path.pop()
                on_path.discard(finished)
                done.add(finished)
                continue
            if following not in by_id or following in done:
                continue
            if following in on_path:
                cycle = " -> ".join([*path[path.index(following) :], following])
                parse.problem(f"the decision requirements form a cycle: {cycle}", following, None)
                continue
            path.append(following)
            on_path.add(following)
            stack.append(iter(by_id[following].required))

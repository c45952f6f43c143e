"""A deployed DMN resource as immutable values: its decision requirements graph (DRG), each
decision's table or literal expression, and the texts of every expression as written (compiled
where they are evaluated)."""

from __future__ import annotations

import msgspec

HIT_POLICIES = (
    "UNIQUE",
    "FIRST",
    "PRIORITY",
    "ANY",
    "COLLECT",
    "RULE ORDER",
    "OUTPUT ORDER",
)
AGGREGATIONS = ("SUM", "MIN", "MAX", "COUNT")
# Camunda 7's DMN data types (`typeRef`), and FEEL's names for the same where a modeler writes
# them; a typeRef outside these is refused at deploy.
TYPE_REFS = frozenset(
    {
        "string",
        "boolean",
        "integer",
        "long",
        "double",
        "date",
        "number",
        "time",
        "dateTime",
        "dayTimeDuration",
        "yearMonthDuration",
        "Any",
    }
)


class DecisionInput(msgspec.Struct, frozen=True):
    """An input clause: its expression (evaluated once per evaluation) and what it is called."""

    id: str
    label: str | None
    expression: str
    expression_language: str | None
    type_ref: str | None
    input_variable: str = "cellInput"  # camunda:inputVariable: the input's name in its entries
    line: int | None = None


class DecisionOutput(msgspec.Struct, frozen=True):
    """An output clause; `values` (its `outputValues`, in order) rank rules for PRIORITY and
    OUTPUT ORDER."""

    id: str
    label: str | None
    name: str | None
    type_ref: str | None
    values: tuple[str, ...] = ()
    line: int | None = None


class DecisionRule(msgspec.Struct, frozen=True):
    """A rule: one unary-tests text per input, one expression text per output."""

    id: str
    input_entries: tuple[str, ...]
    output_entries: tuple[str, ...]
    description: str | None = None
    line: int | None = None
    # each entry's own `expressionLanguage` (None: FEEL, Camunda's default for entries)
    input_languages: tuple[str | None, ...] = ()
    output_languages: tuple[str | None, ...] = ()


class DecisionTable(msgspec.Struct, frozen=True):
    id: str | None
    hit_policy: str  # one of HIT_POLICIES
    aggregation: str | None  # one of AGGREGATIONS, with COLLECT only
    inputs: tuple[DecisionInput, ...]
    outputs: tuple[DecisionOutput, ...]
    rules: tuple[DecisionRule, ...]


class LiteralExpression(msgspec.Struct, frozen=True):
    """A decision whose logic is one expression; its result is the variable `variable_name`."""

    text: str
    expression_language: str | None
    variable_name: str
    type_ref: str | None


class Decision(msgspec.Struct, frozen=True):
    """One decision of a DRG. `required`: the ids of the decisions it needs (evaluated first,
    their results fed in as variables)."""

    id: str
    name: str | None
    logic: DecisionTable | LiteralExpression
    required: tuple[str, ...] = ()
    version_tag: str | None = None
    history_time_to_live: int | None = None  # days
    line: int | None = None


class DecisionRequirements(msgspec.Struct, frozen=True):
    """A DMN resource: its `definitions` (the decision requirements definition) and decisions."""

    id: str
    name: str | None
    namespace: str | None
    resource: str
    decisions: tuple[Decision, ...]

    def decision(self, decision_id: str) -> Decision | None:
        return next((d for d in self.decisions if d.id == decision_id), None)

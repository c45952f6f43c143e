"""What the history searches share. They are one module per Camunda query, behind engine-rest's
`/history/*` resources: process and activity instances (`history_instances`), task instances
(`history_tasks`), variable instances and details (`history_variables`). Each filters by a
Struct with the field names of Camunda's query DTO; filters on things this engine does not
record (cases, tenants) match nothing when set, as on a Camunda database without them.

Shared here: the table aliases they read, filters on query fields (not in a list, since, until,
tenant), variable conditions on ACT_HI_VARINST / ACT_HI_DETAIL (type in VAR_TYPE_) and GET's
`name_op_value` form of them, Camunda's variable type names, uncorrelated subqueries.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec
from sqlalchemy import Select, Table, and_, or_, select

from flowledger.core.variables import SERIALIZERS
from flowledger.projections.tables import (
    ACT_GE_BYTEARRAY,
    ACT_HI_PROCINST,
    ACT_HI_VARINST,
    ACT_RE_PROCDEF,
)

from .filters import Condition, InvalidQuery, Spec, camel, stored_moment
from .variables import OPERATORS, VariableComparison, name_matches, value_matches

P = ACT_HI_PROCINST
DEFINITION = ACT_RE_PROCDEF
V = ACT_HI_VARINST
B = ACT_GE_BYTEARRAY


class VariableQueryDto(VariableComparison):
    """Camunda's VariableQueryParameterDto: `{name, operator, value}` (GET: `name_op_value`)."""


# -- filter building blocks of the history queries alone -----------------------------------------


def not_member(q: msgspec.Struct, spec: Spec) -> Iterator[Condition]:
    for attr, column in spec:
        values = getattr(q, attr)
        if values:
            yield or_(column.is_(None), column.not_in(list(values)))


def since(q: msgspec.Struct, spec: Spec) -> Iterator[Condition]:
    for attr, column in spec:
        value = getattr(q, attr)
        if value is not None:
            yield column >= stored_moment(value, camel(attr))


def until(q: msgspec.Struct, spec: Spec) -> Iterator[Condition]:
    for attr, column in spec:
        value = getattr(q, attr)
        if value is not None:
            yield column <= stored_moment(value, camel(attr))


def tenant(q: Any, column: Any) -> Iterator[Condition]:
    if q.tenant_id_in:
        yield column.in_(list(q.tenant_id_in))
    if q.without_tenant_id is True:
        yield column.is_(None)


# -- variable value conditions: projections.search.variables, on VAR_TYPE_ --------------------


def variable_condition(
    v: Table,
    condition: VariableComparison,
    *,
    names_ignore_case: bool = False,
    values_ignore_case: bool = False,
    operators: Sequence[str] = OPERATORS,
) -> Condition:
    """The rows of the variable table `v` that satisfy one `{name, operator, value}`."""
    if (condition.operator or "eq") not in operators:
        raise InvalidQuery(f"Invalid variable comparator specified: {condition.operator}")
    return and_(
        value_matches(v, condition, values_ignore_case, type_column="VAR_TYPE_"),
        name_matches(v, condition.name or "", names_ignore_case),
    )


def parse_variable_conditions(text: str, parameter: str) -> list[VariableQueryDto]:
    """GET's `name_operator_value,name2_operator_value2`. The operator is the first `_op_` in
    an expression, so a name or value may contain `_` (Camunda refuses those); values stay
    strings."""
    out = []
    for expression in (e for e in text.split(",") if e):
        match = re.match(rf"^(.+?)_({'|'.join(OPERATORS)})_(.*)$", expression, re.DOTALL)
        if match is None:
            raise InvalidQuery(
                f"Cannot set query parameter '{parameter}': '{expression}' does not have the "
                "format KEY_OPERATOR_VALUE with OPERATOR one of " + ", ".join(OPERATORS)
            )
        out.append(VariableQueryDto(match[1], match[2], match[3]))
    return out


def variable_types(names: Sequence[str]) -> list[str]:
    """Camunda's type names (`String`, `integer`, `Object`) as stored serializer names."""
    return [SERIALIZERS.get(n[:1].upper() + n[1:], n.lower()) for n in names]


# -- subqueries ---------------------------------------------------------------------------------


def uncorrelated(column: Any, *conditions: Condition) -> Select[Any]:
    """An IN subquery that stands alone: never correlated with a table of the outer query
    (the process instance list joins ACT_RE_PROCDEF, which its name filter also reads)."""
    return select(column).where(*conditions).correlate(None)

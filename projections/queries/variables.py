"""Variable value conditions as Camunda's `Commons.variableValueConditions` builds them, over any
variable table: ACT_RU_VARIABLE (type in TYPE_) or ACT_HI_VARINST / ACT_HI_DETAIL (type in
VAR_TYPE_), named by `type_column`.

A string matches String variables by TEXT_, a number Short/Integer/Long variables by LONG_ and
Double ones by DOUBLE_ (every numeric type it converts to without loss), a boolean Boolean
variables, a string in the REST date format Date variables, null a variable without value;
`neq`/`notLike` negate the match whole, so the named variable must exist either way.

(The task query compares as Camunda's Task.xml does, differently: see `tasks`.)
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from sqlalchemy import ColumnElement, FromClause, and_, func, not_, or_
from sqlalchemy.engine import RowMapping

from flowledger.core.variables import EMPTY_STRING_MARKER, StoredValue, stored_from_columns

from .filters import LIKE_ESCAPE, Condition, InvalidQuery

OPERATORS = ("eq", "neq", "gt", "gteq", "lt", "lteq", "like", "notLike")
_OPERATOR_WORDS = {
    "gt": "greater than",
    "gteq": "greater than or equal",
    "lt": "less than",
    "lteq": "less than or equal",
    "like": "like",
    "notLike": "not like",
}
# Column-to-value comparisons per operator; `neq` and `notLike` negate `eq` and `like` whole.
_COMPARE: dict[str, Callable[[Any, Any], Condition]] = {
    "eq": operator.eq,
    "neq": operator.eq,
    "gt": operator.gt,
    "gteq": operator.ge,
    "lt": operator.lt,
    "lteq": operator.le,
    "like": lambda column, pattern: column.like(pattern, escape=LIKE_ESCAPE),
    "notLike": lambda column, pattern: column.like(pattern, escape=LIKE_ESCAPE),
}
_LONG_TYPES = {"short": 2**15, "integer": 2**31, "long": 2**63}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Camunda turns a string value that reads as a REST date into a Date before comparing.
_REST_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{4}$")


class VariableComparison(msgspec.Struct):
    """Camunda's VariableQueryParameterDto: `{name, operator, value}`. Each search module
    names its own subclass (the name its OpenAPI schema carries)."""

    name: str | None = None
    operator: str | None = None
    value: Any = None


def checked_operator(condition: VariableComparison) -> str:
    """The condition's operator (`eq` when none), refused where Camunda refuses it."""
    op = condition.operator or "eq"
    if op not in OPERATORS:
        raise InvalidQuery(f"Invalid variable comparator specified: {op}")
    if not condition.name:
        raise InvalidQuery("A variable filter needs a variable name")
    value = condition.value
    if op in _OPERATOR_WORDS and (value is None or isinstance(value, bool)):
        raise InvalidQuery(
            f"Booleans and null cannot be used in '{_OPERATOR_WORDS[op]}' condition "
            f"(variable '{condition.name}')"
        )
    if op in ("like", "notLike") and not isinstance(value, str):
        raise InvalidQuery(
            f"Only string values can be used with '{_OPERATOR_WORDS[op]}' condition "
            f"(variable '{condition.name}')"
        )
    if not isinstance(value, str | int | float | bool | None):
        raise InvalidQuery(
            f"Variable '{condition.name}': only string, number, boolean and null values can "
            "be compared"
        )
    return op


def _resolved(value: Any) -> Any:
    """A string in the REST date format is a Date, as Camunda's DateConverter makes it."""
    if isinstance(value, str) and _REST_DATE.match(value):
        try:
            return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%f%z")
        except ValueError:  # shaped like a date but not one (month 13): compared as text
            return value
    return value


def _text_matches(
    v: FromClause, kind: ColumnElement[Any], op: str, text: str, ignore_case: bool
) -> Condition:
    # An empty string is stored as TEXT_ null plus a marker in TEXT2_ (Camunda's Oracle quirk).
    column: ColumnElement[Any] = v.c.TEXT2_ if text == "" else v.c.TEXT_
    compared = EMPTY_STRING_MARKER if text == "" else text
    if ignore_case:
        column, compared = func.lower(column), compared.lower()
    return and_(kind == "string", column.is_not(None), _COMPARE[op](column, compared))


def _number_matches(
    v: FromClause, kind: ColumnElement[Any], op: str, number: int | float
) -> Condition:
    # Camunda's NumberValue query: every numeric type the number converts to without loss.
    options = [and_(kind == "double", _COMPARE[op](v.c.DOUBLE_, float(number)))]
    if float(number).is_integer():
        whole = int(number)
        types = [t for t, bound in _LONG_TYPES.items() if -bound <= whole < bound]
        if types:
            options.append(and_(kind.in_(types), _COMPARE[op](v.c.LONG_, whole)))
    return or_(*options)


def _no_value(v: FromClause) -> Condition:
    return and_(
        v.c.TEXT_.is_(None),
        v.c.TEXT2_.is_(None),
        v.c.LONG_.is_(None),
        v.c.DOUBLE_.is_(None),
        v.c.BYTEARRAY_ID_.is_(None),
    )


def value_matches(
    v: FromClause, condition: VariableComparison, ignore_case: bool, *, type_column: str
) -> Condition:
    """The rows of variable table `v` whose value satisfies `condition` (its name aside)."""
    op = checked_operator(condition)
    value = _resolved(condition.value)
    kind: ColumnElement[Any] = v.c[type_column]
    matched: Condition
    if value is None:
        matched = _no_value(v)
    elif isinstance(value, bool):
        matched = and_(kind == "boolean", v.c.LONG_ == int(value))
    elif isinstance(value, int | float):
        matched = _number_matches(v, kind, op, value)
    elif isinstance(value, datetime):
        millis = (value - _EPOCH) // timedelta(milliseconds=1)
        matched = and_(kind == "date", _COMPARE[op](v.c.LONG_, millis))
    else:
        matched = _text_matches(v, kind, op, value, ignore_case)
    return not_(matched) if op in ("neq", "notLike") else matched


def name_matches(v: FromClause, name: str, ignore_case: bool) -> Condition:
    if ignore_case:
        return func.lower(v.c.NAME_) == name.lower()
    return v.c.NAME_ == name


def stored_value(m: RowMapping, type_column: str) -> StoredValue:
    """The value of a variable row joined with its byte array's BYTES_."""
    data = m["BYTES_"]
    return stored_from_columns(
        m[type_column],
        text=m["TEXT_"],
        text2=m["TEXT2_"],
        long=m["LONG_"],
        double=m["DOUBLE_"],
        data=None if data is None else bytes(data),
    )

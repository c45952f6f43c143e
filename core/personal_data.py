"""Personal data: which variable values of an instance are personal, whose they are (the data
subject), and how such a value looks in the log once sealed, and once its key is destroyed.

Pure: no I/O and no cryptography. The engine seals and opens values (`engine/personal_data/`);
this module only decides and names the shapes, so evolve and the projectors can tell them apart.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from .state import InstanceState
from .variables import StoredValue, from_stored

# <camunda:property name="personalData" value="email, phone*"/> among the process's properties.
PROPERTY = "personalData"
# <camunda:property name="personalDataSubject" value="customerId"/>: whose the data is, when it is
# not the business key.
SUBJECT_PROPERTY = "personalDataSubject"
# valueInfo {"personalData": true} on a variable set through the API marks that value personal.
FLAG = "personalData"
# A sealed value: its type, and the info entry naming the key it is sealed with.
SEALED = "sealed"
KEY = "key"
ERASED = "erased"
MAX_PATTERNS = 100
MAX_SUBJECT = 255  # characters: the key table's subject column

_PATTERN = re.compile(r"[A-Za-z0-9_.$*?\[\]-]+")


@dataclass(frozen=True)
class PersonalData:
    """A process's personal variables (names or glob patterns) and where its subject comes from."""

    patterns: tuple[str, ...]
    subject_variable: str | None = None

    def covers(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.patterns)


def parse_patterns(text: str) -> tuple[str, ...] | str:
    """The patterns of a personalData property, or a message saying what is wrong with it."""
    patterns = tuple(p.strip() for p in text.split(",") if p.strip())
    if not patterns:
        return "names no variable"
    if len(patterns) > MAX_PATTERNS:
        return f"names more than {MAX_PATTERNS} patterns"
    for pattern in patterns:
        if not _PATTERN.fullmatch(pattern):
            return f"pattern {pattern!r} is not a variable name or a glob (*, ?, [..])"
    return patterns


def flagged(value: StoredValue) -> bool:
    """Marked personal through the API (valueInfo personalData=true)."""
    return value.info is not None and value.info.get(FLAG) == "true"


def is_sealed(value: StoredValue) -> bool:
    return value.type == SEALED


def is_erased(value: StoredValue) -> bool:
    return value.info is not None and value.info.get(ERASED) == "true"


def sealed_value(key_id: str, ciphertext: str) -> StoredValue:
    """What the log holds of a personal value: base64 ciphertext and the id of its key."""
    return StoredValue(SEALED, ciphertext, {KEY: key_id})


def sealing_key(value: StoredValue) -> str:
    assert value.info is not None
    return value.info[KEY]


def erased_value() -> StoredValue:
    """A personal value whose key was destroyed: null, and saying why."""
    return StoredValue("null", None, {ERASED: "true"})


def personal(spec: PersonalData | None, name: str, value: StoredValue) -> bool:
    """Whether `value` of variable `name` is sealed before it is written to the log."""
    if value.value is None or is_sealed(value):
        return False
    return flagged(value) or (spec is not None and spec.covers(name))


def subject_of(state: InstanceState, spec: PersonalData | None) -> str:
    """The data subject of an instance's personal values: the subject variable's value when the
    model names one and it is set, else the business key, else the process instance id (so an
    instance started without a business key is erased by its id)."""
    if spec is not None and spec.subject_variable is not None:
        # the root scope's variable first: a local one of that name is some other thing's
        candidates = sorted(
            (v for v in state.variables.values() if v.name == spec.subject_variable),
            key=lambda v: v.execution_id != state.id,
        )
        for variable in candidates:
            if variable.value.value is not None and not is_sealed(variable.value):
                return str(from_stored(variable.value))[:MAX_SUBJECT]
    if state.business_key:
        return state.business_key[:MAX_SUBJECT]
    return state.id

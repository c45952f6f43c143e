"""Regular expressions of FEEL's `matches`, `replace` and `split` (XPath's flavour and flags)
on Google's RE2, whose matching time grows linearly with the input whatever the pattern: no
pattern from a model or a variable can backtrack for minutes (`^(a|a)*$` on a long text).

Pure: no I/O. It must not fall back to Python's backtracking `re` for a pattern RE2 lacks:
such a pattern (a backreference, a lookaround, ...) is refused with an error naming the
construct, at parse when the pattern is a literal and at evaluation otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final, Protocol, cast

import re2  # type: ignore[import-untyped]  # the binding ships no type information

from flowledger.core.budget import current_budget

from .errors import FeelEvaluationError
from .values import MAX_LIST_LENGTH, MAX_STRING_LENGTH

__all__ = [
    "MAX_PATTERN_LENGTH",
    "REGEX_FUNCTIONS",
    "Regex",
    "compile_regex",
    "literal_pattern_problem",
    "parse_replacement",
    "replace_all",
    "split_all",
]

MAX_PATTERN_LENGTH: Final = 1_000
# RE2's memory for one pattern (program and matching caches); the binding keeps the last 128
# patterns compiled, so this bounds what a stream of distinct patterns can hold (128 x 8 MiB).
_MAX_MEMORY: Final = 8 << 20
# The function -> the index of its pattern argument and the name of that parameter.
REGEX_FUNCTIONS: Final = {"matches": (1, "pattern"), "replace": (1, "pattern"),
                          "split": (1, "delimiter")}  # fmt: skip
_XPATH_FLAGS: Final = frozenset("smixq")
_WHITESPACE: Final = frozenset(" \t\n\r")
# RE2's error for a construct it does not have -> how FEEL's error names it.
_UNSUPPORTED_OPERATORS: Final = (
    ("(?=", "a lookahead (?=...)"),
    ("(?!", "a negative lookahead (?!...)"),
    ("(?<=", "a lookbehind (?<=...)"),
    ("(?<!", "a negative lookbehind (?<!...)"),
    ("(?>", "an atomic group (?>...)"),
    ("(?(", "a conditional group (?(...)...)"),
)


class Match(Protocol):
    """What is read of one match of the binding's compiled pattern."""

    def span(self) -> tuple[int, int]: ...

    def group(self, index: int) -> str | None: ...


class Regex(Protocol):
    """What is used of the binding's compiled pattern."""

    @property
    def groups(self) -> int: ...

    def search(self, text: str) -> Match | None: ...

    def finditer(self, text: str) -> Iterator[Match]: ...


class _Unsupported(Exception):
    def __init__(self, construct: str, advice: str) -> None:
        super().__init__(construct)
        self.construct = construct
        self.advice = advice


def _refusal(function: str, problem: _Unsupported) -> str:
    return (
        f"FEEL {function}(): the pattern uses {problem.construct}, which the linear-time "
        f"regular-expression engine does not support ({problem.advice})"
    )


def _too_long(function: str) -> str:
    return (
        f"FEEL {function}(): regular expression longer than {MAX_PATTERN_LENGTH:,} "
        "characters refused; shorten the pattern"
    )


def _backreference(pattern: str) -> str | None:
    """The first backreference (`\\1`, `\\k<name>`, `(?P=name)`) in ``pattern``, as written.
    RE2 would read `\\12` as an octal character, so this is found before RE2 sees it."""
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            following = pattern[index + 1]
            if following in "123456789":
                end = index + 2
                while end < len(pattern) and pattern[end].isdigit():
                    end += 1
                return pattern[index:end]
            if following == "k" and pattern[index + 2 : index + 3] in ("<", "{", "'"):
                closing = {"<": ">", "{": "}", "'": "'"}[pattern[index + 2]]
                end = pattern.find(closing, index + 3)
                return pattern[index : end + 1] if end > 0 else pattern[index : index + 3]
            index += 2
            continue
        if pattern.startswith("(?P=", index):
            end = pattern.find(")", index)
            return pattern[index : end + 1 if end > 0 else index + 4]
        index += 1
    return None


def _classify(message: str) -> _Unsupported | None:
    """The construct RE2 refused, when it is one RE2 lacks (not merely a malformed pattern)."""
    for operator, name in _UNSUPPORTED_OPERATORS:
        if message.startswith(f"invalid perl operator: {operator}"):
            return _Unsupported(name, "rewrite the pattern without it")
    if message.startswith("bad repetition operator: ") and message.endswith("+"):
        shown = message.removeprefix("bad repetition operator: ")
        return _Unsupported(f"a possessive quantifier {shown}", "use the plain quantifier")
    if message.startswith("invalid repetition size: "):
        shown = message.removeprefix("invalid repetition size: ")
        return _Unsupported(
            f"the repetition {shown}",
            "counts go up to 1,000, those of nested repetitions multiplied: use smaller "
            "counts, or + / * instead of a count",
        )
    if message.startswith("pattern too large"):
        return _Unsupported(
            "more states than the engine's memory allows (nested counted repetitions)",
            "use smaller counts, or + / * instead of a count",
        )
    return None


def _without_whitespace(pattern: str) -> str:
    """XPath's `x` flag: whitespace outside character classes is dropped (an escaped one is
    kept, as Python's verbose mode kept it before)."""
    kept: list[str] = []
    in_class = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            kept.append(pattern[index : index + 2])
            index += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        if in_class or char not in _WHITESPACE:
            kept.append(char)
        index += 1
    return "".join(kept)


def _compile(function: str, pattern: str, flags: str) -> Regex | None:
    """RE2's program for the pattern; None when the pattern is malformed (FEEL's null, as
    Camunda answers); `_Unsupported` when it uses what RE2 lacks."""
    options = re2.Options()
    options.log_errors = False  # a malformed pattern from a model must not write to stderr
    options.max_mem = _MAX_MEMORY
    literal = "q" in flags
    if "i" in flags:
        options.case_sensitive = False
    if literal:
        options.literal = True
    else:
        backreference = _backreference(pattern)
        if backreference is not None:
            raise _Unsupported(
                f"a backreference {backreference}",
                "match the repeated text without referring back to a group",
            )
        if "x" in flags:
            pattern = _without_whitespace(pattern)
        if "s" in flags:
            options.dot_nl = True
        if "m" in flags:
            pattern = "(?m)" + pattern
    try:
        return cast(Regex, re2.compile(pattern, options))
    except re2.error as error:
        reason = error.args[0] if error.args else b""
        message = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        problem = _classify(message)
        if problem is not None:
            raise problem from None
        return None


def compile_regex(function: str, pattern: object, flags: object) -> Regex | None:
    """The pattern of `function` (`matches`, `replace`, `split`) compiled; None when it is not
    usable (not text, malformed, unknown flag), as FEEL's null. A pattern longer than
    MAX_PATTERN_LENGTH, or using what the linear-time engine lacks, raises
    FeelEvaluationError naming it."""
    if not isinstance(pattern, str) or not (flags is None or isinstance(flags, str)):
        return None
    if len(pattern) > MAX_PATTERN_LENGTH:
        raise FeelEvaluationError(_too_long(function))
    flags = flags or ""
    if not set(flags) <= _XPATH_FLAGS:
        return None
    try:
        return _compile(function, pattern, flags)
    except _Unsupported as problem:
        raise FeelEvaluationError(_refusal(function, problem)) from None


def literal_pattern_problem(function: str, pattern: str, flags: str | None) -> str | None:
    """Why a pattern written as a literal in the expression will be refused at every
    evaluation (so a deployment refuses it at once); None when it is usable or merely
    malformed (FEEL's null, as Camunda answers)."""
    try:
        compile_regex(function, pattern, flags)
    except FeelEvaluationError as error:
        return error.reason
    return None


# -- replace -------------------------------------------------------------------------------------

# A replacement is literal text and group numbers: ("a", 1, "-") for "a$1-".
Replacement = tuple[str | int, ...]


def parse_replacement(text: str, groups: int, literal: bool) -> Replacement | None:
    """XPath's replacement text: `$n` is group n, `\\$` and `\\\\` are `$` and `\\`; None when
    it is malformed. With the `q` flag it is taken as it is. `$12` with fewer than 12 groups is
    group 1 then "2", as XPath reads it."""
    if literal:
        return (text,)
    parts: list[str | int] = []
    plain: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\":
            following = text[index + 1 : index + 2]
            if following not in ("\\", "$"):
                return None
            plain.append(following)
            index += 2
        elif char == "$":
            end = index + 1
            while end < len(text) and text[end].isdigit():
                end += 1
            if end == index + 1:
                return None
            # The longest run of digits that names an existing group (at least one digit).
            while end > index + 2 and int(text[index + 1 : end]) > groups:
                end -= 1
            if plain:
                parts.append("".join(plain))
                plain = []
            parts.append(int(text[index + 1 : end]))
            index = end
        else:
            plain.append(char)
            index += 1
    if plain:
        parts.append("".join(plain))
    return tuple(parts)


def _size_error(function: str) -> FeelEvaluationError:
    return FeelEvaluationError(
        f"FEEL {function}(): string result longer than {MAX_STRING_LENGTH:,} characters refused"
    )


def _all_matches(regex: Regex, text: str, function: str) -> Iterator[tuple[int, int, Match]]:
    """Every match, left to right, as Python's `re` finds them: an empty match right where
    the previous empty one was is not found again (the binding's finditer repeats it).

    Each match is a step of the command's budget, and the deadline is looked at for each: one
    search is linear in the text, but finding every match of a pattern such as `a(a*b)?` can
    scan the rest of the text at each of them."""
    budget = current_budget()
    what = f"FEEL {function}()"
    previous = (-1, -1)
    for match in regex.finditer(text):
        span = match.span()
        if span[0] == span[1] and span == previous:
            continue
        previous = span
        if budget is not None:
            budget.spend(1, what)
            budget.check_time(what)
        yield span[0], span[1], match


def replace_all(regex: Regex, text: str, replacement: Replacement) -> str | None:
    """Every match replaced; the result's size is counted as it is built, so a replacement
    that multiplies the text is refused before it is made. None when the replacement names a
    group the pattern lacks."""
    if any(isinstance(part, int) and part > regex.groups for part in replacement):
        return None
    pieces: list[str] = []
    size = 0
    end = 0
    for start, stop, match in _all_matches(regex, text, "replace"):
        pieces.append(text[end:start])
        size += start - end
        for part in replacement:
            piece = part if isinstance(part, str) else (match.group(part) or "")
            pieces.append(piece)
            size += len(piece)
        if size > MAX_STRING_LENGTH:
            raise _size_error("replace")
        end = stop
    pieces.append(text[end:])
    size += len(text) - end
    if size > MAX_STRING_LENGTH:
        raise _size_error("replace")
    return "".join(pieces)


def split_all(regex: Regex, text: str) -> list[object]:
    """The parts between the matches (and the groups each match captured, as before); more
    than MAX_LIST_LENGTH parts are refused as they are counted."""
    parts: list[object] = []
    end = 0
    for start, stop, match in _all_matches(regex, text, "split"):
        parts.append(text[end:start])
        parts.extend(match.group(g) for g in range(1, regex.groups + 1))
        if len(parts) > MAX_LIST_LENGTH:
            raise FeelEvaluationError(
                f"FEEL split(): list longer than {MAX_LIST_LENGTH:,} elements refused"
            )
        end = stop
    parts.append(text[end:])
    return parts

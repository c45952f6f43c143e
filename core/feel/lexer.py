"""Tokenizer for FEEL text (DMN 1.3 §10.3.1 lexical rules, as feel-scala reads them).

Pure: no I/O. Names are single words here; the parser joins words into the
multi-word names of built-in functions and parameters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Final

from .errors import FeelSyntaxError

__all__ = ["MAX_TEXT_LENGTH", "Token", "scan"]

MAX_TEXT_LENGTH: Final = 10_000

_NUMBER: Final = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?")
_NAME: Final = re.compile(r"[^\W\d]\w*")
_SPACE: Final = re.compile(r"\s+")
_OPERATORS: Final = ("**", "..", "<=", ">=", "!=", "+", "-", "*", "/", "=", "<", ">", "(", ")",
                     "[", "]", "{", "}", ",", ".", ":", "?")  # fmt: skip
_ESCAPES: Final = {'"': '"', "'": "'", "\\": "\\", "n": "\n", "r": "\r", "t": "\t"}


@dataclass(frozen=True, slots=True)
class Token:
    """One lexeme. ``kind`` is 'number', 'string', 'temporal', 'name', 'eof' or the operator."""

    kind: str
    text: str
    position: int
    value: object = None
    # A backtick-quoted name is never a keyword.
    quoted: bool = False


def scan(text: str) -> list[Token]:
    """Split ``text`` into tokens, ending with an 'eof' token; FeelSyntaxError if malformed."""
    if len(text) > MAX_TEXT_LENGTH:
        raise FeelSyntaxError(text, 0, f"text longer than {MAX_TEXT_LENGTH:,} characters refused")
    tokens: list[Token] = []
    index = 0
    while index < len(text):
        space = _SPACE.match(text, index)
        if space:
            index = space.end()
            continue
        if text.startswith("//", index):
            end = text.find("\n", index)
            index = len(text) if end < 0 else end
            continue
        if text.startswith("/*", index):
            end = text.find("*/", index + 2)
            if end < 0:
                raise FeelSyntaxError(text, index, "unterminated comment")
            index = end + 2
            continue
        char = text[index]
        number = _NUMBER.match(text, index)
        if number and not text.startswith("..", index):
            tokens.append(Token("number", number.group(), index, Decimal(number.group())))
            index = number.end()
        elif char == '"':
            value, end = _string(text, index)
            tokens.append(Token("string", text[index:end], index, value))
            index = end
        elif char == "@" and text.startswith('"', index + 1):
            value, end = _string(text, index + 1)
            tokens.append(Token("temporal", text[index:end], index, value))
            index = end
        elif char == "`":
            end = text.find("`", index + 1)
            if end < 0:
                raise FeelSyntaxError(text, index, "expected closing '`'")
            tokens.append(Token("name", text[index + 1 : end], index, quoted=True))
            index = end + 1
        elif (name := _NAME.match(text, index)) is not None:
            tokens.append(Token("name", name.group(), index))
            index = name.end()
        else:
            operator = next((op for op in _OPERATORS if text.startswith(op, index)), None)
            if operator is None:
                raise FeelSyntaxError(text, index, f"unexpected character {char!r}")
            tokens.append(Token(operator, operator, index))
            index += len(operator)
    tokens.append(Token("eof", "", len(text)))
    return tokens


def _string(text: str, start: int) -> tuple[str, int]:
    """Read the string literal opening at ``start``; returns its value and the end offset."""
    parts: list[str] = []
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == '"':
            return "".join(parts), index + 1
        if char == "\\":
            escape = text[index + 1 : index + 2]
            if escape in _ESCAPES:
                parts.append(_ESCAPES[escape])
                index += 2
                continue
            if escape == "u":
                digits = text[index + 2 : index + 6]
                if len(digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in digits):
                    parts.append(chr(int(digits, 16)))
                    index += 6
                    continue
            if escape == "":
                break
            # Other escapes stay as written, so regex patterns keep "\d", "\s", "\.".
            parts.append(char + escape)
            index += 2
            continue
        parts.append(char)
        index += 1
    raise FeelSyntaxError(text, start, "expected closing '\"' of string")

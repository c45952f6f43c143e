"""Tokenizer for the body of one ``${...}`` / ``#{...}`` expression (EL 2.2 lexical rules).

Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from .coercion import Long
from .errors import ExpressionSyntaxError

__all__ = ["Token", "scan_expression"]

_NUMBER: Final = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?")
# Java identifiers: letters (any script), digits, '_' and '$'; not starting with a digit.
_IDENTIFIER: Final = re.compile(r"(?:[^\W\d]|\$)(?:\w|\$)*")
_IDENTIFIER_CHAR: Final = re.compile(r"[\w$]")

# Word operators map to the token kind of their symbolic twin, so the parser sees one form.
_KEYWORDS: Final = {
    "and": "&&",
    "or": "||",
    "not": "!",
    "eq": "==",
    "ne": "!=",
    "lt": "<",
    "gt": ">",
    "le": "<=",
    "ge": ">=",
    "div": "/",
    "mod": "%",
    "empty": "empty",
    "instanceof": "instanceof",
}
_LITERAL_WORDS: Final[dict[str, object]] = {"true": True, "false": False, "null": None}

_TWO_CHAR_OPERATORS: Final = frozenset({"==", "!=", "<=", ">=", "&&", "||"})
_ONE_CHAR_OPERATORS: Final = frozenset("+-*/%()[].,?:<>!")

# Constructs of EL 3.0 (or plain mistakes) that deserve a precise message instead of
# "unexpected character".
_UNSUPPORTED: Final = {
    "->": "lambda expressions (EL 3.0) are not supported",
    "+=": "the string concatenation operator '+=' (EL 3.0) is not supported; "
    "use composite text such as '${a}${b}'",
    "=": "assignment '=' is not supported (use '==' to compare)",
    ";": "the ';' operator (EL 3.0) is not supported",
    "&": "unexpected character '&' (use '&&' or 'and')",
    "|": "unexpected character '|' (use '||' or 'or')",
}


@dataclass(frozen=True, slots=True)
class Token:
    """One lexeme. ``kind`` is 'literal', 'ident', 'eof' or the operator/keyword itself."""

    kind: str
    pos: int
    end: int
    text: str
    value: object = None
    # True for identifier-shaped lexemes (identifiers and keywords): valid after '.'.
    word: bool = False


def _scan_string(text: str, start: int) -> tuple[str, int]:
    quote = text[start]
    chars: list[str] = []
    i = start + 1
    length = len(text)
    while i < length:
        char = text[i]
        if char == quote:
            return "".join(chars), i + 1
        if char == "\\" and i + 1 < length and text[i + 1] in "\\'\"":
            chars.append(text[i + 1])
            i += 2
            continue
        chars.append(char)
        i += 1
    raise ExpressionSyntaxError(text, start, "unterminated string literal")


def _scan_number(text: str, start: int) -> tuple[Token, int]:
    match = _NUMBER.match(text, start)
    assert match is not None  # the caller saw a digit, or '.' followed by a digit
    end = match.end()
    if end < len(text) and _IDENTIFIER_CHAR.match(text, end):
        raise ExpressionSyntaxError(text, start, "malformed number literal")
    lexeme = match.group()
    value: object
    if any(c in lexeme for c in ".eE"):
        value = float(lexeme)
    else:
        try:
            value = Long(lexeme)
        except ValueError:  # beyond Python's int-from-str digit limit
            raise ExpressionSyntaxError(text, start, "integer literal is too long") from None
    return Token("literal", start, end, lexeme, value), end


def scan_expression(text: str, open_pos: int) -> tuple[list[Token], int]:
    """Tokenize the expression whose ``${``/``#{`` starts at ``open_pos``.

    Returns the tokens (ending with an 'eof' token placed at the closing brace) and the index of
    that closing brace. Braces inside string literals do not count; nested ``{`` ``}`` pairs are
    tracked only so that the parser can reject them with a precise position.
    """
    tokens: list[Token] = []
    depth = 0
    i = open_pos + 2
    length = len(text)
    while i < length:
        char = text[i]
        if char.isspace():
            i += 1
            continue
        if char == "}":
            if depth == 0:
                tokens.append(Token("eof", i, i, "}"))
                return tokens, i
            depth -= 1
            tokens.append(Token("}", i, i + 1, "}"))
            i += 1
        elif char == "{":
            depth += 1
            tokens.append(Token("{", i, i + 1, "{"))
            i += 1
        elif char in "'\"":
            value, end = _scan_string(text, i)
            tokens.append(Token("literal", i, end, text[i:end], value))
            i = end
        elif "0" <= char <= "9" or (char == "." and "0" <= text[i + 1 : i + 2] <= "9"):
            token, i = _scan_number(text, i)
            tokens.append(token)
        elif (match := _IDENTIFIER.match(text, i)) is not None:
            word = match.group()
            end = match.end()
            if word in _LITERAL_WORDS:
                tokens.append(Token("literal", i, end, word, _LITERAL_WORDS[word], word=True))
            else:
                kind = _KEYWORDS.get(word, "ident")
                tokens.append(Token(kind, i, end, word, word=True))
            i = end
        else:
            pair = text[i : i + 2]
            if pair in _TWO_CHAR_OPERATORS:
                tokens.append(Token(pair, i, i + 2, pair))
                i += 2
                continue
            reason = _UNSUPPORTED.get(pair) or _UNSUPPORTED.get(char)
            if reason is not None:
                raise ExpressionSyntaxError(text, i, reason)
            if char not in _ONE_CHAR_OPERATORS:
                raise ExpressionSyntaxError(text, i, f"unexpected character {char!r}")
            tokens.append(Token(char, i, i + 1, char))
            i += 1
    raise ExpressionSyntaxError(text, open_pos, "unterminated expression: missing closing '}'")

"""Python script text, compiled once at deployment: its statements, and a trailing expression
statement apart (the script's value).

Pure: reports a script that does not compile on the context.
"""

from __future__ import annotations

import ast
import textwrap
from types import CodeType

from lxml import etree

from .context import ParseContext


def python_code(
    ctx: ParseContext, text: str, el: etree._Element
) -> tuple[CodeType | None, CodeType | None]:
    """The script's statements, and its trailing expression statement apart (its result)."""
    source = textwrap.dedent(text)
    label = f"<{ctx.resource}:{el.get('id')}>"
    try:
        tree = ast.parse(source, label, "exec")
    except SyntaxError as exc:
        ctx.problem(f"python script does not compile: {exc.msg} (script line {exc.lineno})", el)
        return None, None
    result_code = None
    last = tree.body[-1] if tree.body else None
    if isinstance(last, ast.Expr):
        tree.body.pop()
        result_code = compile(ast.Expression(last.value), label, "eval")
    return compile(tree, label, "exec"), result_code

"""Python scripts of a model (script tasks, mapped values, listeners), run with the execution's
variables in scope, on an engine that allows scripts only.

Decide-side: what a script changes goes through the `execution` facade, as events.
"""

from __future__ import annotations

from types import CodeType
from typing import Any

from ..budget import evaluating
from ..errors import ProcessEngineError
from ..scope import ExecutionFacade, visible_variables
from ..session import InstanceSession


def run_python(
    session: InstanceSession,
    execution_id: str,
    code: CodeType | None,
    result_code: CodeType | None,
    execution: ExecutionFacade | None = None,
) -> Any:
    """A Python script's value (its trailing expression), the execution's variables in scope;
    only on an engine that allows scripts."""
    if not session.ctx.allow_scripts:
        raise ProcessEngineError("python scripts are disabled on this engine")
    namespace: dict[str, Any] = dict(visible_variables(session, execution_id))
    namespace["execution"] = execution or ExecutionFacade(session, execution_id)
    with evaluating("a python script"):
        if code is not None:
            exec(code, namespace)
        if result_code is not None:
            return eval(result_code, namespace)
    return None

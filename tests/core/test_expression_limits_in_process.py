"""JUEL limits as a model meets them: an expression in a process that builds too much, or
reaches for Python's datetime, fails naming the element and the limit; Java's Date works."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from flowledger import Engine
from flowledger.core.errors import ProcessEngineError
from tests.core.test_jobs import chain, process


def _mapped(expression: str) -> str:
    return process(
        chain(
            '<userTask id="review"><extensionElements><camunda:inputOutput>'
            f'<camunda:inputParameter name="out">{expression}</camunda:inputParameter>'
            "</camunda:inputOutput></extensionElements></userTask>"
        )
    )


def test_an_expression_building_too_much_fails_naming_the_element_and_the_limit(
    engine: Engine,
) -> None:
    engine.deploy(_mapped("${'x'" + ".replace('', s)" * 7 + "}"))
    with pytest.raises(ProcessEngineError) as info:
        engine.start_process_instance("p", {"s": "abcdefghijklmn"})
    message = str(info.value)
    assert "'review'" in message
    assert "String.replace() would build a string of" in message
    assert "1,000,000" in message
    assert (
        engine.history_service.historic_process_instances() == []
    )  # nothing of the start was kept


def test_a_date_variable_offers_java_date_methods_only(engine: Engine) -> None:
    due = datetime(2026, 12, 5, 10, 0, tzinfo=UTC)
    engine.deploy(_mapped("${due.getTime()} ${due.before(now())} ${due.toString()}"))
    pi = engine.start_process_instance("p", {"due": due})
    (task,) = engine.tasks(process_instance_id=pi.id)
    assert engine.runtime_service.get_variables(task.execution_id, local=True) == {
        "out": "1796464800000 false Sat Dec 05 10:00:00 UTC 2026"
    }
    engine.deploy(_mapped("${due.strftime('%Y')}"))
    with pytest.raises(ProcessEngineError) as info:
        engine.start_process_instance("p", {"due": due})
    assert "'review'" in str(info.value)
    assert "Date has no method 'strftime'" in str(info.value)

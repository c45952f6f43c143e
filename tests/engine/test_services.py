"""The engine's services: every verb in its Camunda-named service, the README's conveniences
forwarding to them, and the flat names of earlier versions still answering with a warning."""

from __future__ import annotations

import warnings

import pytest

from flowledger import Engine
from flowledger.engine.root import FORMER_NAMES
from tests.support import BPMN_DIR

ONE_TASK = BPMN_DIR / "rest_pi_wait.bpmn"


@pytest.fixture
def engine() -> Engine:
    with Engine("sqlite://") as engine:
        yield engine


def test_every_former_name_forwards_to_a_verb_of_its_service(engine: Engine) -> None:
    for name, (service, verb) in FORMER_NAMES.items():
        assert not hasattr(type(engine), name), f"{name} is a convenience, not a former name"
        with pytest.warns(DeprecationWarning, match=f"engine.{service}.{verb}"):
            forwarded = getattr(engine, name)
        assert forwarded == getattr(getattr(engine, service), verb)


def test_a_former_name_answers_as_its_service_does(engine: Engine) -> None:
    engine.deploy(ONE_TASK)
    pi = engine.start_process_instance("restPiWait", {"n": 1})
    with pytest.warns(DeprecationWarning, match="engine.runtime_service.get_variables"):
        assert engine.get_variables(pi.id) == {"n": 1}
    assert engine.runtime_service.get_variables(pi.id) == {"n": 1}


def test_an_unknown_name_is_an_attribute_error(engine: Engine) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError, match="no attribute 'no_such_verb'"):
            engine.no_such_verb  # noqa: B018


def test_a_view_acting_as_a_user_records_the_user_in_every_service(engine: Engine) -> None:
    engine.deploy(ONE_TASK)
    view = engine.acting_as("kermit", via="rest")
    pi = view.runtime_service.start_process_instance("restPiWait")
    view.runtime_service.set_variables(pi.id, {"x": 1})
    commands = [(e.command_type, e.actor, e.via) for e in engine.events(pi.id)]
    assert ("StartProcessInstance", "kermit", "rest") in commands
    assert ("SetVariables", "kermit", "rest") in commands
    # the engine itself still records no actor
    engine.runtime_service.set_variables(pi.id, {"y": 2})
    assert [(e.actor, e.via) for e in engine.events(pi.id)][-1] == (None, "python")

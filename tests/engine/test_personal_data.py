"""Personal data sealed in the log and erased by destroying its key (crypto-shredding): what a
data protection officer relies on. After `erase`, no byte of the subject's personal values nor
of its key is left in the database, its WAL or an audit package; the log still verifies; replay
still runs; the tables and a rebuild show the values as erased."""

from __future__ import annotations

import glob
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from flowledger.core.errors import InvalidValue, ModelError, NotFound
from flowledger.core.variables import TypedValue
from flowledger.engine import Engine
from tests.support import bpmn, fresh_database, selected_kind

EMAIL = "alice.personal@example.org"
PHONE = "+49-555-0199-77"


def model(
    properties: str = '<camunda:property name="personalData" value="email, phone*"/>',
) -> bytes:
    extensions = (
        f"<extensionElements><camunda:properties>{properties}</camunda:properties>"
        "</extensionElements>"
        if properties
        else ""
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
  xmlns:camunda="http://camunda.org/schema/1.0/bpmn" targetNamespace="t">
 <process id="signup" isExecutable="true">
  {extensions}
  <startEvent id="s"/><sequenceFlow id="f1" sourceRef="s" targetRef="check"/>
  <userTask id="check" name="Check"/><sequenceFlow id="f2" sourceRef="check" targetRef="e"/>
  <endEvent id="e"/>
 </process></definitions>""".encode()


def rows(url: str, sql: str) -> list[tuple[object, ...]]:
    db = create_engine(url)
    try:
        with db.connect() as conn:
            return [tuple(r) for r in conn.execute(text(sql))]
    finally:
        db.dispose()


@pytest.fixture
def url(tmp_path: Path) -> object:
    with fresh_database(selected_kind(), tmp_path) as found:
        yield found


def test_personal_values_are_sealed_in_the_log_and_read_back_in_plaintext(url: str) -> None:
    with Engine(url) as engine:
        engine.deploy({"signup.bpmn": model()})
        pi = engine.start_process_instance(
            "signup", business_key="customer-7", variables={"email": EMAIL, "phone2": PHONE, "n": 3}
        )
        assert engine.runtime_service.get_variables(pi.id)["email"] == EMAIL
        values = {
            e.payload["name"]: e.payload["value"]
            for e in engine.events(pi.id)
            if e.type == "VariableSet"
        }
        assert values["email"] == {"type": "string", "value": EMAIL}
    log = "".join(str(r[0]) for r in rows(url, "SELECT events FROM event_log"))
    commands = "".join(str(r[0]) for r in rows(url, "SELECT payload FROM command_log"))
    assert EMAIL not in log and PHONE not in log and '"sealed"' in log
    assert EMAIL not in commands and PHONE not in commands and '"$sealed"' in commands
    assert '"n":3' in commands.replace(" ", "")  # not personal: as given
    (subject,) = rows(url, "SELECT subject FROM subject_key")
    assert subject == ("customer-7",)


def test_erase_leaves_the_log_verified_and_the_values_erased_everywhere(url: str) -> None:
    with Engine(url, history_level="full") as engine:
        engine.deploy({"signup.bpmn": model()})
        pi = engine.start_process_instance(
            "signup", business_key="customer-7", variables={"email": EMAIL, "phone2": PHONE}
        )
        other = engine.start_process_instance(
            "signup", business_key="customer-8", variables={"email": "bob@example.org"}
        )
        (task,) = engine.tasks(process_instance_id=pi.id)
        engine.complete_task(task.id, variables={"email": "alice.new@example.org"})

        done = engine.acting_as("dpo").personal_data_service.erase("customer-7", "GDPR art. 17")
        assert done.process_instance_ids == [pi.id] and done.values == 3

        assert engine.verify().problems == []
        state = engine.replay(pi.id)
        assert state.ended
        kept = engine.runtime_service.get_variables(other.id)
        assert kept == {"email": "bob@example.org"}
        (event,) = [e for e in engine.events(pi.id) if e.type == "PersonalDataErased"]
        assert event.actor == "dpo" and event.payload["reason"] == "GDPR art. 17"
        assert engine.personal_data_service.erase("customer-7", "again").already_erased
        info = engine.personal_data_service.subject("customer-7")
        assert [k.erased_by for k in info.keys] == ["dpo"]
        with pytest.raises(NotFound):
            engine.personal_data_service.erase("nobody", "no such subject")
        with pytest.raises(InvalidValue):
            engine.personal_data_service.erase("customer-8", "  ")
    history = rows(url, "SELECT NAME_, VAR_TYPE_, TEXT_ FROM ACT_HI_VARINST ORDER BY NAME_")
    assert ("email", "null", None) in history and ("email", "string", "bob@example.org") in history
    details = rows(url, "SELECT TEXT_ FROM ACT_HI_DETAIL")
    assert all(EMAIL not in str(d) and "alice.new" not in str(d) for d in details)
    keys = rows(url, "SELECT key_material FROM subject_key WHERE subject = 'customer-7'")
    assert keys == [(None,)]


def test_nothing_of_the_subject_is_left_in_the_sqlite_files_or_a_package(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/erase.db"
    with Engine(url, history_level="full") as engine:
        engine.deploy({"signup.bpmn": model()})
        pi = engine.start_process_instance(
            "signup", business_key="customer-7", variables={"email": EMAIL, "phone2": PHONE}
        )
        (key,) = rows(url, "SELECT key_material FROM subject_key")
        engine.personal_data_service.erase("customer-7", "GDPR art. 17")
        package = engine.audit_service.export_instance(pi.id, tmp_path / "instance.zip")
        assert package is not None
        engine.rebuild_projections()
        assert engine.verify().problems == []
    files = b"".join(Path(f).read_bytes() for f in glob.glob(f"{tmp_path}/erase.db*"))
    with zipfile.ZipFile(tmp_path / "instance.zip") as archive:
        packed = b"".join(archive.read(name) for name in archive.namelist())
    for secret in (EMAIL.encode(), PHONE.encode(), bytes(key[0])):
        assert secret not in files
        assert secret not in packed


def test_a_value_flagged_personal_through_the_api_is_sealed(url: str) -> None:
    with Engine(url) as engine:
        engine.deploy({"signup.bpmn": model("")})
        pi = engine.start_process_instance(
            "signup",
            variables={
                "iban": TypedValue("String", "DE02120300000000202051", {"personalData": True}),
                "plan": "gold",
            },
        )
        assert engine.runtime_service.get_variables(pi.id)["iban"] == "DE02120300000000202051"
        log = "".join(str(r[0]) for r in rows(url, "SELECT events FROM event_log"))
        assert "DE02120300000000202051" not in log and "gold" in log
        # No business key: the instance is its own subject.
        done = engine.personal_data_service.erase(pi.id, "closed account")
        assert done.values == 1
        assert engine.runtime_service.get_variables(pi.id) == {"iban": None, "plan": "gold"}


def test_the_model_can_name_the_subject_variable(url: str) -> None:
    properties = (
        '<camunda:property name="personalData" value="email"/>'
        '<camunda:property name="personalDataSubject" value="customerId"/>'
    )
    with Engine(url) as engine:
        engine.deploy({"signup.bpmn": model(properties)})
        engine.start_process_instance(
            "signup", business_key="order-1", variables={"customerId": "C-42", "email": EMAIL}
        )
        assert [k.process_instance_id for k in engine.personal_data_service.subject("C-42").keys]
        with pytest.raises(NotFound):
            engine.personal_data_service.subject("order-1")


def test_a_malformed_declaration_is_refused_naming_the_property(tmp_path: Path) -> None:
    bad = model('<camunda:property name="personalData" value="e mail"/>')
    with (
        Engine(f"sqlite:///{tmp_path}/m.db") as engine,
        pytest.raises(ModelError, match="personalData pattern 'e mail'"),
    ):
        engine.deploy({"signup.bpmn": bad})


def test_decision_inputs_and_outputs_of_a_process_with_personal_data_are_erased(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path}/dmn.db"
    source = (
        bpmn("business_rule_task.bpmn")
        .read_bytes()
        .replace(
            b'<process id="dinnerPlanning" isExecutable="true">',
            b'<process id="dinnerPlanning" isExecutable="true"><extensionElements>'
            b'<camunda:properties><camunda:property name="personalData" value="allergies"/>'
            b"</camunda:properties></extensionElements>",
        )
    )
    with Engine(url, history_level="full") as engine:
        engine.deploy({"dinner.bpmn": source, "dinner.dmn": bpmn("dinner.dmn").read_bytes()})
        engine.start_process_instance(
            "dinnerPlanning",
            business_key="guest-3",
            variables={
                "desiredDish": "Stew",
                "guestsWithChildren": False,
                "allergies": "peanuts-x9",
            },
        )
        engine.flush_history()  # the rows a deferred projection writes behind the log
        assert rows(url, "SELECT count(*) FROM ACT_HI_DEC_IN WHERE TEXT_ = 'peanuts-x9'") == [(1,)]
        engine.personal_data_service.erase("guest-3", "asked to be forgotten")
        assert engine.verify().problems == []
    assert rows(url, "SELECT count(*) FROM ACT_HI_DEC_IN WHERE TEXT_ IS NOT NULL") == [(0,)]
    assert rows(url, "SELECT count(*) FROM ACT_HI_DEC_OUT WHERE TEXT_ IS NOT NULL") == [(0,)]
    files = b"".join(Path(f).read_bytes() for f in glob.glob(f"{tmp_path}/dmn.db*"))
    assert b"peanuts-x9" not in files

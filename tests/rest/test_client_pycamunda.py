"""pycamunda 0.6.1, unmodified, against the live server: an order from deployment to history.

tests/bpmn/rest_e2e_order.bpmn: a `review` user task, then an approved order waits in `ship`
(a rejected one ends). pycamunda deploys it with (filename, bytes, content type) tuples, starts
instances by key with typed variables and a business key, lists, claims and completes tasks,
reads and changes process variables; pycamunda has no history module, so the history check is a
plain HTTP request. pycamunda's external-task module works tests/bpmn/rest_e2e_payment.bpmn.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pycamunda
import pycamunda.deployment
import pycamunda.externaltask
import pycamunda.processdef
import pycamunda.processinst
import pycamunda.task
import pytest

from tests.support import BPMN_DIR

from .server import LiveServer

MODEL = BPMN_DIR / "rest_e2e_order.bpmn"
KEY = "restE2eOrder"
PAYMENT = BPMN_DIR / "rest_e2e_payment.bpmn"


@pytest.fixture(scope="module")
def deployment(rest: LiveServer) -> pycamunda.deployment.DeploymentWithDefinitions:
    create = pycamunda.deployment.Create(url=rest.url, name="orders", source="pycamunda e2e")
    create.add_resource((MODEL.name, MODEL.read_bytes(), "text/xml"))
    return create()


@pytest.fixture
def order(
    rest: LiveServer, deployment: pycamunda.deployment.DeploymentWithDefinitions
) -> Iterator[pycamunda.processinst.ProcessInstance]:
    """A started order with typed variables, waiting in `review`."""
    start = pycamunda.processdef.StartInstance(url=rest.url, key=KEY, business_key="order-4711")
    start.add_variable("amount", 250, "Integer")
    start.add_variable("customer", "ACME", "String")
    start.add_variable("express", True)  # untyped: the server infers Boolean
    yield start()


def tasks_of(url: str, instance_id: str) -> tuple[pycamunda.task.Task, ...]:
    return pycamunda.task.GetList(url=url, process_instance_id=instance_id)()


def complete(url: str, task_id: str, **variables: tuple[Any, str]) -> None:
    request = pycamunda.task.Complete(url=url, id_=task_id)
    for name, (value, kind) in variables.items():
        request.add_variable(name, value, kind)
    request()


def variables_of(url: str, instance_id: str) -> dict[str, Any]:
    found = pycamunda.processinst.VariablesGetList(url=url, process_instance_id=instance_id)()
    return {name: (v.value, v.type_) for name, v in found.items()}


def history(rest: LiveServer, instance_id: str) -> dict[str, Any]:
    response = rest.client.get(
        "/history/process-instance", params={"processInstanceId": instance_id}
    )
    assert response.status_code == 200, response.text
    rows: list[dict[str, Any]] = response.json()
    assert len(rows) == 1
    return rows[0]


def test_deploying_filename_tuples_names_the_resources(
    rest: LiveServer, deployment: pycamunda.deployment.DeploymentWithDefinitions
) -> None:
    assert deployment.name == "orders" and deployment.source == "pycamunda e2e"
    assert deployment.deployment_time is not None  # parsed with milliseconds and offset
    (definition,) = deployment.deployed_process_definitions.values()
    assert definition.key == KEY and definition.name == "Order review"
    assert definition.resource == MODEL.name
    assert definition.version == 1 and definition.deployment_id == deployment.id_
    assert deployment.deployed_case_definitions is None
    latest = pycamunda.processdef.GetList(url=rest.url, key=KEY, latest_version=True)()
    assert [d.id_ for d in latest] == [definition.id_]


def test_start_by_key_keeps_business_key_and_typed_variables(
    rest: LiveServer,
    deployment: pycamunda.deployment.DeploymentWithDefinitions,
    order: pycamunda.processinst.ProcessInstance,
) -> None:
    (definition,) = deployment.deployed_process_definitions.values()
    assert order.business_key == "order-4711"
    assert order.definition_id == definition.id_
    assert not order.suspended and order.case_instance_id is None
    assert any(link.rel == "self" for link in order.links)
    fetched = pycamunda.processinst.Get(url=rest.url, id_=order.id_)()
    assert fetched.business_key == "order-4711"
    assert variables_of(rest.url, order.id_) == {
        "amount": (250, "Integer"),
        "customer": ("ACME", "String"),
        "express": (True, "Boolean"),
    }


def test_task_is_listed_claimed_and_completed_with_variables(
    rest: LiveServer, order: pycamunda.processinst.ProcessInstance
) -> None:
    (review,) = tasks_of(rest.url, order.id_)
    assert review.task_definition_key == "review" and review.name == "Review order"
    assert review.assignee is None and review.created is not None
    pycamunda.task.Claim(url=rest.url, id_=review.id_, user_id="demo")()
    assert pycamunda.task.Get(url=rest.url, id_=review.id_)().assignee == "demo"

    complete(rest.url, review.id_, approved=(True, "Boolean"), reviewer=("demo", "String"))

    (ship,) = tasks_of(rest.url, order.id_)
    assert ship.task_definition_key == "ship"
    variables = variables_of(rest.url, order.id_)
    assert variables["approved"] == (True, "Boolean")
    assert variables["reviewer"] == ("demo", "String")


def test_variables_are_read_one_by_one_and_all_at_once(
    rest: LiveServer, order: pycamunda.processinst.ProcessInstance
) -> None:
    one = pycamunda.processinst.VariablesGet(
        url=rest.url, process_instance_id=order.id_, var_name="amount"
    )()
    assert (one.value, one.type_) == (250, "Integer")
    everything = pycamunda.processinst.VariablesGetList(
        url=rest.url, process_instance_id=order.id_, deserialize_values=True
    )()
    assert set(everything) == {"amount", "customer", "express"}
    assert everything["customer"].value_info == {}


def test_variables_are_modified_deleted_and_put(
    rest: LiveServer, order: pycamunda.processinst.ProcessInstance
) -> None:
    modify = pycamunda.processinst.VariablesModify(
        url=rest.url, process_instance_id=order.id_, deletions=["customer"]
    )
    modify.add_variable("note", "deliver before noon", "String")
    modify.add_variable("amount", 260, "Long")
    modify()
    pycamunda.processinst.VariablesUpdate(
        url=rest.url, process_instance_id=order.id_, var_name="priority", value=2, type_="Integer"
    )()
    assert variables_of(rest.url, order.id_) == {
        "amount": (260, "Long"),
        "express": (True, "Boolean"),
        "note": ("deliver before noon", "String"),
        "priority": (2, "Integer"),
    }
    pycamunda.processinst.VariablesDelete(
        url=rest.url, process_instance_id=order.id_, var_name="note"
    )()
    assert "note" not in variables_of(rest.url, order.id_)


@pytest.mark.parametrize(("approved", "tasks"), [(True, ["review", "ship"]), (False, ["review"])])
def test_order_ends_completed_in_history(
    rest: LiveServer,
    order: pycamunda.processinst.ProcessInstance,
    approved: bool,
    tasks: list[str],
) -> None:
    done: list[str] = []
    while open_tasks := tasks_of(rest.url, order.id_):
        (task,) = open_tasks
        complete(rest.url, task.id_, approved=(approved, "Boolean"))
        done.append(task.task_definition_key)
    assert done == tasks
    row = history(rest, order.id_)
    assert row["state"] == "COMPLETED"
    assert row["businessKey"] == "order-4711"
    assert row["processDefinitionKey"] == KEY
    assert row["endTime"] is not None and row["durationInMillis"] >= 0
    missing = pycamunda.processinst.Get(url=rest.url, id_=order.id_)
    with pytest.raises(pycamunda.NotFound):
        missing()


def test_unknown_ids_raise_pycamunda_not_found(rest: LiveServer) -> None:
    with pytest.raises(pycamunda.NotFound):
        pycamunda.task.Claim(url=rest.url, id_="no-such-task", user_id="demo")()
    with pytest.raises(pycamunda.NotFound):
        pycamunda.processinst.VariablesGetList(url=rest.url, process_instance_id="no-such")()
    with pytest.raises(pycamunda.NotFound):
        pycamunda.processdef.StartInstance(url=rest.url, key="noSuchProcess")()


def test_invalid_variables_raise_pycamunda_bad_request(
    rest: LiveServer, deployment: pycamunda.deployment.DeploymentWithDefinitions
) -> None:
    start = pycamunda.processdef.StartInstance(url=rest.url, key=KEY)
    start.add_variable("amount", "two hundred", "Integer")
    with pytest.raises(pycamunda.BadRequest, match="amount"):
        start()


def test_external_task_is_fetched_failed_read_back_and_completed(rest: LiveServer) -> None:
    create = pycamunda.deployment.Create(url=rest.url, name="payments")
    create.add_resource((PAYMENT.name, PAYMENT.read_bytes(), "text/xml"))
    create()
    start = pycamunda.processdef.StartInstance(url=rest.url, key="restE2ePayment")
    start.add_variable("card", "ok", "String")
    instance = start()

    def fetch() -> pycamunda.externaltask.ExternalTask:
        request = pycamunda.externaltask.FetchAndLock(url=rest.url, worker_id="pc", max_tasks=5)
        request.add_topic("rest_e2e_charge", lock_duration=10_000, deserialize_values=True)
        (locked,) = request()
        return locked

    locked = fetch()
    assert locked.process_instance_id == instance.id_ and locked.worker_id == "pc"
    assert locked.lock_expiration_time is not None
    assert locked.variables is not None and locked.variables["card"].value == "ok"
    pycamunda.externaltask.HandleFailure(
        url=rest.url,
        id_=locked.id_,
        worker_id="pc",
        error_message="gateway timeout",
        error_details="HTTP 504 from the card gateway",
        retries=2,
        retry_timeout=0,
    )()
    # pycamunda's Get always asks GET /external-task/{id}/errorDetails as well
    failed = pycamunda.externaltask.Get(url=rest.url, id_=locked.id_)()
    assert (failed.error_message, failed.retries) == ("gateway timeout", 2)
    assert failed.error_details == "HTTP 504 from the card gateway"
    pycamunda.externaltask.SetPriority(url=rest.url, id_=locked.id_, priority=7)()
    pycamunda.externaltask.SetRetries(url=rest.url, id_=locked.id_, retries=5)()
    changed = pycamunda.externaltask.Get(url=rest.url, id_=locked.id_)()
    assert (int(changed.priority), changed.retries) == (7, 5)

    again = fetch()
    assert again.id_ == locked.id_
    pycamunda.externaltask.ExtendLock(
        url=rest.url, id_=again.id_, new_duration=60_000, worker_id="pc"
    )()
    extended = pycamunda.externaltask.Get(url=rest.url, id_=again.id_)()
    assert extended.lock_expiration_time > again.lock_expiration_time
    done = pycamunda.externaltask.Complete(url=rest.url, id_=again.id_, worker_id="pc")
    done.add_variable("charged", True, "Boolean")
    done()
    assert [t.task_definition_key for t in tasks_of(rest.url, instance.id_)] == ["ship"]
    assert variables_of(rest.url, instance.id_)["charged"] == (True, "Boolean")
    with pytest.raises(pycamunda.NotFound):
        pycamunda.externaltask.Get(url=rest.url, id_=again.id_)()

"""Events of removal times set after the fact (Camunda 7.24's set-removal-time batches): on a
process instance's stream, on a decision evaluation's stream (over the API), on a batch's.

Pure data. The removal time is recorded as decided (absolute, calculated by the command from
what the log holds, or None: cleared): the projectors never compute it.
"""

from __future__ import annotations

from datetime import datetime

from .base import Event


class HistoricRemovalTimeSet(Event, tag=True, frozen=True):
    """The instance's history rows get `removal_time` (None: kept until deleted). With
    `hierarchical` the event is on the root instance's stream and stamps every instance of its
    hierarchy (Camunda's addRemovalTimeToHierarchy); else this instance's rows only."""

    removal_time: datetime | None
    time: datetime
    hierarchical: bool = False


class HistoricDecisionRemovalTimeSet(Event, tag=True, frozen=True):
    """In the stream of a decision evaluated over the API (`root_decision_instance_id`, the
    evaluated decision): `decision_instance_id`'s rows (ACT_HI_DECINST, _DEC_IN, _DEC_OUT and
    their byte arrays) get `removal_time`; with `hierarchical`, every decision instance of the
    evaluation."""

    decision_instance_id: str
    root_decision_instance_id: str
    removal_time: datetime | None
    time: datetime
    hierarchical: bool = False


class InstanceDecisionRemovalTimeSet(Event, tag=True, frozen=True):
    """`HistoricDecisionRemovalTimeSet` of a decision a process instance evaluated (a business
    rule task), in the instance's stream: the same rows get `removal_time`."""

    decision_instance_id: str
    root_decision_instance_id: str
    removal_time: datetime | None
    time: datetime
    hierarchical: bool = False


class HistoricDecisionInstancesDeleted(Event, tag=True, frozen=True):
    """The history of decision instances the process instance evaluated was deleted
    (deleteHistoricDecisionInstancesAsync): their ACT_HI_DECINST rows with their inputs,
    outputs and byte arrays. Only the projection forgets."""

    decision_instance_ids: list[str]
    time: datetime

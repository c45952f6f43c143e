"""Projector of the deployment stream: ACT_RE_DEPLOYMENT, ACT_RE_PROCDEF, ACT_RE_DECISION_DEF,
ACT_RE_DECISION_REQ_DEF, ACT_GE_BYTEARRAY and the job definitions of its process definitions
(ACT_RU_JOBDEF), their start timers (`start_timers`) and their message and signal start events'
subscriptions (ACT_RU_EVENT_SUBSCR without an execution).

Event in, row changes out; no reads.
"""

from __future__ import annotations

from flowledger.core.events import (
    BATCH_EVENTS,
    START_TIMER_EVENTS,
    DecisionEvaluated,
    DeployedProcessDefinition,
    DeploymentCreated,
    DeploymentDeleted,
    Event,
    HistoricDecisionInstanceDeleted,
    HistoricDecisionRemovalTimeSet,
    ProcessDefinitionActivated,
    ProcessDefinitionSuspended,
    SigningKeyIntroduced,
    StartEventSubscribed,
    StartEventUnsubscribed,
)

from .batches import project_batch
from .changes import ChangeSet, Purge, UnhandledEvent, blank_row, db_time
from .start_timers import project_start_timer
from .tables import (
    ACT_GE_BYTEARRAY,
    ACT_RE_DECISION_DEF,
    ACT_RE_DECISION_REQ_DEF,
    ACT_RE_DEPLOYMENT,
    ACT_RE_PROCDEF,
    ACT_RU_EVENT_SUBSCR,
    ACT_RU_JOBDEF,
)

BYTEARRAY_REPOSITORY = 1
_SUBSCRIPTION_ROW = blank_row(ACT_RU_EVENT_SUBSCR)


def project_repository(event: Event, changes: ChangeSet) -> None:
    """Project one event of a stream without instance state (STATELESS_STREAM_EVENTS: a
    deployment's, or a decision evaluated over the API, which writes no repository row);
    instances' events never reach this projector, so any other type is the caller's mistake."""
    if isinstance(event, DeploymentCreated):
        project_deployment(event, changes)
    elif isinstance(event, DeploymentDeleted):
        project_deployment_deleted(event, changes)
    elif isinstance(event, START_TIMER_EVENTS):
        project_start_timer(event, changes)
    elif isinstance(event, StartEventSubscribed):
        row = dict(_SUBSCRIPTION_ROW)
        row.update(
            ID_=event.subscription_id,
            REV_=1,
            EVENT_TYPE_=event.event_type,
            EVENT_NAME_=event.event_name or None,  # a conditional one has no name
            ACTIVITY_ID_=event.activity_id,
            CONFIGURATION_=event.definition_id,
            CREATED_=db_time(event.time),
        )
        changes.insert(ACT_RU_EVENT_SUBSCR, event.subscription_id, row)
    elif isinstance(event, StartEventUnsubscribed):
        changes.delete(ACT_RU_EVENT_SUBSCR, event.subscription_id)
    elif isinstance(event, ProcessDefinitionSuspended | ProcessDefinitionActivated):
        state = 2 if isinstance(event, ProcessDefinitionSuspended) else 1
        changes.update(
            ACT_RE_PROCDEF, event.definition_id, {"SUSPENSION_STATE_": state}, bump_revision=True
        )
    elif isinstance(
        event, DecisionEvaluated | HistoricDecisionInstanceDeleted | HistoricDecisionRemovalTimeSet
    ):
        return  # a stream without a deployment: history's
    elif isinstance(event, SigningKeyIntroduced):
        return  # the log's own record: no table holds it
    elif isinstance(event, BATCH_EVENTS):
        project_batch(event, changes)
    else:
        raise UnhandledEvent("project_repository", type(event))


def project_deployment_deleted(event: DeploymentDeleted, changes: ChangeSet) -> None:
    """The deployment's rows go; its resources by deployment id, as Camunda deletes them (the
    event need not list them: DeploymentCreated in the same stream did)."""
    changes.delete(ACT_RE_DEPLOYMENT, event.deployment_id)
    for definition_id in event.process_definition_ids:
        changes.delete(ACT_RE_PROCDEF, definition_id)
    for definition_id in event.decision_definition_ids:
        changes.delete(ACT_RE_DECISION_DEF, definition_id)
    for definition_id in event.decision_requirements_ids:
        changes.delete(ACT_RE_DECISION_REQ_DEF, definition_id)
    changes.purge(Purge(ACT_RU_JOBDEF, "DEPLOYMENT_ID_", event.deployment_id))
    changes.purge(Purge(ACT_GE_BYTEARRAY, "DEPLOYMENT_ID_", event.deployment_id))


def project_deployment(event: DeploymentCreated, changes: ChangeSet) -> None:
    time = db_time(event.time)
    changes.insert(
        ACT_RE_DEPLOYMENT,
        event.deployment_id,
        {
            "ID_": event.deployment_id,
            "NAME_": event.name,
            "DEPLOY_TIME_": time,
            "SOURCE_": event.source,
            "TENANT_ID_": None,
        },
    )
    for resource in event.resources:
        data = resource.data if resource.data is not None else (resource.text or "").encode()
        changes.insert(
            ACT_GE_BYTEARRAY,
            resource.id,
            {
                "ID_": resource.id,
                "REV_": 1,
                "NAME_": resource.name,
                "DEPLOYMENT_ID_": event.deployment_id,
                "BYTES_": data,
                "GENERATED_": False,
                "TENANT_ID_": None,
                "TYPE_": BYTEARRAY_REPOSITORY,
                "CREATE_TIME_": time,
                "ROOT_PROC_INST_ID_": None,
                "REMOVAL_TIME_": None,
            },
        )
    for definition in event.process_definitions:
        changes.insert(
            ACT_RE_PROCDEF,
            definition.id,
            {
                "ID_": definition.id,
                "REV_": 1,
                "CATEGORY_": definition.category,
                "NAME_": definition.name,
                "KEY_": definition.key,
                "VERSION_": definition.version,
                "DEPLOYMENT_ID_": event.deployment_id,
                "RESOURCE_NAME_": definition.resource_name,
                "DGRM_RESOURCE_NAME_": None,
                "HAS_START_FORM_KEY_": definition.has_start_form_key,
                "SUSPENSION_STATE_": 1,
                "TENANT_ID_": None,
                "VERSION_TAG_": definition.version_tag,
                "HISTORY_TTL_": definition.history_ttl,
                "STARTABLE_": definition.startable,
            },
        )
        _project_job_definitions(event.deployment_id, definition, changes)
    _project_decisions(event, changes)


def _project_job_definitions(
    deployment_id: str, definition: DeployedProcessDefinition, changes: ChangeSet
) -> None:
    for job in definition.job_definitions:
        changes.insert(
            ACT_RU_JOBDEF,
            job.id,
            {
                "ID_": job.id,
                "REV_": 1,
                "PROC_DEF_ID_": definition.id,
                "PROC_DEF_KEY_": definition.key,
                "ACT_ID_": job.activity_id,
                "JOB_TYPE_": job.job_type,
                "JOB_CONFIGURATION_": job.configuration,
                "SUSPENSION_STATE_": 1,
                "JOB_PRIORITY_": job.priority,
                "TENANT_ID_": None,
                "DEPLOYMENT_ID_": deployment_id,
            },
        )


def _project_decisions(event: DeploymentCreated, changes: ChangeSet) -> None:
    for drd in event.decision_requirements:
        changes.insert(
            ACT_RE_DECISION_REQ_DEF,
            drd.id,
            {
                "ID_": drd.id,
                "REV_": 1,
                "CATEGORY_": drd.category,
                "NAME_": drd.name,
                "KEY_": drd.key,
                "VERSION_": drd.version,
                "DEPLOYMENT_ID_": event.deployment_id,
                "RESOURCE_NAME_": drd.resource_name,
                "DGRM_RESOURCE_NAME_": None,
                "TENANT_ID_": None,
            },
        )
    for decision in event.decision_definitions:
        changes.insert(
            ACT_RE_DECISION_DEF,
            decision.id,
            {
                "ID_": decision.id,
                "REV_": 1,
                "CATEGORY_": decision.category,
                "NAME_": decision.name,
                "KEY_": decision.key,
                "VERSION_": decision.version,
                "DEPLOYMENT_ID_": event.deployment_id,
                "RESOURCE_NAME_": decision.resource_name,
                "DGRM_RESOURCE_NAME_": None,
                "DEC_REQ_ID_": decision.requirements_id,
                "DEC_REQ_KEY_": decision.requirements_key,
                "TENANT_ID_": None,
                "HISTORY_TTL_": decision.history_ttl,
                "VERSION_TAG_": decision.version_tag,
            },
        )

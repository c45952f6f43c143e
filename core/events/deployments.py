"""Events of a deployment's stream: deployments created and deleted with what they hold
(resources, process and decision definitions, job definitions), and definitions suspended or
activated.

Pure data; no instance state folds them.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from .base import Event


class DeployedResource(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    name: str
    sha256: str
    text: str | None = None  # the resource when it is UTF-8 text (BPMN always is in practice)
    data: bytes | None = None  # the exact bytes otherwise


class DeployedJobDefinition(msgspec.Struct, frozen=True, omit_defaults=True):
    """One kind of job an activity of a definition makes (ACT_RU_JOBDEF): a timer, or a
    continuation before or after it. `configuration` is Camunda's (`async-before`,
    `async-after`, `DURATION: PT1H`, `CYCLE: R/PT1H`, `DATE: …`)."""

    id: str
    activity_id: str
    job_type: str  # the handler type of its jobs
    configuration: str
    priority: int | None = None


class DeployedProcessDefinition(msgspec.Struct, frozen=True, omit_defaults=True):
    id: str
    key: str
    version: int
    resource_name: str
    name: str | None = None
    version_tag: str | None = None
    history_ttl: int | None = None
    category: str | None = None
    startable: bool = True
    has_start_form_key: bool = False
    job_definitions: list[DeployedJobDefinition] = []


class DeployedDecisionDefinition(msgspec.Struct, frozen=True, omit_defaults=True):
    """A decision of a DMN resource (ACT_RE_DECISION_DEF); `category` is its DRG's namespace,
    `requirements_id` its decision requirements definition when one was deployed (the DRG has
    more than one decision)."""

    id: str
    key: str
    version: int
    resource_name: str
    name: str | None = None
    version_tag: str | None = None
    history_ttl: int | None = None
    category: str | None = None
    requirements_id: str | None = None
    requirements_key: str | None = None


class DeployedDecisionRequirements(msgspec.Struct, frozen=True, omit_defaults=True):
    """A DMN resource's `definitions` with more than one decision (ACT_RE_DECISION_REQ_DEF)."""

    id: str
    key: str
    version: int
    resource_name: str
    name: str | None = None
    category: str | None = None


class DeploymentWarning(msgspec.Struct, frozen=True, omit_defaults=True):
    """Something a deployed resource holds that will fail when it runs (a timer literal that is
    no ISO 8601 value): Camunda deploys it, and so does flowledger, saying so."""

    message: str
    resource: str | None = None
    element_id: str | None = None
    line: int | None = None


class DeploymentCreated(Event, tag=True, frozen=True):
    deployment_id: str
    name: str | None
    source: str | None
    time: datetime
    resources: list[DeployedResource]
    process_definitions: list[DeployedProcessDefinition]
    # How it was asked for (the user operation log says so): with duplicate filtering, and
    # then whether only changed resources were to be deployed.
    duplicate_filtering: bool = False
    deploy_changed_only: bool = False
    decision_definitions: list[DeployedDecisionDefinition] = []
    decision_requirements: list[DeployedDecisionRequirements] = []
    # What the parser warned of (the deployment answer and the log say it).
    warnings: list[DeploymentWarning] = []


class DeploymentDeleted(Event, tag=True, frozen=True):
    """The deployment left the repository (repositoryService.deleteDeployment).

    Its definitions can no longer be started. With `cascade`, the running instances of its
    definitions were deleted first (events on their own streams) and the history of every
    instance of `process_definition_ids` is removed from the projection; the log keeps it all.
    """

    deployment_id: str
    cascade: bool
    process_definition_ids: list[str]
    time: datetime
    decision_definition_ids: list[str] = []
    decision_requirements_ids: list[str] = []


class ProcessDefinitionSuspended(Event, tag=True, frozen=True):
    """No new instance of the definition starts until it is activated (its deployment's stream;
    its instances are suspended by events of their own when asked for)."""

    definition_id: str
    time: datetime
    include_instances: bool = False  # its running instances were suspended with it
    # What the user operation log names (older events lack them: the key is then read from the
    # id, which holds it unless the key was too long for one)
    key: str | None = None
    deployment_id: str | None = None


class ProcessDefinitionActivated(Event, tag=True, frozen=True):
    definition_id: str
    time: datetime
    include_instances: bool = False
    key: str | None = None
    deployment_id: str | None = None

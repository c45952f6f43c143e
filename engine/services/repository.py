"""Camunda's RepositoryService: deployments, and the process and decision definitions they
hold, with the suspension of process definitions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import cast

from flowledger.core import commands as cmd
from flowledger.core import views
from flowledger.core.errors import NotFound
from flowledger.engine.services.base import Service
from flowledger.projections.queries import decision_reads, reads

Source = str | bytes | Path | Mapping[str, bytes | str] | Sequence[tuple[str, bytes | str]]


class RepositoryService(Service):
    def deploy(
        self,
        source: Source,
        name: str | None = None,
        *,
        deployment_source: str | None = None,
        duplicate_filtering: bool = False,
        deploy_changed_only: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> views.Deployment:
        """Deploy BPMN and DMN resources: a file path, BPMN bytes or XML text, or several named
        resources (a `.dmn` resource deploys its decisions).

        With `duplicate_filtering`, re-deploying byte-identical resources under the same
        deployment name returns the existing deployment and writes nothing.
        """
        command = cmd.Deploy(
            resources=resources(source),
            name=name,
            source=deployment_source,
            duplicate_filtering=duplicate_filtering or deploy_changed_only,
            deploy_changed_only=deploy_changed_only,
        )
        return cast(views.Deployment, self._run(command, command_id, actor))

    def delete_deployment(
        self,
        deployment_id: str,
        *,
        cascade: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Camunda's repositoryService.deleteDeployment(id, cascade): the deployment, its process
        definitions and resources leave the repository tables (the log keeps them).

        Without `cascade` it is refused while an instance of one of its definitions runs. With
        `cascade` those instances are deleted ("deleted deployment"), and the history of every
        instance of its definitions, finished ones too, is removed from the ACT_HI_* tables.
        Starting by key then starts the latest remaining version; the next deployment of the key
        numbers its version after the latest remaining one, as in Camunda.
        """
        command = cmd.DeleteDeployment(deployment_id=deployment_id, cascade=cascade)
        self._run(command, command_id, actor)

    def deployment(self, deployment_id: str) -> views.Deployment | None:
        with self._parts.db.read() as conn:
            return reads.deployment(conn, deployment_id)

    def process_definitions(self, key: str | None = None) -> list[views.ProcessDefinition]:
        with self._parts.db.read() as conn:
            return reads.process_definitions(conn, key=key)

    def decision_definitions(self, key: str | None = None) -> list[views.DecisionDefinition]:
        with self._parts.db.read() as conn:
            return decision_reads.decision_definitions(conn, key=key)

    def decision_definition(self, definition_id: str) -> views.DecisionDefinition:
        with self._parts.db.read() as conn:
            found = decision_reads.decision_definition(conn, definition_id)
        if found is None:
            raise NotFound("Decision definition", definition_id)
        return found

    def suspend_process_definition(
        self,
        definition_id: str | None = None,
        *,
        key: str | None = None,
        include_instances: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """No new instance of the definition (by id, or every version of `key`) starts until
        it is activated; with `include_instances` its running instances are suspended too."""
        self._set_suspended(True, definition_id, key, include_instances, command_id, actor)

    def activate_process_definition(
        self,
        definition_id: str | None = None,
        *,
        key: str | None = None,
        include_instances: bool = False,
        command_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        self._set_suspended(False, definition_id, key, include_instances, command_id, actor)

    def _set_suspended(
        self,
        suspended: bool,
        definition_id: str | None,
        key: str | None,
        include_instances: bool,
        command_id: str | None,
        actor: str | None,
    ) -> None:
        command = cmd.SetProcessDefinitionSuspended(
            suspended=suspended,
            definition_id=definition_id,
            key=key,
            include_instances=include_instances,
        )
        self._run(command, command_id, actor)


def resources(source: Source) -> list[cmd.ResourceInput]:
    """The named resources of a deployment, from whatever `deploy` was given."""

    def data(value: bytes | str) -> bytes:
        return value.encode() if isinstance(value, str) else bytes(value)

    if isinstance(source, Mapping):
        return [cmd.ResourceInput(name, data(value)) for name, value in source.items()]
    if isinstance(source, Path):
        return [cmd.ResourceInput(source.name, source.read_bytes())]
    if isinstance(source, bytes):
        return [cmd.ResourceInput("process.bpmn", source)]
    if isinstance(source, str):
        if source.lstrip().startswith("<"):
            return [cmd.ResourceInput("process.bpmn", source.encode())]
        path = Path(source)
        if not path.is_file():
            raise NotFound("BPMN file", source)
        return [cmd.ResourceInput(path.name, path.read_bytes())]
    return [cmd.ResourceInput(name, data(value)) for name, value in source]

"""Export an instance as an audit package, and load one into this database.

An instance's package holds its stream, the streams of the instances it called (all the way
down) and the streams of the deployments they run, with every command those commits carry. Its
commits keep their positions and hashes; loaded here they replay, show their history and verify
as on the original (`eventlog.package` describes the file).
"""

from __future__ import annotations

import dataclasses
from importlib import metadata
from pathlib import Path

from sqlalchemy.engine import Connection

from flowledger.core import events as ev
from flowledger.core import views
from flowledger.core.errors import InvalidValue, NotFound
from flowledger.engine.audit import log_tree
from flowledger.engine.audit.log_reader import Audit
from flowledger.engine.storage.connections import Connections
from flowledger.engine.storage.streams import Repository
from flowledger.engine.workers.history_lifecycle import wall_clock
from flowledger.eventlog import CodecError, CommandRecord, EventStore, StoredCommit
from flowledger.eventlog.package import (
    LeafProof,
    PackageError,
    head_problems,
    read_package,
    write_package,
)
from flowledger.eventlog.proofs import TreeHead


def engine_version() -> str:
    try:
        return metadata.version("flowledger")
    except metadata.PackageNotFoundError:
        return "unknown"


class Packages:
    """What `AuditService.export_instance` and `import_package` do."""

    def __init__(
        self, db: Connections, store: EventStore, repository: Repository, audit: Audit
    ) -> None:
        self._db = db
        self._store = store
        self._repository = repository
        self._audit = audit

    def export(
        self, instance_id: str, path: Path, proven: Proven | None = None
    ) -> views.PackageSummary:
        """`proven`: the tree head the commits are proven in (default: the tree of every commit
        now) and that head signed, when it is."""
        with self._db.read() as conn:
            commits: list[StoredCommit] = []
            resources: dict[str, bytes] = {}
            pending, seen = [instance_id], set()
            while pending:
                stream_id = pending.pop()
                if stream_id in seen:
                    continue
                seen.add(stream_id)
                own = self._store.read_stream(conn, stream_id)
                if not own:
                    raise NotFound("Process instance", stream_id)
                commits.extend(own)
                for commit in own:
                    for event in self._repository.decode(commit.events):
                        if isinstance(event, ev.ProcessInstanceStarted):
                            pending.append(event.deployment_id)
                        elif isinstance(event, ev.CalledInstanceStarted):
                            pending.append(event.called_process_instance_id)
                        elif isinstance(event, ev.ActivityDecisionEvaluated):
                            # the DMN that answered, beside the BPMN that asked
                            pending.extend(
                                d.deployment_id for d in event.decisions if d.deployment_id
                            )
                        elif isinstance(event, ev.STATELESS_STREAM_EVENTS):
                            if stream_id == instance_id:
                                raise NotFound(
                                    "Process instance",
                                    instance_id,
                                    ev.not_an_instance(event),
                                )
                            if isinstance(event, ev.DeploymentCreated):
                                resources.update(_resources(event))
            commits.sort(key=lambda c: c.first_position)
            commands = self._commands(conn, commits)
            tree, proofs = log_tree.prove_commits(
                self._store, conn, commits, None if proven is None else proven.size
            )
        signed = None if proven is None else proven.signed_head
        return self._write(path, instance_id, commits, commands, resources, tree, proofs, signed)

    def export_log(self, path: Path, proven: Proven | None = None) -> views.PackageSummary:
        """The whole log as one package (subject `log`): every stream and every command,
        refused ones too. The golden logs in tests/golden are such packages."""
        with self._db.read() as conn:
            commits = list(self._store.read_all(conn))
            if not commits:
                raise InvalidValue("the log is empty: there is nothing to export", "log")
            commands = list(self._store.all_commands(conn))
            resources: dict[str, bytes] = {}
            for commit in commits:
                if commit.first_version == 1:  # a deployment's first commit creates it
                    for event in self._repository.decode(commit.events):
                        if isinstance(event, ev.DeploymentCreated):
                            resources.update(_resources(event))
            tree, proofs = log_tree.prove_commits(
                self._store, conn, commits, None if proven is None else proven.size
            )
        signed = None if proven is None else proven.signed_head
        return self._write(path, "log", commits, commands, resources, tree, proofs, signed)

    def _write(
        self,
        path: Path,
        subject: str,
        commits: list[StoredCommit],
        commands: list[CommandRecord],
        resources: dict[str, bytes],
        tree: TreeHead,
        proofs: list[LeafProof],
        signed_head: str | None,
    ) -> views.PackageSummary:
        manifest = write_package(
            path,
            subject=subject,
            engine_version=engine_version(),
            created_at=wall_clock(),
            commits=commits,
            commands=commands,
            resources=resources,
            tree=tree,
            proofs=proofs,
            signed_head=signed_head,
        )
        return _summary(path, manifest.subject, commits, commands, manifest.engine_version, tree)

    def load(self, path: Path, trusted: TreeHead | None = None) -> views.PackageSummary:
        """Check the whole package, then write it in one transaction and rebuild the tables.

        The package is read a line at a time, three times (checked, decoded, written): memory
        stays bounded whatever its size."""
        try:
            package = read_package(path)
            manifest = package.manifest
            if trusted is not None:
                for problem in head_problems(path, manifest, trusted):
                    raise InvalidValue(problem, "package")
            for commit in package.commits():
                # Every event must read here before anything is written: a package from a newer
                # engine may hold events or versions this one does not know.
                try:
                    count = len(self._repository.decode(commit.events))
                except CodecError as exc:
                    raise InvalidValue(
                        f"{path}: the commit at position {commit.first_position} cannot be read "
                        f"by this engine ({exc}); it was exported by flowledger "
                        f"{manifest.engine_version}",
                        "package",
                    ) from None
                if count != commit.last_position - commit.first_position + 1:
                    raise InvalidValue(
                        f"{path}: the commit at position {commit.first_position} holds {count} "
                        "events, not as many as its positions",
                        "package",
                    )
            with self._db.lock, self._db.write() as conn:
                try:
                    self._store.load_commits(
                        conn,
                        package.commits(),
                        package.commands(),
                        first_position=package.first_position,
                        last_position=package.last_position,
                        digest=package.digest,
                        subject=manifest.subject,
                        source_engine_version=manifest.engine_version,
                        imported_at=wall_clock(),
                    )
                except ValueError as exc:
                    raise InvalidValue(f"{path}: {exc}", "package") from None
        except PackageError as exc:
            raise InvalidValue(str(exc), "package") from None
        # Runtime and history rows, and the repository, come from the log like everywhere else.
        self._audit.rebuild_projections()
        return views.PackageSummary(
            path=str(path),
            subject=manifest.subject,
            streams=sorted(package.streams),
            commits=manifest.commits,
            commands=manifest.commands,
            first_position=package.first_position,
            last_position=package.last_position,
            engine_version=manifest.engine_version,
            tree_head=None
            if manifest.tree is None
            else f"{manifest.tree.size}:{manifest.tree.root}",
        )

    def _commands(self, conn: Connection, commits: list[StoredCommit]) -> list[CommandRecord]:
        """Each command's log row, its positions narrowed to the commits that travel (a signal
        broadcast also wrote to instances the package leaves out)."""
        spans: dict[str, tuple[int, int]] = {}
        for c in commits:
            first, last = spans.get(c.command_id, (c.first_position, c.last_position))
            spans[c.command_id] = (min(first, c.first_position), max(last, c.last_position))
        out = []
        for command_id, (first, last) in spans.items():
            record = self._store.find_command(conn, command_id)
            if record is None:
                raise InvalidValue(
                    f"command {command_id} of the log is not in the command log: run "
                    "`flowledger verify` before exporting",
                    "instance",
                )
            out.append(dataclasses.replace(record, first_position=first, last_position=last))
        return out


def _summary(
    path: Path,
    subject: str,
    commits: list[StoredCommit],
    commands: list[CommandRecord],
    engine_version: str,
    tree: TreeHead | None,
) -> views.PackageSummary:
    return views.PackageSummary(
        path=str(path),
        subject=subject,
        streams=sorted({c.stream_id for c in commits}),
        commits=len(commits),
        commands=len(commands),
        first_position=commits[0].first_position,
        last_position=commits[-1].last_position,
        engine_version=engine_version,
        tree_head=None if tree is None else f"{tree.size}:{tree.root}",
    )


@dataclasses.dataclass(frozen=True)
class Proven:
    """The tree head an exported package's commits are proven in: its size (None: the tree of
    every commit at the export) and the head as a signed note, when it is one."""

    size: int | None = None
    signed_head: str | None = None


def _resources(event: ev.DeploymentCreated) -> dict[str, bytes]:
    """The deployment's files, named after it: two deployments may each hold an `order.bpmn`."""
    return {f"{event.deployment_id}-{r.name}": _bytes(r) for r in event.resources}


def _bytes(resource: ev.DeployedResource) -> bytes:
    return resource.data if resource.data is not None else (resource.text or "").encode()

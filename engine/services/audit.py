"""flowledger's AuditService: the log as evidence. Recorded events, an instance's state at any
position or moment, its timeline and the causes of an event; verification of log, states and
tables against each other and the log's anchor; audit packages; rebuilds of the tables."""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flowledger.core import audit_trail, views
from flowledger.core import commands as cmd
from flowledger.core import events as ev
from flowledger.core.errors import InvalidValue, NotFound
from flowledger.core.instance_trail import Trail
from flowledger.core.instance_view import Change, diff
from flowledger.core.state import InstanceState
from flowledger.engine.audit import log_tree
from flowledger.engine.audit.inspection import PointInTime
from flowledger.engine.audit.packages import Proven
from flowledger.engine.audit.verify_tasks import VerifyTask
from flowledger.engine.services.base import Service
from flowledger.eventlog.proofs import ConsistencyProof, InclusionProof, TreeHead

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )


class AuditService(Service):
    def events(self, process_instance_id: str) -> list[views.RecordedEvent]:
        """Every recorded event of an instance (or deployment) stream, in order."""
        return self._parts.audit.events(process_instance_id)

    def replay(self, process_instance_id: str, until_position: int | None = None) -> InstanceState:
        """The instance's state as it was right after the event at `until_position` (or now)."""
        return self._parts.audit.replay(process_instance_id, until_position)

    def state_at(
        self,
        process_instance_id: str,
        *,
        position: int | None = None,
        moment: datetime | None = None,
    ) -> PointInTime:
        """The instance as it was after its last event at or before `position` (a log position)
        or recorded at or before `moment`: the state, and where and when that event is. A
        point beyond the log's end or before the instance began is refused (InvalidValue)."""
        return self._parts.inspection.state_at(
            process_instance_id, position=position, moment=moment
        )

    def diff(
        self, process_instance_id: str, a: dict[str, Any], b: dict[str, Any]
    ) -> tuple[PointInTime, PointInTime, list[Change]]:
        """What changed from point `a` to point `b` (each `state_at`'s keywords: `position`
        or `moment`): both points and the changes. Across the instance's end its variables are
        those it ended with, not removed."""
        first = self.state_at(process_instance_id, **a)
        second = self.state_at(process_instance_id, **b)
        return first, second, diff(first.view(), second.view())

    def trail(self, process_instance_id: str, position: int | None = None) -> Trail:
        """What the instance passed up to `position` (or now): each activity it entered, how
        often and whether a token is in it, and the sequence flows its tokens took."""
        return self._parts.inspection.trail(process_instance_id, position)

    def timeline(self, process_instance_id: str) -> list[audit_trail.TimelineEntry]:
        """What happened to the instance, step by step: when, at which activity, who did it
        (actor and channel) and which variables changed. Read from the log, so it is complete
        at every history level."""
        return self._parts.inspection.timeline(process_instance_id)

    def why(self, process_instance_id: str, position: int) -> list[audit_trail.Cause]:
        """The command that wrote the event at `position`, then the command that created what
        that one acted on (the task, job, subscription, ...), back to the instance's start;
        each with the conditions that chose its tokens' paths, evaluated again (side-effect
        free, bounded) on the state replayed from the log as it was then."""
        return self._parts.inspection.why(process_instance_id, position)

    def verify(
        self,
        *,
        expect_anchor: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        instance: str | None = None,
        since_head: TreeHead | str | None = None,
        phase: Callable[[str, int], None] | None = None,
    ) -> views.VerificationReport:
        """Check the hash chains and the command log, replay every instance, rebuild every
        projection into temporary tables and compare with the live state and tables. An empty
        `problems` list means all agree; `anchor` is the digest of the log as read.

        `expect_anchor`: an anchor an earlier `verify` reported (`POSITION:DIGEST`, kept
        outside the database); the log up to that position must still digest to it.
        `progress(commits done, commits in the log)` is called as the log is read.

        `instance`: only that instance, quickly: its chain, its commands, its replay against
        the state served, and its rows against a rebuild of its own commits (and its
        deployment's). The log-wide checks (gaps, anchor) need the whole log.

        `since_head`: a tree head trusted from earlier (`TreeHead`, or `SIZE:ROOT`): its commits
        are checked by its root alone, only the commits after it fully (chains, command log);
        no replay, no tables. `phase(name, total)` is called as each timed phase begins
        (`report.phases` holds their times); `progress` counts within the phase."""
        if since_head is not None:
            if expect_anchor is not None or instance is not None:
                raise InvalidValue("since_head verifies the log's tail: no anchor, no instance")
            return self._parts.audit.verify_since(_tree_head(since_head), progress, phase)
        if instance is not None:
            if expect_anchor is not None:
                raise InvalidValue("an anchor covers the whole log: verify it without instance")
            return self._parts.audit.verify_instance(instance)
        return self._parts.audit.verify(expect_anchor, progress, phase)

    def start_verify(self) -> VerifyTask:
        """Start a full `verify` in a worker thread (the running one when one runs already):
        read it back with `verify_task(id)`."""
        return self._parts.audit.verify_tasks.start()

    def verify_task(self, task_id: str) -> VerifyTask:
        """A background verify: its state, progress and, once done, its report."""
        task = self._parts.audit.verify_tasks.get(task_id)
        if task is None:
            raise NotFound("Verify task", task_id)
        return task

    def last_verify(self) -> VerifyTask | None:
        """The background verify that ended last, or the running one before any ended."""
        tasks = self._parts.audit.verify_tasks
        return tasks.last_finished() or tasks.running()

    def export_instance(
        self,
        process_instance_id: str,
        path: str | Path,
        *,
        head_size: int | None = None,
        signing_key: Ed25519PrivateKey | None = None,
        key_name: str = "flowledger",
    ) -> views.PackageSummary:
        """Write the instance's audit package to `path`: its commits (and those of the instances
        it called and of their deployments) with hashes and chain heads, their commands, the
        definition files and this engine's version, and each commit's inclusion proof in the
        log's tree of `head_size` commits (default: every commit) — or, with `signing_key`, in
        a head signed now, which the package carries."""
        return self._parts.packages.export(
            process_instance_id, Path(path), self._proven(head_size, signing_key, key_name)
        )

    def export_log(
        self,
        path: str | Path,
        *,
        head_size: int | None = None,
        signing_key: Ed25519PrivateKey | None = None,
        key_name: str = "flowledger",
    ) -> views.PackageSummary:
        """Write the whole log (every stream, every command) as one audit package: a backup
        that loads into a fresh database of any kind, hashes intact, proven as above."""
        return self._parts.packages.export_log(
            Path(path), self._proven(head_size, signing_key, key_name)
        )

    def _proven(
        self, head_size: int | None, signing_key: Ed25519PrivateKey | None, key_name: str
    ) -> Proven:
        if signing_key is None:
            return Proven(size=head_size)
        if head_size is not None:
            raise InvalidValue("a package is proven in a head signed now, or in --head-size")
        note = self.signed_head(signing_key, key_name)
        return Proven(size=int(note.split("\n")[1]), signed_head=note)

    def import_package(
        self, path: str | Path, *, trusted: TreeHead | None = None
    ) -> views.PackageSummary:
        """Load an audit package after checking every hash in it (nothing is written when one
        fails), then rebuild the tables: the instance replays, shows its history and verifies
        here as where it was exported. The log must end before the package's first position
        (a fresh database); InvalidValue says what is wrong otherwise. With `trusted` (a tree
        head got from elsewhere), every commit must be proven in that head."""
        return self._parts.packages.load(Path(path), trusted)

    def head(self, progress: Callable[[int, int], None] | None = None) -> views.LogHead:
        """The log's anchor now (`POSITION:DIGEST`): kept outside the database, a later
        `verify(expect_anchor=...)` proves nothing up to it was rewritten since."""
        return self._parts.audit.head(progress)

    def tree_head(self, progress: Callable[[int, int], None] | None = None) -> TreeHead:
        """The Merkle tree head over every commit now (size, root, the last position it holds):
        kept or published outside the database, later proofs are checked against it."""
        with self._parts.db.read_unchecked() as conn:  # the log only
            return log_tree.tree_head(self._parts.store, conn, progress)

    def signed_head(
        self,
        key: Ed25519PrivateKey,
        key_name: str,
        *,
        origin: str | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> str:
        """The tree head over every commit, signed with `key` (kept outside the database) as a
        transparency-log checkpoint (`eventlog.signed_heads`), over commits already on disk.
        `origin` names the log (default: from its first commit's hash)."""
        from flowledger.eventlog import signed_heads  # cryptography, only for those who sign

        # The key first, so that the head covers the log's record of the key that signs it.
        self.record_signing_key(key.public_key(), key_name, origin or self._origin())
        with self._parts.db.read_unchecked() as conn:
            head = log_tree.tree_head(self._parts.store, conn, progress)
        with self._parts.db.read_unchecked() as conn:
            log_tree.make_durable(conn)
        name = origin or self._origin()
        assert name is not None  # the log holds the key's record at least
        return signed_heads.sign(name, head, key, key_name, self._parts.clock.now())

    def _origin(self) -> str | None:
        """The log's name from its first commit's hash; None while the log is empty."""
        from flowledger.eventlog import signed_heads

        with self._parts.db.read_unchecked() as conn:
            first = next(self._parts.store.read_all(conn, batch_size=1), None)
        return None if first is None else signed_heads.origin_of(first.hash)

    def record_signing_key(
        self, public: Ed25519PublicKey, key_name: str, origin: str | None = None
    ) -> bool:
        """Record `public` in the log's stream of signing keys unless it is the key recorded
        last (a rotation names the key it replaces); True when it was recorded now. Runs before
        a head is signed, so a head's key is in the log before the head."""
        from flowledger.eventlog import signed_heads

        key_hash = signed_heads.key_id(key_name, public).hex()
        recorded = self.signing_keys()
        if recorded and recorded[-1].key_hash == key_hash:
            return False
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        raw = public.public_bytes(Encoding.Raw, PublicFormat.Raw)
        return bool(
            self._run(
                cmd.RecordSigningKey(
                    key_hash=key_hash,
                    name=key_name,
                    public_key=base64.b64encode(raw).decode(),
                    origin=origin,
                ),
                None,
                None,
            )
        )

    def check_signers(self, signers: list[tuple[int, str, str]]) -> list[str]:
        """Problems of published heads' keys, each (size, key name, key hash): a head signed by
        a key the log never recorded as a signing key was not signed through this engine."""
        recorded = {k.key_hash for k in self.signing_keys()}
        return [
            f"published: the head of size {size} is signed by key {name} ({key_hash}), which the "
            "log never recorded as a signing key (`flowledger audit keys`)"
            for size, name, key_hash in signers
            if key_hash not in recorded
        ]

    def signing_keys(self) -> list[ev.SigningKeyIntroduced]:
        """Every key recorded as signing the log's heads, oldest first."""
        with self._parts.db.read_unchecked() as conn:
            commits = self._parts.streams.stream(conn, ev.SIGNING_KEYS_STREAM)
        return [
            e for _c, events in commits for e in events if isinstance(e, ev.SigningKeyIntroduced)
        ]

    def check_published(self, heads: list[TreeHead]) -> list[str]:
        """Problems of the log against tree heads published earlier (their signatures checked
        by the caller): empty when it still extends every one."""
        with self._parts.db.read_unchecked() as conn:
            return log_tree.check_heads(self._parts.store, conn, heads)

    def prove(self, position: int, *, size: int | None = None) -> InclusionProof:
        """Proof that the commit holding log `position` is in the tree of the first `size`
        commits (default: all), checkable without the database (`eventlog.proofs`)."""
        with self._parts.db.read_unchecked() as conn:
            return log_tree.prove_position(self._parts.store, conn, position, size)

    def prove_consistency(self, old_size: int, new_size: int | None = None) -> ConsistencyProof:
        """Proof that the tree of `new_size` commits (default: all) only extends the tree of
        `old_size` commits: nothing in it was changed, removed or reordered since."""
        with self._parts.db.read_unchecked() as conn:
            return log_tree.prove_consistency(self._parts.store, conn, old_size, new_size)

    def rebuild(
        self,
        projection: str = "all",
        *,
        history_level: str | None = None,
        progress: Callable[[int, int], None] | None = None,
        batch_events: int = 20_000,
    ) -> views.RebuildReport:
        """Rebuild the `runtime`, `history` or `all` projection tables from the log while
        commands go on: into shadow tables in checkpointed batches (an interrupted rebuild goes
        on from its checkpoint when run again with the same options), then swapped in, with the
        commits that arrived meanwhile, in one transaction. The replaced rows stay in
        `old_<table>` tables until `drop_old_tables()`. With `history_level`, history is built
        at that level and the level recorded: raising it fills history for the past."""
        return self._parts.rebuild.run(projection, history_level, progress, batch_events)

    def drop_old_tables(self) -> list[str]:
        """Drop the `old_<table>` copies the last rebuild kept; the names dropped."""
        return self._parts.rebuild.drop_old()

    def rebuild_projections(self) -> views.RebuildReport:
        """Rewrite every ACT_* table from the log, in one transaction: for a schema change, or
        tables someone edited by hand. Commands wait until it is done."""
        return self._parts.audit.rebuild_projections()


def _tree_head(head: TreeHead | str) -> TreeHead:
    """`SIZE:ROOT` (as `audit head` prints it) as a tree head; InvalidValue when it is not."""
    if isinstance(head, TreeHead):
        return head
    size, sep, root = head.strip().partition(":")
    try:
        valid = size.isdigit() and sep and len(root) == 64 and bytes.fromhex(root) is not None
    except ValueError:
        valid = False
    if not valid:
        raise InvalidValue(f"{head!r} is not a tree head SIZE:ROOT", field="since_head")
    return TreeHead(size=int(size), root=root.lower(), position=0)

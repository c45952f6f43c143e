"""Given events, when a command, then events: the domain run on its own, with no database.

Pure like the domain it drives: imports only flowledger's domain modules (never the engine, the
event log, the projections or SQLAlchemy). Ids come from a counter and time from a fixed clock,
so a run is reproducible and produced events compare exactly, without masking any field.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from flowledger.core import commands as cmd
from flowledger.core import decide, instance_start
from flowledger.core import events as ev
from flowledger.core.errors import FlowledgerError
from flowledger.core.evolve import evolve
from flowledger.core.limits import check_fetch
from flowledger.core.model import ProcessModel
from flowledger.core.parser import parse_bpmn
from flowledger.core.session import CommandContext, InstanceSession
from flowledger.core.state import InstanceState, copy_state

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
DEPLOYMENT_ID = "deployment-1"

_DEFINITIONS = """<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"
             xmlns:camunda="http://camunda.org/schema/1.0/bpmn"
             xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
             targetNamespace="http://flowledger.test/domain">
  {errors}
  <process id="{process_id}" isExecutable="true">
    {body}
  </process>
</definitions>
"""


def bpmn(process_id: str, body: str, *, errors: Mapping[str, str] | None = None) -> ProcessModel:
    """The model of one process whose elements are `body`; `errors` declares {error id: code}."""
    declared = "\n  ".join(
        f'<error id="{error_id}" errorCode="{code}"/>' for error_id, code in (errors or {}).items()
    )
    xml = _DEFINITIONS.format(errors=declared, process_id=process_id, body=body)
    (model,) = parse_bpmn(xml.encode(), f"{process_id}.bpmn").processes
    return model


def definition_id(model: ProcessModel) -> str:
    """The definition id the harness deploys every model under (version 1)."""
    return f"{model.id}:1:{DEPLOYMENT_ID}"


class SequentialIds:
    """An id source that counts: 'id-1', 'id-2', ... in the order decide asks for them."""

    def __init__(self, prefix: str = "id") -> None:
        self._prefix = prefix
        self._counter = itertools.count(1)

    def __call__(self) -> str:
        return f"{self._prefix}-{next(self._counter)}"


@dataclass(frozen=True)
class Like:
    """An expected event by its type and the fields a user notices; the rest may be anything."""

    type: type[ev.Event]
    fields: Mapping[str, Any]

    def matches(self, event: ev.Event) -> bool:
        return type(event) is self.type and all(
            getattr(event, name) == value for name, value in self.fields.items()
        )

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.fields.items())
        return f"{self.type.__name__}({shown}, ...)"


def like(event_type: type[ev.Event], **fields: Any) -> Like:
    unknown = set(fields) - set(event_type.__struct_fields__)
    if unknown:
        raise TypeError(f"{event_type.__name__} has no field(s) {sorted(unknown)}")
    return Like(event_type, fields)


Expected = ev.Event | Like


def _type_of(expected: Expected) -> type[ev.Event]:
    return expected.type if isinstance(expected, Like) else type(expected)


def _matches(expected: Expected, event: ev.Event) -> bool:
    return expected.matches(event) if isinstance(expected, Like) else expected == event


def _show(event: ev.Event) -> str:
    fields = msgspec.structs.asdict(event)
    fields.pop("v")
    return f"{type(event).__name__}({', '.join(f'{k}={v!r}' for k, v in fields.items())})"


def _compare(expected: tuple[Expected, ...], produced: list[ev.Event]) -> None:
    mismatch = len(expected) != len(produced) or not all(
        _matches(e, p) for e, p in zip(expected, produced, strict=False)
    )
    if mismatch:
        lines = ["expected:", *(f"  {e!r}" for e in expected), "produced:"]
        lines += [f"  {_show(p)}" for p in produced] or ["  (nothing)"]
        raise AssertionError("\n".join(lines))


def run_command(session: InstanceSession, model: ProcessModel, command: cmd.Command) -> None:
    """What the engine's handler of `command` asks of the domain, minus the database lookups
    (the instance is the session's; a model is deployed once, as version 1). A command on an
    existing instance goes through the domain's own table, as the engine's handlers do."""
    match command:
        case cmd.StartProcessInstance():
            instance_start.start_instance(
                session,
                model,
                definition_id=definition_id(model),
                definition_version=1,
                deployment_id=DEPLOYMENT_ID,
                business_key=command.business_key,
                variables=command.variables,
            )
        case cmd.FetchAndLock():
            _fetch_and_lock(session, command)
        case _:
            decide.decide_on(session, command)


def _fetch_and_lock(session: InstanceSession, command: cmd.FetchAndLock) -> None:
    """The engine's fetchAndLock within one instance: its open tasks of the requested topics,
    oldest first (the engine's query orders the same way when priorities are not used)."""
    durations = {t.topic_name: t.lock_duration for t in command.topics}
    check_fetch(command.worker_id, durations, command.max_tasks, session.ctx.now)
    candidates = [
        ext
        for ext in session.state.external_tasks.values()
        if ext.topic in durations and (command.task_ids is None or ext.id in command.task_ids)
    ]
    locked = 0
    for ext in candidates:
        if locked >= command.max_tasks:
            break
        if decide.lock_external_task(session, ext.id, command.worker_id, durations[ext.topic]):
            locked += 1


class Scenario:
    """One process instance driven through the domain: `given` facts, `when` a command, `then`
    the facts it produced. A `when` after a `then` continues from where the instance stands."""

    def __init__(self) -> None:
        self.ids = SequentialIds()
        self.now = NOW
        # what service tasks' expressions resolve beans against: {name: delegate}
        self.delegates: dict[str, Any] = {}
        self._model: ProcessModel | None = None
        self._state: InstanceState | None = None
        self._history: list[ev.Event] = []
        self._produced: list[ev.Event] | None = None
        self._error: FlowledgerError | None = None

    # -- given ---------------------------------------------------------------------------

    def given(self, model: ProcessModel, *events: ev.Event) -> Scenario:
        """The instance of `model` whose stream holds `events` (none: not started yet)."""
        self._model = model
        self._state = None
        for event in events:
            self._state = evolve(self._state, event)
        self._history = list(events)
        self._produced = None
        self._error = None
        return self

    def recorded(self, model: ProcessModel, *commands: cmd.Command) -> list[ev.Event]:
        """The events a fresh instance of `model` records for `commands`, as a `given` history.

        Commands that need generated ids (a task's) cannot be written before the run; follow
        with `when` steps for those."""
        state: InstanceState | None = None
        events: list[ev.Event] = []
        for command in commands:
            session = self._session(model, state)
            run_command(session, model, command)
            events += session.events
            state = session.state
        return events

    def advance(self, **delta: float) -> Scenario:
        """Move the clock (timedelta keywords) before the next `when`."""
        self.now += timedelta(**delta)
        return self

    # -- when ----------------------------------------------------------------------------

    def when(self, command: cmd.Command) -> Scenario:
        """Decide `command` on the current state. A domain error is kept for `then_raises`, and
        the rejected command changes nothing (the engine discards its events)."""
        model = self._require_model()
        session = self._session(model, copy_state(self._state) if self._state else None)
        try:
            run_command(session, model, command)
        except FlowledgerError as error:
            self._produced, self._error = None, error
            return self
        self._produced, self._error = session.events, None
        self._history += session.events
        self._state = session.state if session.started else None
        self._check_replay()
        return self

    # -- then ----------------------------------------------------------------------------

    def then(self, *expected: Expected) -> Scenario:
        """The produced events of the types named in `expected` are exactly those, in order;
        events of other types (executions, variables, ...) are not looked at."""
        if not expected:
            raise TypeError("then() needs expected events; use then_exactly() for none")
        produced = self._require_produced()
        kinds = {_type_of(e) for e in expected}
        _compare(expected, [p for p in produced if type(p) in kinds])
        return self

    def then_exactly(self, *expected: Expected) -> Scenario:
        """The command produced these events and no other."""
        _compare(expected, self._require_produced())
        return self

    def then_activities(
        self,
        *,
        started: Sequence[str] = (),
        completed: Sequence[str] = (),
        canceled: Sequence[str] = (),
    ) -> Scenario:
        """The activities the command started, completed and canceled, by activity id, in the
        order it did (what the history's activity instances show a user); all three compared."""
        produced = self._require_produced()
        activity_of = {
            e.activity_instance_id: e.activity_id
            for e in self._history
            if isinstance(e, ev.ActivityStarted)
        }
        actual = {
            "started": [e.activity_id for e in produced if isinstance(e, ev.ActivityStarted)],
            "completed": [
                activity_of[e.activity_instance_id]
                for e in produced
                if isinstance(e, ev.ActivityCompleted)
            ],
            "canceled": [
                activity_of[e.activity_instance_id]
                for e in produced
                if isinstance(e, ev.ActivityCanceled)
            ],
        }
        wanted = {
            "started": list(started),
            "completed": list(completed),
            "canceled": list(canceled),
        }
        if actual != wanted:
            raise AssertionError(f"activities: expected {wanted}, produced {actual}")
        return self

    def then_no(self, *event_types: type[ev.Event]) -> Scenario:
        """The command produced no event of these types (the instance did not end, ...)."""
        found = [p for p in self._require_produced() if type(p) in event_types]
        if found:
            raise AssertionError(f"unexpected: {[_show(p) for p in found]}")
        return self

    def then_raises(self, error_type: type[FlowledgerError], match: str = "") -> FlowledgerError:
        """The command was refused with `error_type`, its message matching `match` (a regex)."""
        if self._error is None:
            raise AssertionError(
                f"expected {error_type.__name__}, but the command was accepted, producing "
                f"{[_show(p) for p in self._require_produced()]}"
            )
        error = self._error
        if not isinstance(error, error_type) or not re.search(match, str(error)):
            raise AssertionError(
                f"expected {error_type.__name__} matching {match!r}, got "
                f"{type(error).__name__}: {error}"
            ) from error
        return error

    # -- what the instance holds, for writing the next command ---------------------------

    @property
    def state(self) -> InstanceState:
        if self._state is None:
            raise AssertionError("no instance: given no events and no start command yet")
        return self._state

    @property
    def instance_id(self) -> str:
        return self.state.id

    @property
    def history(self) -> list[ev.Event]:
        """Every event of the stream so far: the given ones and those of accepted commands."""
        return list(self._history)

    def task(self, activity_id: str) -> str:
        """The id of the open user task of `activity_id` (exactly one must be open)."""
        (task_id,) = [
            t.id for t in self.state.tasks.values() if t.task_definition_key == activity_id
        ]
        return task_id

    def external_task(self, activity_id: str) -> str:
        """The id of the open external task of `activity_id` (exactly one must be open)."""
        (task_id,) = [
            x.id for x in self.state.external_tasks.values() if x.activity_id == activity_id
        ]
        return task_id

    def activity_instance(self, activity_id: str) -> str:
        """The id of the activity instance of `activity_id` in the stream (exactly one)."""
        (found,) = [
            e.activity_instance_id
            for e in self._history
            if isinstance(e, ev.ActivityStarted) and e.activity_id == activity_id
        ]
        return found

    def open_activities(self) -> list[str]:
        """The activity ids with an open activity instance, sorted (scopes included)."""
        return sorted(ai.activity_id for ai in self.state.activity_instances.values())

    # -- plumbing ------------------------------------------------------------------------

    def _session(self, model: ProcessModel, state: InstanceState | None) -> InstanceSession:
        ctx = CommandContext(now=self.now, new_id=self.ids, delegates=self.delegates)
        return InstanceSession(state, model, ctx)

    def _require_model(self) -> ProcessModel:
        if self._model is None:
            raise AssertionError("when() before given(): no model")
        return self._model

    def _require_produced(self) -> list[ev.Event]:
        if self._error is not None:
            raise AssertionError(
                f"the command was refused: {type(self._error).__name__}: {self._error}"
            ) from self._error
        if self._produced is None:
            raise AssertionError("then() before when(): no command was decided")
        return self._produced

    def _check_replay(self) -> None:
        """Live state and the state folded from the whole stream must agree: evolve is the only
        way state changes, in decide and in replay."""
        replayed: InstanceState | None = None
        for event in self._history:
            replayed = evolve(replayed, event)
        if replayed != self._state:
            raise AssertionError("replaying the stream gives another state than the live run")

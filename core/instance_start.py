"""Starting a process instance: its first event (`announce_start`, where its time to live and
removal time are decided), its start variables, then its start event, or, with instructions,
where they say (Camunda's ProcessInstantiationBuilder). A restart (core.restart) starts through
the same first event and instructions.

Decide-side: every change is an emitted event.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from . import commands as cmd
from . import events as ev
from .errors import Rejected
from .flow import Flow
from .limits import MAX_BUSINESS_KEY, check_text, check_variable_count
from .model import EventSpec, ProcessModel
from .modification import first_activity, start_by_instructions
from .scope import set_variable_local
from .session import InstanceSession


def start_instance(
    session: InstanceSession,
    model: ProcessModel,
    *,
    definition_id: str,
    definition_version: int,
    deployment_id: str,
    business_key: str | None,
    variables: Mapping[str, Any],
    start_activity_id: str | None = None,
    super_process_instance_id: str | None = None,
    super_execution_id: str | None = None,
    root_process_instance_id: str | None = None,
    call_depth: int = 0,
    triggered: bool = False,
    removal_time: datetime | None = None,
    instructions: Sequence[cmd.StartInstruction] = (),
    skip_custom_listeners: bool = False,
    skip_io_mappings: bool = False,
) -> str:
    """Start the instance at `start_activity_id` (a message start event) or else at the
    process's initial start event; `triggered`: by a message, signal or timer it caught.
    `removal_time`: a called instance's root's, under removal-time strategy start.
    With `instructions`, no start event runs: the instance starts where they say (Camunda's
    ProcessInstantiationBuilder), skipping listeners and I/O mappings if asked."""
    check_variable_count(variables)
    start = (
        first_activity(model, instructions[0])
        if instructions
        else start_activity_id or model.start_events.get(model.id)
    )
    if start is None:
        events = sorted({*model.message_starts, *model.signal_starts})
        raise Rejected(
            f"Process '{model.id}' has no none start event: it starts by one of its messages "
            f"or signals ({', '.join(events)})"
        )
    instance_id = announce_start(
        session,
        model,
        definition_id=definition_id,
        definition_version=definition_version,
        deployment_id=deployment_id,
        business_key=business_key,
        start_activity_id=start,
        super_process_instance_id=super_process_instance_id,
        super_execution_id=super_execution_id,
        root_process_instance_id=root_process_instance_id,
        call_depth=call_depth,
        triggered=triggered,
        removal_time=removal_time,
    )
    spec = model.activities[start].spec
    if not instructions and isinstance(spec, EventSpec) and spec.initiator:
        # Camunda's camunda:initiator: who started the instance (the authenticated user), or null
        set_variable_local(session, instance_id, spec.initiator, session.ctx.actor)
    for name, value in variables.items():
        set_variable_local(session, instance_id, name, value)
    # The start variables are there before the process: its conditional events see them when
    # their scopes start, not as changes (Camunda fires a true event subprocess start once).
    session.variable_changes.clear()
    if instructions:
        session.skip_custom_listeners = skip_custom_listeners
        session.skip_io_mappings = skip_io_mappings
        start_by_instructions(Flow(session), instructions)
    else:
        Flow(session).start()
    return instance_id


def announce_start(
    session: InstanceSession,
    model: ProcessModel,
    *,
    definition_id: str,
    definition_version: int,
    deployment_id: str,
    business_key: str | None,
    start_activity_id: str,
    super_process_instance_id: str | None = None,
    super_execution_id: str | None = None,
    root_process_instance_id: str | None = None,
    call_depth: int = 0,
    triggered: bool = False,
    removal_time: datetime | None = None,
    restarted_from: str | None = None,
    restarted_count: int = 0,
    first_restarted: bool = False,
) -> str:
    """The instance's first event, its time to live and removal time decided here; returns its
    new id. `restarted_*`: a restart's (core.restart)."""
    check_text("businessKey", business_key, MAX_BUSINESS_KEY)
    ctx = session.ctx
    instance_id = ctx.new_id()
    ttl = model.history_ttl if model.history_ttl is not None else ctx.history_ttl_days
    if root_process_instance_id is None and ctx.removal_time_strategy == "start":
        removal_time = None if ttl is None else ctx.now + timedelta(days=ttl)
    session.emit(
        ev.ProcessInstanceStarted(
            process_instance_id=instance_id,
            definition_id=definition_id,
            definition_key=model.id,
            definition_version=definition_version,
            deployment_id=deployment_id,
            business_key=business_key,
            start_activity_id=start_activity_id,
            time=ctx.now,
            start_user_id=ctx.actor,
            super_process_instance_id=super_process_instance_id,
            super_execution_id=super_execution_id,
            root_process_instance_id=root_process_instance_id,
            history_ttl_days=ttl,
            triggered=triggered,
            call_depth=call_depth,
            removal_time=removal_time,
            restarted_from=restarted_from,
            restarted_count=restarted_count,
            first_restarted=first_restarted,
        )
    )
    return instance_id

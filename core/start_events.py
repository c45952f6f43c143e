"""Message, signal and conditional start events: the definition-level subscriptions that start
an instance when their message is correlated, their signal broadcast or their condition is true
on a condition evaluation.

Such a start event belongs to a process definition, not to an instance: its subscription
lives in the stream of the definition's deployment (subscribed at deployment, unsubscribed when a
newer version of the definition is deployed or the deployment is deleted). Pure: the engine hands
in what it read and appends the events these functions return.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from datetime import datetime

from . import events as ev
from .conditional_starts import conditional_starts
from .errors import Rejected
from .model import ProcessModel


def check_names(models: Mapping[str, ProcessModel], taken: Mapping[str, str]) -> None:
    """No two definitions wait for one message at their start (a message must name the process
    it starts): neither two of this deployment nor one of it and the latest version of another
    key (`taken`: message name -> the key whose start waits for it)."""
    owner: dict[str, str] = {}
    for model in models.values():
        for name in model.message_starts:
            other = owner.get(name) or taken.get(name)
            if other is not None and other != model.id:
                raise Rejected(
                    f"Cannot deploy process definition '{model.id}': there already is a message "
                    f"event subscription for the message with name '{name}' (process '{other}')"
                )
            owner[name] = model.id


def _starts(model: ProcessModel) -> tuple[tuple[str, Mapping[str, str]], ...]:
    return (("message", model.message_starts), ("signal", model.signal_starts))


def subscribe(
    model: ProcessModel, definition_id: str, now: datetime, new_id: Callable[[], str]
) -> list[ev.Event]:
    """The subscriptions of the definition's message and signal start events, by name, then of
    its conditional start events."""
    named: list[ev.Event] = [
        ev.StartEventSubscribed(
            subscription_id=new_id(),
            event_type=event_type,
            definition_id=definition_id,
            activity_id=activity_id,
            event_name=name,
            time=now,
        )
        for event_type, starts in (
            ("message", model.message_starts),
            ("signal", model.signal_starts),
        )
        for name, activity_id in sorted(starts.items())
    ]
    return named + [
        # Conditional start events are evaluated on request (POST /condition): their
        # subscriptions have no name, only the start event.
        ev.StartEventSubscribed(
            subscription_id=new_id(),
            event_type="conditional",
            definition_id=definition_id,
            activity_id=start.id,
            event_name="",
            time=now,
        )
        for start in conditional_starts(model)
    ]


def unsubscribe(subscription_ids: Iterable[str], now: datetime) -> list[ev.Event]:
    return [
        ev.StartEventUnsubscribed(subscription_id=subscription_id, time=now)
        for subscription_id in sorted(subscription_ids)
    ]

"""What every handler's decision may ask of other instances, done after it in the same unit of
work, in the order asked: signals to broadcast, called instances to start, end, fail or cancel.
What those do may ask for more; more than MAX_EFFECTS in one command is refused as a loop.
"""

from __future__ import annotations

from flowledger.core.errors import ProcessEngineError
from flowledger.core.session import (
    CallEnded,
    CallEscalated,
    CallFailed,
    CancelCall,
    StartCall,
    ThrownSignal,
)
from flowledger.engine.commands.handlers import calls, escalations, signals
from flowledger.engine.commands.unit_of_work import UnitOfWork

MAX_EFFECTS = 1_000


def settle(unit: UnitOfWork) -> None:
    outbox = unit.ctx.outbox
    done = 0
    while outbox:
        effect = outbox.pop(0)
        done += 1
        if done > MAX_EFFECTS:
            raise ProcessEngineError(
                f"the command asked more than {MAX_EFFECTS} things of other instances (signals "
                "broadcast, instances called): the signal events or call activities form a loop"
            )
        if isinstance(effect, ThrownSignal):
            signals.broadcast(unit, effect)
        elif isinstance(effect, StartCall):
            calls.start(unit, effect)
        elif isinstance(effect, CallEnded):
            calls.ended(unit, effect)
        elif isinstance(effect, CallFailed):
            calls.failed(unit, effect)
        elif isinstance(effect, CancelCall):
            calls.cancel(unit, effect)
        elif isinstance(effect, CallEscalated):
            escalations.escalated(unit, effect)

"""Event exporters: followers that stream every committed event, in log order, as CloudEvents
1.0 JSON to a JSON-lines file, a NATS JetStream stream or an HTTP webhook, each with its stored
position (`projection_checkpoint` row `exporter:<name>`).

`cloudevents` maps (pure); `targets` names the targets, one module each; `runner` is the follower
loop; `status` reads the stored positions. `Engine.start_exporter` wires one up.
"""

from .runner import ExporterHealth, ExporterSettings
from .targets import TargetError, TargetSpec

__all__ = ["ExporterHealth", "ExporterSettings", "TargetError", "TargetSpec"]

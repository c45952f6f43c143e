"""engine-rest: the process-definition resource (to be written)."""

from typing import Any

routes: list[Any] = []

"""engine-rest: the process-instance resource (to be written)."""

from typing import Any

routes: list[Any] = []

"""engine-rest: the external-task resource (to be written)."""

from typing import Any

routes: list[Any] = []

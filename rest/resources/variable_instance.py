"""engine-rest: the variable-instance resource (to be written)."""

from typing import Any

routes: list[Any] = []

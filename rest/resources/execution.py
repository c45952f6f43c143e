"""engine-rest: the execution resource (to be written)."""

from typing import Any

routes: list[Any] = []

"""engine-rest: the history resource (to be written)."""

from typing import Any

routes: list[Any] = []

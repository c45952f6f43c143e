"""engine-rest: the deployment resource (to be written)."""

from typing import Any

routes: list[Any] = []

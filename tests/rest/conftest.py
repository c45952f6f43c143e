"""REST fixtures: one live server per test module, on a fresh database of the selected kind.

Tests in a module share the server and database: each deploys what it needs and looks only at
the instances it started.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from flowledger import Engine
from tests.support import fresh_database, selected_kind

from .server import LiveServer, live_server


@pytest.fixture(scope="module")
def rest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with (
        fresh_database(selected_kind(), tmp_path_factory.mktemp("rest")) as url,
        # The REST tests cover every history endpoint, /history/detail too: level full.
        Engine(url, history_level="full") as engine,
        live_server(engine) as server,
    ):
        yield server

"""The domain loads without the engine: importing it pulls in no database, web or storage code."""

from __future__ import annotations

import subprocess
import sys

DOMAIN = [
    "flowledger.core.commands",
    "flowledger.core.decide",
    "flowledger.core.deployments",
    "flowledger.core.events",
    "flowledger.core.evolve",
    "flowledger.core.flow",
    "flowledger.core.parser",
    "flowledger.core.session",
    "flowledger.core.state",
    "flowledger.core.views",
]
NOT_LOADED = ["sqlalchemy", "litestar", "alembic", "flowledger.engine", "flowledger.eventlog"]
NOT_LOADED += ["flowledger.projections"]


def test_importing_the_domain_loads_no_engine_storage_or_web_module() -> None:
    script = (
        "import sys\n"
        + "".join(f"import {module}\n" for module in DOMAIN)
        + f"print(sorted(m for m in {NOT_LOADED!r} if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_public_api_still_offers_the_engine() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from flowledger import ConcurrencyError, Engine; print(Engine)"],
        capture_output=True,
        text=True,
    )

    assert done.returncode == 0, done.stderr
    assert "flowledger.engine" in done.stdout


def test_the_import_contract_covers_the_whole_domain_package() -> None:
    """CI's import-linter contract holds all of core/ pure, and forbids the network, processes
    and everything of ours above the domain: a new module in core/ is covered the day it lands."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    contracts = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["importlinter"]
    (pure,) = [c for c in contracts["contracts"] if c["name"].startswith("The domain is pure")]

    assert pure["source_modules"] == ["flowledger.core"]
    for forbidden in ("flowledger.engine", "sqlalchemy", "httpx", "socket", "subprocess"):
        assert forbidden in pure["forbidden_modules"]
    assert not list((root / "core").glob("engine/*.py"))

"""The wheel as a user installs it: one top-level package, `flowledger`, working from any directory.

Builds the wheel from a copy of the source tree, installs it into a fresh virtual environment and
runs the engine (async history included: its follower is a child process started by module name)
and the `flowledger` command from a directory that holds packages of its own named `core`, `tools`
and `migrations` — the names flowledger's folders have in the source tree. Each of those packages
fails loudly when imported, so a single import by the wrong name fails the test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parents[2]
# What the wheel is built from: the source folders and the project files (no venv, no caches).
SHIPPED = ["pyproject.toml", "README.md", "api", "core", "eventlog", "projections", "migrations"]
SHIPPED += ["engine", "rest", "tools"]
PIP = [sys.executable, "-m", "pip"]
FOREIGN_PACKAGES = ["core", "engine", "tools", "migrations", "eventlog", "projections", "rest"]


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    workdir: Path

    def run(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FLOWLEDGER_DB")}
        return subprocess.run(
            args,
            cwd=self.workdir,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=120,
        )

    @property
    def python(self) -> str:
        return str(self.venv / "bin" / "python")

    @property
    def command(self) -> str:
        return str(self.venv / "bin" / "flowledger")


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    root = tmp_path_factory.mktemp("packaging")
    source = root / "source"
    source.mkdir()
    for name in SHIPPED:
        origin = SOURCE / name
        if origin.is_dir():
            shutil.copytree(
                origin, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
            )
        else:
            shutil.copy2(origin, source / name)
    dist = root / "dist"
    built = subprocess.run(
        [*PIP, "wheel", "--no-deps", "--no-build-isolation", "-q", str(source), "-w", str(dist)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = dist.glob("flowledger-*.whl")

    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    installing = subprocess.run(
        [*PIP, "--python", str(venv / "bin" / "python"), "install", "-q", "--no-deps", str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installing.returncode == 0, installing.stderr
    # The dependencies (SQLAlchemy, msgspec, …) come from the test environment, appended after
    # the new venv's own site-packages: a plain path line, so that environment's editable
    # flowledger (an import hook set up by a .pth file there) is not loaded.
    new_site = Path(
        subprocess.check_output(
            [
                str(venv / "bin" / "python"),
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['purelib'])",
            ],
            text=True,
        ).strip()
    )
    (new_site / "zz_test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    workdir = root / "project"
    for name in FOREIGN_PACKAGES:
        package = workdir / name
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(
            f"raise ImportError('the user project\\'s own {name} package was imported')\n"
        )
    (workdir / "tools" / "cli.py").write_text("raise ImportError('the user\\'s tools.cli')\n")
    yield Installed(wheel=wheel, venv=venv, workdir=workdir)


def test_the_wheel_holds_one_top_level_package_and_no_benchmark(installed: Installed) -> None:
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = wheel.namelist()
        top_level = wheel.read(
            next(n for n in names if n.endswith(".dist-info/top_level.txt"))
        ).decode()
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"flowledger"}
    assert top_level.split() == ["flowledger"]
    assert not [name for name in names if "/bench/" in name]
    for expected in (
        "flowledger/__init__.py",
        "flowledger/py.typed",
        "flowledger/engine/workers/history_worker.py",
        "flowledger/engine/workers/follower_process.py",
        "flowledger/migrations/script.py.mako",
        "flowledger/migrations/versions/0001_event_log.py",
        "flowledger/tools/examples/invoice.bpmn",
    ):
        assert expected in names


def test_the_wheel_holds_every_module_of_the_source_tree(installed: Installed) -> None:
    """A package folder missing from pyproject's list installs nothing and fails at import."""
    with zipfile.ZipFile(installed.wheel) as wheel:
        names = set(wheel.namelist())
    source = Path(__file__).resolve().parents[2]
    folders = {"api": "flowledger"} | {
        name: f"flowledger/{name}"
        for name in ("core", "engine", "eventlog", "projections", "migrations", "rest", "tools")
    }
    missing = [
        f"{installed_as}/{module.relative_to(source / folder)}"
        for folder, installed_as in folders.items()
        for module in (source / folder).rglob("*.py")
        if "bench" not in module.relative_to(source / folder).parts
        and f"{installed_as}/{module.relative_to(source / folder)}" not in names
    ]
    assert missing == []


ENGINE_SCRIPT = textwrap.dedent(
    """
    from importlib import resources

    from flowledger import Engine

    invoice = (resources.files("flowledger.tools") / "examples" / "invoice.bpmn").read_bytes()
    with Engine("sqlite:///engine.db", history_mode="async") as engine:
        engine.deploy({"invoice.bpmn": invoice})
        instance = engine.start_process_instance(
            "invoice", {"amount": 1250, "invoiceNumber": "INV-1"}, business_key="A"
        )
        for task in engine.tasks(process_instance_id=instance.id):
            engine.complete_task(task.id, {"approved": True})
        engine.flush_history()
        health = engine.history_health()
        history = engine.history_service.historic_process_instances()
        print(len(history), history[0].business_key, health.mode, health.follower, health.lag)
    """
)


def test_the_engine_runs_with_async_history_beside_a_users_own_core_tools_and_migrations(
    installed: Installed,
) -> None:
    done = installed.run(installed.python, "-c", ENGINE_SCRIPT)

    assert done.returncode == 0, done.stderr
    # history written by the follower process, which is running and has caught up
    assert done.stdout.split() == ["1", "A", "async", "running", "0"]
    assert "imported" not in done.stderr
    assert "Warning" not in done.stderr  # e.g. runpy's, had the follower's module loaded twice


def test_the_flowledger_command_runs_from_that_directory(installed: Installed) -> None:
    db = "sqlite:///cli.db"
    example = installed.run(installed.command, "--db", db, "example")
    assert example.returncode == 0, example.stderr
    assert "everything agrees" in example.stdout

    # global options after the subcommand, as the README writes `flowledger serve --db URL`
    tasks = installed.run(installed.command, "tasks", "--db", db)
    assert tasks.returncode == 0, tasks.stderr
    assert "(no open tasks)" in tasks.stdout

    as_module = installed.run(installed.python, "-m", "flowledger", "--help")
    assert as_module.returncode == 0, as_module.stderr
    assert "serve" in as_module.stdout


def test_bench_says_it_runs_from_a_source_checkout(installed: Installed) -> None:
    bench = installed.run(installed.command, "bench", "--quick")

    assert bench.returncode == 2
    assert "source checkout" in bench.stderr
    assert "Traceback" not in bench.stderr

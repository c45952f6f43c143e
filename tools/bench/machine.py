"""What the benchmark ran on: CPU, cores, Python, SQLite, SpiffWorkflow, flowledger's git commit.

Read-only look-ups; a fact that cannot be found is reported as None, never guessed.
"""

from __future__ import annotations

import os
import platform
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from . import peer

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def cpu_model() -> str | None:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or None
    for line in text.splitlines():
        if line.startswith("model name"):
            return line.partition(":")[2].strip()
    return None


def _git(*args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True, timeout=10
    ).stdout.strip()


def git_commit() -> str | None:
    """flowledger's commit, with `+dirty` when the working tree has uncommitted changes."""
    try:
        commit = _git("rev-parse", "--short=12", "HEAD")
        dirty = _git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + ("+dirty" if dirty else "")


def describe() -> dict[str, Any]:
    return {
        "cpu_model": cpu_model(),
        "nproc": len(os.sched_getaffinity(0))
        if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "sqlite": sqlite3.sqlite_version,
        "spiffworkflow": peer.version(),
        "flowledger_commit": git_commit(),
    }

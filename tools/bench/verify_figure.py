"""`Engine.verify()` over a big database: wall time and peak memory of the whole check.

Reuses the cached cold-start database (`cold_start.ensure_database`) and runs verify in a child
process on a copy, so the peak resident size is verify's own and the cached file stays as built.
`python -m tools.bench.verify_figure --finished 45000 --active 5000` prints the figure as JSON.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from flowledger.tools.progress import Progress

from . import cold_start
from .errors import BenchError
from .features import detect


@dataclass(frozen=True)
class VerifyFigures:
    finished_instances: int
    active_instances: int
    database_bytes: int
    commits: int
    rows_compared: int
    problems: int
    seconds: float
    peak_rss_mb: float


def measure(db: cold_start.ColdDatabase, workdir: Path, progress: Progress) -> VerifyFigures:
    progress.phase(f"engine: verify over {db.finished:,} finished + {db.active:,} active")
    copy = workdir / "verify.db"
    shutil.copyfile(db.path, copy)
    try:
        child = subprocess.run(
            [sys.executable, "-m", "flowledger.tools.bench.verify_figure", "--child", str(copy)],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        copy.unlink(missing_ok=True)
    if child.returncode != 0:
        raise BenchError(f"verify over {db.path} failed: {child.stderr.strip()[-2000:]}")
    found = json.loads(child.stdout)
    progress.tick()
    return VerifyFigures(
        finished_instances=db.finished,
        active_instances=db.active,
        database_bytes=db.path.stat().st_size,
        **found,
    )


def _child(path: str) -> None:
    from flowledger import Engine  # imported here: the parent only copies files and waits

    engine = Engine(f"sqlite:///{path}")
    try:
        started = time.perf_counter()
        report = engine.verify()
        seconds = time.perf_counter() - started
    finally:
        engine.close()
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kilobytes on Linux
    print(
        json.dumps(
            {
                "commits": report.commits_checked,
                "rows_compared": report.rows_compared,
                "problems": len(report.problems),
                "seconds": round(seconds, 1),
                "peak_rss_mb": round(peak_kb / 1024, 1),
            }
        )
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.bench.verify_figure")
    parser.add_argument("--finished", type=int, default=45_000)
    parser.add_argument("--active", type=int, default=5_000)
    parser.add_argument("--cache-dir", type=Path, default=Path(".bench-cache"))
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(args.child)
        return
    progress = Progress(1)
    db = cold_start.ensure_database(args.cache_dir, args.finished, args.active, detect(), progress)
    workdir = args.workdir or args.cache_dir
    figures = measure(db, workdir, progress)
    progress.finish()
    print(json.dumps(asdict(figures), indent=2))


if __name__ == "__main__":
    main()

"""List pages at scale: how long engine-rest's list and count endpoints take on a big database.

`python -m flowledger.tools.bench.list_pages --db URL --instances 100000` fills (once) a database
with N instances of four process definitions in the shape a running installation has: started
over 100 days at a steady rate, user tasks with candidate groups, claimed by some users and not
others, external tasks, business keys, a few variables each; most instances finished, the rest
waiting (the recent ones, and some that were left lying). Then it times every list endpoint a
Camunda client pages through (Cockpit's and Tasklist's sort orders; first page and
`firstResult=5000`, `maxResults=50`), their `/count` twins and POST query forms, through the
served app in-process (`rest.create_app`, Litestar's test client: the HTTP stack without a
socket), and prints median and p95 per endpoint, the statements each request ran, and the plans
(EXPLAIN) of the statements behind pages over the target. The web cockpit's page data are timed
the same way, as a table of their own (`cockpit_pages`): the requests its dashboard, a definition,
the instance search and one instance with its time slider send (for a typical instance and for
one of 10,000 events).

The database is built through the engine on SQLite (synchronous OFF, asynchronous history) and
cached under `--cache-dir`; a PostgreSQL or MariaDB URL gets the cached rows copied in (the rows
the engine wrote, byte for byte; then VACUUM ANALYZE, ANALYZE TABLE, as autovacuum and InnoDB's
statistics would). A database already holding the benchmark's data for N is reused as it is;
one holding anything else is refused. The benchmark reads only, except that opening the engine
migrates the schema to the newest revision.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from flowledger.tools.progress import Progress

from ..errors import BenchError
from .build import ensure_cached
from .database import prepare, redacted
from .pages import PAGE_SIZE
from .report import report
from .timing import GROUPS, run


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m flowledger.tools.bench.list_pages",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument(
        "--db",
        help="SQLAlchemy URL of the database to fill (or reuse) and "
        "time (default: a working copy of the cached SQLite file)",
    )
    parser.add_argument("--instances", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=20, help="timed requests per page")
    parser.add_argument("--target-ms", type=float, default=10.0)
    parser.add_argument(
        "--explain-over-ms",
        type=float,
        default=None,
        help="print plans of pages slower than this (default: the target)",
    )
    parser.add_argument("--only", help="time only endpoints whose 'METHOD /path' contains this")
    parser.add_argument(
        "--pages",
        choices=("all", *GROUPS),
        default="all",
        help="the list pages, the cockpit's page data, or both (default)",
    )
    parser.add_argument("--cache-dir", type=Path, default=Path(".bench-cache"))
    parser.add_argument("--json", type=Path, help="write the timings to this file")
    parser.add_argument(
        "--compare",
        type=Path,
        help="a --json file of an earlier run: its medians in a column beside these",
    )
    args = parser.parse_args(argv)
    if args.instances < 1000:
        parser.error("--instances: at least 1000")
    progress = Progress(1)
    try:
        url = args.db
        if url is None:
            cached = ensure_cached(args.cache_dir, args.instances, args.seed, progress)
            copy = args.cache_dir / f"{cached.stem}.run.db"
            shutil.copyfile(cached, copy)
            url = f"sqlite:///{copy}"
        else:
            prepare(url, args.cache_dir, args.instances, args.seed, progress)
        before = None
        if args.compare is not None:
            before = {t["key"]: t for t in json.loads(args.compare.read_text())["timings"]}
        explain_over = args.target_ms if args.explain_over_ms is None else args.explain_over_ms
        groups = GROUPS if args.pages == "all" else (args.pages,)
        timings, notes = run(url, args.repeat, explain_over, args.only, progress, groups)
    except BenchError as exc:
        print(f"list_pages: {exc}", file=sys.stderr)
        return 1
    progress.finish()
    print(
        f"# list pages: {redacted(url)}, {args.instances:,} instances, "
        f"maxResults={PAGE_SIZE}, {args.repeat} requests each\n"
    )
    print(report(timings, args.target_ms, before, notes))
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {
                    "db": redacted(url),
                    "instances": args.instances,
                    "timings": [{**asdict(t), "key": t.key} for t in timings],
                },
                indent=2,
            )
        )
    return 0

"""The harness's one error type: a benchmark could not run as asked; the message says why."""

from __future__ import annotations


class BenchError(Exception):
    """A workload did not complete, a database is not what the harness built, an option is wrong."""


class NotAvailable(BenchError):
    """The system cannot run this workload at all (e.g. the engine refuses the model at deploy)."""

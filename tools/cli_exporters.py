"""`flowledger exporters …`: the event exporters' stored positions, read from the database (so it
answers for whichever server runs them, and for stopped ones). The exporters themselves run in
`flowledger serve --export URL`."""

from __future__ import annotations

from .cli_app import app, open_engine, output


@app.group("exporters")
def exporters() -> None:
    """Event exporters (serve --export): their positions, lag and status."""


@exporters.command("status")
def exporters_status() -> None:
    """Every exporter's stored position, its lag behind the log's head, status, when it was
    last updated and why it fails (when it does)."""
    out = output()
    with open_engine() as engine:
        found = engine.exporters_status()
    if out.json:
        out.data(found)
        return
    out.table(
        ["name", "position", "lag", "status", "updated", "detail"],
        [(e.name, e.position, e.lag, e.status, e.updated, e.detail) for e in found],
        empty="no exporter has run on this database (flowledger serve --export URL)",
    )

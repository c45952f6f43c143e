"""The data protection officer's commands: what the engine keeps of a data subject
(`flowledger personal-data SUBJECT`), and its erasure (`flowledger erase SUBJECT --reason`).
Registered on `tools.cli.app`.
"""

from __future__ import annotations

import click

from .cli_app import app, as_user, open_engine, output
from .output import when


@app.command("personal-data")
@click.argument("subject")
def personal_data(subject: str) -> None:
    """The keys a data subject's personal values are sealed with: one per instance, and whether
    (when, by whom, why) each was erased. Never the keys' bytes."""
    out = output()
    with open_engine() as engine:
        found = engine.personal_data_service.subject(subject)
    if out.json:
        out.data(found)
        return
    out.table(
        ["instance", "created", "erased", "by", "reason"],
        [
            (
                k.process_instance_id,
                when(k.created_at),
                when(k.erased_at),
                k.erased_by or "",
                k.reason or "",
            )
            for k in found.keys
        ],
    )


@app.command()
@click.argument("subject")
@click.option("--reason", required=True, help="Why (kept in the log with who erased it).")
def erase(subject: str, reason: str) -> None:
    """Erase a data subject's personal data (crypto-shredding): destroy the keys its values are
    sealed with in the log. The chain and the proofs still verify; the values read as erased
    everywhere, and rebuilt tables hold nothing of them."""
    out = output()
    with open_engine() as engine:
        done = as_user(engine).personal_data_service.erase(subject, reason)
    if out.json:
        out.data(done)
        return
    if done.already_erased:
        out.print(f"{subject}: erased before; nothing left to erase")
        return
    out.print(
        f"{subject}: erased {done.values} value(s) in {len(done.process_instance_ids)} "
        "instance(s); the keys are destroyed"
    )
    if not done.wal_truncated:
        out.print(
            "warning: SQLite's WAL stayed busy and could not be truncated: run "
            "`flowledger erase` again when no reader holds the database open"
        )

"""The Merkle tree over the log kept as it grows: `log_head.tree_size` and `log_head.frontier`
(the tree's right edge, written by every append with the log head), and `merkle_tile`, the
tree's stored levels that a follower writes from the log (issue 34).

The frontier of a log that exists already is computed here from its commits' hashes, read in
position order a batch at a time (memory O(log n): one hash per set bit of the size). The tiles
are not: the follower (or the first proof asked for) builds them from the log.

Revision ID: 0018_merkle_tree
Revises: 0017_cockpit_indexes
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from flowledger.eventlog.merkle import Frontier, leaf_hash

revision = "0018_merkle_tree"
down_revision = "0017_cockpit_indexes"
branch_labels = None
depends_on = None

_BATCH = 5000


def upgrade() -> None:
    op.add_column(
        "log_head", sa.Column("tree_size", sa.BigInteger, nullable=False, server_default="0")
    )
    op.add_column("log_head", sa.Column("frontier", sa.LargeBinary))
    op.create_table(
        "merkle_tile",
        sa.Column("level", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("idx", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("hashes", sa.LargeBinary, nullable=False),
        sa.Column("positions", sa.LargeBinary),
        sa.Column("last_position", sa.BigInteger, nullable=False),
    )
    op.create_index("ix_merkle_tile_position", "merkle_tile", ["level", "last_position"])
    _fill_frontier(op.get_bind())


def _fill_frontier(conn: sa.Connection) -> None:
    frontier, after = Frontier(), 0
    page = sa.text(
        "SELECT first_position, hash FROM event_log WHERE first_position > :after "
        "ORDER BY first_position LIMIT :n"
    )
    while rows := conn.execute(page, {"after": after, "n": _BATCH}).all():
        for _first, digest in rows:
            frontier.append_hash(leaf_hash(bytes.fromhex(digest)))
        after = rows[-1][0]
    if frontier.size:
        conn.execute(
            sa.text("UPDATE log_head SET tree_size = :size, frontier = :frontier WHERE id = 1"),
            {"size": frontier.size, "frontier": frontier.encode()},
        )


def downgrade() -> None:
    op.drop_index("ix_merkle_tile_position", table_name="merkle_tile")
    op.drop_table("merkle_tile")
    with op.batch_alter_table("log_head") as batch:
        batch.drop_column("frontier")
        batch.drop_column("tree_size")

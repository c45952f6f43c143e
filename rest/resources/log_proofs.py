"""flowledger extensions for auditors who check the log without trusting the database: the Merkle
tree head over every commit, an inclusion proof of a log position, a consistency proof between
two tree sizes — the JSON documents `flowledger audit prove/consistency` writes, which
`flowledger audit check` verifies offline. Served under `/flowledger/v1` (rest/app.py).

Thin: parse the parameters, ask the engine's audit service; the proofs are `eventlog.proofs`'s.
"""

from __future__ import annotations

from typing import Any

from litestar import get
from litestar.di import NamedDependency

from flowledger.engine import Engine
from flowledger.eventlog.proofs import ConsistencyProof, InclusionProof, TreeHead

from ..errors import invalid
from ..listing import AnyRequest


def _count(request: AnyRequest, name: str, *, required: bool, least: int) -> int | None:
    text = request.query_params.get(name)
    if text is None:
        if required:
            raise invalid(f"Query parameter '{name}' is required")
        return None
    if not (text.isascii() and text.isdigit()) or int(text) < least:
        raise invalid(
            f"Cannot set query parameter '{name}' to value '{text}': expected a whole number of "
            f"at least {least}"
        )
    return int(text)


@get("/log/tree-head", sync_to_thread=True)
def get_tree_head(engine: NamedDependency[Engine]) -> TreeHead:
    """The Merkle tree head over every commit: size, root (hex), last log position."""
    return engine.audit_service.tree_head()


@get("/log/proof", sync_to_thread=True)
def get_inclusion_proof(engine: NamedDependency[Engine], request: AnyRequest) -> InclusionProof:
    """`position`: the log position proven; `size` (optional): the tree head's size (default:
    every commit). The commit holding the position and its path to the root."""
    position = _count(request, "position", required=True, least=1)
    assert position is not None
    size = _count(request, "size", required=False, least=1)
    return engine.audit_service.prove(position, size=size)


@get("/log/consistency", sync_to_thread=True)
def get_consistency_proof(engine: NamedDependency[Engine], request: AnyRequest) -> ConsistencyProof:
    """`from`: the older tree's size; `to` (optional): the newer one's (default: every
    commit). Proof that the newer tree only extends the older."""
    old = _count(request, "from", required=True, least=0)
    assert old is not None
    new = _count(request, "to", required=False, least=0)
    return engine.audit_service.prove_consistency(old, new)


routes: list[Any] = [get_tree_head, get_inclusion_proof, get_consistency_proof]

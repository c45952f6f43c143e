"""What the definition resources (process, decision, decision requirements) answer alike: a
definition's XML read from its deployment's resources, and the 404 of a tenant-id path (this
engine has no tenants)."""

from __future__ import annotations

from flowledger.engine import Engine
from flowledger.projections.queries import definitions as repository

from ..errors import not_found
from ..listing import AnyRequest


def resource_text(engine: Engine, deployment_id: str, resource_name: str, *, missing: str) -> str:
    """The deployed resource a definition came from, as text; 404 saying `missing` if gone."""
    with engine.reading() as conn:
        data = repository.resource_bytes_named(conn, deployment_id, resource_name)
    if data is None:
        raise not_found(missing)
    return data.decode("utf-8", errors="replace")


def no_tenant(kind: str, key: str, request: AnyRequest) -> Exception:
    """Camunda's 404 for `/key/{key}/tenant-id/{tenant-id}/…` of a `kind` of definition."""
    # Camunda's path parameter is `tenant-id`, not a Python name: read from the path.
    tenant_id = request.path_params["tenant-id"]
    return not_found(
        f"No matching {kind} with key: {key} and tenant-id: {tenant_id} "
        "(this engine has no tenants)"
    )

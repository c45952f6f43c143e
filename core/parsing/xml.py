"""Model XML read the hardened way, for BPMN and DMN alike: no DTDs, no entities, no network,
a size limit; a malformed document is a `ModelError` naming the resource and the line."""

from __future__ import annotations

import re

from lxml import etree

from ..errors import ModelError, ModelProblem

MAX_RESOURCE_BYTES = 10 * 1024 * 1024


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )


def refuse(message: str, resource_name: str, at_line: int | None = None) -> ModelError:
    return ModelError([ModelProblem(message, resource_name, None, at_line)])


def read_document(source: bytes, resource_name: str, kind: str) -> etree._Element:
    """The root element of a model resource (`kind` names it in messages: "BPMN", "DMN")."""
    if len(source) > MAX_RESOURCE_BYTES:
        raise refuse(f"resource is larger than {MAX_RESOURCE_BYTES} bytes", resource_name)
    root_start = re.search(rb"<[A-Za-z_]", source)
    doctype = f"DOCTYPE declarations are not allowed in {kind} resources"
    if b"<!DOCTYPE" in source[: root_start.start() if root_start else len(source)]:
        # Refused before libxml2 sees it: no entity is ever declared, let alone expanded.
        raise refuse(doctype, resource_name)
    try:
        root = etree.fromstring(source, _parser())
    except etree.XMLSyntaxError as exc:
        at_line = exc.lineno if isinstance(exc.lineno, int) else None
        raise refuse(f"malformed XML: {exc.msg}", resource_name, at_line) from None
    docinfo = root.getroottree().docinfo
    if getattr(docinfo, "doctype", None) or getattr(docinfo, "internalDTD", None) is not None:
        # Entity expansion is off anyway; refusing DTDs outright closes the whole attack class.
        raise refuse(doctype, resource_name)
    return root

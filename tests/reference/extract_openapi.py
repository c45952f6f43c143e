"""Extract the part of Camunda 7.15's engine-rest OpenAPI document that the REST tests read.

Reads Camunda's full document (1.3 MB, kept outside the repository) and writes
camunda-rest-7.15-subset.json beside this file: the operations flowledger serves, and every
schema they reference, followed transitively, so the subset stands alone. Run it again, from
the repository root, whenever the REST API serves a new operation:

    .venv/bin/python -m tests.reference.extract_openapi [PATH-TO-FULL-DOCUMENT]

Camunda's text is copied as it is (descriptions included); only whole operations, schemas and
tags are left out. Writes nothing but the subset file.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from tests.rest.test_openapi_contract import HTTP_METHODS, OPERATIONS

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parents[2] / "shared" / "reference" / "camunda-engine-rest-openapi-7.15.json"
SUBSET = HERE / "camunda-rest-7.15-subset.json"
# Every error body, though no operation of ours need name it: the contract test compares
# undocumented error statuses with it.
ALWAYS = ("#/components/schemas/ExceptionDto",)
TOP_LEVEL = ("openapi", "info", "externalDocs", "servers")


def shape(path: str) -> str:
    """Paths compared by shape, as the fuzzers compare them: `{id}` and `{taskId}` are one slot."""
    return re.sub(r"\{[^}]*\}", "{}", path)


def served_paths(document: dict[str, Any]) -> dict[str, Any]:
    """The path items of `document` cut to the operations flowledger serves (method and path
    shape match), in the document's order."""
    served = {(method.lower(), shape(path)) for method, path in OPERATIONS}
    paths: dict[str, Any] = {}
    for path, item in document["paths"].items():
        kept = {
            key: value
            for key, value in item.items()
            if key not in HTTP_METHODS or (key, shape(path)) in served
        }
        if any(key in HTTP_METHODS for key in kept):
            paths[path] = kept
    return paths


def refs(node: Any) -> set[str]:
    """Every `$ref` anywhere under `node`."""
    if isinstance(node, dict):
        found = {node["$ref"]} if isinstance(node.get("$ref"), str) else set()
        for value in node.values():
            found |= refs(value)
        return found
    if isinstance(node, list):
        return set().union(*(refs(value) for value in node)) if node else set()
    return set()


def target(document: dict[str, Any], ref: str) -> Any:
    if not ref.startswith("#/"):
        raise ValueError(f"only local references can be kept self-contained, not {ref!r}")
    node: Any = document
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def referenced_components(document: dict[str, Any], roots: Any) -> dict[str, Any]:
    """The components `roots` reference, and those they reference, in the document's order."""
    pending = set(refs(roots)) | set(ALWAYS)
    wanted: set[str] = set()
    while pending:
        ref = pending.pop()
        if ref not in wanted:
            wanted.add(ref)
            pending |= refs(target(document, ref))
    components: dict[str, Any] = {}
    for kind, entries in document["components"].items():
        kept = {n: v for n, v in entries.items() if f"#/components/{kind}/{n}" in wanted}
        if kept:
            components[kind] = kept
    return components


def subset(document: dict[str, Any], digest: str) -> dict[str, Any]:
    paths = served_paths(document)
    used_tags = {
        tag
        for item in paths.values()
        for key, operation in item.items()
        if key in HTTP_METHODS
        for tag in operation.get("tags", [])
    }
    return {
        "x-source": (
            "Camunda Platform 7.15 engine-rest OpenAPI document "
            f"(camunda-engine-rest-openapi-7.15.json, sha256 {digest}), from camunda-bpm-platform "
            "(https://github.com/camunda/camunda-bpm-platform), Apache-2.0. Trimmed by "
            "tests/reference/extract_openapi.py to the operations flowledger serves and the "
            "schemas they reference ($ref followed transitively); otherwise unchanged."
        ),
        **{key: document[key] for key in TOP_LEVEL if key in document},
        "tags": [tag for tag in document.get("tags", []) if tag["name"] in used_tags],
        "paths": paths,
        "components": referenced_components(document, paths),
    }


def main(argv: list[str]) -> None:
    source = Path(argv[0]) if argv else SOURCE
    raw = source.read_bytes()
    document = json.loads(raw)
    trimmed = subset(document, hashlib.sha256(raw).hexdigest())
    SUBSET.write_text(json.dumps(trimmed, indent=1, ensure_ascii=False) + "\n")
    operations = sum(key in HTTP_METHODS for item in trimmed["paths"].values() for key in item)
    schemas = len(trimmed["components"].get("schemas", {}))
    print(f"{SUBSET.name}: {operations} operations, {schemas} schemas, from {source}")


if __name__ == "__main__":
    main(sys.argv[1:])

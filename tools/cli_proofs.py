"""`flowledger audit …`: Merkle tree heads over the log, inclusion and consistency proofs written
as files, and `audit check`, which verifies such a file with no database at all."""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path

import click
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from flowledger.engine.workers import head_targets
from flowledger.eventlog import proofs, signed_heads
from flowledger.eventlog.package import PackageError, head_problems, read_package
from flowledger.eventlog.proofs import ConsistencyProof, InclusionProof, Proof, TreeHead

from .cli_app import app, as_user, open_engine, output
from .output import when


def head_text(head: TreeHead) -> str:
    """A tree head as one word to keep or publish: SIZE:ROOT."""
    return f"{head.size}:{head.root}"


def parse_head(text: str, param_hint: str) -> tuple[int, str | None]:
    """SIZE or SIZE:ROOT (what `audit head` prints); the root as lowercase hex when given."""
    size, sep, root = text.strip().partition(":")
    if not size.isdigit():
        raise click.BadParameter(f"{text!r} is not SIZE or SIZE:ROOT", param_hint=param_hint)
    if sep and (len(root) != 64 or any(c not in "0123456789abcdefABCDEF" for c in root)):
        raise click.BadParameter(
            f"{text!r}: the root must be 64 hex digits (as `flowledger audit head` prints)",
            param_hint=param_hint,
        )
    return int(size), root.lower() if sep else None


def _same_root(head: TreeHead, root: str | None, what: str) -> None:
    if root is not None and root != head.root:
        raise click.ClickException(
            f"{what}: the log's tree of {head.size} commits has root {head.root}, not {root}: "
            "the log was rewritten since that head was taken (or the head is not this log's)"
        )


def _write(proof: Proof, out: Path | None) -> None:
    data = proofs.encode(proof)
    if out is None:
        click.echo(data.decode(), nl=False)
    else:
        out.write_bytes(data)
        click.echo(f"wrote {out}", err=True)


@app.group("audit")
def audit() -> None:
    """Merkle tree heads and proofs over the log, checkable without the database."""


@audit.command("keygen")
@click.argument("key_file", type=click.Path(dir_okay=False, path_type=Path))
def audit_keygen(key_file: Path) -> None:
    """Write a new Ed25519 signing key to KEY_FILE (mode 0600) and its public key to
    KEY_FILE.pub. Keep the private key off the database's machine if you can."""
    try:
        public = signed_heads.generate(key_file)
    except signed_heads.KeyFileError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"wrote {key_file} (private, mode 0600) and {public} (give it to auditors)")


@audit.command("head")
@click.option(
    "--signing-key",
    type=click.Path(dir_okay=False, path_type=Path),
    help="sign the head with this key (`audit keygen`): prints a signed checkpoint",
)
@click.option("--origin", help="the log's name in a signed head (default: from its first commit)")
def audit_head(signing_key: Path | None, origin: str | None) -> None:
    """Print the tree head over every commit now: SIZE:ROOT, or signed (keep or publish it)."""
    out = output()
    if signing_key is not None:
        try:
            key = signed_heads.load_private(signing_key)
        except signed_heads.KeyFileError as exc:
            raise click.ClickException(str(exc)) from None
        with open_engine() as engine, out.progress("reading the log") as progress:
            note = as_user(engine).audit_service.signed_head(
                key, signed_heads.key_name(signing_key), origin=origin, progress=progress
            )
        click.echo(note, nl=False)
        return
    with open_engine() as engine, out.progress("reading the log") as progress:
        head = engine.audit_service.tree_head(progress)
    if out.json:
        out.data(head)
    else:
        out.print(head_text(head))
        out.err.print(f"{head.size} commits, log positions 1..{head.position}")


@audit.command("keys")
def audit_keys() -> None:
    """The keys that signed the log's heads, as the log recorded them (oldest first): each
    key's hash (the signed note's key id), name, public key, when and who first signed with it,
    and the key it replaced. A head signed by a key not listed here was not signed by this
    engine."""
    out = output()
    with open_engine() as engine:
        keys = engine.audit_service.signing_keys()
    if out.json:
        out.data(keys)
        return
    out.table(
        ["key hash", "name", "public key (base64)", "since", "replaces"],
        [(k.key_hash, k.name, k.public_key, when(k.time), k.replaces or "") for k in keys],
    )


@audit.command("prove")
@click.argument("position", type=click.IntRange(min=1))
@click.option("--head", "head", metavar="SIZE[:ROOT]", help="the tree head to prove it in")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="write it here")
def audit_prove(position: int, head: str | None, out: Path | None) -> None:
    """Prove that the event at log POSITION is in the log (an inclusion proof, as JSON)."""
    size, root = (None, None) if head is None else parse_head(head, "--head")
    with open_engine() as engine:
        proof = engine.audit_service.prove(position, size=size)
    _same_root(proof.head, root, "--head")
    _write(proof, out)


@audit.command("consistency")
@click.argument("old_head", metavar="OLD_HEAD")
@click.argument("new_head", metavar="[NEW_HEAD]", required=False)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), help="write it here")
def audit_consistency(old_head: str, new_head: str | None, out: Path | None) -> None:
    """Prove that the log (or its tree of NEW_HEAD) only extends OLD_HEAD (SIZE or SIZE:ROOT)."""
    old_size, old_root = parse_head(old_head, "OLD_HEAD")
    new_size, new_root = (None, None) if new_head is None else parse_head(new_head, "NEW_HEAD")
    with open_engine() as engine:
        proof = engine.audit_service.prove_consistency(old_size, new_size)
    _same_root(proof.old, old_root, "OLD_HEAD")
    _same_root(proof.new, new_root, "NEW_HEAD")
    _write(proof, out)


def published_heads(path: Path | str, key_files: Sequence[Path]) -> list[signed_heads.SignedHead]:
    """The heads in a file or NATS stream of published heads, each signature checked with one
    of `key_files` (every key the log was signed with: a rotation adds one)."""
    if not key_files:
        raise click.UsageError("--against-published needs --key, the heads' public key")
    try:
        publics = [signed_heads.load_public(k) for k in key_files]
        notes = head_targets.published(head_targets.parse(path))
        return [signed_by_any(note, publics) for note in notes]
    except (signed_heads.KeyFileError, signed_heads.HeadError, ValueError) as exc:
        raise click.ClickException(f"{path}: {exc}") from None


def signed_by_any(note: str, publics: list[Ed25519PublicKey]) -> signed_heads.SignedHead:
    problem: signed_heads.HeadError | None = None
    for public in publics:
        try:
            return signed_heads.verify(note, public)
        except signed_heads.HeadError as exc:
            problem = exc
    assert problem is not None
    if len(publics) > 1 and "no signature by this public key" in str(problem):
        raise signed_heads.HeadError("no signature by any of the given public keys on a head")
    raise problem


@audit.command("publish")
@click.option(
    "--signing-key",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="the key that signs the head (`audit keygen`)",
)
@click.option(
    "--to",
    "target",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="the file of published heads (appended to, one signed head a line)",
)
@click.option("--origin", help="the log's name in the head (default: from its first commit)")
def audit_publish(signing_key: Path, target: Path, origin: str | None) -> None:
    """Sign the tree head now and append it to a file of published heads (keep that file
    where the database's writers cannot rewrite it): `verify --against-published` checks it."""
    try:
        key = signed_heads.load_private(signing_key)
    except signed_heads.KeyFileError as exc:
        raise click.ClickException(str(exc)) from None
    with open_engine() as engine:
        note = engine.audit_service.signed_head(
            key, signed_heads.key_name(signing_key), origin=origin
        )
    signed_heads.publish(target, note)
    lines = note.splitlines()
    click.echo(f"published {lines[1]} commits of {lines[0]} to {target}")


def _signed(path: Path, key_file: Path | None, what: str) -> signed_heads.SignedHead:
    if key_file is None:
        raise click.UsageError(f"{what} is a signed head: --key PUBLIC_KEY checks its signature")
    try:
        return signed_heads.verify(
            path.read_text(errors="replace"), signed_heads.load_public(key_file)
        )
    except (signed_heads.KeyFileError, signed_heads.HeadError) as exc:
        raise click.ClickException(f"{path}: {exc}") from None


def _trusted(text: str, key_file: Path | None) -> TreeHead:
    """--head: SIZE:ROOT, or a file holding a signed head (checked with --key)."""
    if Path(text).is_file():
        return _signed(Path(text), key_file, f"--head {text}").head
    size, root = parse_head(text, "--head")
    if root is None:
        raise click.BadParameter("a trusted head needs its root: SIZE:ROOT", param_hint="--head")
    return TreeHead(size=size, root=root, position=0)


@audit.command("check")
@click.argument("proof_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--head",
    "trusted",
    metavar="SIZE:ROOT|FILE",
    help="the tree head you trust (kept or published earlier, or a signed head's file): the "
    "proof must be about it",
)
@click.option(
    "--key",
    "key_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="the public key signed heads are checked with",
)
def audit_check(proof_file: Path, trusted: str | None, key_file: Path | None) -> None:
    """Check a proof file, a signed head, or an audit package's inclusion proofs, with no
    database: exit 0 when it holds, 1 (saying why) when not."""
    if zipfile.is_zipfile(proof_file):
        _check_package(proof_file, trusted, key_file)
        return
    if proof_file.read_bytes().lstrip()[:1] != b"{":  # not JSON: a signed head
        signed = _signed(proof_file, key_file, str(proof_file))
        click.echo(
            f"OK {signed.origin} {head_text(signed.head)} (log positions "
            f"1..{signed.head.position}), signed by {signed.key_name} at "
            f"{signed.time:%Y-%m-%dT%H:%M:%SZ}"
        )
        return
    head = None if trusted is None else _trusted(trusted, key_file)
    try:
        proof = proofs.decode(proof_file.read_bytes())
        if isinstance(proof, InclusionProof):
            problems = proofs.check_inclusion(proof, head)
            what = (
                f"log position {proof.commit.first_position + proof.event_index} (commit "
                f"{proof.leaf_index + 1}, stream {proof.commit.stream_id}) is in the tree "
                f"{head_text(proof.head)}"
            )
        else:
            assert isinstance(proof, ConsistencyProof)
            problems = proofs.check_consistency(proof, head)
            what = f"the tree {head_text(proof.new)} extends the tree {head_text(proof.old)}"
    except proofs.ProofError as exc:
        raise click.ClickException(f"{proof_file}: {exc}") from None
    if problems:
        for problem in problems:
            click.echo(f"FAILED {problem}", err=True)
        raise click.exceptions.Exit(1)
    click.echo(f"OK {what}")
    if head is None:
        click.echo(
            "(checked against the proof's own head: pass --head SIZE:ROOT with a head you got "
            "from elsewhere to know it is the log's)",
            err=True,
        )


def _check_package(path: Path, trusted: str | None, key_file: Path | None) -> None:
    """Every hash, chain and inclusion proof of the package, then its tree against the head
    trusted (--head; else the signed head it carries, checked with --key)."""
    try:
        package = read_package(path)
    except PackageError as exc:
        raise click.ClickException(str(exc)) from None
    manifest = package.manifest
    head = None if trusted is None else _trusted(trusted, key_file)
    if head is None and manifest.signed_head is not None and key_file is not None:
        try:
            head = signed_heads.verify(
                manifest.signed_head, signed_heads.load_public(key_file)
            ).head
        except (signed_heads.KeyFileError, signed_heads.HeadError) as exc:
            raise click.ClickException(f"{path}: its signed head: {exc}") from None
    problems = head_problems(path, manifest, head)
    if problems:
        for problem in problems:
            click.echo(f"FAILED {problem}", err=True)
        raise click.exceptions.Exit(1)
    tree = manifest.tree
    assert tree is not None
    click.echo(
        f"OK {path}: {manifest.commits} commits of {len(package.streams)} streams, each proven "
        f"in the tree {tree.size}:{tree.root}"
    )
    if head is None:
        click.echo(
            "(checked against the package's own head: pass --head SIZE:ROOT with a head you got "
            "from elsewhere, or --key for the signed head it carries, to know it is the log's)",
            err=True,
        )

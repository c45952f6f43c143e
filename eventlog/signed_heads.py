"""Signed tree heads: a tree head (`proofs.TreeHead`) signed with an Ed25519 key that lives outside
the database, written in the transparency-log checkpoint format (C2SP tlog-checkpoint, in a C2SP
signed note), so tools of the transparency world can read it:

    <origin>
    <tree size>
    <root hash, base64>
    position <last log position the commits hold>
    time <when it was signed, UTC>

    — <key name> <base64(key id (4 bytes) || Ed25519 signature)>

The signature covers every line above the blank one; the key id is the first 4 bytes of
SHA-256(key name || 0x0A || 0x01 || public key), as signed notes define it for Ed25519. The origin
names the log: `flowledger/` and the first 16 hex digits of its first commit's hash, unless the
operator names it. Checking needs only the public key file (`audit check --key`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .proofs import TreeHead

EM_DASH = "\u2014"
ED25519 = b"\x01"  # the signature type byte of a signed note's Ed25519 key id


class KeyFileError(Exception):
    """A key file that cannot be used (its message names the file and what is wrong)."""


class HeadError(Exception):
    """A signed head that is not one, or whose signature does not hold."""


@dataclass(frozen=True)
class SignedHead:
    origin: str
    head: TreeHead
    time: datetime
    key_name: str
    note: str  # the whole signed note, as written
    key_hash: str = ""  # the signature's key id (hex): which key signed it


def origin_of(first_commit_hash: str | None) -> str:
    """The default name of a log: stable for its life, different from any other log's."""
    return f"flowledger/{(first_commit_hash or 'empty')[:16]}"


def key_id(name: str, public: Ed25519PublicKey) -> bytes:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(name.encode() + b"\n" + ED25519 + raw).digest()[:4]


def body(origin: str, head: TreeHead, time: datetime) -> str:
    root = base64.b64encode(bytes.fromhex(head.root)).decode()
    when = time.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"{origin}\n{head.size}\n{root}\nposition {head.position}\ntime {when}\n"


def sign(origin: str, head: TreeHead, key: Ed25519PrivateKey, name: str, time: datetime) -> str:
    """The signed note of `head`."""
    text = body(origin, head, time)
    signature = key.sign(text.encode())
    blob = base64.b64encode(key_id(name, key.public_key()) + signature).decode()
    return f"{text}\n{EM_DASH} {name} {blob}\n"


def verify(note: str, public: Ed25519PublicKey, name: str | None = None) -> SignedHead:
    """The head a signed note holds, once a signature by `public` on it holds (HeadError says
    why not). `name`: the key's name when the caller knows it; else any signature line whose key
    id matches the public key counts."""
    text, sep, signatures = note.partition("\n\n")
    if not sep:
        raise HeadError("not a signed head: no blank line between the head and its signatures")
    text += "\n"
    for line in signatures.splitlines():
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != EM_DASH:
            raise HeadError(f"not a signature line: {line!r}")
        _dash, line_name, blob = parts
        if name is not None and line_name != name:
            continue
        try:
            raw = base64.b64decode(blob, validate=True)
        except ValueError:
            raise HeadError(f"signature of {line_name} is not base64") from None
        if raw[:4] != key_id(line_name, public):
            continue
        try:
            public.verify(raw[4:], text.encode())
        except InvalidSignature:
            raise HeadError(
                f"the signature of {line_name} does not hold: the head was changed after it was "
                "signed"
            ) from None
        return _parse(text, line_name, note, raw[:4].hex())
    raise HeadError("no signature by this public key on the head")


def _parse(text: str, key_name: str, note: str, key_hash: str = "") -> SignedHead:
    lines = text.rstrip("\n").split("\n")
    try:
        origin, size, root = lines[0], int(lines[1]), base64.b64decode(lines[2], validate=True)
        extra = dict(line.split(" ", 1) for line in lines[3:])
        position = int(extra.get("position", "0"))
        time = datetime.strptime(extra["time"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except (IndexError, ValueError, KeyError):
        raise HeadError("the signed text is not a tree head (origin, size, root, time)") from None
    head = TreeHead(size=size, root=root.hex(), position=position)
    return SignedHead(origin, head, time, key_name, note, key_hash)


# -- published heads ---------------------------------------------------------------------------


def publish(path: Path, note: str) -> None:
    """Append a signed head to the file of published heads (one JSON document per line), synced
    to disk before returning: a head once published stays published."""
    line = json.dumps({"note": note}) + "\n"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, line.encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def published(path: Path) -> list[str]:
    """The signed heads in a file of published heads, oldest first; HeadError names a line that
    is not one."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise HeadError(f"cannot read the published heads {path}: {exc.strerror}") from None
    notes = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            note = json.loads(line)["note"]
        except (ValueError, KeyError, TypeError):
            raise HeadError(f"{path}:{number}: not a published head") from None
        if not isinstance(note, str):
            raise HeadError(f"{path}:{number}: not a published head")
        notes.append(note)
    return notes


# -- key files ---------------------------------------------------------------------------------


def generate(path: Path) -> Path:
    """Write a new private key to `path` (readable by its owner only) and its public key to
    `path`.pub; refuses to overwrite either. Returns the public key's path."""
    public_path = path.with_name(path.name + ".pub")
    for target in (path, public_path):
        if target.exists():
            raise KeyFileError(f"{target} exists: keys are never overwritten (move it away first)")
    key = Ed25519PrivateKey.generate()
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(private)
    public_path.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return public_path


def load_private(path: Path) -> Ed25519PrivateKey:
    """The signing key in `path`; refused when others than its owner may read it."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        data = path.read_bytes()
    except OSError as exc:
        raise KeyFileError(f"cannot read the signing key {path}: {exc.strerror}") from None
    if os.name == "posix" and mode & 0o077:
        raise KeyFileError(
            f"signing key {path} is accessible by others (mode {mode:04o}); it must be "
            f"readable by its owner only: chmod 600 {path}"
        )
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise KeyFileError(f"{path} is not an unencrypted PEM private key") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{path} is not an Ed25519 key")
    return key


def load_public(path: Path) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(path.read_bytes())
    except OSError as exc:
        raise KeyFileError(f"cannot read the public key {path}: {exc.strerror}") from None
    except ValueError:
        raise KeyFileError(f"{path} is not a PEM public key") from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileError(f"{path} is not an Ed25519 public key")
    return key


def key_name(path: Path) -> str:
    """The name a key signs under: its file's name without `.pub`."""
    name = path.name.removesuffix(".pub")
    return name if " " not in name and "+" not in name else name.replace(" ", "_").replace("+", "_")

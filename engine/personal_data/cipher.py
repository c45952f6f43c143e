"""AES-256-GCM over one stored value: what a sealed value's ciphertext is and how it opens.

Pure apart from the random key and nonce. The key id is the associated data, so a ciphertext
moved under another key's id does not open.
"""

from __future__ import annotations

import base64
import os

import msgspec
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from flowledger.core.personal_data import sealed_value, sealing_key
from flowledger.core.variables import StoredValue

NONCE_BYTES = 12
KEY_BYTES = 32

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(StoredValue).decode


def new_key() -> bytes:
    return AESGCM.generate_key(bit_length=8 * KEY_BYTES)


def seal_bytes(key: bytes, key_id: str, plain: bytes) -> str:
    """base64(nonce || ciphertext || tag) of `plain`."""
    nonce = os.urandom(NONCE_BYTES)
    return base64.b64encode(nonce + AESGCM(key).encrypt(nonce, plain, key_id.encode())).decode()


def open_bytes(key: bytes, key_id: str, sealed: str) -> bytes | None:
    """The plaintext, or None when the ciphertext does not open under this key."""
    try:
        data = base64.b64decode(sealed, validate=True)
        return AESGCM(key).decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:], key_id.encode())
    except (InvalidTag, ValueError):
        return None


def seal(key: bytes, key_id: str, value: StoredValue) -> StoredValue:
    return sealed_value(key_id, seal_bytes(key, key_id, _encode(value)))


def open_value(key: bytes, value: StoredValue) -> StoredValue | None:
    key_id = sealing_key(value)
    plain = open_bytes(key, key_id, str(value.value))
    if plain is None:
        return None
    try:
        return _decode(plain)
    except msgspec.DecodeError:
        return None

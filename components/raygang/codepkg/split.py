"""Splitting a package into ConfigMap-sized pieces.

A ConfigMap holds at most 1 MiB of ``data`` and ``binaryData`` together (the API server's
``validateConfigMap``), and the whole object travels base64-encoded in JSON through the
API server and etcd (whose default request limit is 1.5 MiB). Pieces of 768 KiB are 1 MiB
in base64, which leaves room for the object's metadata on both counts.
"""

from __future__ import annotations

from typing import Final

__all__ = ["PIECE_BYTES", "split_pieces"]

PIECE_BYTES: Final = 768 * 1024


def split_pieces(data: bytes, size: int = PIECE_BYTES) -> tuple[bytes, ...]:
    """``data`` cut into consecutive pieces of ``size`` bytes (the last one shorter)."""
    return tuple(data[i : i + size] for i in range(0, len(data), size)) or (b"",)

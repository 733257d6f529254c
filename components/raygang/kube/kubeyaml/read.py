"""A file's bytes, bounded, as kubectl's FileVisitor opens it (cli-runtime
``pkg/resource/visitor.go``).

At most one byte past ``Limits.max_bytes`` is read, so ``/dev/zero`` stops. A named pipe
(``raygang plan <(kubectl get ...)``) is opened without blocking and read while its writer
keeps sending, so a FIFO nobody writes to cannot hang the read forever.
"""

from __future__ import annotations

import os
import select
import stat

from raygang.kube.kubeyaml.limits import Limits, ManifestError, check_size, default_limits

__all__ = [
    "PIPE_IDLE_TIMEOUT_S",
    "read_bounded",
]


# How long a pipe (`<(kubectl get ...)`, a FIFO) may stay silent before we give up on it.
PIPE_IDLE_TIMEOUT_S = 30.0


def read_bounded(path: str, limits: Limits | None = None) -> bytes:
    """A file's bytes, reading at most one byte past ``max_bytes`` (``/dev/zero`` stops).

    A named pipe is opened without blocking (a FIFO nobody writes to would otherwise hang
    the open forever; with no writer it reads as empty) and read while its writer sends
    something at least every ``PIPE_IDLE_TIMEOUT_S`` seconds.
    """
    limits = limits or default_limits()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise ManifestError(
            path, f"cannot be read: {exc.strerror or exc}", accepted="a readable file"
        ) from None
    try:
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            data = _read_pipe(fd, path, limits.max_bytes + 1)
        else:
            os.set_blocking(fd, True)
            with os.fdopen(fd, "rb", closefd=False) as handle:
                data = handle.read(limits.max_bytes + 1)
    except OSError as exc:
        raise ManifestError(
            path, f"cannot be read: {exc.strerror or exc}", accepted="a readable file"
        ) from None
    finally:
        os.close(fd)
    check_size(len(data), path, limits)
    return data


def _read_pipe(fd: int, path: str, most: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while size < most:
        ready, _, _ = select.select([fd], [], [], PIPE_IDLE_TIMEOUT_S)
        if not ready:
            raise ManifestError(
                path,
                f"the pipe sent nothing for {PIPE_IDLE_TIMEOUT_S:.0f} s",
                accepted="a regular file, or a pipe whose writer finishes",
            )
        try:
            chunk = os.read(fd, min(1 << 20, most - size))
        except BlockingIOError:
            continue
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)

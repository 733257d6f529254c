"""What the kernel would refuse to start: an argument or environment string too long.

Linux's ``execve`` refuses (``E2BIG``) any single argument or ``NAME=value`` environment
string longer than ``MAX_ARG_STRLEN`` (``include/uapi/linux/binfmts.h``: 32 pages, 131,072
bytes with 4 KiB pages, the terminating NUL included). KubeRay puts the whole submitter
script (``ray job submit ... -- <entrypoint>`` with the runtime env as JSON) into one
argument of ``bash -ce --``, so an entrypoint or runtime env of about 128 KiB plans and then
leaves a pod that can never start. The container runtime counts the same strings: the
``command`` and ``args`` entries and each ``env`` entry with a plain ``value``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

__all__ = ["MAX_ARG_STRLEN", "oversized_arguments"]

MAX_ARG_STRLEN: Final = 32 * 4096


def _strings(container: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    for field in ("command", "args"):
        values = container.get(field)
        if isinstance(values, list):
            for index, value in enumerate(values):
                if isinstance(value, str):
                    yield f"{field}[{index}]", value
    env = container.get("env")
    if isinstance(env, list):
        for index, entry in enumerate(env):
            if isinstance(entry, Mapping) and isinstance(entry.get("value"), str):
                yield f"env[{index}]", f"{entry.get('name')}={entry['value']}"


def oversized_arguments(pod_spec: Mapping[str, Any]) -> list[tuple[str, int]]:
    """``(container and field, bytes with the NUL)`` of every string past the limit."""
    found = []
    for group in ("initContainers", "containers"):
        containers = pod_spec.get(group)
        if not isinstance(containers, list):
            continue
        for container in containers:
            if not isinstance(container, Mapping):
                continue
            for where, text in _strings(container):
                size = len(text.encode("utf-8", "surrogatepass")) + 1
                if size > MAX_ARG_STRLEN:
                    found.append((f"container {container.get('name')!s} {where}", size))
    return found

"""The one error the harness raises: which component, its log, what went wrong."""

from __future__ import annotations

from pathlib import Path

_TAIL_LINES = 25


def log_tail(log: Path, lines: int = _TAIL_LINES) -> str:
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


class ClusterError(RuntimeError):
    """A component of the local cluster failed to build, start or become ready."""

    def __init__(self, component: str, log: Path | None, reason: str) -> None:
        self.component = component
        self.log = log
        self.reason = reason
        where = f" (log: {log})" if log else ""
        tail = log_tail(log) if log else ""
        text = f"{component}: {reason}{where}"
        if tail:
            text += "\nlast lines of its log:\n" + tail
        super().__init__(text)

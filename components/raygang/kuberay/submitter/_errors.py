"""The submitter's one error: RayJob input it cannot build the submit command or Job from."""

from __future__ import annotations

__all__ = ["SubmitterError"]


class SubmitterError(ValueError):
    """Raised for RayJob input the submitter cannot be built from; the message says why."""

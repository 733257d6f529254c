"""The overcommit plugin: a PodGroup is enqueued while its minResources fit in
``overcommit-factor x allocatable - used``, less what Inqueue and Running gangs reserve.

Follows Volcano's ``pkg/scheduler/plugins/overcommit/overcommit.go`` (default factor 1.2).
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["DEFAULT_OVERCOMMIT_FACTOR"]


# The overcommit plugin's default ``overcommit-factor`` (1.2), exact.
DEFAULT_OVERCOMMIT_FACTOR = Fraction(6, 5)

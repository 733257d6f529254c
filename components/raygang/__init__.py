"""raygang: KubeRay RayJobs gang-scheduled by Volcano, as Pulumi components.

Public surface::

    from raygang import RayJobGang, RayJobGangArgs, VolcanoQueue, create_companions

The Pulumi classes are imported lazily so the pure planning modules (and ``raygang plan``)
never import the Pulumi SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from raygang.component import (
        RayJobGang,
        RayJobGangArgs,
        VolcanoQueue,
        create_companion,
        create_companions,
    )

__all__ = [
    "RayJobGang",
    "RayJobGangArgs",
    "VolcanoQueue",
    "create_companion",
    "create_companions",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from raygang import component

        return getattr(component, name)
    raise AttributeError(f"module 'raygang' has no attribute {name!r}")

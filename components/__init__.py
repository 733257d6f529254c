"""raygang: KubeRay RayJobs gang-scheduled by Volcano, as Pulumi components.

Public surface::

    from components import RayJobGang, RayJobGangArgs, VolcanoQueue

The Pulumi classes are imported lazily so the pure planning modules (and ``raygang plan``)
never import the Pulumi SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from components.component import RayJobGang, RayJobGangArgs, VolcanoQueue

__all__ = ["RayJobGang", "RayJobGangArgs", "VolcanoQueue"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from components import component

        return getattr(component, name)
    raise AttributeError(f"module 'components' has no attribute {name!r}")

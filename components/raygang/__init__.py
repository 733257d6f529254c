"""raygang: KubeRay RayJobs gang-scheduled by Volcano, as Pulumi components.

The public surface is what this module exports; every sub-package and module under it
(``raygang.kube``, ``raygang.pipeline``, ...) is internal and may change without notice,
except ``raygang.testing`` (Pulumi mocks for a user's tests). A Pulumi program::

    from raygang import RayJobGang, RayJobGangArgs, VolcanoQueue, create_companions
    from raygang import RayClusterGang, RayClusterGangArgs
    from raygang import JobSettings, load_files

and what ``raygang plan`` and the repository's ``__main__.py`` share: the stack's settings
(``settings_from_getter``, ``config_value``, ``unknown_key_problems``, ``read_stack_file``),
the planning pass (``plan_everything``, ``preflight_gate``; ``plan_program``, a Pulumi
program's flow around them: settings, documents, live facts, plan, gate) and its result (a
``StackPlan`` whose ``jobs`` are ``PlannedJob`` records: each job's plan, lifecycle and
preflight), the cluster's state (``live_snapshot``, ``live_cluster_scoped``,
``live_podgroup_fields``, ``snapshot_from_objects``), the CLI's outputs (``render_table``,
``render_yaml``, ``write_json``) and the error types (``SpecError``, which holds every
``Problem`` found, and ``internal_error``). For code that judges objects raygang makes (the
policy pack, a user's tests): Kubernetes quantities (``Quantity``, ``QuantityError``,
``format_resource_list``) and the names KubeRay's Volcano adapter writes (``SCHEDULER``,
``GROUP_NAME_ANNOTATION``, ``TASK_SPEC_ANNOTATION``, ``QUEUE_LABEL``, ``PRIORITY_LABEL``).

Every name is imported on first use (PEP 562), so ``import raygang`` imports nothing, the
pure planning modules (and ``raygang plan``) never import the Pulumi SDK, and only the
components import it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from raygang.component import (
        RayClusterGang,
        RayClusterGangArgs,
        RayJobGang,
        RayJobGangArgs,
        VolcanoQueue,
        create_companion,
        create_companions,
    )
    from raygang.kube.errors import Problem, SpecError, internal_error
    from raygang.kube.quantity import Quantity, QuantityError, format_resource_list
    from raygang.kube.snapshot import ClusterSnapshot, load_snapshot, snapshot_from_objects
    from raygang.kuberay.gang import Accounting
    from raygang.kuberay.manifests import (
        GROUP_NAME_ANNOTATION,
        PRIORITY_LABEL,
        QUEUE_LABEL,
        SCHEDULER,
        TASK_SPEC_ANNOTATION,
    )
    from raygang.kuberay.settings import JobSettings
    from raygang.lifecycle.facts.live import (
        live_cluster_scoped,
        live_podgroup_fields,
        live_snapshot,
    )
    from raygang.loader import Documents, load_documents, load_files, load_rayjob_document
    from raygang.pipeline import (
        Gate,
        ProgramPlan,
        plan_everything,
        plan_program,
        preflight_gate,
    )
    from raygang.plan import PlannedCluster, PlannedJob, StackPlan
    from raygang.render import render_table, render_yaml, write_json
    from raygang.settings import (
        StackSettings,
        config_value,
        read_stack_file,
        settings_from_getter,
        unknown_key_problems,
    )

# Each public name and the internal module that defines it.
_HOMES = {
    # the Pulumi components: the only names that import the Pulumi SDK
    "RayClusterGang": "raygang.component",
    "RayClusterGangArgs": "raygang.component",
    "RayJobGang": "raygang.component",
    "RayJobGangArgs": "raygang.component",
    "VolcanoQueue": "raygang.component",
    "create_companion": "raygang.component",
    "create_companions": "raygang.component",
    # reading manifests
    "Documents": "raygang.loader",
    "load_documents": "raygang.loader",
    "load_files": "raygang.loader",
    "load_rayjob_document": "raygang.loader",
    # settings: a job's, and a stack's raygang:* config
    "Accounting": "raygang.kuberay.gang",
    "JobSettings": "raygang.kuberay.settings",
    "StackSettings": "raygang.settings",
    "config_value": "raygang.settings",
    "read_stack_file": "raygang.settings",
    "settings_from_getter": "raygang.settings",
    "unknown_key_problems": "raygang.settings",
    # the cluster's state
    "ClusterSnapshot": "raygang.kube.snapshot",
    "load_snapshot": "raygang.kube.snapshot",
    "snapshot_from_objects": "raygang.kube.snapshot",
    "live_cluster_scoped": "raygang.lifecycle.facts.live",
    "live_podgroup_fields": "raygang.lifecycle.facts.live",
    "live_snapshot": "raygang.lifecycle.facts.live",
    # the planning pass shared by `raygang plan` and the Pulumi program, and its result
    "Gate": "raygang.pipeline",
    "PlannedCluster": "raygang.plan",
    "PlannedJob": "raygang.plan",
    "StackPlan": "raygang.plan",
    "plan_everything": "raygang.pipeline",
    "plan_program": "raygang.pipeline",
    "ProgramPlan": "raygang.pipeline",
    "preflight_gate": "raygang.pipeline",
    # the outputs of `raygang plan`
    "render_table": "raygang.render",
    "render_yaml": "raygang.render",
    "write_json": "raygang.render",
    # quantities, and the names KubeRay's Volcano adapter writes on what it makes
    "Quantity": "raygang.kube.quantity",
    "QuantityError": "raygang.kube.quantity",
    "format_resource_list": "raygang.kube.quantity",
    "GROUP_NAME_ANNOTATION": "raygang.kuberay.manifests",
    "PRIORITY_LABEL": "raygang.kuberay.manifests",
    "QUEUE_LABEL": "raygang.kuberay.manifests",
    "SCHEDULER": "raygang.kuberay.manifests",
    "TASK_SPEC_ANNOTATION": "raygang.kuberay.manifests",
    # errors
    "Problem": "raygang.kube.errors",
    "SpecError": "raygang.kube.errors",
    "internal_error": "raygang.kube.errors",
}

__all__ = [
    "GROUP_NAME_ANNOTATION",
    "PRIORITY_LABEL",
    "QUEUE_LABEL",
    "SCHEDULER",
    "TASK_SPEC_ANNOTATION",
    "Accounting",
    "ClusterSnapshot",
    "Documents",
    "Gate",
    "JobSettings",
    "PlannedCluster",
    "PlannedJob",
    "Problem",
    "ProgramPlan",
    "Quantity",
    "QuantityError",
    "RayClusterGang",
    "RayClusterGangArgs",
    "RayJobGang",
    "RayJobGangArgs",
    "SpecError",
    "StackPlan",
    "StackSettings",
    "VolcanoQueue",
    "config_value",
    "create_companion",
    "create_companions",
    "format_resource_list",
    "internal_error",
    "live_cluster_scoped",
    "live_podgroup_fields",
    "live_snapshot",
    "load_documents",
    "load_files",
    "load_rayjob_document",
    "load_snapshot",
    "plan_everything",
    "plan_program",
    "preflight_gate",
    "read_stack_file",
    "render_table",
    "render_yaml",
    "settings_from_getter",
    "snapshot_from_objects",
    "unknown_key_problems",
    "write_json",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'raygang' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})

"""The Pulumi layer under the SDK's mocks: RayJobGang components versus bare resources.

Both variants register the same custom resources (same kinds, names, inputs and
``depends_on`` edges) in the same process, one after the other under fresh mocks
(``set_mocks`` is process-global). The baseline gets its inputs precomputed, ownerReferences
included, and creates no component; the difference is what our layer costs: component
registrations, the record-UID ``apply`` and the outputs. The garbage collector runs as it
does in ``__main__``: on, nothing frozen.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi.runtime
import pulumi_kubernetes as k8s
from pulumi.runtime.mocks import MockMonitor
from pulumi_kubernetes.apiextensions import CustomResource
from raygang import (
    RayJobGang,
    RayJobGangArgs,
    StackPlan,
    StackSettings,
    VolcanoQueue,
    load_documents,
)
from raygang.testing import KubernetesMocks

from benchmarks.measure import LONG_RUN_SECONDS, fit_exponent
from benchmarks.planning import load_planner
from benchmarks.synth import make_documents

__all__ = ["LONG_RUN_REPEATS", "PulumiResult", "PulumiRun", "bare_inputs", "run_pulumi"]

PROJECT = "raygang-bench"
# Pulumi runs over LONG_RUN_SECONDS are tried this many times (fewer than --repeat): an
# even number, so each variant runs first as often as second.
LONG_RUN_REPEATS = 4


class CountingMonitor(MockMonitor):
    """A MockMonitor that counts registrations: custom resources and components."""

    def __init__(self, mocks: pulumi.runtime.Mocks) -> None:
        super().__init__(mocks)
        self.custom = 0
        self.components = 0

    def RegisterResource(self, request: Any) -> Any:
        """Count, then register as the SDK's MockMonitor does."""
        if request.type != "pulumi:pulumi:Stack":
            if request.custom:
                self.custom += 1
            else:
                self.components += 1
        return super().RegisterResource(request)  # type: ignore[no-untyped-call]


@dataclass(frozen=True)
class BareResource:
    """One resource of the baseline, with every input computed beforehand."""

    key: str
    name: str
    api_version: str
    kind: str
    metadata: dict[str, Any]
    body: dict[str, Any]
    depends_on: tuple[str, ...]
    replace_on_changes: tuple[str, ...] = ()
    ignore_changes: tuple[str, ...] = ()


def _record_owner(name: str, uid: str) -> dict[str, object]:
    """The ownerReference the component gives each object a job record owns: the baseline's
    inputs are written out in full, so it is spelled here as the API server receives it."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "name": name,
        "uid": uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }


def bare_inputs(plan: StackPlan) -> list[BareResource]:
    """The plan's resources as literal inputs: the queues once, then each job's chain.

    Options match the component's: ``depends_on``, ``replaceOnChanges``, the lifecycle's
    ``ignoreChanges`` and ``deleteBeforeReplace`` on the submitter Job.
    """
    out = [
        BareResource(
            f"Queue/{q.name}",
            q.name,
            "scheduling.volcano.sh/v1beta1",
            "Queue",
            dict(q.manifest()["metadata"]),
            {"spec": q.manifest().get("spec")},
            (),
        )
        for q in plan.queues
    ]
    for job in plan.jobs:
        prefix = f"{job.namespace}/{job.name}"
        record_uid = f"uid-{prefix}-record"
        ignored = job.lifecycle.ignore_changes if job.lifecycle is not None else {}
        for resource in job.resources:
            if resource.role == "queue":
                continue
            metadata = dict(resource.manifest["metadata"])
            if resource.owned:
                metadata["ownerReferences"] = [_record_owner(job.name, record_uid)]
            body_key = "data" if resource.kind == "ConfigMap" else "spec"
            deps = tuple(
                d if d.startswith("Queue/") else f"{job.namespace}/{d}" for d in resource.depends_on
            )
            out.append(
                BareResource(
                    f"{job.namespace}/{resource.ref}",
                    f"{prefix}-{resource.role}",
                    resource.api_version,
                    resource.kind,
                    metadata,
                    {body_key: resource.manifest.get(body_key)},
                    deps,
                    tuple(resource.replace_on_changes),
                    tuple(ignored.get(resource.role, ())),
                )
            )
    return out


def _bare_program(resources: Sequence[BareResource]) -> Callable[[], None]:
    def program() -> None:
        made: dict[str, pulumi.Resource] = {}
        for r in resources:
            opts = pulumi.ResourceOptions(
                depends_on=[made[d] for d in r.depends_on if d in made],
                delete_before_replace=True if r.kind == "Job" else None,
                replace_on_changes=list(r.replace_on_changes) or None,
                ignore_changes=list(r.ignore_changes) or None,
            )
            res: pulumi.Resource
            if r.kind == "ConfigMap":
                res = k8s.core.v1.ConfigMap(r.name, metadata=r.metadata, opts=opts, **r.body)
            elif r.kind == "Job":
                res = k8s.batch.v1.Job(r.name, metadata=r.metadata, opts=opts, **r.body)
            else:
                res = CustomResource(
                    r.name,
                    api_version=r.api_version,
                    kind=r.kind,
                    metadata=r.metadata,
                    opts=opts,
                    **r.body,
                )
            made[r.key] = res

    return program


def _component_program(plan: StackPlan) -> Callable[[], None]:
    # What the stack's __main__.py does once it has a plan (exports left out).
    def program() -> None:
        queues = {q.name: VolcanoQueue(q.name, q) for q in plan.queues}
        for job in plan.jobs:
            RayJobGang(
                f"{job.namespace}/{job.name}",
                RayJobGangArgs(plan=job, queue=queues.get(job.queue or "")),
            )

    return program


def run_under_mocks(program: Callable[[], None], preview: bool) -> tuple[float, CountingMonitor]:
    """Run ``program`` under fresh mocks until every registration has resolved.

    Returns:
        Wall seconds and the monitor (with its registration counts).
    """
    mocks = KubernetesMocks()
    monitor = CountingMonitor(mocks)
    pulumi.runtime.set_all_config({})
    pulumi.runtime.set_mocks(
        mocks, project=PROJECT, stack="bench", preview=preview, monitor=monitor
    )
    wrapped = pulumi.runtime.test(program)  # type: ignore[no-untyped-call]
    gc.collect()  # earlier runs' garbage is not this run's to collect
    start = time.perf_counter()
    wrapped()
    return time.perf_counter() - start, monitor


@dataclass
class PulumiRun:
    """One size of the Pulumi scenario, best of k for each variant."""

    jobs: int
    custom_resources: int
    components: int
    bare_seconds: float
    component_seconds: float

    @property
    def ratio(self) -> float:
        """Component time over bare time: our overhead factor."""
        return self.component_seconds / self.bare_seconds


@dataclass
class PulumiResult:
    """The Pulumi scenario in one mode (``up`` or ``preview``)."""

    mode: str
    runs: list[PulumiRun] = field(default_factory=list)

    def exponent(self, variant: str) -> float | None:
        """Growth exponent of ``bare`` or ``component`` registration time."""
        if len(self.runs) < 2:
            return None
        times = [r.bare_seconds if variant == "bare" else r.component_seconds for r in self.runs]
        return fit_exponent([r.jobs for r in self.runs], times)

    def bare_seconds_at(self, jobs: int) -> tuple[float, bool]:
        """Bare registration time for ``jobs`` jobs: measured, or extrapolated linearly.

        Registration grows super-linearly (research §5.5), so the linear extrapolation
        from the largest measured size is a lower bound on the real time.

        Returns:
            The seconds and whether they were measured (False: extrapolated).
        """
        for run in self.runs:
            if run.jobs == jobs:
                return run.bare_seconds, True
        last = self.runs[-1]
        return last.bare_seconds * jobs / last.jobs, False

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {
            "mode": self.mode,
            "runs": [
                {
                    "jobs": r.jobs,
                    "custom_resources": r.custom_resources,
                    "components": r.components,
                    "bare_seconds": r.bare_seconds,
                    "component_seconds": r.component_seconds,
                    "ratio": r.ratio,
                }
                for r in self.runs
            ],
            "exponent_bare": self.exponent("bare"),
            "exponent_component": self.exponent("component"),
        }


def run_pulumi(
    sizes: Sequence[int], repeat: int, preview: bool = False, seed: int = 20251129
) -> PulumiResult:
    """Time both variants for every size, alternating them to share the machine's noise.

    The variant that runs first changes with every attempt (bare first, then the
    component first ...), so neither always inherits the other's heap. A 2-job warm-up
    of both variants runs first and is not reported.
    """
    result = PulumiResult("preview" if preview else "up")
    planner = load_planner()
    for index, n in enumerate((2, *sizes)):
        warmup = index == 0
        plan = planner(load_documents(make_documents(n, seed)), StackSettings(), None)
        bare = bare_inputs(plan)
        best = {"bare": float("inf"), "component": float("inf")}
        counts: dict[str, tuple[int, int]] = {}
        for attempt in range(1 if warmup else max(1, repeat)):
            longest = 0.0
            pair = [("bare", _bare_program(bare)), ("component", _component_program(plan))]
            for variant, program in pair if attempt % 2 == 0 else pair[::-1]:
                seconds, monitor = run_under_mocks(program, preview)
                best[variant] = min(best[variant], seconds)
                counts[variant] = (monitor.custom, monitor.components)
                longest = max(longest, seconds)
            # Long runs are still noisy here (the machine drifts by 10 to 20 % over tens of
            # seconds), so they get LONG_RUN_REPEATS tries before the best is kept.
            if longest > LONG_RUN_SECONDS and attempt + 1 >= LONG_RUN_REPEATS:
                break
        if warmup:  # first registrations import provider modules and set up the stack
            continue
        if counts["bare"][0] != counts["component"][0] or counts["bare"][1] != 0:
            raise AssertionError(f"the variants registered different resources: {counts}")
        result.runs.append(
            PulumiRun(n, counts["bare"][0], counts["component"][1], best["bare"], best["component"])
        )
    return result

"""The raygang Pulumi program: read the stack's ``raygang:*`` config, create its queues and jobs."""

import gc
import json
from pathlib import Path

import pulumi
from raygang import RayJobGang, RayJobGangArgs, VolcanoQueue
from raygang.kube.errors import SpecError
from raygang.lifecycle.facts import live_snapshot
from raygang.loader import load_files
from raygang.pipeline import plan_everything
from raygang.settings import settings_from_getter


def _config_value(config: pulumi.Config, key: str) -> object:
    # Structured config reaches the program as JSON text; scalars as plain strings.
    raw = config.get(key)
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def main() -> None:
    config = pulumi.Config("raygang")
    here = Path(__file__).resolve().parent
    try:
        settings = settings_from_getter(
            lambda key: _config_value(config, key), f"stack {pulumi.get_stack()} config"
        )
        docs = load_files(
            [Path(m) for m in settings.manifests], settings.jobs, settings.queues, base=here
        )
        snapshot = None
        if settings.live_facts and not settings.cluster_snapshot:
            # Gather facts from the cluster itself, as KubeRay's controller does each loop.
            snapshot = live_snapshot(sorted({job.namespace for job in docs.jobs}))
        plan = plan_everything(docs, settings, base=here, snapshot=snapshot)
    except SpecError as exc:
        raise pulumi.RunError(f"raygang: invalid input:\n{exc}") from None
    except RuntimeError as exc:  # live facts without the kubernetes client or credentials
        raise pulumi.RunError(f"raygang: cannot read the cluster's state: {exc}") from None

    for note in plan.ignored:
        pulumi.log.info(note)
    for job in plan.jobs:
        result = job.preflight
        if result is None or settings.preflight == "off" or result.verdict != "stuck":
            continue
        reasons = "\n  ".join(result.reasons)
        name = f"{job.namespace}/{job.name}"
        if result.never_admitted and settings.preflight == "error":
            raise pulumi.RunError(
                f"raygang: {name} can never be admitted as declared:\n  {reasons}\n"
                "(set raygang:preflight: warn to apply anyway)"
            )
        pulumi.log.warn(f"raygang: preflight says {name} is stuck:\n  {reasons}")
    # The plan (and a snapshot) live until the program ends: frozen, the collections that
    # registering thousands of resources triggers do not walk them again and again.
    gc.freeze()
    queues = {q.name: VolcanoQueue(q.name, q) for q in plan.queues}
    for job in plan.jobs:
        key = f"{job.namespace}/{job.name}"
        gang = RayJobGang(
            key,
            RayJobGangArgs(plan=job, queue=queues.get(job.queue or "")),
        )
        pulumi.export(
            key,
            {
                "podGroupName": gang.pod_group_name,
                "minMember": gang.min_member,
                "minResources": gang.min_resources,
                "rayClusterName": gang.ray_cluster_name,
                "submitterJobName": gang.submitter_job_name,
                "submissionId": gang.submission_id,
                "dashboardUrl": gang.dashboard_url,
                "gangSummary": gang.gang_summary,
            },
        )


main()

"""The raygang Pulumi program: read the stack's ``raygang:*`` config, create its queues and jobs."""

import json
from pathlib import Path

import pulumi

from components import RayJobGang, RayJobGangArgs, VolcanoQueue
from components.errors import SpecError
from components.loader import load_files
from components.plan import plan_stack
from components.settings import settings_from_getter


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
        plan = plan_stack(docs.jobs, docs.queues, settings, docs.ignored)
    except SpecError as exc:
        raise pulumi.RunError(f"raygang: invalid input:\n{exc}") from None

    for note in plan.ignored:
        pulumi.log.info(note)
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

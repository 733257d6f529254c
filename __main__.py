"""The raygang Pulumi program: read the stack's ``raygang:*`` config, create its queues and jobs."""

from pathlib import Path

import pulumi
from raygang import (
    RayClusterGang,
    RayClusterGangArgs,
    RayJobGang,
    RayJobGangArgs,
    SpecError,
    VolcanoQueue,
    config_value,
    create_companions,
    internal_error,
    load_files,
    plan_program,
    unknown_key_problems,
)


def _config_value(config: pulumi.Config, key: str) -> object:
    # The same step as `raygang plan` takes for each key of the stack file.
    return config_value(config.get(key), f"raygang:{key}")


def _config_keys() -> list[str]:
    # Every key of the stack's config, so an unknown raygang:* key is refused as the CLI does.
    return [*pulumi.runtime.config.CONFIG.get(), *pulumi.runtime.config.get_config_env()]


def main() -> None:
    config = pulumi.Config("raygang")
    here = Path(__file__).resolve().parent
    try:
        source = f"stack {pulumi.get_stack()} config"
        unknown = unknown_key_problems(_config_keys(), source)
        if unknown:
            raise SpecError(unknown)
        planned = plan_program(
            lambda key: _config_value(config, key),
            source,
            lambda settings, cluster_scoped: load_files(
                [Path(m) for m in settings.manifests],
                settings.jobs,
                settings.queues,
                base=here,
                # With live facts, the cluster's discovery says which companion kinds take
                # no namespace, beyond raygang's documented list.
                cluster_scoped=cluster_scoped or (),
            ),
            base=here,
            # Live facts come from the cluster the default kubernetes provider deploys to.
            kube=pulumi.Config("kubernetes").get,
        )
    except SpecError as exc:
        raise pulumi.RunError(f"raygang: invalid input:\n{exc}") from None
    except RecursionError:  # a RuntimeError, but not the cluster's: the guard below reports it
        raise
    except RuntimeError as exc:  # live facts without the kubernetes client or credentials
        raise pulumi.RunError(f"raygang: cannot read the cluster's state: {exc}") from None
    plan, gate = planned.plan, planned.gate
    for note in plan.ignored:
        pulumi.log.info(note)
    # The same gate as `raygang plan` (exit 3 there, a failed preview here).
    if gate.errors:
        raise pulumi.RunError(
            "raygang: "
            + "\nraygang: ".join(gate.errors)
            + "\n(set raygang:preflight: warn to apply anyway)"
        )
    for warning in gate.warnings:
        pulumi.log.warn(f"raygang: {warning}")
    queues = {
        q.name: VolcanoQueue(q.name, q, secret=_from_secret_config(q.source)) for q in plan.queues
    }
    # The other objects of the manifest files, each once, before the RayClusters that use them.
    companions = create_companions(plan.companions)
    for job in plan.jobs:
        key = f"{job.plan.namespace}/{job.plan.name}"
        gang = RayJobGang(
            key,
            RayJobGangArgs(
                job=job,
                queue=queues.get(job.plan.queue or ""),
                companions=[companions[c.key] for c in plan.companions_of(job)],
                secret=_from_secret_config(job.plan.item.source),
            ),
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

    for cluster in plan.clusters:
        key = f"{cluster.plan.namespace}/{cluster.plan.name}"
        made = RayClusterGang(
            f"RayCluster/{key}",
            RayClusterGangArgs(
                cluster=cluster,
                queue=queues.get(cluster.plan.queue or ""),
                companions=[companions[c.key] for c in plan.companions_of(cluster)],
                secret=_from_secret_config(cluster.plan.item.source),
            ),
        )
        pulumi.export(
            f"RayCluster/{key}",
            {
                "podGroupName": made.pod_group_name,
                "minMember": made.min_member,
                "minResources": made.min_resources,
                "rayClusterName": made.ray_cluster_name,
                "dashboardUrl": made.dashboard_url,
                "gangSummary": made.gang_summary,
            },
        )


def _from_secret_config(source: str) -> bool:
    """Whether a job or queue comes from secret config: then its resources' inputs stay secret.

    One of ``raygang:jobs`` or ``raygang:queues`` is named ``stack config raygang:jobs[i]``
    (``queues[i]``); any other comes from a file of ``raygang:manifests``. Pulumi marks a
    whole key secret when any value in it is.
    """
    key = "manifests"
    for inline in ("jobs", "queues"):
        if source.startswith(f"stack config raygang:{inline}["):
            key = inline
    return pulumi.runtime.is_config_secret(f"raygang:{key}")


def _guarded() -> None:
    """Run the program; an exception nobody expected ends it as a short error, no traceback."""
    try:
        main()
    except pulumi.RunError:
        raise
    except Exception as exc:
        stack = pulumi.get_stack()
        inputs = f"stack {stack}'s raygang:* config (stacks/Pulumi.{stack}.yaml) and its files"
        raise pulumi.RunError(internal_error(exc, inputs)) from None


_guarded()

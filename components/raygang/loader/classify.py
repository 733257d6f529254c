"""What each document is, and what becomes of a RayJob, a Queue or a refused kind.

A document is a RayJob, a RayCluster of its own (:mod:`raygang.loader.rayclusters`), a
Volcano Queue, a companion (any other Kubernetes object), or refused: ``kind`` misspelt as
``rayjob``, missing, another KubeRay kind (RayService, RayCronJob: raygang gang-schedules
RayJobs and RayClusters only, and creating them unscheduled would be a silent surprise),
or no object at all.
"""

from __future__ import annotations

from collections.abc import Mapping

from raygang.kube.errors import SpecError, describe_document, describe_value
from raygang.loader.rayjobs import load_rayjob_document
from raygang.rayjob.spec import RayJobInput
from raygang.volcano.queue import QUEUE_API_VERSION, QueueDecl, parse_queue

__all__ = ["ACCEPTED_KINDS", "classify", "load_one"]


ACCEPTED_KINDS = "a RayJob (apiVersion: ray.io/v1) or a Volcano Queue (" + QUEUE_API_VERSION + ")"


def classify(doc: object) -> str:
    if not isinstance(doc, Mapping):
        return "not-object"
    kind, api = doc.get("kind"), doc.get("apiVersion")
    if kind == "RayJob":
        return "job"
    if kind == "RayCluster" and isinstance(api, str) and api.startswith("ray.io/"):
        return "cluster"
    if kind == "Queue" and isinstance(api, str) and api.startswith("scheduling.volcano.sh/"):
        return "queue"
    if isinstance(kind, str) and kind.lower() in ("rayjob", "rayjobs"):
        return "misspelt"
    if kind is None or kind == "":
        return "no-kind"
    if isinstance(api, str) and api.startswith("ray.io/"):
        return "ray-other"
    return "other"


def load_one(
    what: str,
    doc: object,
    source: str,
    jobs: list[RayJobInput],
    queues: dict[str, QueueDecl],
) -> None:
    """Parse one job or queue document into ``jobs``/``queues``; raise its problems."""
    if what == "job":
        jobs.append(load_rayjob_document(doc, source))
    elif what == "queue":
        assert isinstance(doc, Mapping)
        queue = parse_queue(doc, source)
        known = queues.get(queue.name)
        if known is not None and not known.same_as(queue):
            raise SpecError.one(
                source,
                "metadata.name",
                f"queue {queue.name!r} is also declared differently in {known.source}",
                "one declaration per queue name",
            )
        queues.setdefault(queue.name, queue)
    elif what == "misspelt":
        assert isinstance(doc, Mapping)
        raise SpecError.one(
            source,
            "kind",
            f"{describe_value(doc['kind'])} is not accepted",
            "RayJob (case matters)",
        )
    elif what == "no-kind":
        raise SpecError.one(source, "kind", "is required but missing", ACCEPTED_KINDS)
    elif what == "ray-other":
        assert isinstance(doc, Mapping)
        raise SpecError.one(
            source,
            "kind",
            f"{doc['kind']} ({doc.get('apiVersion')}) is not handled: raygang gang-schedules "
            "RayJobs and RayClusters only, and would not create it",
            "a RayJob or a RayCluster; apply a RayService or RayCronJob with kubectl and "
            "KubeRay, outside raygang",
        )
    elif doc is not None:
        raise SpecError.one(
            source,
            "<document>",
            f"{describe_document(doc)} is not a Kubernetes object",
            ACCEPTED_KINDS,
        )

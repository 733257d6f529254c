"""Two gangs declared by hand with pulumi_kubernetes, each wrong in its own way.

* ``wrong-gang``: its PodGroup counts the submitter Job in ``minMember`` (4 for 3 Ray pods)
  and names a queue nobody declares.
* ``too-big``: its numbers are right (InteractiveMode: no submitter), but each worker asks
  for 12 cpu, more than any node of the 8-cpu shape the policy config declares.
"""

import pulumi_kubernetes as k8s
from pulumi_kubernetes.apiextensions import CustomResource

NS = "default"
IMAGE = "rayproject/ray:2.52.0"


def pod(name: str, group: str, task: str, cpu: str, memory: str) -> dict[str, object]:
    return {
        "metadata": {
            "annotations": {"scheduling.k8s.io/group-name": group, "volcano.sh/task-spec": task}
        },
        "spec": {
            "schedulerName": "volcano",
            "containers": [
                {
                    "name": name,
                    "image": IMAGE,
                    "resources": {
                        "requests": {"cpu": cpu, "memory": memory},
                        "limits": {"cpu": cpu, "memory": memory},
                    },
                }
            ],
        },
    }


def cluster(name: str, worker_cpu: str) -> CustomResource:
    group = f"{name}-pg"
    return CustomResource(
        name,
        api_version="ray.io/v1",
        kind="RayCluster",
        metadata={"name": name, "namespace": NS},
        spec={
            "rayVersion": "2.52.0",
            "headGroupSpec": {
                "rayStartParams": {},
                "template": pod("ray-head", group, "headgroup", "1", "2Gi"),
            },
            "workerGroupSpecs": [
                {
                    "groupName": "compute",
                    "replicas": 2,
                    "minReplicas": 2,
                    "maxReplicas": 2,
                    "rayStartParams": {},
                    "template": pod("ray-worker", group, "compute", worker_cpu, "4Gi"),
                }
            ],
        },
    )


def podgroup(name: str, queue: str, min_member: int, resources: dict[str, str]) -> CustomResource:
    return CustomResource(
        f"{name}-pg",
        api_version="scheduling.volcano.sh/v1beta1",
        kind="PodGroup",
        metadata={"name": f"{name}-pg", "namespace": NS},
        spec={"minMember": min_member, "minResources": resources, "queue": queue},
    )


# 1 head (1 cpu, 2Gi) + 2 workers (2 cpu, 4Gi) + the submitter (500m, 512Mi): minMember 3,
# minResources cpu 5500m, memory 10752Mi. Declared: minMember 4 (the submitter counted).
podgroup("wrong-gang", "missing-queue", 4, {"cpu": "5500m", "memory": "10752Mi"})
cluster("wrong-gang", "2")
submitter = pod("ray-job-submitter", "wrong-gang-pg", "submittergroup", "500m", "512Mi")
submitter["spec"]["restartPolicy"] = "Never"  # type: ignore[index]
k8s.batch.v1.Job(
    "wrong-gang-submitter",
    metadata={"name": "wrong-gang", "namespace": NS},
    spec={"backoffLimit": 0, "template": submitter},
)

# 1 head (1 cpu, 2Gi) + 2 workers (12 cpu, 4Gi): minMember 3, cpu 25, memory 10Gi.
podgroup("too-big", "default", 3, {"cpu": "25", "memory": "10Gi"})
cluster("too-big", "12")

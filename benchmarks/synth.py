"""Deterministic synthetic inputs: RayJobs, Queues, cluster snapshots.

Everything is drawn from a seeded :class:`random.Random`, so two runs (or two machines)
benchmark the same documents. Jobs are generated in blocks of five whose *shape mix* is
fixed (worker-group counts, autoscaling, init containers, modes are shuffled within a
block, not drawn independently), so any multiple of 5 jobs costs about as much per job as
the first 1000, and the fitted growth exponent measures the planner, not sampling noise.
"""

from __future__ import annotations

import random
from typing import Any

__all__ = [
    "DECLARED_QUEUES",
    "EXISTING_QUEUES",
    "IMAGE",
    "eks_nodes_yaml",
    "make_documents",
    "make_snapshot_objects",
    "queue_manifest",
    "rayjob_manifest",
]

IMAGE = "rayproject/ray:2.52.0"
BLOCK = 5

# Queues the stack declares (and creates) versus queues that already exist in the cluster.
DECLARED_QUEUES = ("ray-batch", "ray-train")
EXISTING_QUEUES = ("ray-dev", "ray-adhoc")
NAMESPACES = ("default", "ml", "team-a", "team-b")

# Mixed quantity forms, as users write them: milli, decimal fractions, ints, exponents,
# binary and decimal suffixes. Python ints are what YAML gives for `cpu: 2`.
CPU_FORMS: tuple[str | int, ...] = ("500m", "1.5", "2", 4, "250m", "1e0", "2500m", 1, "0.5")
MEMORY_FORMS: tuple[str, ...] = ("2Gi", "1536Mi", "1G", "4e9", "512Mi", "8Gi", "3.5Gi", "16Gi")
STORAGE_FORMS: tuple[str, ...] = ("10Gi", "1e10", "500M", "1e3", "20G")
# Worker-group counts of one block of jobs: 1..20, mean 10.4.
GROUP_COUNTS = (1, 6, 10, 15, 20)


def _requests(rng: random.Random, gpu: bool = False, storage: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"cpu": rng.choice(CPU_FORMS), "memory": rng.choice(MEMORY_FORMS)}
    if gpu:
        out["nvidia.com/gpu"] = rng.choice((1, "1", 2, "4"))
    if storage:
        out["ephemeral-storage"] = rng.choice(STORAGE_FORMS)
    return out


def _container(
    rng: random.Random, name: str, gpu: bool = False, limits: bool = True
) -> dict[str, Any]:
    requests = _requests(rng, gpu=gpu, storage=rng.random() < 0.2)
    resources: dict[str, Any] = {"requests": requests}
    if limits:
        # Limits equal to requests on some containers, limits only (no requests) on others.
        if rng.random() < 0.2:
            resources = {"limits": requests}
        else:
            resources["limits"] = dict(requests)
    return {"name": name, "image": IMAGE, "resources": resources}


def _pod_spec(rng: random.Random, main: str, gpu: bool, extras: bool) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [_container(rng, main, gpu=gpu)]}
    if gpu and rng.random() < 0.9:
        # What the ExtendedResourceToleration admission plugin adds to a pod asking for GPUs;
        # the other tenth forgot it, so preflight's failure paths are measured too.
        spec["tolerations"] = [
            {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
        ]
    if extras:
        # A regular sidecar, a plain init container and a native sidecar (KEP-753).
        spec["containers"].append(_container(rng, "log-shipper"))
        init = _container(rng, "fetch-model")
        sidecar = _container(rng, "proxy")
        sidecar["restartPolicy"] = "Always"
        spec["initContainers"] = [init, sidecar]
    return spec


def _worker_group(
    rng: random.Random, index: int, autoscaling: bool, extras: bool
) -> dict[str, Any]:
    replicas = rng.randint(0, 8)
    low = rng.randint(0, replicas)
    high = replicas + rng.randint(0, 8)
    group: dict[str, Any] = {
        "groupName": f"group-{index}",
        "replicas": replicas,
        "minReplicas": low,
        "maxReplicas": high,
        "rayStartParams": {},
        "template": {
            "spec": _pod_spec(rng, "ray-worker", gpu=rng.random() < 0.3, extras=extras),
        },
    }
    if rng.random() < 0.25:
        group["numOfHosts"] = 2
    if not autoscaling and rng.random() < 0.05:
        group["suspend"] = True
    if rng.random() < 0.05:
        group["template"]["spec"]["overhead"] = {"cpu": "250m", "memory": "120Mi"}
    return group


def rayjob_manifest(
    rng: random.Random,
    index: int,
    groups: int,
    autoscaling: bool,
    extras: bool,
    mode: str,
) -> dict[str, Any]:
    """One synthetic RayJob with ``groups`` worker groups."""
    labels: dict[str, str] = {"team": rng.choice(("vision", "nlp", "data-eng"))}
    queue = rng.choice((*DECLARED_QUEUES, *EXISTING_QUEUES, None))
    if queue is not None:
        labels["volcano.sh/queue-name"] = queue
    if rng.random() < 0.3:
        labels["ray.io/priority-class-name"] = "training-high"
    cluster: dict[str, Any] = {
        "rayVersion": "2.52.0",
        "headGroupSpec": {
            "rayStartParams": {"num-cpus": "0"},
            "template": {"spec": _pod_spec(rng, "ray-head", gpu=False, extras=extras)},
        },
        "workerGroupSpecs": [
            _worker_group(rng, g, autoscaling, extras and g % 3 == 0) for g in range(groups)
        ],
    }
    if autoscaling:
        cluster["enableInTreeAutoscaling"] = True
        if rng.random() < 0.5:
            cluster["autoscalerOptions"] = {
                "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}},
            }
    spec: dict[str, Any] = {
        "entrypoint": f"python /home/ray/app/train.py --job {index} --epochs {rng.randint(1, 50)}",
        "shutdownAfterJobFinishes": True,
        "ttlSecondsAfterFinished": 300,
        "submissionMode": mode,
        "rayClusterSpec": cluster,
    }
    if mode == "K8sJobMode" and rng.random() < 0.5:
        spec["submitterPodTemplate"] = {
            "spec": {
                "restartPolicy": "Never",
                "containers": [_container(rng, "ray-job-submitter")],
            }
        }
    if rng.random() < 0.3:
        spec["runtimeEnvYAML"] = f"env_vars:\n  RUN: '{index}'\n"
    return {
        "apiVersion": "ray.io/v1",
        "kind": "RayJob",
        "metadata": {
            "name": f"job-{index:05d}",
            "namespace": NAMESPACES[index % len(NAMESPACES)],
            "labels": labels,
        },
        "spec": spec,
    }


def queue_manifest(name: str, cpu: str = "4000", memory: str = "16Ti") -> dict[str, Any]:
    """A Volcano Queue with a capability."""
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "Queue",
        "metadata": {"name": name},
        "spec": {"weight": 1, "reclaimable": True, "capability": {"cpu": cpu, "memory": memory}},
    }


def make_documents(count: int, seed: int = 20251129) -> list[tuple[str, object]]:
    """The declared Queues followed by ``count`` RayJobs, as ``(source, object)`` pairs."""
    rng = random.Random(seed)
    docs: list[tuple[str, object]] = [
        (f"bench/queues.yaml (document {i + 1})", queue_manifest(name))
        for i, name in enumerate(DECLARED_QUEUES)
    ]
    modes = ["K8sJobMode"] * 3 + ["SidecarMode", "InteractiveMode"]
    for start in range(0, count, BLOCK):
        counts = list(GROUP_COUNTS)
        scaling = [True] * 2 + [False] * 3
        extras = [True] * 2 + [False] * 3
        block_modes = list(modes)
        for values in (counts, scaling, extras, block_modes):
            rng.shuffle(values)
        for k in range(min(BLOCK, count - start)):
            index = start + k
            job = rayjob_manifest(rng, index, counts[k], scaling[k], extras[k], block_modes[k])
            docs.append((f"bench/jobs.yaml (document {index + 1})", job))
    return docs


def _node(rng: random.Random, index: int) -> dict[str, Any]:
    gpu = index % 5 == 0
    allocatable: dict[str, str] = {
        "cpu": rng.choice(("32", "64", "96")),
        "memory": rng.choice(("128Gi", "256Gi", "384Gi")),
        "pods": "110",
        "ephemeral-storage": "500Gi",
    }
    if gpu:
        allocatable["nvidia.com/gpu"] = "8"
    node: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": f"node-{index:04d}",
            "labels": {
                "kubernetes.io/hostname": f"node-{index:04d}",
                "topology.kubernetes.io/zone": f"zone-{index % 3}",
                "node.kubernetes.io/instance-type": "gpu" if gpu else "cpu",
            },
        },
        "spec": {},
        "status": {
            "allocatable": allocatable,
            "capacity": dict(allocatable),
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }
    if gpu:
        node["spec"]["taints"] = [
            {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
        ]
    if index % 97 == 0:
        node["spec"]["unschedulable"] = True
    return node


def _pod(rng: random.Random, index: int, node: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"running-{index:05d}", "namespace": "other"},
        "spec": {
            "nodeName": node,
            "schedulerName": "default-scheduler",
            "containers": [
                {
                    "name": "app",
                    "image": "busybox",
                    "resources": {"requests": _requests(rng)},
                }
            ],
        },
        "status": {"phase": "Running"},
    }


def make_snapshot_objects(
    nodes: int = 500, pods_per_node: int = 3, seed: int = 7
) -> list[dict[str, Any]]:
    """``kubectl get nodes,pods,queues -A -o yaml``-like output: one ``v1`` List."""
    rng = random.Random(seed)
    items: list[dict[str, Any]] = [_node(rng, i) for i in range(nodes)]
    items += [_pod(rng, i, f"node-{i % nodes:04d}") for i in range(nodes * pods_per_node)]
    for name in ("default", *DECLARED_QUEUES, *EXISTING_QUEUES):
        queue = queue_manifest(name)
        queue["status"] = {"state": "Open"}
        items.append(queue)
    return [{"apiVersion": "v1", "kind": "List", "items": items}]


_EKS_NODE = """\
- apiVersion: v1
  kind: Node
  metadata:
    annotations:
      alpha.kubernetes.io/provided-node-ip: {ip}
      csi.volume.kubernetes.io/nodeid: '{{"ebs.csi.aws.com":"i-{index:017x}"}}'
      node.alpha.kubernetes.io/ttl: "0"
      volumes.kubernetes.io/controller-managed-attach-detach: "true"
    creationTimestamp: "2026-11-20T09:55:00Z"
    labels:
      beta.kubernetes.io/arch: amd64
      beta.kubernetes.io/instance-type: {itype}
      beta.kubernetes.io/os: linux
      eks.amazonaws.com/capacityType: ON_DEMAND
      eks.amazonaws.com/nodegroup: {group}
      eks.amazonaws.com/nodegroup-image: ami-0a1b2c3d4e5f67890
      eks.amazonaws.com/sourceLaunchTemplateId: lt-0123456789abcdef0
      eks.amazonaws.com/sourceLaunchTemplateVersion: "3"
      failure-domain.beta.kubernetes.io/region: us-west-2
      failure-domain.beta.kubernetes.io/zone: {zone}
      k8s.io/cloud-provider-aws: a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6
      kubernetes.io/arch: amd64
      kubernetes.io/hostname: {name}
      kubernetes.io/os: linux
      node.kubernetes.io/instance-type: {itype}
      team: team-{team}
      topology.ebs.csi.aws.com/zone: {zone}
      topology.k8s.aws/zone-id: usw2-az{az}
      topology.kubernetes.io/region: us-west-2
      topology.kubernetes.io/zone: {zone}
    name: {name}
    resourceVersion: "{version}"
    uid: {index:08x}-1234-5678-9abc-{index:012x}
  spec:
    providerID: aws:///{zone}/i-{index:017x}
{taints}  status:
    addresses:
    - address: {ip}
      type: InternalIP
    - address: {name}
      type: InternalDNS
    - address: {name}
      type: Hostname
    allocatable:
      attachable-volumes-aws-ebs: "25"
      cpu: 15890m
      ephemeral-storage: "95551679124"
      hugepages-1Gi: "0"
      hugepages-2Mi: "0"
      memory: 62237656Ki
{gpu}      pods: "234"
    capacity:
      attachable-volumes-aws-ebs: "25"
      cpu: "16"
      ephemeral-storage: 104845292Ki
      hugepages-1Gi: "0"
      hugepages-2Mi: "0"
      memory: 65023448Ki
{gpu}      pods: "234"
    conditions:
{conditions}    daemonEndpoints:
      kubeletEndpoint:
        Port: 10250
{images}    nodeInfo:
      architecture: amd64
      bootID: 0c2d1f4e-8a3b-4c5d-9e6f-{index:012x}
      containerRuntimeVersion: containerd://1.7.11
      kernelVersion: 5.10.201-191.748.amzn2.x86_64
      kubeProxyVersion: v1.29.0-eks-5e0fdde
      kubeletVersion: v1.29.0-eks-5e0fdde
      machineID: ec2{index:029x}
      operatingSystem: linux
      osImage: Amazon Linux 2
      systemUUID: ec2{index:029x}
"""

_CONDITIONS = "".join(
    f"""\
    - lastHeartbeatTime: "2026-11-29T09:58:00Z"
      lastTransitionTime: "2026-11-20T09:58:00Z"
      message: {message}
      reason: {reason}
      status: "{status}"
      type: {kind}
"""
    for kind, status, reason, message in (
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    )
)


def eks_nodes_yaml(count: int, images: int = 12) -> str:
    """``kubectl get nodes -o yaml`` of ``count`` EKS nodes, as one ``v1`` ``List``: every
    field the kubelet and EKS fill in (20 labels, taints on GPU and dedicated nodes, four
    conditions, ``images`` of ``images`` entries). Written as text: 10,000 nodes in a
    second. About 6.5 KB and 290 YAML nodes a node with 12 images, 3.5 KB and 210 without."""
    registry = "602401143452.dkr.ecr.us-west-2.amazonaws.com/eks"
    image_text = "".join(
        f"""\
    - names:
      - {registry}/image-{k}@sha256:{k * 7919 + 1:064x}
      - {registry}/image-{k}:v1.{k}.0-eksbuild.1
      sizeBytes: {10_000_000 + k * 1_234_567}
"""
        for k in range(images)
    )
    parts = ["apiVersion: v1\nitems:\n"]
    for index in range(count):
        ip = f"10.{index // 65536 % 256}.{index // 256 % 256}.{index % 256}"
        zone = "us-west-2" + "abc"[index % 3]
        gpu = index % 5 == 0
        taints = []
        if gpu:
            taints.append(("nvidia.com/gpu", "present"))
        if index % 11 == 0:
            taints.append(("dedicated", "ray"))
        parts.append(
            _EKS_NODE.format(
                index=index,
                ip=ip,
                name=f"ip-{ip.replace('.', '-')}.us-west-2.compute.internal",
                zone=zone,
                az=index % 3 + 1,
                team=index % 7,
                version=1_000_000 + index,
                itype="p4d.24xlarge" if gpu else ("m5.4xlarge", "c5.4xlarge")[index % 2],
                group="gpu-ng" if gpu else "cpu-ng",
                gpu='      nvidia.com/gpu: "8"\n' if gpu else "",
                taints=(
                    "    taints:\n"
                    + "".join(
                        f"    - effect: NoSchedule\n      key: {k}\n      value: {v}\n"
                        for k, v in taints
                    )
                    if taints
                    else ""
                ),
                conditions=_CONDITIONS,
                images=f"    images:\n{image_text}" if images else "",
            )
        )
    parts.append('kind: List\nmetadata:\n  resourceVersion: ""\n')
    return "".join(parts)

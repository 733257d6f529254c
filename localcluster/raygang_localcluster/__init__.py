"""A real Kubernetes control plane with Volcano and KubeRay on loopback, for tests.

Usable from a user's own test suite as from ours::

    from raygang_localcluster import LocalCluster, NodeShape

    with LocalCluster(bin_dir, share_dir, nodes=[NodeShape("n0", cpu="8", memory="32Gi")]) as c:
        c.kubectl("get", "nodes")          # c.kubeconfig is an admin kubeconfig

``bin_dir`` holds the binaries ``tools/build`` makes from the Go module proxy (etcd,
kube-apiserver, kube-controller-manager, kubectl, kwok, Volcano's scheduler and
controller-manager, KubeRay's ray-operator); ``share_dir`` the CRDs of those releases and
kwok's stages. From a checkout both default to ``.tools/`` (see :func:`default_paths`).
Command line:
``python -m raygang_localcluster --help``.
"""

from raygang_localcluster._cluster import LocalCluster
from raygang_localcluster._errors import ClusterError
from raygang_localcluster._nodes import DEFAULT_NODES, KWOK_ANNOTATION, NodeShape
from raygang_localcluster._paths import default_paths
from raygang_localcluster._probes import wait_until
from raygang_localcluster._pulumi import (
    LocalPulumi,
    PulumiError,
    copy_project,
    local_pulumi,
)
from raygang_localcluster._versions import Versions

__all__ = [
    "DEFAULT_NODES",
    "KWOK_ANNOTATION",
    "ClusterError",
    "LocalCluster",
    "LocalPulumi",
    "NodeShape",
    "PulumiError",
    "Versions",
    "copy_project",
    "default_paths",
    "local_pulumi",
    "wait_until",
]

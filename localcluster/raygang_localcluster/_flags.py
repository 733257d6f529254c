"""The command line of each component: which controllers, which flags, and why.

Every listener is on loopback; a port only this component needs is picked here, a port
another component or a probe needs is given by the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from raygang_localcluster._certs import Certificates
from raygang_localcluster._nodes import KWOK_ANNOTATION
from raygang_localcluster._process import free_port
from raygang_localcluster._webhooks import VOLCANO_WEBHOOKS

_SERVICE_CIDR = "10.96.0.0/16"

# The controllers a batch job needs: Jobs and their pods, owner-reference garbage collection,
# namespace deletion, the default ServiceAccount of each namespace, TTL of finished Jobs, the
# kube-root-ca.crt ConfigMap that projected service-account volumes read, and node lifecycle
# (it lifts the not-ready taint the API server puts on every new node once kwok reports it
# Ready; without it nothing schedules), and the pod garbage collector (it deletes a pod bound
# to a node that was deleted, as every real cluster does: the fault suite deletes a node).
KCM_CONTROLLERS = (
    "node-lifecycle-controller",
    "pod-garbage-collector-controller",
    "job-controller",
    "garbage-collector-controller",
    "namespace-controller",
    "serviceaccount-controller",
    "ttl-after-finished-controller",
    "root-ca-certificate-publisher-controller",
)
VOLCANO_CONTROLLERS = ("queue-controller", "pg-controller")


def etcd_args(exe: str, data_dir: Path, url: str, peer: int) -> list[str]:
    return [
        exe,
        "--name=raygang",
        f"--data-dir={data_dir}",
        f"--listen-client-urls={url}",
        f"--advertise-client-urls={url}",
        f"--listen-peer-urls=http://127.0.0.1:{peer}",
        f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
        f"--initial-cluster=raygang=http://127.0.0.1:{peer}",
        "--listen-metrics-urls=",
        "--unsafe-no-fsync",  # a test cluster: durability buys nothing, fsync costs
        "--log-level=warn",
    ]


def apiserver_args(
    exe: str, etcd_url: str, port: int, c: Certificates, cert_dir: Path
) -> list[str]:
    return [
        exe,
        f"--etcd-servers={etcd_url}",
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        f"--secure-port={port}",
        f"--tls-cert-file={c.apiserver.cert}",
        f"--tls-private-key-file={c.apiserver.key}",
        f"--client-ca-file={c.ca.cert}",
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        f"--service-account-key-file={c.service_account_pub}",
        f"--service-account-signing-key-file={c.service_account_key}",
        f"--service-cluster-ip-range={_SERVICE_CIDR}",
        "--authorization-mode=RBAC",
        "--allow-privileged=true",
        "--endpoint-reconciler-type=none",
        "--enable-priority-and-fairness=false",
        "--profiling=false",
        f"--cert-dir={cert_dir}",
    ]


def controller_manager_args(
    exe: str, kubeconfig: Path, c: Certificates, cert_dir: Path
) -> list[str]:
    return [
        exe,
        f"--kubeconfig={kubeconfig}",
        "--leader-elect=false",
        f"--controllers={','.join(KCM_CONTROLLERS)}",
        f"--service-account-private-key-file={c.service_account_key}",
        f"--root-ca-file={c.ca.cert}",
        "--use-service-account-credentials=false",
        "--bind-address=127.0.0.1",
        f"--secure-port={free_port()}",
        f"--cert-dir={cert_dir}",
        "--concurrent-gc-syncs=4",
    ]


def kwok_args(exe: str, kubeconfig: Path, config: Path) -> list[str]:
    return [
        exe,
        f"--kubeconfig={kubeconfig}",
        f"--config={config}",
        "--manage-all-nodes=false",
        f"--manage-nodes-with-annotation-selector={KWOK_ANNOTATION}=fake",
        "--node-ip=127.0.0.1",
        f"--node-port={free_port()}",
        f"--server-address=127.0.0.1:{free_port()}",
        "--cidr=10.244.0.0/16",
        "--node-lease-duration-seconds=40",
    ]


def webhook_manager_args(
    exe: str, kubeconfig: Path, port: int, health: int, c: Certificates
) -> list[str]:
    return [
        exe,
        f"--kubeconfig={kubeconfig}",
        "--listen-address=127.0.0.1",
        f"--port={port}",
        f"--tls-cert-file={c.webhook.cert}",
        f"--tls-private-key-file={c.webhook.key}",
        f"--ca-cert-file={c.ca.cert}",
        f"--webhook-url=https://127.0.0.1:{port}",
        f"--enabled-admission={','.join(w[0] for w in VOLCANO_WEBHOOKS)}",
        "--enable-healthz",
        f"--healthz-address=127.0.0.1:{health}",
    ]


def _volcano_common(kubeconfig: Path) -> list[str]:
    # The health endpoint tells a restarted component is serving again (LocalCluster's
    # start_component); Volcano serves it only when asked.
    return [f"--kubeconfig={kubeconfig}", "--leader-elect=false", "--enable-healthz"]


def volcano_controller_manager_args(exe: str, kubeconfig: Path) -> list[str]:
    return [
        exe,
        *_volcano_common(kubeconfig),
        f"--controllers={','.join(VOLCANO_CONTROLLERS)}",
        f"--listen-address=127.0.0.1:{free_port()}",
        f"--healthz-address=127.0.0.1:{free_port()}",
    ]


def volcano_scheduler_args(exe: str, kubeconfig: Path, cache_dump_dir: Path) -> list[str]:
    return [
        exe,
        *_volcano_common(kubeconfig),
        f"--listen-address=127.0.0.1:{free_port()}",
        f"--healthz-address=127.0.0.1:{free_port()}",
        f"--cache-dump-dir={cache_dump_dir}",
    ]


def ray_operator_args(
    exe: str, probe: int, *, volcano: bool, feature_gates: Sequence[str] = ()
) -> list[str]:
    # feature_gates: ``Name=true`` pairs for the operator's --feature-gates (e.g.
    # RayMultiHostIndexing, alpha and off in KubeRay v1.5).
    return [
        exe,
        f"--metrics-addr=127.0.0.1:{free_port()}",
        f"--health-probe-bind-address=127.0.0.1:{probe}",
        "--enable-leader-election=false",
        *(["--batch-scheduler=volcano"] if volcano else []),
        *([f"--feature-gates={','.join(feature_gates)}"] if feature_gates else []),
    ]


def flag_value(argv: Sequence[str], flag: str) -> str:
    """The value of ``--flag=value`` in a command line built here."""
    prefix = f"{flag}="
    for arg in argv:
        if arg.startswith(prefix):
            return arg[len(prefix) :]
    raise KeyError(flag)

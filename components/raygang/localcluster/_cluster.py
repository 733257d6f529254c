"""A real control plane on loopback: etcd, kube-apiserver, kube-controller-manager, kwok's fake
nodes, Volcano's scheduler and controllers, and the KubeRay operator.

The binaries are the ones ``tools/build`` makes from the Go module proxy. Each runs as a plain
process of this machine with its log in ``<workdir>/logs``; the cluster is gone when
:meth:`LocalCluster.stop` returns (also on errors, Ctrl-C and interpreter exit).
"""

from __future__ import annotations

import atexit
import base64
import json
import os
import shutil
import ssl
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from raygang.localcluster._certs import Certificates, make_certificates
from raygang.localcluster._errors import ClusterError
from raygang.localcluster._process import Process, Supervisor, free_port

KWOK_ANNOTATION = "kwok.x-k8s.io/node"
_SERVICE_CIDR = "10.96.0.0/16"
_START_TIMEOUT_S = 90.0

# The controllers a batch job needs: Jobs and their pods, owner-reference garbage collection,
# namespace deletion, the default ServiceAccount of each namespace, TTL of finished Jobs, the
# kube-root-ca.crt ConfigMap that projected service-account volumes read, and node lifecycle
# (it lifts the not-ready taint the API server puts on every new node once kwok reports it
# Ready; without it nothing schedules).
KCM_CONTROLLERS = (
    "node-lifecycle-controller",
    "job-controller",
    "garbage-collector-controller",
    "namespace-controller",
    "serviceaccount-controller",
    "ttl-after-finished-controller",
    "root-ca-certificate-publisher-controller",
)
VOLCANO_CONTROLLERS = ("queue-controller", "pg-controller")
# The admission webhooks of a Volcano install that concern our objects (path, kind of
# configuration, operations, resource). The validating one for PodGroups is what refuses a
# PodGroup whose queue is not Open; the mutating ones fill in defaults (queue weight, ...).
VOLCANO_WEBHOOKS = (
    ("/podgroups/validate", "Validating", ("CREATE",), "podgroups"),
    ("/podgroups/mutate", "Mutating", ("CREATE",), "podgroups"),
    ("/queues/validate", "Validating", ("CREATE", "UPDATE", "DELETE"), "queues"),
    ("/queues/mutate", "Mutating", ("CREATE",), "queues"),
)


@dataclass(frozen=True)
class NodeShape:
    """A fake node kwok keeps Ready: its allocatable resources, labels and taints."""

    name: str
    cpu: str = "8"
    memory: str = "32Gi"
    pods: int = 110
    extra: Mapping[str, str] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: Sequence[Mapping[str, str]] = ()

    def manifest(self) -> dict[str, Any]:
        resources = {"cpu": self.cpu, "memory": self.memory, "pods": str(self.pods)}
        resources.update(self.extra)
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": self.name,
                "annotations": {KWOK_ANNOTATION: "fake", "node.alpha.kubernetes.io/ttl": "0"},
                "labels": {
                    "kubernetes.io/hostname": self.name,
                    "kubernetes.io/os": "linux",
                    "kubernetes.io/arch": "amd64",
                    "type": "kwok",
                    **self.labels,
                },
            },
            "spec": {"taints": [dict(t) for t in self.taints]},
            "status": {"allocatable": resources, "capacity": resources},
        }


DEFAULT_NODES = (
    NodeShape("kwok-node-0"),
    NodeShape("kwok-node-1"),
)


@dataclass(frozen=True)
class Versions:
    """What each component says of itself (``--version``), for reports and the README."""

    items: Mapping[str, str]


class LocalCluster:
    """Start with :meth:`start` (or ``with LocalCluster(...) as c``); ``kubeconfig`` then
    points at an admin client of the new cluster."""

    def __init__(
        self,
        bin_dir: Path,
        share_dir: Path,
        workdir: Path | None = None,
        nodes: Iterable[NodeShape] = DEFAULT_NODES,
        *,
        volcano: bool = True,
        webhooks: bool = True,
        kuberay: bool = True,
        start_timeout: float = _START_TIMEOUT_S,
    ) -> None:
        self.bin_dir = bin_dir
        self.share_dir = share_dir
        self._own_workdir = workdir is None
        self.workdir = workdir or Path(tempfile.mkdtemp(prefix="raygang-cluster-"))
        self.logs = self.workdir / "logs"
        self.nodes = tuple(nodes)
        self.with_volcano = volcano
        self.with_webhooks = volcano and webhooks
        self.with_kuberay = kuberay
        self.start_timeout = start_timeout
        self.kubeconfig = self.workdir / "kubeconfig"
        self.server = ""
        self._sup = Supervisor(self.logs)
        self._certs: Certificates | None = None
        self._atexit = False

    # -- lifecycle -------------------------------------------------------------------------

    def __enter__(self) -> LocalCluster:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def start(self) -> None:
        if not self._atexit:
            atexit.register(self.stop)
            self._atexit = True
        try:
            self._certs = make_certificates(self.workdir / "pki")
            etcd_url = self._start_etcd()
            self._start_apiserver(etcd_url)
            self._write_kubeconfig()
            self._start_controller_manager()
            self._install_crds()
            self._start_kwok()
            self.add_nodes(self.nodes)
            if self.with_volcano:
                if self.with_webhooks:
                    self._start_webhooks()
                self._start_volcano()
            if self.with_kuberay:
                self._start_kuberay()
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        self._sup.stop_all()

    def remove(self) -> None:
        """Stop, then delete the work directory (logs included) if this object made it."""
        self.stop()
        if self._own_workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def check(self) -> None:
        """Raise :class:`ClusterError` naming a component that has died, with its log."""
        self._sup.check()

    # -- clients ---------------------------------------------------------------------------

    def env(self) -> dict[str, str]:
        return {"KUBECONFIG": str(self.kubeconfig)}

    def kubectl(
        self,
        *args: str,
        input: str | None = None,
        check: bool = True,
        timeout: float = 60.0,
    ) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(self.bin_dir / "kubectl"), "--kubeconfig", str(self.kubeconfig), *args],
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and done.returncode != 0:
            raise ClusterError(
                "kubectl", None, f"kubectl {' '.join(args)} failed: {done.stderr.strip()}"
            )
        return done

    def get(self, *args: str) -> Any:
        """``kubectl get ... -o json``, parsed."""
        return json.loads(self.kubectl("get", *args, "-o", "json").stdout)

    def apply(self, manifests: Iterable[Mapping[str, Any]]) -> None:
        """``kubectl apply --server-side`` of the objects (nothing to do for none)."""
        items = list(manifests)
        if not items:
            return
        body = json.dumps({"apiVersion": "v1", "kind": "List", "items": items})
        self.kubectl("apply", "--server-side", "--field-manager=raygang-harness", "-f", "-",
                     input=body)  # fmt: skip

    def add_nodes(self, nodes: Iterable[NodeShape]) -> None:
        shapes = list(nodes)
        if not shapes:
            return
        self.apply(s.manifest() for s in shapes)
        names = [s.name for s in shapes]
        self._wait_for("kwok", lambda: self._nodes_ready(names), "making the nodes Ready")

    def versions(self) -> Versions:
        """What each binary says of its release (KubeRay's operator has no version flag)."""
        items: dict[str, str] = {}
        for name, marker in (
            ("etcd", "etcd Version:"),
            ("kube-apiserver", "Kubernetes"),
            ("kube-controller-manager", "Kubernetes"),
            ("kwok", "kwok version"),
            ("vc-scheduler", "Version:"),
        ):
            exe = self.bin_dir / name
            if not exe.exists():
                continue
            done = subprocess.run(
                [str(exe), "--version"], capture_output=True, text=True, timeout=30, check=False
            )
            lines = (done.stdout + done.stderr).splitlines()
            items[name] = next((ln.strip() for ln in lines if ln.startswith(marker)), "")
        return Versions(items)

    # -- components ------------------------------------------------------------------------

    def _exe(self, name: str) -> str:
        return str(self.bin_dir / name)

    def _start_etcd(self) -> str:
        client, peer = free_port(), free_port()
        url = f"http://127.0.0.1:{client}"
        p = self._sup.start(
            "etcd",
            [
                self._exe("etcd"),
                "--name=raygang",
                f"--data-dir={self.workdir / 'etcd'}",
                f"--listen-client-urls={url}",
                f"--advertise-client-urls={url}",
                f"--listen-peer-urls=http://127.0.0.1:{peer}",
                f"--initial-advertise-peer-urls=http://127.0.0.1:{peer}",
                f"--initial-cluster=raygang=http://127.0.0.1:{peer}",
                "--listen-metrics-urls=",
                "--unsafe-no-fsync",  # a test cluster: durability buys nothing, fsync costs
                "--log-level=warn",
            ],
        )
        self._sup.wait(p, lambda: b'"health":"true"' in _http(f"{url}/health"),
                       timeout=self.start_timeout)  # fmt: skip
        return url

    def _start_apiserver(self, etcd_url: str) -> None:
        c = self._need_certs()
        port = free_port()
        self.server = f"https://127.0.0.1:{port}"
        p = self._sup.start(
            "kube-apiserver",
            [
                self._exe("kube-apiserver"),
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
                f"--cert-dir={self.workdir / 'pki'}",
            ],
        )
        self._sup.wait(p, lambda: _http(f"{self.server}/readyz", self._tls()) == b"ok",
                       timeout=self.start_timeout)  # fmt: skip

    def _write_kubeconfig(self) -> None:
        c = self._need_certs()
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "raygang-local",
                    "cluster": {"server": self.server, "certificate-authority": str(c.ca.cert)},
                }
            ],
            "users": [
                {
                    "name": "raygang-admin",
                    "user": {
                        "client-certificate": str(c.admin.cert),
                        "client-key": str(c.admin.key),
                    },
                }
            ],
            "contexts": [
                {
                    "name": "raygang-local",
                    "context": {
                        "cluster": "raygang-local",
                        "user": "raygang-admin",
                        "namespace": "default",
                    },
                }
            ],
            "current-context": "raygang-local",
        }
        self.kubeconfig.write_text(json.dumps(config, indent=2) + "\n")
        os.chmod(self.kubeconfig, 0o600)

    def _start_controller_manager(self) -> None:
        c = self._need_certs()
        p = self._sup.start(
            "kube-controller-manager",
            [
                self._exe("kube-controller-manager"),
                f"--kubeconfig={self.kubeconfig}",
                "--leader-elect=false",
                f"--controllers={','.join(KCM_CONTROLLERS)}",
                f"--service-account-private-key-file={c.service_account_key}",
                f"--root-ca-file={c.ca.cert}",
                "--use-service-account-credentials=false",
                "--bind-address=127.0.0.1",
                f"--secure-port={free_port()}",
                f"--cert-dir={self.workdir / 'pki' / 'kcm'}",
                "--concurrent-gc-syncs=4",
            ],
        )
        # The serviceaccount controller creating `default` proves the manager is working.
        self._sup.wait(
            p,
            lambda: self.kubectl("get", "serviceaccount", "default", check=False).returncode == 0,
            timeout=self.start_timeout,
            what="creating the default ServiceAccount",
        )

    def _install_crds(self) -> None:
        folders = []
        if self.with_volcano:
            folders.append(self.share_dir / "crds-volcano")
        if self.with_kuberay:
            folders.append(self.share_dir / "crds-kuberay")
        for folder in folders:
            if not folder.is_dir():
                raise ClusterError("crds", None, f"no CRD folder {folder}: run `make tools`")
            self.kubectl("apply", "--server-side", "--field-manager=raygang-harness",
                         "-f", str(folder.resolve()), timeout=120)  # fmt: skip
        expected = sum(len(list(f.glob("*.yaml"))) for f in folders)
        if expected:
            # Polled rather than `kubectl wait --for=condition=Established crd --all`, which
            # fails outright on a CRD whose status has no conditions yet.
            self._wait_for("kube-apiserver", lambda: self._crds_established(expected),
                           "establishing the CRDs")  # fmt: skip

    def _start_kwok(self) -> None:
        # kwok reads its Stage objects (how fake nodes and pods move through their life) from
        # its config file: the release's defaults, shipped by tools/build.
        stages = sorted((self.share_dir / "kwok-stages").glob("*.yaml"))
        if not stages:
            raise ClusterError("kwok", None, f"no stages in {self.share_dir / 'kwok-stages'}: "
                               "run `make tools`")  # fmt: skip
        config = self.workdir / "kwok.yaml"
        config.write_text("\n---\n".join(p.read_text() for p in stages))
        self._sup.start(
            "kwok",
            [
                self._exe("kwok"),
                f"--kubeconfig={self.kubeconfig}",
                f"--config={config}",
                "--manage-all-nodes=false",
                f"--manage-nodes-with-annotation-selector={KWOK_ANNOTATION}=fake",
                "--node-ip=127.0.0.1",
                f"--node-port={free_port()}",
                f"--server-address=127.0.0.1:{free_port()}",
                "--cidr=10.244.0.0/16",
                "--node-lease-duration-seconds=40",
            ],
            env={"HOME": str(self.workdir)},
        )

    def _start_webhooks(self) -> None:
        """Volcano's webhook-manager on loopback, registered as a real install registers it.

        Out of cluster it cannot create its webhook configurations itself (it only patches
        the CA bundle of existing ones, named ``volcano-admission-service-<path>``), so we
        create them, pointing at its URL, before it starts."""
        c = self._need_certs()
        port, health = free_port(), free_port()
        ca_bundle = base64.b64encode(c.ca.cert.read_bytes()).decode()
        configs = []
        for path, kind, operations, resource in VOLCANO_WEBHOOKS:
            name = "volcano-admission-service" + path.replace("/", "-")
            verb = "validate" if kind == "Validating" else "mutate"
            configs.append(
                {
                    "apiVersion": "admissionregistration.k8s.io/v1",
                    "kind": f"{kind}WebhookConfiguration",
                    "metadata": {"name": name},
                    "webhooks": [
                        {
                            "name": f"{verb}{resource[:-1]}.volcano.sh",
                            "admissionReviewVersions": ["v1"],
                            "sideEffects": "None",
                            "failurePolicy": "Fail",
                            "timeoutSeconds": 10,
                            "clientConfig": {
                                "url": f"https://127.0.0.1:{port}{path}",
                                "caBundle": ca_bundle,
                            },
                            "rules": [
                                {
                                    "operations": list(operations),
                                    "apiGroups": ["scheduling.volcano.sh"],
                                    "apiVersions": ["v1beta1"],
                                    "resources": [resource],
                                }
                            ],
                        }
                    ],
                }
            )
        self.apply(configs)
        p = self._sup.start(
            "vc-webhook-manager",
            [
                self._exe("vc-webhook-manager"),
                f"--kubeconfig={self.kubeconfig}",
                "--listen-address=127.0.0.1",
                f"--port={port}",
                f"--tls-cert-file={c.webhook.cert}",
                f"--tls-private-key-file={c.webhook.key}",
                f"--ca-cert-file={c.ca.cert}",
                f"--webhook-url=https://127.0.0.1:{port}",
                f"--enabled-admission={','.join(w[0] for w in VOLCANO_WEBHOOKS)}",
                "--enable-healthz",
                f"--healthz-address=127.0.0.1:{health}",
            ],
        )
        # Its health endpoint is served over TLS with the webhook's own certificate.
        trust = ssl.create_default_context(cafile=str(c.ca.cert))
        self._sup.wait(p, lambda: _http(f"https://127.0.0.1:{health}/healthz", trust) == b"ok",
                       timeout=self.start_timeout)  # fmt: skip

    def _start_volcano(self) -> None:
        common = [f"--kubeconfig={self.kubeconfig}", "--leader-elect=false"]
        cm = self._sup.start(
            "vc-controller-manager",
            [
                self._exe("vc-controller-manager"),
                *common,
                f"--controllers={','.join(VOLCANO_CONTROLLERS)}",
                f"--listen-address=127.0.0.1:{free_port()}",
                f"--healthz-address=127.0.0.1:{free_port()}",
            ],
        )
        sched = self._sup.start(
            "vc-scheduler",
            [
                self._exe("vc-scheduler"),
                *common,
                f"--listen-address=127.0.0.1:{free_port()}",
                f"--healthz-address=127.0.0.1:{free_port()}",
                f"--cache-dump-dir={self.workdir / 'vc-cache-dump'}",
            ],
        )
        # Volcano's queue controller opens the `default` queue the scheduler creates.
        self._sup.wait(
            sched,
            lambda: self._queue_state("default") == "Open",
            timeout=self.start_timeout,
            what="opening the default queue",
        )
        self._sup.check()
        del cm

    def _start_kuberay(self) -> None:
        probe = free_port()
        p = self._sup.start(
            "ray-operator",
            [
                self._exe("ray-operator"),
                f"--metrics-addr=127.0.0.1:{free_port()}",
                f"--health-probe-bind-address=127.0.0.1:{probe}",
                "--enable-leader-election=false",
                *(["--batch-scheduler=volcano"] if self.with_volcano else []),
            ],
            env={"KUBECONFIG": str(self.kubeconfig)},
        )
        self._sup.wait(p, lambda: _http(f"http://127.0.0.1:{probe}/readyz") == b"ok",
                       timeout=self.start_timeout)  # fmt: skip

    # -- probes ----------------------------------------------------------------------------

    def _need_certs(self) -> Certificates:
        if self._certs is None:
            raise ClusterError("harness", None, "certificates not made yet")
        return self._certs

    def _tls(self) -> ssl.SSLContext:
        c = self._need_certs()
        ctx = ssl.create_default_context(cafile=str(c.ca.cert))
        ctx.load_cert_chain(str(c.admin.cert), str(c.admin.key))
        return ctx

    def _queue_state(self, name: str) -> str:
        done = self.kubectl(
            "get", "queues.scheduling.volcano.sh", name, "-o", "jsonpath={.status.state}",
            check=False,
        )  # fmt: skip
        return done.stdout.strip() if done.returncode == 0 else ""

    def _crds_established(self, expected: int) -> bool:
        items = self.get("customresourcedefinitions")["items"]
        established = [
            i
            for i in items
            if any(
                c.get("type") == "Established" and c.get("status") == "True"
                for c in i.get("status", {}).get("conditions") or []
            )
        ]
        return len(established) >= expected

    def _nodes_ready(self, names: Sequence[str]) -> bool:
        items = self.get("nodes")["items"]
        ready = {
            n["metadata"]["name"]
            for n in items
            for cond in n.get("status", {}).get("conditions", [])
            if cond.get("type") == "Ready" and cond.get("status") == "True"
        }
        return set(names) <= ready

    def _wait_for(self, component: str, probe: Any, what: str) -> None:
        process = self._process(component)
        if process is None:
            raise ClusterError(component, None, "not running")
        self._sup.wait(process, probe, timeout=self.start_timeout, what=what)

    def _process(self, name: str) -> Process | None:
        return next((p for p in self._sup.processes if p.name == name), None)


def _http(url: str, context: ssl.SSLContext | None = None) -> bytes:
    with urllib.request.urlopen(url, timeout=5, context=context) as response:
        body: bytes = response.read()
        return body.strip()


def wait_until(probe: Any, timeout: float, what: str, interval: float = 0.5) -> Any:
    """Poll ``probe()`` until it returns something truthy; raise after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(interval)
    raise TimeoutError(f"{what}: not reached after {timeout:.0f} s (last seen: {last!r})")

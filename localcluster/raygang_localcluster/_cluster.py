"""A real control plane on loopback: etcd, kube-apiserver, kube-controller-manager, kwok's fake
nodes, Volcano's scheduler and controllers, and the KubeRay operator.

The binaries are the ones ``tools/build`` makes from the Go module proxy. Each runs as a plain
process of this machine with its log in ``<workdir>/logs``; the cluster is gone when
:meth:`LocalCluster.stop` returns (also on errors, Ctrl-C and interpreter exit).

This module is the lifecycle: the components started in order, each waited for until it
serves; their command lines are in ``_flags``, the fake nodes in ``_nodes``.
"""

from __future__ import annotations

import atexit
import base64
import json
import os
import shutil
import signal
import ssl
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from raygang_localcluster._certs import Certificates, make_certificates
from raygang_localcluster._errors import ClusterError
from raygang_localcluster._flags import (
    apiserver_args,
    controller_manager_args,
    etcd_args,
    flag_value,
    kwok_args,
    ray_operator_args,
    volcano_controller_manager_args,
    volcano_scheduler_args,
    webhook_manager_args,
)
from raygang_localcluster._kubeconfig import write_kubeconfig
from raygang_localcluster._nodes import DEFAULT_NODES, NodeShape
from raygang_localcluster._probes import http
from raygang_localcluster._process import Process, Supervisor, free_port
from raygang_localcluster._versions import Versions, read_versions
from raygang_localcluster._webhooks import webhook_configurations

_START_TIMEOUT_S = 90.0

# What a test may stop and start again (a fault): every component but etcd, whose data is the
# cluster.
RESTARTABLE = (
    "kube-apiserver",
    "kube-controller-manager",
    "kwok",
    "vc-webhook-manager",
    "vc-controller-manager",
    "vc-scheduler",
    "ray-operator",
)


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
        kuberay_feature_gates: Sequence[str] = (),
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
        self.kuberay_feature_gates = tuple(kuberay_feature_gates)
        self.start_timeout = start_timeout
        self.kubeconfig = self.workdir / "kubeconfig"
        self.server = ""
        self._sup = Supervisor(self.logs)
        self._certs: Certificates | None = None
        self._atexit = False
        # How each restartable component shows it serves again after start_component.
        self._serving: dict[str, Callable[[], bool]] = {}

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
        """Raise :class:`ClusterError` naming a component that has died, with its log (one
        stopped by :meth:`stop_component` is not reported)."""
        self._sup.check()

    # -- faults ----------------------------------------------------------------------------

    def stop_component(self, name: str) -> None:
        """Stop one component (SIGTERM, then SIGKILL after a grace period), as a crash or an
        outage would take it away; :meth:`start_component` brings it back."""
        self._sup.stop_one(self._restartable(name))

    def kill_component(self, name: str) -> None:
        """SIGKILL one component: no graceful shutdown, as the OOM killer would."""
        process = self._sup.find(self._restartable(name))
        if process.alive():
            os.killpg(process.popen.pid, signal.SIGKILL)
            process.popen.wait(timeout=30)
        process.stopped = True

    def start_component(self, name: str) -> None:
        """Start a stopped component again with the same flags, ports and files; return once
        it serves (its health or readiness endpoint, as at start)."""
        process = self._sup.restart(self._restartable(name))
        self._sup.wait(process, self._serving[name], timeout=self.start_timeout,
                       what="serving again")  # fmt: skip

    def running(self, name: str) -> bool:
        """Whether the component's process is alive now."""
        return self._sup.find(name).alive()

    def delete_node(self, name: str, timeout: float = 60.0) -> None:
        """Delete a kwok node, as when a machine is removed; return once the API server no
        longer has it. Its pods are left to the control plane."""
        self.kubectl("delete", "node", name, "--wait=true", timeout=timeout)
        self.nodes = tuple(n for n in self.nodes if n.name != name)

    def _restartable(self, name: str) -> str:
        if name not in RESTARTABLE:
            raise ClusterError(name, None, f"not a component a test may stop: one of "
                               f"{', '.join(RESTARTABLE)}")  # fmt: skip
        if name not in self._serving:
            raise ClusterError(name, None, "not started by this cluster")
        return name

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
        return read_versions(self.bin_dir)

    # -- components ------------------------------------------------------------------------

    def _exe(self, name: str) -> str:
        return str(self.bin_dir / name)

    def _start_etcd(self) -> str:
        client, peer = free_port(), free_port()
        url = f"http://127.0.0.1:{client}"
        p = self._sup.start("etcd", etcd_args(self._exe("etcd"), self.workdir / "etcd", url, peer))
        self._sup.wait(p, lambda: b'"health":"true"' in http(f"{url}/health"),
                       timeout=self.start_timeout)  # fmt: skip
        return url

    def _start_apiserver(self, etcd_url: str) -> None:
        c = self._need_certs()
        port = free_port()
        self.server = f"https://127.0.0.1:{port}"
        p = self._sup.start(
            "kube-apiserver",
            apiserver_args(self._exe("kube-apiserver"), etcd_url, port, c, self.workdir / "pki"),
        )
        self._serving[p.name] = lambda: http(f"{self.server}/readyz", self._tls()) == b"ok"
        self._sup.wait(p, self._serving[p.name], timeout=self.start_timeout)

    def _write_kubeconfig(self) -> None:
        write_kubeconfig(self.kubeconfig, self.server, self._need_certs())

    def _start_controller_manager(self) -> None:
        c = self._need_certs()
        p = self._sup.start(
            "kube-controller-manager",
            controller_manager_args(
                self._exe("kube-controller-manager"),
                self.kubeconfig,
                c,
                self.workdir / "pki" / "kcm",
            ),
        )
        port = flag_value(p.argv, "--secure-port")
        self._serving[p.name] = lambda: (
            http(f"https://127.0.0.1:{port}/healthz", _no_verify()) == b"ok"
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
        p = self._sup.start(
            "kwok",
            kwok_args(self._exe("kwok"), self.kubeconfig, config),
            env={"HOME": str(self.workdir)},
        )
        address = flag_value(p.argv, "--server-address")
        self._serving[p.name] = lambda: http(f"http://{address}/healthz") == b"ok"

    def _start_webhooks(self) -> None:
        """Volcano's webhook-manager on loopback, registered as a real install registers it
        (the configurations are created first: :mod:`raygang_localcluster._webhooks`)."""
        c = self._need_certs()
        port, health = free_port(), free_port()
        ca_bundle = base64.b64encode(c.ca.cert.read_bytes()).decode()
        self.apply(webhook_configurations(port, ca_bundle))
        p = self._sup.start(
            "vc-webhook-manager",
            webhook_manager_args(self._exe("vc-webhook-manager"), self.kubeconfig, port, health, c),
        )
        # Its health endpoint is served over TLS with the webhook's own certificate.
        trust = ssl.create_default_context(cafile=str(c.ca.cert))
        self._serving[p.name] = lambda: http(f"https://127.0.0.1:{health}/healthz", trust) == b"ok"
        self._sup.wait(p, self._serving[p.name], timeout=self.start_timeout)

    def _start_volcano(self) -> None:
        cm = self._sup.start(
            "vc-controller-manager",
            volcano_controller_manager_args(self._exe("vc-controller-manager"), self.kubeconfig),
        )
        sched = self._sup.start(
            "vc-scheduler",
            volcano_scheduler_args(
                self._exe("vc-scheduler"), self.kubeconfig, self.workdir / "vc-cache-dump"
            ),
        )
        for p in (cm, sched):
            self._serving[p.name] = _healthz(p)
        # Volcano's queue controller opens the `default` queue the scheduler creates.
        self._sup.wait(
            sched,
            lambda: self._queue_state("default") == "Open",
            timeout=self.start_timeout,
            what="opening the default queue",
        )
        self._sup.check()

    def _start_kuberay(self) -> None:
        probe = free_port()
        p = self._sup.start(
            "ray-operator",
            ray_operator_args(
                self._exe("ray-operator"),
                probe,
                volcano=self.with_volcano,
                feature_gates=self.kuberay_feature_gates,
            ),
            env={"KUBECONFIG": str(self.kubeconfig)},
        )
        self._serving[p.name] = lambda: http(f"http://127.0.0.1:{probe}/readyz") == b"ok"
        self._sup.wait(p, self._serving[p.name], timeout=self.start_timeout)

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


def _healthz(process: Process) -> Callable[[], bool]:
    """Volcano's health endpoint, at the address its command line names."""
    address = flag_value(process.argv, "--healthz-address")
    return lambda: http(f"http://{address}/healthz") == b"ok"


def _no_verify() -> ssl.SSLContext:
    """kube-controller-manager serves /healthz over TLS with a self-signed certificate of its
    own; the probe reads only the word "ok"."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx

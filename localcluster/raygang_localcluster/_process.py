"""Start, watch and stop the cluster's processes, each with its own log file.

Every process gets a session of its own so a stop reaches its children too; every wait has a
deadline; a process that exits while we wait for it is reported with the tail of its log.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from raygang_localcluster._errors import ClusterError

_STOP_GRACE_S = 10.0


#: Where the kernel takes the source ports of outgoing connections (Linux's default).
_EPHEMERAL = (32768, 60999)
#: The lowest port handed out: above the well-known and most registered services' ports.
_LOWEST = 10000


def ephemeral_range() -> tuple[int, int]:
    """The kernel's range for outgoing connections' source ports (``ip_local_port_range``)."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return _EPHEMERAL


def free_port() -> int:
    """A loopback port nobody listens on now, below the kernel's ephemeral range.

    A component stopped by a fault test is restarted on the same port. A port the kernel picked
    (``bind(0)``) lies in the ephemeral range, where any outgoing connection may take it as
    its source port meanwhile: KubeRay's restart then failed with ``bind: address already in
    use`` (its metrics port). Below the range only another listener can take it.
    """
    low, _ = ephemeral_range()
    for _ in range(200):
        port = random.randrange(_LOWEST, max(low, _LOWEST + 1))
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # someone listens there (or did a moment ago): another one
            return port
    raise ClusterError("ports", None, f"no free loopback port in {_LOWEST}-{low - 1}")


@dataclass
class Process:
    name: str
    argv: Sequence[str]
    log: Path
    popen: subprocess.Popen[bytes]
    env: Mapping[str, str] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    # Stopped on purpose (a fault a test injects): not a death `check` reports.
    stopped: bool = False

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self) -> None:
        if not self.alive():
            return
        try:
            os.killpg(self.popen.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            self.popen.wait(timeout=_STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.popen.pid, signal.SIGKILL)
            except ProcessLookupError:
                return
            self.popen.wait(timeout=_STOP_GRACE_S)


class Supervisor:
    """The processes of one cluster, stopped in reverse order of start."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.processes: list[Process] = []

    def start(
        self, name: str, argv: Sequence[str], *, env: Mapping[str, str] | None = None
    ) -> Process:
        process = self._spawn(name, argv, env or {})
        self.processes.append(process)
        return process

    def find(self, name: str) -> Process:
        for p in self.processes:
            if p.name == name:
                return p
        raise ClusterError(name, None, "not started by this cluster")

    def stop_one(self, name: str) -> Process:
        """Stop one process as :meth:`stop_all` would (SIGTERM, then SIGKILL), keeping its
        command line for :meth:`restart`."""
        process = self.find(name)
        process.stop()
        process.stopped = True
        return process

    def restart(self, name: str) -> Process:
        """Start a stopped process again with the same command line and environment (so the
        same ports and files), in its place in the stop order; its log goes on in the same
        file."""
        old = self.find(name)
        if old.alive():
            raise ClusterError(name, old.log, "still running: stop it before restarting it")
        new = self._spawn(name, old.argv, old.env)
        self.processes[self.processes.index(old)] = new
        return new

    def _spawn(self, name: str, argv: Sequence[str], env: Mapping[str, str]) -> Process:
        self.logs.mkdir(parents=True, exist_ok=True)
        log = self.logs / f"{name}.log"
        exe = Path(argv[0])
        if not exe.is_file() or not os.access(exe, os.X_OK):
            raise ClusterError(name, None, f"no executable {exe}: run `make tools` (tools/build)")
        with log.open("ab") as out:
            out.write(f"$ {' '.join(argv)}\n".encode())
            out.flush()
            popen = subprocess.Popen(
                list(argv),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, **env},
                start_new_session=True,
            )
        return Process(name, argv, log, popen, dict(env))

    def wait(
        self,
        process: Process,
        ready: Callable[[], bool],
        *,
        timeout: float,
        what: str = "ready",
    ) -> None:
        deadline = time.monotonic() + timeout
        while True:
            if not process.alive():
                raise ClusterError(
                    process.name, process.log, f"exited with code {process.popen.returncode}"
                )
            try:
                if ready():
                    return
            except Exception:
                pass
            if time.monotonic() > deadline:
                raise ClusterError(process.name, process.log, f"not {what} after {timeout:.0f} s")
            time.sleep(0.2)

    def check(self) -> None:
        """Raise if a process has died since it was started."""
        for p in self.processes:
            if not p.stopped and not p.alive():
                raise ClusterError(p.name, p.log, f"exited with code {p.popen.returncode}")

    def stop_all(self) -> None:
        for process in reversed(self.processes):
            process.stop()
        self.processes.clear()

"""Start, watch and stop the cluster's processes, each with its own log file.

Every process gets a session of its own so a stop reaches its children too; every wait has a
deadline; a process that exits while we wait for it is reported with the tail of its log.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from raygang_localcluster._errors import ClusterError

_STOP_GRACE_S = 10.0


def free_port() -> int:
    """A loopback port nobody listens on now (the kernel's pick; the race is tiny)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass
class Process:
    name: str
    argv: Sequence[str]
    log: Path
    popen: subprocess.Popen[bytes]
    started: float = field(default_factory=time.monotonic)

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
                env={**os.environ, **(env or {})},
                start_new_session=True,
            )
        process = Process(name, argv, log, popen)
        self.processes.append(process)
        return process

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
            if not p.alive():
                raise ClusterError(p.name, p.log, f"exited with code {p.popen.returncode}")

    def stop_all(self) -> None:
        for process in reversed(self.processes):
            process.stop()
        self.processes.clear()

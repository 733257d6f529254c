"""The fault injection of the local cluster, without a cluster: one process stopped, killed
and started again with the same command line, and only the components a test may stop."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from raygang_localcluster import ClusterError, LocalCluster
from raygang_localcluster._cluster import RESTARTABLE
from raygang_localcluster._flags import (
    flag_value,
    volcano_controller_manager_args,
    volcano_scheduler_args,
)
from raygang_localcluster._process import Supervisor


def _sleeper(tmp_path: Path) -> list[str]:
    exe = tmp_path / "component"
    exe.write_text('#!/bin/sh\necho "started $1 with $MARK"\nexec sleep 600\n')
    exe.chmod(0o755)
    return [str(exe), "--port=4242"]


def _wait_for_lines(log: Path, text: str, count: int) -> None:
    deadline = time.monotonic() + 30
    while log.read_text().count(text) < count:
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)


def test_a_stopped_process_is_not_a_death_and_restarts_with_the_same_command_line(
    tmp_path: Path,
) -> None:
    sup = Supervisor(tmp_path / "logs")
    argv = _sleeper(tmp_path)
    try:
        first = sup.start("component", argv, env={"MARK": "m1"})
        sup.start("other", argv)
        # Stopped only once it has written its line: a SIGTERM that reaches the shell before its
        # `echo` leaves one line where the test counts two (seen in CI on a loaded machine).
        _wait_for_lines(sup.logs / "component.log", "with m1", 1)
        sup.stop_one("component")
        assert not first.alive()
        sup.check()  # stopped on purpose: not reported
        again = sup.restart("component")
        assert again.alive()
        assert again.popen.pid != first.popen.pid
        assert list(again.argv) == argv
        assert again.env == {"MARK": "m1"}
        assert [p.name for p in sup.processes] == ["component", "other"]  # the stop order kept
        _wait_for_lines(sup.logs / "component.log", "with m1", 2)  # the log goes on
    finally:
        sup.stop_all()


def test_a_process_that_dies_by_itself_is_still_reported(tmp_path: Path) -> None:
    sup = Supervisor(tmp_path / "logs")
    try:
        p = sup.start("component", _sleeper(tmp_path))
        os.kill(p.popen.pid, 9)
        p.popen.wait(10)
        with pytest.raises(ClusterError, match="component: exited"):
            sup.check()
    finally:
        sup.stop_all()


def test_a_running_process_is_not_started_twice(tmp_path: Path) -> None:
    sup = Supervisor(tmp_path / "logs")
    try:
        sup.start("component", _sleeper(tmp_path))
        with pytest.raises(ClusterError, match="still running"):
            sup.restart("component")
        with pytest.raises(ClusterError, match="not started by this cluster"):
            sup.restart("nothing")
    finally:
        sup.stop_all()


def test_only_components_a_test_may_stop_are_stopped(tmp_path: Path) -> None:
    cluster = LocalCluster(tmp_path / "bin", tmp_path / "share", tmp_path / "work")
    assert "etcd" not in RESTARTABLE  # its data is the cluster
    with pytest.raises(ClusterError, match="not a component a test may stop"):
        cluster.stop_component("etcd")
    with pytest.raises(ClusterError, match="ray-operator: not started by this cluster"):
        cluster.start_component("ray-operator")


def test_volcano_serves_its_health_endpoint_for_the_restart_probe(tmp_path: Path) -> None:
    for argv in (
        volcano_scheduler_args("vc-scheduler", tmp_path / "kc", tmp_path / "dump"),
        volcano_controller_manager_args("vc-controller-manager", tmp_path / "kc"),
    ):
        assert "--enable-healthz" in argv
        assert flag_value(argv, "--healthz-address").startswith("127.0.0.1:")
    with pytest.raises(KeyError):
        flag_value(["x", "--a=1"], "--b")

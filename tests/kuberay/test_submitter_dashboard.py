"""raygang.kuberay.submitter.dashboard: the head's dashboard port and the dashboard URL."""

from __future__ import annotations

from typing import Any

import pytest
from raygang.kuberay.submitter import SubmitterError, dashboard_port, dashboard_url


def head_pod(ports: Any = None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "ray-head", "image": "r:1"}
    if ports is not None:
        container["ports"] = ports
    return {"containers": [container]}


def test_dashboard_port_rules() -> None:
    assert dashboard_port(head_pod()) == 8265
    assert dashboard_port(head_pod([])) == 8265
    named = [{"name": "gcs", "containerPort": 6379}, {"name": "dashboard", "containerPort": 9999}]
    assert dashboard_port(head_pod(named)) == 9999
    with pytest.raises(SubmitterError, match="dashboard port is not found"):
        dashboard_port(head_pod([{"name": "gcs", "containerPort": 6379}, {"containerPort": 8265}]))
    with pytest.raises(SubmitterError, match="1-65535"):
        dashboard_port(head_pod([{"name": "dashboard", "containerPort": "8265"}]))
    with pytest.raises(SubmitterError, match="at least one container"):
        dashboard_port({"containers": []})


def test_dashboard_url_default_and_custom_head_service() -> None:
    group: dict[str, Any] = {"template": {"spec": head_pod()}}
    assert dashboard_url("job", "ns", group) == "job-head-svc.ns.svc.cluster.local:8265"
    assert (
        dashboard_url("job", "ns", group, cluster_domain="corp.example")
        == "job-head-svc.ns.svc.corp.example:8265"
    )
    group["headService"] = {"metadata": {"name": "my-head"}}
    assert dashboard_url("job", "ns", group) == "my-head.ns.svc.cluster.local:8265"
    # The custom Service's own ports come first, so its "dashboard" port wins.
    group["headService"]["spec"] = {"ports": [{"name": "dashboard", "port": 80}]}
    assert dashboard_url("job", "ns", group) == "my-head.ns.svc.cluster.local:80"
    with pytest.raises(SubmitterError, match="dashboard port is not found"):
        dashboard_url("job", "ns", {"template": {"spec": head_pod([{"containerPort": 1}])}})

"""raygang.kuberay.submitter.dashboard: the head's dashboard port and the dashboard URL.

The head pod and group are written as mappings and read through the typed model
(``PodSpec``, ``HeadGroupSpec``), as the submitter reads them; ``headService``, which the
model does not hold, is passed as written.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError
from raygang.kube.core import PodSpec
from raygang.kuberay.submitter import SubmitterError, dashboard_port, dashboard_url
from raygang.rayjob.spec import HeadGroupSpec


def head_pod(ports: Any = None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "ray-head", "image": "r:1"}
    if ports is not None:
        container["ports"] = ports
    return {"containers": [container]}


def port_of(pod: dict[str, Any]) -> int:
    return dashboard_port(PodSpec.model_validate(pod))


def url_of(group: dict[str, Any], **kwargs: Any) -> str:
    head = HeadGroupSpec.model_validate(group)
    return dashboard_url("job", "ns", head, group.get("headService"), **kwargs)


def test_dashboard_port_rules() -> None:
    assert port_of(head_pod()) == 8265
    assert port_of(head_pod([])) == 8265
    named = [{"name": "gcs", "containerPort": 6379}, {"name": "dashboard", "containerPort": 9999}]
    assert port_of(head_pod(named)) == 9999
    with pytest.raises(SubmitterError, match="dashboard port is not found"):
        port_of(head_pod([{"name": "gcs", "containerPort": 6379}, {"containerPort": 8265}]))
    for number in (0, 65536):
        with pytest.raises(SubmitterError, match="1-65535"):
            port_of(head_pod([{"name": "dashboard", "containerPort": number}]))
    # Not a whole number, or no container: the typed model refuses them, before the submitter.
    with pytest.raises(ValidationError, match="containerPort"):
        port_of(head_pod([{"name": "dashboard", "containerPort": "8265"}]))
    with pytest.raises(ValidationError, match="at least 1 item"):
        port_of({"containers": []})


def test_dashboard_url_default_and_custom_head_service() -> None:
    group: dict[str, Any] = {"template": {"spec": head_pod()}}
    assert url_of(group) == "job-head-svc.ns.svc.cluster.local:8265"
    assert url_of(group, cluster_domain="corp.example") == "job-head-svc.ns.svc.corp.example:8265"
    group["headService"] = {"metadata": {"name": "my-head"}}
    assert url_of(group) == "my-head.ns.svc.cluster.local:8265"
    # The custom Service's own ports come first, so its "dashboard" port wins.
    group["headService"]["spec"] = {"ports": [{"name": "dashboard", "port": 80}]}
    assert url_of(group) == "my-head.ns.svc.cluster.local:80"
    with pytest.raises(SubmitterError, match="dashboard port is not found"):
        url_of({"template": {"spec": head_pod([{"containerPort": 1}])}})


@pytest.mark.parametrize(
    ("service", "where"),
    [
        ("my-head", "headService"),
        ({"metadata": ["my-head"]}, "headService.metadata"),
        ({"spec": "ports"}, "headService.spec"),
    ],
)
def test_a_head_service_of_the_wrong_shape_is_named(service: Any, where: str) -> None:
    # The typed model does not hold headService: its shape is checked where it is read.
    group = {"template": {"spec": head_pod()}, "headService": service}
    with pytest.raises(SubmitterError, match=rf"headGroupSpec\.{where} must be a mapping"):
        url_of(group)

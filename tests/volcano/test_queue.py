"""raygang.volcano.queue: a Volcano Queue manifest parsed, its fields checked."""

from __future__ import annotations

import pytest
from raygang.kube.errors import SpecError
from raygang.volcano.queue import parse_queue


def test_a_queue_with_valid_fields_parses() -> None:
    queue = parse_queue(
        {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "Queue",
            "metadata": {"name": "q"},
            "spec": {
                "weight": 65535,
                "priority": 3,
                "parent": "root",
                "reclaimable": True,
                "dequeueStrategy": "fifo",
                "capability": {"cpu": 64, "memory": "256Gi"},
                "deserved": {"cpu": "32"},
                "guarantee": {"resource": {"cpu": "8"}},
            },
        },
        "q.yaml",
    )
    assert str(queue.guarantee["cpu"]) == "8"


def test_a_queue_cannot_be_its_own_parent() -> None:
    with pytest.raises(SpecError, match="cannot use itself as parent"):
        parse_queue({"metadata": {"name": "q"}, "spec": {"parent": "q"}}, "q.yaml")

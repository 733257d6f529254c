"""The declared objects: the job record keeps the lifecycle's values in its annotations."""

from __future__ import annotations

from typing import Any

import pytest
from raygang.kube.errors import SpecError
from raygang.kuberay.manifests import RECORD_ANNOTATIONS_LIMIT, annotations_size
from raygang.lifecycle.decide import decide

from tests.lifecycle.conftest import (
    BASE_SID,
    BEFORE_TTL,
    NAME,
    NS,
    facts,
    plan_of,
    rayjob,
    rec,
    res,
    snapshot,
)


def test_the_record_keeps_everything_in_annotations_and_an_old_record_its_data() -> None:
    # The provider replaces a ConfigMap whose data changes (a new UID: the garbage collector
    # would delete what the old record owned), so nothing the lifecycle writes is in data.
    plan = plan_of(rayjob(backoffLimit=2))
    new_style = decide(plan, facts(snapshot("running.yaml")), BEFORE_TTL)
    assert "data" not in res(new_style, "record")
    assert rec(new_style)["raygang.dev/attempt"] == "1"
    # failed.yaml's record was written by an earlier raygang: its data stays as observed,
    # so the upgrade is an in-place update, and the values move to the annotations.
    before = snapshot("failed.yaml")
    old_cm = before.get("ConfigMap", NS, NAME)
    assert old_cm is not None
    decided = decide(plan, facts(before), BEFORE_TTL)
    assert res(decided, "record")["data"] == old_cm["data"]
    assert rec(decided)["raygang.dev/attempt"] == "2"
    assert rec(decided)["raygang.dev/submission-id"] == f"{BASE_SID}-a2"
    assert "raygang.dev/rayjob" in rec(decided) and "raygang.dev/gang" in rec(decided)


def test_a_record_past_the_annotation_limit_is_refused_at_plan_time() -> None:
    # The record keeps the RayJob in an annotation; the API server refuses an object whose
    # annotations exceed 256 KiB (apimachinery's ValidateAnnotationsSize).
    def with_env(entries: int) -> dict[str, Any]:
        raw = rayjob()
        head = raw["spec"]["rayClusterSpec"]["headGroupSpec"]["template"]["spec"]
        head["containers"][0]["env"] = [{"name": f"V{i}", "value": "x"} for i in range(entries)]
        return raw

    record = plan_of(with_env(1500)).resource("record")
    assert record is not None
    size = annotations_size(record.manifest["metadata"]["annotations"])
    assert 150 * 1024 < size < RECORD_ANNOTATIONS_LIMIT
    with pytest.raises(SpecError) as caught:
        plan_of(with_env(2500))
    (problem,) = caught.value.problems
    assert problem.path == "<document>"
    assert f"ConfigMap {NS}/{NAME}" in problem.message
    assert "annotation raygang.dev/rayjob" in problem.message
    assert "over the 262144 bytes (256 KiB)" in problem.message

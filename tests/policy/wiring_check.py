"""Run by test_wiring.py with the policy pack's own interpreter (pulumi_policy installed):
the wrapper's policies called as the policy SDK calls them, the outcome printed as JSON."""

from __future__ import annotations

import copy
import json
from typing import Any

from pulumi_policy import PolicyResource, ResourceValidationArgs, StackValidationArgs
from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UnknownValueError, unknown_checking_proxy
from raygang_policy.catalogue import PolicySpec
from raygang_policy.objects import UNKNOWN, StackResource
from raygang_policy.wiring import _stack_policy, build_policies

from tests.policy.stacks import shipped_stack


def _wire(value: Any) -> Any:
    """Plain data as the SDK deserializes it: unknowns as its sentinel strings."""
    if value is UNKNOWN:
        return UNKNOWN_NUMBER_VALUE
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_wire(v) for v in value]
    return value


def _policy_resources(resources: list[StackResource]) -> list[PolicyResource]:
    return [
        PolicyResource(
            r.type,
            unknown_checking_proxy(_wire(copy.deepcopy(dict(r.props)))),
            r.urn,
            r.name,
            None,
            None,
            None,
            [],
            {},  # type: ignore[arg-type]
        )
        for r in resources
    ]


def _call(policy: Any, args: Any) -> dict[str, Any]:
    reported: list[list[str | None]] = []
    try:
        policy.validate(args, lambda message, urn=None: reported.append([message, urn]))
    except UnknownValueError as exc:
        return {"reported": reported, "advisory": exc.message}
    return {"reported": reported, "advisory": None}


def main() -> None:
    out: dict[str, Any] = {}
    policies, initial = build_policies({})
    out["policies"] = {p.name: p.enforcement_level.value for p in policies}
    out["initial"] = initial
    _, initial = build_policies({"raygang-policy:enforcement": '{"all": "advisory"}'})
    out["per_stack"] = sorted({level.value for level in initial.values()})
    by_name = {p.name: p for p in policies}
    bad, _ = build_policies({"raygang-policy:enforcement": '{"gang-admisible": "advisory"}'})
    out["bad_levels"] = _call(
        next(p for p in bad if p.name == "gang-valid-input"),
        StackValidationArgs(_policy_resources(shipped_stack("dev"))),
    )

    dev = shipped_stack("dev")
    out["dev"] = _call(
        by_name["gang-podgroup-matches-kuberay"], StackValidationArgs(_policy_resources(dev))
    )
    wrong = []
    for r in dev:
        props = copy.deepcopy(dict(r.props))
        if r.kind == "PodGroup":
            props["spec"]["minMember"] = 5
        wrong.append(StackResource(r.type, r.urn, r.name, props))
    out["wrong"] = _call(
        by_name["gang-podgroup-matches-kuberay"], StackValidationArgs(_policy_resources(wrong))
    )
    unknown = []
    for r in dev:
        props = copy.deepcopy(dict(r.props))
        if r.kind == "RayCluster":
            props["spec"]["workerGroupSpecs"][0]["replicas"] = UNKNOWN
        unknown.append(StackResource(r.type, r.urn, r.name, props))
    out["unknown"] = _call(
        by_name["gang-admissible"], StackValidationArgs(_policy_resources(unknown))
    )

    def boom(resources: Any, settings: Any) -> Any:
        raise KeyError("spec")

    crashing = _stack_policy(PolicySpec("boom", "mandatory", "Crashes.", stack_rule=boom), ())
    out["crash"] = _call(crashing, StackValidationArgs(_policy_resources(dev)))

    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "ray-admin"},
        "roleRef": {"kind": "ClusterRole", "name": "cluster-admin"},
        "subjects": [{"kind": "ServiceAccount", "name": "ray", "namespace": "default"}],
    }
    args = ResourceValidationArgs(
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding",
        unknown_checking_proxy(binding),
        "urn:binding",
        "ray-admin",
        None,
        None,  # type: ignore[arg-type]
    )
    out["binding"] = _call(by_name["security-no-cluster-admin"], args)
    print(json.dumps(out))


if __name__ == "__main__":
    main()

"""Volcano's admission webhooks as a real install registers them, pointing at a URL on
loopback.

Out of cluster its webhook-manager cannot create its webhook configurations itself (it only
patches the CA bundle of existing ones, named ``volcano-admission-service-<path>``), so the
harness creates them before it starts.
"""

from __future__ import annotations

from typing import Any

# The admission webhooks of a Volcano install that concern our objects (path, kind of
# configuration, operations, resource). The validating one for PodGroups is what refuses a
# PodGroup whose queue is not Open; the mutating ones fill in defaults (queue weight, ...).
VOLCANO_WEBHOOKS = (
    ("/podgroups/validate", "Validating", ("CREATE",), "podgroups"),
    ("/podgroups/mutate", "Mutating", ("CREATE",), "podgroups"),
    ("/queues/validate", "Validating", ("CREATE", "UPDATE", "DELETE"), "queues"),
    ("/queues/mutate", "Mutating", ("CREATE",), "queues"),
)


def webhook_configurations(port: int, ca_bundle: str) -> list[dict[str, Any]]:
    """One webhook configuration per path of :data:`VOLCANO_WEBHOOKS`, served on ``port``."""
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
    return configs

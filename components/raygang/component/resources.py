"""Resource helpers of the Pulumi layer: a planned object as a ``CustomResource``, secret
inputs, and spec errors as ``pulumi.RunError``."""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi_kubernetes.apiextensions import CustomResource

from raygang.kube.errors import SpecError
from raygang.kuberay.jobplan import PlannedResource


def custom_resource(
    name: str,
    resource: PlannedResource,
    metadata: Any,
    opts: pulumi.ResourceOptions,
    secret: bool = False,
    spec: Any = None,
) -> CustomResource:
    manifest = resource.manifest
    return CustomResource(
        name,
        api_version=resource.api_version,
        kind=resource.kind,
        metadata=secret_input(metadata, secret),
        spec=secret_input(manifest.get("spec") if spec is None else spec, secret),
        opts=opts,
    )


def secret_input(value: Any, secret: bool) -> Any:
    """``value`` as a secret input when it comes from secret config: encrypted in the state,
    ``[secret]`` in previews and diffs."""
    return pulumi.Output.secret(value) if secret else value


def or_run_error(build: Any) -> Any:
    # A SpecError becomes a RunError: Pulumi prints its message without a Python traceback.
    try:
        return build()
    except SpecError as exc:
        raise pulumi.RunError(str(exc)) from None

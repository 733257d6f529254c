"""``sigs.k8s.io/yaml.YAMLToJSON`` of a RayJob's ``runtimeEnvYAML``, as KubeRay passes it to Ray.

The YAML is read by :func:`raygang.kube.kubeyaml.yaml_to_json_value`, the same bounded
reader as every manifest (go-yaml v2's typing, merge keys, the last duplicate key winning,
aliases and merges counted before they are expanded), so a billion-laughs or merge-bomb
``runtimeEnvYAML`` is refused in linear time; ``go_json_dumps`` prints the JSON with sorted
keys, as ``json.Marshal`` prints Go maps.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from raygang.kube.kubeyaml import ManifestError, ManifestLimitError, yaml_to_json_value
from raygang.kuberay.submitter._errors import SubmitterError
from raygang.kuberay.submitter._goquote import go_json_dumps

__all__ = ["runtime_env_data", "runtime_env_json"]


def runtime_env_data(
    runtime_env_yaml: str, duplicate_keys: Literal["refuse", "last"] = "last"
) -> Any:
    """Parse ``runtimeEnvYAML`` like sigs.k8s.io/yaml: first document, go-yaml typing.

    Args:
        runtime_env_yaml: the text.
        duplicate_keys: ``"last"`` as KubeRay reads it, ``"refuse"`` to check the input
            (raygang refuses duplicate keys in every YAML it reads).

    Raises:
        SubmitterError: invalid YAML, past a reader limit, or not a mapping.
    """
    try:
        data = yaml_to_json_value(
            runtime_env_yaml, source="runtimeEnvYAML", duplicate_keys=duplicate_keys
        )
    except ManifestLimitError as exc:
        raise SubmitterError(f"runtimeEnvYAML is refused: {_reason(exc)}") from None
    except ManifestError as exc:
        raise SubmitterError(f"runtimeEnvYAML is not valid YAML: {_reason(exc)}") from None
    if data is not None and not isinstance(data, Mapping):
        # KubeRay's validation unmarshals it into a map and rejects anything else.
        # Its text is not quoted: a runtime env holds env_vars, and may hold secrets.
        raise SubmitterError(
            f"runtimeEnvYAML must be a YAML mapping, not {type(data).__name__} "
            f"({len(runtime_env_yaml)} characters, not shown)"
        )
    return data


def _reason(exc: ManifestError) -> str:
    where = [f"line {exc.line}"] if exc.line is not None else []
    if exc.path and exc.path != "<document>":
        where.append(exc.path)
    prefix = f"{', '.join(where)}: " if where else ""
    return f"{prefix}{exc.problem} (accepted: {exc.accepted})"


def runtime_env_json(
    runtime_env_yaml: str, duplicate_keys: Literal["refuse", "last"] = "last"
) -> str:
    """``sigs.k8s.io/yaml.YAMLToJSON`` of ``runtimeEnvYAML``, as KubeRay passes it to Ray.

    go-yaml v2 decodes mappings into Go maps and ``json.Marshal`` sorts map keys, so the
    JSON has sorted keys at every level, whatever order the YAML had.

    Args:
        runtime_env_yaml: the RayJob's ``spec.runtimeEnvYAML``.

    Returns:
        Compact JSON (``null`` for a document with no content).

    Raises:
        SubmitterError: invalid YAML, a non-mapping document, or values JSON cannot hold.
    """
    return go_json_dumps(runtime_env_data(runtime_env_yaml, duplicate_keys))

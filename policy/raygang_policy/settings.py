"""What the pack needs beyond the resources: the nodes, the cluster snapshot, known queues.

Three sources, most specific first:

* the policy's own configuration (``pulumi preview --policy-pack-config FILE``, per policy):
  ``nodeShapes``, ``clusterSnapshot``, ``knownQueues``;
* the stack's ``raygang-policy:*`` keys (``raygang-policy:knownQueues`` ...), for a stack
  that is not raygang's;
* the stack's own ``raygang:nodeShapes`` and ``raygang:clusterSnapshot``, so a raygang stack
  is judged against the nodes it already declares.

The stack's configuration reaches a policy pack as the environment our language host sets
(``PULUMI_CONFIG``, tools/pulumi/cmd/pulumi-language-python/runplugin.go: the engine sends it
in ConfigureStack); each value is the string Pulumi hands a program, read by raygang's
``config_value`` as the program reads it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from raygang import SpecError, config_value

__all__ = ["STACK_PREFIX", "PackSettings", "enforcement_overrides"]

#: The stack config namespace of the pack's own keys.
STACK_PREFIX = "raygang-policy"

_LEVELS = ("advisory", "mandatory", "disabled")


@dataclass(frozen=True, slots=True)
class PackSettings:
    """The facts the gang policies judge against.

    Attributes:
        node_shapes: raygang's node shapes (``[{name, allocatable, labels, taints}]``).
        cluster_snapshot: a snapshot file (``kubectl get ... -o yaml``), absolute or
            relative to ``base``.
        known_queues: queues that exist although the stack does not declare them.
        base: where a relative snapshot path starts (the directory pulumi runs in).
        problems: configuration values the pack could not read (reported, never fatal).
    """

    node_shapes: tuple[Mapping[str, Any], ...] = ()
    cluster_snapshot: str | None = None
    known_queues: tuple[str, ...] = ()
    base: Path = Path()
    problems: tuple[str, ...] = ()

    @classmethod
    def read(
        cls,
        stack_config: Mapping[str, str],
        policy_config: Mapping[str, Any] | None = None,
        base: Path = Path(),
    ) -> PackSettings:
        """The settings from the stack's configuration strings and one policy's config."""
        problems: list[str] = []
        policy = policy_config or {}

        def stack(key: str) -> object:
            for name in (f"{STACK_PREFIX}:{key}", f"raygang:{key}"):
                if name in stack_config:
                    try:
                        return config_value(stack_config[name], name)
                    except SpecError as exc:
                        problems.append(str(exc))
            return None

        def pick(key: str) -> object:
            return policy[key] if policy.get(key) is not None else stack(key)

        shapes: tuple[Mapping[str, Any], ...] = ()
        raw_shapes = pick("nodeShapes")
        if _list_of_maps(raw_shapes):
            shapes = tuple(raw_shapes)
        elif raw_shapes is not None:
            problems.append(f"nodeShapes: is not a list of node shapes: {raw_shapes!r}")
        snapshot = pick("clusterSnapshot")
        if snapshot is not None and not isinstance(snapshot, str):
            problems.append(f"clusterSnapshot: is not a path: {snapshot!r}")
            snapshot = None
        queues: tuple[str, ...] = ()
        raw_queues = pick("knownQueues")
        if isinstance(raw_queues, list) and all(isinstance(q, str) for q in raw_queues):
            queues = tuple(str(q) for q in raw_queues)
        elif raw_queues is not None:
            problems.append(f"knownQueues: is not a list of queue names: {raw_queues!r}")
        return cls(
            node_shapes=shapes,
            cluster_snapshot=snapshot or None,
            known_queues=queues,
            base=base,
            problems=tuple(problems),
        )

    def raygang_setting(self, key: str) -> object:
        """The value of ``raygang:<key>`` that raygang's planning pass should see."""
        if key == "nodeShapes" and self.node_shapes:
            return [dict(s) for s in self.node_shapes]
        if key == "clusterSnapshot":
            return self.cluster_snapshot
        if key == "accounting":
            # Both accountings are judged: raygang plans the effective one and keeps
            # KubeRay's beside it (JobPlan.kuberay_gang).
            return "effective"
        return None


def _list_of_maps(value: object) -> TypeGuard[list[Mapping[str, Any]]]:
    return isinstance(value, list) and all(isinstance(v, Mapping) for v in value)


def enforcement_overrides(
    stack_config: Mapping[str, str], policies: Sequence[str]
) -> tuple[dict[str, str], list[str]]:
    """Per-stack enforcement levels: ``raygang-policy:enforcement`` maps a policy name (or
    ``all``) to ``advisory``, ``mandatory`` or ``disabled``.

    Returns:
        ``{policy: level}`` and a line per entry that could not be used.
    """
    key = f"{STACK_PREFIX}:enforcement"
    if key not in stack_config:
        return {}, []
    try:
        raw = config_value(stack_config[key], key)
    except SpecError as exc:
        return {}, [str(exc)]
    if not isinstance(raw, Mapping):
        return {}, [f"{key}: is not a map of policy name to enforcement level: {raw!r}"]
    levels: dict[str, str] = {}
    problems: list[str] = []
    everything = raw.get("all")
    for name in policies:
        level = raw.get(name, everything)
        if level is not None:
            levels[name] = str(level)
    for name, level in raw.items():
        if name != "all" and name not in policies:
            problems.append(f"{key}: {name!r} is not a policy of this pack")
        elif str(level) not in _LEVELS:
            problems.append(f"{key}: {name}: {level!r} is not one of {', '.join(_LEVELS)}")
            levels.pop(name, None)
    if everything is not None and str(everything) not in _LEVELS:
        problems.append(f"{key}: all: {everything!r} is not one of {', '.join(_LEVELS)}")
        levels = {n: v for n, v in levels.items() if v in _LEVELS}
    return levels, problems

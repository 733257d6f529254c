"""raygang's policy pack on the real engine: `pulumi preview --policy-pack policy`.

The pack runs as a CrossGuard analyzer through our language host's RunPlugin, in its own
virtualenv (policy/.venv, from policy/requirements.txt). Both shipped stacks pass it with no
violation; a program that declares RayClusters and PodGroups by hand, wrongly, is refused with
each violation named, policy by policy, and passes with warnings once the levels are advisory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from raygang_localcluster import LocalCluster, LocalPulumi, copy_project, local_pulumi

from tests.e2e.conftest import REPO, make_pulumi

pytestmark = pytest.mark.e2e

PACK = REPO / "policy"
SHAPES = [{"name": "general-8x32", "allocatable": {"cpu": "8", "memory": "32Gi"}}]


@pytest.fixture(scope="module")
def shipped(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> LocalPulumi:
    return make_pulumi(
        tools, cluster, tmp_path_factory.mktemp("policy-shipped"), ("dev", "ml-platform")
    )


@pytest.fixture(scope="module")
def pack(shipped: LocalPulumi) -> Path:
    if not (PACK / ".venv" / "bin" / "python").exists():
        pytest.fail(
            "the policy pack has no virtualenv: `make test` creates policy/.venv from "
            "policy/requirements.txt (or run `pulumi install` in policy/)",
            pytrace=False,
        )
    # What a user runs first: the CLI asks our language host (InstallDependencies) to make
    # the pack's virtualenv ready; it exists, so nothing is installed.
    LocalPulumi(PACK, shipped.env).run("install")
    return PACK


@pytest.fixture(scope="module")
def hand(
    tools: tuple[Path, Path], cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory
) -> LocalPulumi:
    bin_dir, _ = tools
    workdir = tmp_path_factory.mktemp("policy-hand")
    project = copy_project(
        Path(__file__).parent / "policy_program", workdir / "project", REPO / ".venv"
    )
    pulumi = local_pulumi(bin_dir, cluster.kubeconfig, project, workdir, ("hand",))
    # A server-side preview (dry run) would meet Volcano's webhook first, which refuses the
    # PodGroup of a missing queue and ends the preview before any stack policy runs; a
    # client-side preview does not call the API server, so the pack judges the whole stack
    # (as it would a stack rendered to YAML).
    pulumi.config_set("kubernetes:enableServerSideApply", "false", "hand")
    return pulumi


def _config(tmp_path: Path, config: dict[str, object]) -> str:
    path = tmp_path / "policy-config.json"
    path.write_text(json.dumps(config))
    return str(path)


@pytest.mark.parametrize("stack", ["dev", "ml-platform"])
def test_shipped_stacks_pass_with_no_violation(
    shipped: LocalPulumi, pack: Path, stack: str
) -> None:
    done = shipped.run("preview", "--stack", stack, "--policy-pack", str(pack))
    out = done.stdout + done.stderr
    assert "✅ raygang@v0.1.0" in out, out
    assert "mandatory" not in out and "advisory" not in out, out


# What the hand program gets wrong, policy by policy, with the words that prove each.
REFUSED = {
    "gang-podgroup-matches-kuberay": (
        "PodGroup default/wrong-gang-pg does not match the gang of RayCluster "
        "default/wrong-gang, Job default/wrong-gang",
        "KubeRay's adapter: minMember 3, cpu 5500m, memory 10752Mi; differs in: minMember 4 "
        "(want 3)",
    ),
    "gang-submitter-not-member": (
        "PodGroup default/wrong-gang-pg: spec.minMember 4 counts the submitter (Job "
        "default/wrong-gang) as a member",
    ),
    "gang-queue-exists": (
        "PodGroup default/wrong-gang-pg: spec.queue: queue missing-queue is neither declared "
        "in this stack nor known to exist",
    ),
    "gang-admissible": (
        "PodGroup default/too-big-pg can never be admitted as declared",
        "0/1 nodes are unavailable: 1 Insufficient cpu.",
    ),
}


def _violations(out: str, level: str) -> dict[str, str]:
    """``{policy: its text}`` for each ``- [level]  policy  (...)`` block of the summary."""
    found: dict[str, str] = {}
    current = ""
    for line in out.splitlines():
        head = line.strip()
        if head.startswith("- ["):
            current = ""
            if head.startswith(f"- [{level}]"):
                current = head.split()[2]
                found[current] = ""
        elif current and head:
            found[current] += head + "\n"
    return found


def test_hand_written_gangs_are_refused_policy_by_policy(
    hand: LocalPulumi, pack: Path, tmp_path: Path
) -> None:
    config = _config(tmp_path, {"gang-admissible": {"nodeShapes": SHAPES}})
    done = hand.run(
        "preview", "--stack", "hand", "--policy-pack", str(pack), "--policy-pack-config", config,
        check=False,
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    violations = _violations(out, "mandatory")
    assert sorted(violations) == sorted(REFUSED), out
    for policy, words in REFUSED.items():
        for text in words:
            assert text in violations[policy], f"{policy}: {text!r} missing:\n{out}"
    assert "advisory" not in out, out


def test_advisory_in_the_policy_config_lets_it_through_with_warnings(
    hand: LocalPulumi, pack: Path, tmp_path: Path
) -> None:
    config = _config(
        tmp_path,
        {
            "all": "advisory",
            "gang-admissible": {"enforcementLevel": "advisory", "nodeShapes": SHAPES},
        },
    )
    done = hand.run(
        "preview", "--stack", "hand", "--policy-pack", str(pack), "--policy-pack-config", config
    )
    out = done.stdout + done.stderr
    assert sorted(_violations(out, "advisory")) == sorted(REFUSED), out
    assert "mandatory" not in out, out


def test_advisory_in_the_stack_config_lets_it_through_with_warnings(
    hand: LocalPulumi, pack: Path, tmp_path: Path
) -> None:
    # Per stack: raygang-policy:enforcement, read by the pack from the stack's configuration.
    hand.config_set("raygang-policy:enforcement", {"all": "advisory"}, "hand")
    hand.config_set("raygang-policy:nodeShapes", SHAPES, "hand")
    try:
        done = hand.run("preview", "--stack", "hand", "--policy-pack", str(pack))
    finally:
        hand.run("config", "rm", "--stack", "hand", "raygang-policy:enforcement")
        hand.run("config", "rm", "--stack", "hand", "raygang-policy:nodeShapes")
    out = done.stdout + done.stderr
    assert sorted(_violations(out, "advisory")) == sorted(REFUSED), out
    assert "mandatory" not in out, out

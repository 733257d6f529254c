"""go-yaml's "excessive aliasing" rule (``kubeyaml.aliasing``), just past and just under it."""

from __future__ import annotations

from pathlib import Path

from tests.kube.kubeyaml.conftest import check_against, refused, run_ref


def test_go_alias_ratio_mirrored(yamlref: Path) -> None:
    # 500 aliases of a 500-item list: 250,000 values, under max_expanded, but more than 99%
    # of them come from aliases, which go-yaml refuses ("excessive aliasing").
    def aliased(items: int, aliases: int) -> str:
        return (
            "a: &a [" + ", ".join(["x"] * items) + "]\nl: [" + ", ".join(["*a"] * aliases) + "]\n"
        )

    assert isinstance(run_ref(yamlref, aliased(500, 500).encode()), str)
    refused(aliased(500, 500))
    for items, aliases in ((500, 90), (100, 99), (50, 200)):  # just under, either way
        check_against(yamlref, aliased(items, aliases).encode())

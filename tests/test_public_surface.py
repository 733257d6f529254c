"""raygang's public surface: the names ``raygang`` exports, imported on first use.

Everything else under ``raygang`` is internal; the repository's own Pulumi program
(``__main__.py``) and the benchmarks use only the public names, as a user's program would.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest
import raygang

REPO = Path(__file__).resolve().parents[1]

PULUMI_NAMES = {
    "RayClusterGang",
    "RayClusterGangArgs",
    "RayJobGang",
    "RayJobGangArgs",
    "VolcanoQueue",
    "create_companion",
    "create_companions",
}

# Internal imports the benchmarks still make, each for a target the issue drops (Quantity
# against lightkube); they go with it.
STILL_INTERNAL = {}


def test_every_public_name_is_the_object_of_its_home_module() -> None:
    # (its order is ruff's RUF022: constants first, then the rest alphabetically)
    assert len(set(raygang.__all__)) == len(raygang.__all__)
    assert set(raygang.__all__) == set(raygang._HOMES)
    for name in raygang.__all__:
        home = importlib.import_module(raygang._HOMES[name])
        assert getattr(raygang, name) is getattr(home, name), name
    assert set(raygang.__all__) <= set(dir(raygang))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="has no attribute 'plan_job'"):
        _ = raygang.plan_job  # type: ignore[attr-defined]


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO
    )
    return done.stdout.strip()


def test_import_raygang_imports_nothing_else_of_raygang() -> None:
    loaded = _run(
        "import sys, raygang; print(sorted(m for m in sys.modules if m.startswith('raygang.')))"
    )
    assert loaded == "[]"


def test_the_planning_names_never_import_pulumi() -> None:
    names = sorted(set(raygang.__all__) - PULUMI_NAMES)
    out = _run(
        "import sys, raygang\n"
        f"for n in {names!r}: getattr(raygang, n)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0].startswith('pulumi')))"
    )
    assert out == "[]"


def _raygang_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m == "raygang" or m.startswith("raygang.")}


@pytest.mark.parametrize(
    "path",
    [
        REPO / "__main__.py",
        *sorted((REPO / "benchmarks").glob("*.py")),
        *sorted((REPO / "policy" / "raygang_policy").glob("*.py")),
    ],
    ids=lambda p: str(p.relative_to(REPO)),
)
def test_the_program_the_benchmarks_and_the_policy_pack_use_only_public_names(
    path: Path,
) -> None:
    relative = str(path.relative_to(REPO))
    internal = {
        m
        for m in _raygang_imports(path)
        if m not in ("raygang", "raygang.testing") and (relative, m) not in STILL_INTERNAL
    }
    assert not internal, f"{relative} imports internal modules {sorted(internal)}"


PACKAGE = REPO / "components" / "raygang"


@pytest.mark.parametrize(
    "path",
    sorted(
        p
        for p in [*PACKAGE.glob("*.py"), *PACKAGE.glob("*/__init__.py")]
        # the package itself and the mocks are public; `python -m raygang` is the CLI
        if p.relative_to(PACKAGE).as_posix() not in ("__init__.py", "testing.py", "__main__.py")
    ),
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_every_other_module_says_it_is_internal(path: Path) -> None:
    """Only ``raygang`` itself and ``raygang.testing`` are public: each top-level module and
    sub-package says it is internal, so no user takes its names for the surface."""
    doc = ast.get_docstring(ast.parse(path.read_text(), str(path))) or ""
    assert "Internal:" in doc, f"{path.relative_to(PACKAGE)} does not say it is internal"

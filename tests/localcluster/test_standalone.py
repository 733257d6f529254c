"""raygang_localcluster stands alone: the standard library only, nothing of raygang.

It is its own distribution (``localcluster/``), installed beside raygang for the real-engine
tier and usable in a user's tests without raygang's own dependencies.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "localcluster" / "raygang_localcluster"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return found


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*.py")), ids=lambda p: p.name)
def test_each_module_imports_only_the_standard_library_and_itself(path: Path) -> None:
    allowed = set(sys.stdlib_module_names) | {"raygang_localcluster"}
    assert _imports(path) - allowed == set()


def test_importing_it_loads_nothing_of_raygang() -> None:
    code = (
        "import sys, raygang_localcluster, raygang_localcluster.__main__\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'raygang'))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"

"""Bad input: every problem found, each naming the file, the field path, and what is accepted.

Each file in ``tests/fixtures/bad/`` is one bad input. Its header says what must be
reported, one line per problem::

    # expect: <substring of the field path> | <substring of the message or accepted text>

The test loads the file as ``raygang plan FILE`` would and requires exactly one problem
per ``expect`` line: no problem missing, none extra, each naming the file and saying what
would be accepted.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from raygang.kube.errors import Problem
from raygang.loader import load_files

from tests.builders import BAD, GOOD, expectations, problems_of


def matches(problem: Problem, where: str, what: str) -> bool:
    return where in problem.path and (what in problem.message or what in problem.accepted)


def test_every_bad_fixture_declares_expectations() -> None:
    assert len(BAD) >= 90
    for path in BAD:
        assert expectations(path), f"{path.name} has no '# expect:' line"


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_bad_input_is_reported(path: Path) -> None:
    expected = expectations(path)
    found = list(problems_of(path))
    text = "\n".join(str(p) for p in found)
    for where, what in expected:
        hit = next((p for p in found if matches(p, where, what)), None)
        assert hit is not None, f"no problem at {where!r} saying {what!r}; got:\n{text}"
        found.remove(hit)
    assert not found, "unexpected extra problems:\n" + "\n".join(str(p) for p in found)


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_every_problem_names_the_file_and_what_is_accepted(path: Path) -> None:
    for problem in problems_of(path):
        assert problem.source.startswith(str(path)), problem
        assert problem.path, problem
        assert problem.accepted, f"says nothing about what is accepted: {problem}"
        assert "Traceback" not in str(problem)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_good_fixtures_load(path: Path) -> None:
    docs = load_files([path])
    assert docs.jobs or docs.clusters


def test_good_fixtures_exist() -> None:
    assert {p.stem for p in GOOD} >= {
        "k8sjob",
        "sidecar",
        "interactive",
        "autoscaling-init",
        "future-fields",
    }

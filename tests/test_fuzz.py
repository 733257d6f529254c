"""Fuzzing: mutated RayJobs are planned or refused with a message, never a crash.

Hypothesis starts from valid RayJobs (our good fixtures) and damages them: values replaced
by junk of any type (None, huge or negative numbers, NaN, unicode, nested lists and maps,
non-string keys), keys deleted or added, lists emptied or doubled. Planning must then
either succeed or raise :class:`SpecError` with at least one problem; the command line
must exit 0 or 2. Valid inputs must render byte for byte the same on every run and
whatever the key order of the input.
"""

from __future__ import annotations

import copy
import io
import random
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from raygang.cli import EXIT_INVALID, main
from raygang.kube.errors import SpecError
from raygang.loader import load_documents
from raygang.pipeline import plan_everything
from raygang.plan import StackPlan
from raygang.render import render_json, render_table, render_yaml
from raygang.settings import StackSettings

GOOD = Path(__file__).resolve().parent / "fixtures" / "good"
DOCUMENTS: list[dict[str, Any]] = [
    doc
    for path in sorted(GOOD.glob("*.yaml"))
    for doc in yaml.safe_load_all(path.read_text(encoding="utf-8"))
]
BASES = [doc for doc in DOCUMENTS if doc["kind"] == "RayJob"]
FAST = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=True,
)

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(
        [
            "",
            "0",
            "0.5",
            "-1",
            "1Gi",
            "2 cores",
            "K8sJobMode",
            "SidecarMode",
            "InteractiveMode",
            "HTTPMode",
            "ray-head",
            "dashboard",
            "Never",
            "a" * 70,
            "ñame",
            "\x00",
            "true",
            "2.52",
        ]
    ),
)
JUNK = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=6) | st.integers(-3, 3), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(node: object, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every location in a document, parents before children."""
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _paths(value, (*prefix, index))
    return out


def _parent(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path[:-1]:
        doc = doc[part]
    return doc


@st.composite
def mutated_rayjobs(draw: st.DrawFn) -> dict[str, Any]:
    """A valid RayJob (or Queue) damaged one to three times."""
    doc: dict[str, Any] = copy.deepcopy(draw(st.sampled_from(DOCUMENTS)))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(doc)[1:]  # the root itself stays a map
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = _parent(doc, path)
        key = path[-1]
        action = draw(st.sampled_from(["replace", "replace", "delete", "add", "empty", "double"]))
        if action == "replace":
            parent[key] = draw(JUNK)
        elif action == "delete":
            del parent[key]
        elif action == "add" and isinstance(parent[key], dict):
            parent[key][draw(st.text(min_size=1, max_size=8))] = draw(JUNK)
        elif action == "empty" and isinstance(parent[key], list | dict):
            parent[key] = type(parent[key])()
        elif action == "double" and isinstance(parent[key], list) and parent[key]:
            parent[key].append(copy.deepcopy(parent[key][0]))
        else:
            parent[key] = draw(SCALARS)
    return doc


def plan_of(doc: object, source: str = "fuzz.yaml") -> StackPlan:
    docs = load_documents([(source, doc)])
    return plan_everything(docs, StackSettings(), base=Path.cwd())


def renders(plan: StackPlan) -> tuple[str, str, str]:
    return render_json(plan), render_yaml(plan), render_table(plan)


def planned_or_refused(doc: object) -> StackPlan | None:
    """Plan a document; None when it was refused with problems; any other error escapes."""
    try:
        plan = plan_of(doc)
    except SpecError as exc:
        assert exc.problems, "a SpecError without problems"
        for problem in exc.problems:
            assert problem.source.startswith("fuzz.yaml")
            assert problem.path and problem.message
        return None
    renders(plan)
    return plan


@FAST
@given(mutated_rayjobs())
def test_damaged_rayjobs_are_planned_or_refused(doc: dict[str, Any]) -> None:
    planned_or_refused(doc)


@FAST
@given(JUNK)
def test_any_document_is_planned_or_refused(doc: object) -> None:
    planned_or_refused(doc)


def run_main(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@settings(FAST, max_examples=100)
@given(mutated_rayjobs(), st.sampled_from(["table", "json", "yaml"]))
def test_the_command_line_exits_0_or_2(doc: dict[str, Any], fmt: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "job.yaml"
        path.write_text(yaml.safe_dump(doc, allow_unicode=True), encoding="utf-8")
        code, out, err = run_main(["plan", str(path), "--format", fmt])
    assert code in (0, EXIT_INVALID)
    assert "Traceback" not in err
    if code == EXIT_INVALID:
        assert out == ""
        assert err.startswith("raygang: invalid input:\n") and str(path) in err
    else:
        assert out and not err


def shuffled(node: object, rng: random.Random) -> object:
    """The same document with the keys of every map in another order."""
    if isinstance(node, dict):
        items = list(node.items())
        rng.shuffle(items)
        return {key: shuffled(value, rng) for key, value in items}
    if isinstance(node, list):
        return [shuffled(value, rng) for value in node]
    return node


@FAST
@given(mutated_rayjobs(), st.randoms(use_true_random=False))
def test_output_does_not_depend_on_key_order_or_the_run(
    doc: dict[str, Any], rng: random.Random
) -> None:
    plan = planned_or_refused(doc)
    if plan is None:
        return
    first = renders(plan)
    assert renders(plan_of(copy.deepcopy(doc))) == first
    assert renders(plan_of(shuffled(doc, rng))) == first


@pytest.mark.parametrize("base", BASES, ids=lambda d: d["metadata"]["name"])
def test_the_command_line_output_is_byte_identical(base: dict[str, Any], tmp_path: Path) -> None:
    rng = random.Random(7)
    ordered, reordered = tmp_path / "a.yaml", tmp_path / "b.yaml"
    ordered.write_text(yaml.safe_dump(base, sort_keys=False))
    reordered.write_text(yaml.safe_dump(shuffled(base, rng), sort_keys=False))
    assert ordered.read_text() != reordered.read_text()
    for fmt in ("json", "yaml", "table"):
        runs = [run_main(["plan", str(p), "--format", fmt]) for p in (ordered, ordered)]
        runs.append(run_main(["plan", str(reordered), "--format", fmt]))
        assert runs[0][0] == 0
        # The table and JSON name the source file; compare those modulo its name.
        outputs = {r[1].replace(str(reordered), str(ordered)) for r in runs}
        assert len(outputs) == 1, fmt

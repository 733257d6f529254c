"""Checking one RayJob document as the loader does, ``generateName`` included.

A RayJob with ``metadata.generateName`` and no name is checked under the deterministic
name :mod:`raygang.kube.generatename` gives it, and a problem with that name is reported
against ``metadata.generateName``, where the user can fix it. The submitter's rules
(:data:`raygang.kuberay.submitter.SUBMITTER_RULES`) run among the RayJob's own checks.
"""

from __future__ import annotations

from collections.abc import Mapping

from raygang.kube.errors import Problem, SpecError
from raygang.kube.generatename import with_generated_name
from raygang.kuberay.submitter import SUBMITTER_RULES
from raygang.rayjob.spec import RayJobInput, load_rayjob
from raygang.rayjob.validate import MAX_JOB_NAME

__all__ = ["load_rayjob_document"]


def load_rayjob_document(doc: object, source: str) -> RayJobInput:
    """Check one RayJob as the loader does: a name from ``generateName`` when it has none.

    Raises:
        SpecError: every problem of the document.
    """
    named = with_generated_name(doc, MAX_JOB_NAME)
    if named is doc:
        return load_rayjob(doc, source, SUBMITTER_RULES)
    assert isinstance(named, Mapping)
    try:
        return load_rayjob(named, source, SUBMITTER_RULES)
    except SpecError as exc:
        derived = named["metadata"]["name"]
        raise SpecError(
            [
                Problem(
                    p.source,
                    "metadata.generateName",
                    f"gives the name {derived!r}, which "
                    + p.message.removeprefix(f"{derived!r} ").removeprefix(f"{derived} "),
                    p.accepted,
                )
                if p.path == "metadata.name"
                else p
                for p in exc.problems
            ]
        ) from None

"""One RayJob document checked whole: structure and semantics, every problem together.

The entry points of validation. :func:`load_rayjob` runs the structural validation
(:func:`raygang.rayjob.spec.validate_rayjob`, whose model also checks the deletion strategy,
:mod:`raygang.rayjob.deletion`) and the semantic checks (:func:`manifest_problems`, which
read the raw manifest tolerantly, the submitter's rules handed in by the caller,
:class:`.read.SubmitterRules`) and reports what both found in one :class:`SpecError`. The
size limit is Kubernetes' for an object's annotations (``TotalAnnotationSizeLimitB`` in
``apimachinery/pkg/api/validation/objectmeta.go``), where the job record keeps the manifest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from raygang.kube.errors import Problem, SpecError
from raygang.rayjob.spec import RayJob, RayJobInput, parse_rayjob, validate_rayjob
from raygang.rayjob.validate.jobspec import check_spec
from raygang.rayjob.validate.metadata import check_metadata
from raygang.rayjob.validate.read import Checker, SubmitterRules, as_map
from raygang.rayjob.validate.resources import parsed_quantities

# The job record ConfigMap keeps the manifest in an annotation, and an object's annotations
# hold at most 256 KiB. This is the quick refusal of a far too large input; the plan checks
# the record's exact size (raygang.plan).
MAX_MANIFEST_BYTES = 256 * 1024


def manifest_problems(
    raw: Mapping[str, Any], source: str, rules: SubmitterRules, job: RayJob | None = None
) -> list[Problem]:
    """Every semantic problem of one RayJob manifest, read tolerantly from the raw dict.

    Args:
        raw: the manifest as loaded (it need not have passed structural validation).
        source: where it came from, for messages.
        rules: the submitter's rules (``raygang.kuberay.submitter.SUBMITTER_RULES``).
        job: the typed model of ``raw`` when it passed structural validation: its parsed
            quantities are read instead of parsing the raw text again.

    Returns:
        Problems in document order; empty when the manifest can be planned.
    """
    c = Checker(source, rules, parsed_quantities(job) if job is not None else None)
    meta = as_map(raw.get("metadata"))
    check_metadata(c, meta)
    spec = raw.get("spec")
    if isinstance(spec, Mapping):
        check_spec(c, spec, meta)
    if _larger_than(raw, MAX_MANIFEST_BYTES):
        c.bad(
            "<document>",
            f"is larger than {MAX_MANIFEST_BYTES} bytes; the job record ConfigMap keeps it in "
            "its annotations, which hold at most 256 KiB",
            f"a manifest under {MAX_MANIFEST_BYTES} bytes",
        )
    return c.out


def _larger_than(doc: object, limit: int) -> bool:
    """Whether ``doc`` as JSON would exceed ``limit`` bytes, counted with a budget.

    Counting stops at the limit, so shared references (YAML aliases) cannot make it slow.
    """
    size = 0
    stack = [doc]
    while stack:
        value = stack.pop()
        if type(value) is str:
            size += len(value.encode("utf-8", "replace")) + 2
        elif isinstance(value, Mapping):
            size += 2 + sum(len(str(k)) + 4 for k in value)
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            size += 2 + len(value)
            stack.extend(value)
        else:
            size += len(str(value).encode("utf-8", "replace")) + 2
        if size > limit:
            return True
    return False


def check_rayjob(item: RayJobInput, rules: SubmitterRules) -> list[Problem]:
    """Every semantic problem in one structurally valid RayJob.

    Args:
        item: a RayJob that passed :func:`raygang.rayjob.spec.parse_rayjob`.
        rules: the submitter's rules (``raygang.kuberay.submitter.SUBMITTER_RULES``).

    Returns:
        Problems in document order; empty when the job can be planned.
    """
    # The model checked the deletion strategy when the job was built.
    return list(dict.fromkeys(manifest_problems(item.raw, item.source, rules, item.job)))


def _under(path: str, parents: Sequence[str]) -> bool:
    return any(path == p or path.startswith((f"{p}.", f"{p}[")) for p in parents)


def load_rayjob(raw: object, source: str, rules: SubmitterRules) -> RayJobInput:
    """Validate one RayJob document: structure and semantics, all problems together.

    Semantic checks run even when the structure is wrong, on the fields that are readable;
    a semantic problem at or below a structural one is dropped, since it says the same.

    Args:
        raw: the document as loaded from YAML or stack config.
        source: where it came from, for messages.
        rules: the submitter's rules (``raygang.kuberay.submitter.SUBMITTER_RULES``).

    Returns:
        The checked job.

    Raises:
        SpecError: every structural and semantic problem of the document.
    """
    if not isinstance(raw, Mapping):
        return parse_rayjob(raw, source)  # raises: it is not a Kubernetes object
    item, structural, kuberay_rules = validate_rayjob(raw, source)
    semantic = manifest_problems(raw, source, rules, item.job if item is not None else None)
    semantic += kuberay_rules
    paths = [p.path for p in structural]
    problems = structural + [p for p in semantic if not _under(p.path, paths)]
    if problems or item is None:
        raise SpecError(problems)
    return item

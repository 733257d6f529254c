"""Every semantic rule on one RayJob manifest, in the order they are reported.

The typed model (:class:`raygang.rayjob.spec.RayJob`) runs :func:`manifest_problems` beside
its structural validation and reports what both found in one error. The size limit is
Kubernetes' for an object's annotations (``TotalAnnotationSizeLimitB`` in
``apimachinery/pkg/api/validation/objectmeta.go``), where the job record keeps the manifest.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from raygang.kube.errors import Problem
from raygang.kube.quantity import Quantity
from raygang.rayjob.validate.jobspec import check_spec
from raygang.rayjob.validate.metadata import check_metadata
from raygang.rayjob.validate.read import Checker, SubmitterRules, as_map

# The job record ConfigMap keeps the manifest in an annotation, and an object's annotations
# hold at most 256 KiB. This is the quick refusal of a far too large input; the plan checks
# the record's exact size (raygang.plan).
MAX_MANIFEST_BYTES = 256 * 1024


def manifest_problems(
    raw: Mapping[str, Any],
    source: str,
    rules: SubmitterRules,
    parsed: Mapping[str, Quantity] | None = None,
) -> list[Problem]:
    """Every semantic problem of one RayJob manifest, read tolerantly from the raw dict.

    Args:
        raw: the manifest as loaded (it need not have passed structural validation).
        source: where it came from, for messages.
        rules: the submitter's rules (``raygang.kuberay.submitter.SUBMITTER_RULES``).
        parsed: the quantities the typed model parsed, when the manifest passed structural
            validation (:func:`raygang.rayjob.spec.parsed_quantities`); they are read instead
            of parsing the raw text again.

    Returns:
        Problems in document order; empty when the manifest can be planned.
    """
    c = Checker(source, rules, parsed)
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

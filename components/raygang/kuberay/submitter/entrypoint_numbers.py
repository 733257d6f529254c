"""``--entrypoint-num-cpus`` and ``--entrypoint-num-gpus``: Go's ``%f`` of a float32.

``entrypointNumCpus`` and ``entrypointNumGpus`` are float32 in KubeRay's RayJob type
(``ray-operator/apis/ray/v1/rayjob_types.go``), and ``BuildJobSubmitCommand``
(``ray-operator/controllers/ray/common/job.go``) formats them with ``%f`` when positive; the
submission ID (:mod:`.submission`) hashes the same text, so equal commands give equal IDs.
"""

from __future__ import annotations

import math
import struct

from raygang.kuberay.submitter._errors import SubmitterError


def go_percent_f_float32(value: float | None, field: str) -> str | None:
    """Go ``fmt.Sprintf("%f", float32)``, or None when KubeRay would leave the flag out (<= 0).

    ``entrypointNumCpus``/``entrypointNumGpus`` are float32 in KubeRay's Go types, so the
    number is first rounded to float32, as decoding the RayJob in the operator would. The
    typed model (``RayJobSpec``, ``StrictFloat``) refuses what is not a number and hands an
    int ``1`` over as ``1.0``; either way the text is the same, since the number is rounded
    to float32 first.
    """
    if value is None:
        return None
    try:
        as32: float = struct.unpack("<f", struct.pack("<f", float(value)))[0]
    except OverflowError:
        raise SubmitterError(f"{field} {value!r} does not fit a float32") from None
    if not math.isfinite(as32):
        raise SubmitterError(f"{field} must be finite, got {value!r}")
    if not as32 > 0:
        return None
    return f"{as32:.6f}"

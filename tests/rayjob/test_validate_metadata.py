"""raygang.rayjob.validate.metadata: names, labels and the scheduling labels."""

from __future__ import annotations

import pytest
from raygang.kube.errors import SpecError
from raygang.loader import load_documents

from tests.builders import rayjob


def test_an_empty_queue_label_is_refused_but_no_label_is_fine() -> None:
    load_documents([("job.yaml", rayjob())])
    with pytest.raises(SpecError, match="Volcano's default queue"):
        load_documents([("job.yaml", rayjob(labels={"volcano.sh/queue-name": ""}))])


def test_an_empty_priority_label_is_accepted() -> None:
    # KubeRay copies it into spec.priorityClassName: "", which Volcano's CRD accepts.
    load_documents([("job.yaml", rayjob(labels={"ray.io/priority-class-name": ""}))])

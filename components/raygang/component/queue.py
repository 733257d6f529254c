"""``VolcanoQueue``: a Volcano Queue the stack creates, as a component resource."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi

from raygang.component.resources import custom_resource, or_run_error
from raygang.kuberay.jobplan import PlannedResource
from raygang.volcano.queue import QueueDecl, parse_queue


class VolcanoQueue(pulumi.ComponentResource):
    """A Volcano Queue created by the stack, ready once Volcano reports it Open.

    Args:
        name: the Pulumi resource name.
        queue: a parsed declaration, or a Queue manifest (``{metadata: {name}, spec}``).
        opts: the usual resource options (provider, parent, protect ...).
        secret: the declaration comes from secret config (``pulumi config set --secret``):
            the Queue's inputs are registered as secrets.
    """

    queue_name: pulumi.Output[str]

    def __init__(
        self,
        name: str,
        queue: QueueDecl | Mapping[str, Any],
        opts: pulumi.ResourceOptions | None = None,
        *,
        secret: bool = False,
    ) -> None:
        super().__init__("raygang:index:VolcanoQueue", name, None, opts)
        decl = (
            queue
            if isinstance(queue, QueueDecl)
            else or_run_error(lambda: parse_queue(queue, name))
        )
        self.decl = decl
        planned = PlannedResource("queue", decl.manifest())
        self.queue = custom_resource(
            name,
            planned,
            dict(planned.manifest["metadata"]),
            pulumi.ResourceOptions(parent=self),
            secret,
        )
        self.queue_name = pulumi.Output.from_input(decl.name)
        self.register_outputs({"queueName": self.queue_name})


def queue_after_creation(spec: Mapping[str, Any], queue: VolcanoQueue) -> dict[str, Any]:
    """The PodGroup's ``spec.queue``, known only once the Queue has an ID.

    ``pulumi preview`` dry-runs each create on the API server; Volcano's admission webhook
    refuses a PodGroup whose queue does not exist ("unable to find queue"), so the first
    preview of a stack that creates its queue failed (seen against the real webhook). Read
    from the Queue's ID, the field is unknown while the Queue is still to be created, and the
    provider then skips that dry-run; once the Queue exists it is the plain name again.
    """
    name = str(spec["queue"])
    return {**spec, "queue": queue.queue.id.apply(lambda _: name)}

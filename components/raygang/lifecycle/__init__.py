"""A job's life without a controller: the facts a cluster reports, what was observed, and
what the next ``up`` declares (as KubeRay's ``rayjob_controller.go`` would converge it).

``facts`` (what the cluster reports: ``model``, ``clock``, ``fields``, ``gather``,
``live``), ``model`` (the phases and the decision, :class:`~raygang.lifecycle.model.Lifecycle`),
``observe`` (the facts boiled down), ``transition`` (the phase they put the job in),
``declared`` (the attempt's objects, edited), ``cleanup`` (what a finished job's deletion
settings make due), ``scheduling`` (the PodGroup fields that cannot change under a running
job), ``phases`` (one function per phase), ``actions`` (what a run changes) and ``decide``
(the dispatcher).

Internal: not part of raygang's public surface (the names ``raygang`` exports); everything
in this package may change without notice.
"""

"""One function per phase: what a run declares for a job in that phase.

Each is given a :class:`~raygang.lifecycle.model.Run` and returns a
:class:`~raygang.lifecycle.model.Declaration`; :func:`raygang.lifecycle.decide.decide`
maps the phase (:mod:`raygang.lifecycle.transition`) to its function, as the ``switch``
over ``JobDeploymentStatus`` in KubeRay's ``Reconcile``
(``ray-operator/controllers/ray/rayjob_controller.go`` v1.7.0) maps a status to its case.
"""

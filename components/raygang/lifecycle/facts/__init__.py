"""What the cluster reports about a job, the facts every ``pulumi up`` decides from.

``model`` (the facts, as frozen data), ``clock`` (RFC 3339 times), ``fields`` (tolerant
readers of API object fields), ``gather`` (one job's facts from a snapshot) and ``live``
(a snapshot read from the cluster). KubeRay's RayJob controller observes the same objects
on each reconcile (``ray-operator/controllers/ray/rayjob_controller.go`` v1.7.0).
"""

"""The RayJob: its typed models (``ray.io/v1``), validation, and its deletion strategy.

Follows KubeRay v1.7.0's ``ray-operator/apis/ray/v1/rayjob_types.go`` and
``ray-operator/controllers/ray/utils/validation.go``.

Internal: not part of raygang's public surface (the names ``raygang`` exports); everything
in this package may change without notice.
"""

"""What KubeRay's Volcano adapter and RayJob controller do: the gang arithmetic, the submitter
command and template, what KubeRay injects into pods, and the objects a RayJob becomes.

Internal: not part of raygang's public surface (the names ``raygang`` exports); everything
in this package may change without notice.
"""

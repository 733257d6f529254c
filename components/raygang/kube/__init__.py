"""Kubernetes itself, as raygang needs it: quantities, KEP-753 pod requests, names and labels,
reading YAML as kubectl does and reading a cluster snapshot. Imports nothing else of raygang.

Internal: not part of raygang's public surface (the names ``raygang`` exports); everything
in this package may change without notice.
"""

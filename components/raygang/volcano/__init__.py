"""A Python mirror of Volcano's scheduler (``pkg/scheduler``) for the preflight: resource
arithmetic (``api``), a session per planning pass, the plugins and actions of the default
configuration, and above them the checks that turn verdicts into messages and fixes.

Internal: not part of raygang's public surface (the names ``raygang`` exports); everything
in this package may change without notice.
"""

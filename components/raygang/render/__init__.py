"""Printing a plan: a table for people, JSON for programs, YAML manifests for kubectl.

All three are deterministic: the same plan gives the same bytes, whatever the key order
of the input. A Secret among the companions is never printed in clear: every output shows
its keys, each value replaced by ``<redacted>``.

Modules, each importing only those before it: ``redact`` (Secret values replaced),
``order`` (every object once, in creation order, and its waits on companions),
``document`` (the JSON document), ``manifests`` (YAML documents, one file per manifest),
``outdir`` (``--out``: the directory and its index) and ``table`` (the text report).

Internal: ``raygang`` exports ``render_table``, ``render_yaml`` and ``write_json``; the
modules here may change without notice.
"""

from __future__ import annotations

from raygang.render.document import plan_document, render_json, write_json
from raygang.render.manifests import manifest_files, render_yaml
from raygang.render.order import stream
from raygang.render.outdir import INDEX, OutDirError, write_manifests
from raygang.render.redact import REDACTED, redacted
from raygang.render.table import render_table

__all__ = [
    "INDEX",
    "REDACTED",
    "OutDirError",
    "manifest_files",
    "plan_document",
    "redacted",
    "render_json",
    "render_table",
    "render_yaml",
    "stream",
    "write_json",
    "write_manifests",
]

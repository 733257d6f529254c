"""Reading RayJobs, Queues and their companions from YAML files and from stack config.

A file may hold several documents: ``ray.io/v1`` RayJobs are jobs, Volcano Queues are
declared queues, and any other Kubernetes object (the ConfigMap KubeRay's samples mount in
the head, a ServiceAccount, Role and RoleBinding, a PVC, a custom resource) is a
*companion*: created unchanged beside the file's jobs, before their RayClusters. Problems
in every document are collected before raising.

Rules beyond "parse the YAML", each because the alternative loses or corrupts input:

* A file given explicitly (on the command line, or in ``raygang:manifests``) must declare
  at least one RayJob or Queue; a file of other kinds only would plan nothing, silently.
  A Queue-only file is fine: queues are often kept apart from the jobs that use them.
* A duplicated key in a YAML mapping is an error (PyYAML would keep the last value
  silently; kubectl refuses the file).
* YAML timestamps stay text (``jobId: 2024-01-01`` is the string kubectl would send),
  and every document must be representable as JSON, the form the API server receives:
  string keys, finite numbers, and a bounded size (YAML aliases can expand exponentially).
* ``kind: List`` (what ``kubectl get ... -o yaml`` prints) and any ``<Kind>List`` with
  ``items`` is read as its items. What the API server set on an object it returned
  (``status``, ``metadata.uid``, ``resourceVersion``, ``managedFields`` ...) is dropped,
  with a note: an object carrying them could not be created again.
* A RayJob with ``metadata.generateName`` and no name gets a deterministic name
  (:mod:`raygang.kube.generatename`).
* A companion belongs to its file: it is created once, every RayJob of the file depends on
  it, and without a namespace it goes to the namespace of the file's RayJobs (``default``
  when they have none, as kubectl would put both). A file whose RayJobs are in several
  namespaces must name the companion's namespace. The same object declared identically in
  two files is created once, for the jobs of both; declared differently, it is an error.
* A RayCluster of its own is planned as KubeRay's Volcano adapter gangs it
  (``rayclusters``); the other KubeRay kinds (RayService, RayCronJob) are refused: raygang
  gang-schedules RayJobs and RayClusters only, and creating them unscheduled would be a
  silent surprise.

Modules, each importing only those before it: ``lists`` (list documents as their items),
``server_fields`` (what the API server set, dropped), ``rayjobs`` (one RayJob,
``generateName`` included), ``classify`` (what a document is, and what becomes of a job,
a queue or a refused kind), ``companions`` (the other objects and their jobs),
``duplicates`` (a RayJob declared twice), ``documents`` (``Documents`` and
``load_documents``) and ``files`` (``load_files``).

Internal: ``raygang`` exports ``load_files``, ``load_documents``, ``load_rayjob_document``
and ``Documents``; the modules here may change without notice.
"""

from __future__ import annotations

from raygang.loader.documents import Documents, load_documents
from raygang.loader.files import load_files
from raygang.loader.rayjobs import load_rayjob_document

__all__ = ["Documents", "load_documents", "load_files", "load_rayjob_document"]

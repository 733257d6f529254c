"""What one read shares across its documents, and the documents it yields.

``Stream`` holds the source, the limits, the node count of the current document, the values
built for the whole file (aliases expanded), the documents so far and go-yaml's reading of
repeated short scalars, and makes the errors that say which document they are in.
``Document`` is one document as kubectl sends it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

from raygang.kube.kubeyaml.limits import SIZED_BY, Limits, ManifestError, ManifestLimitError

__all__ = [
    "Document",
    "JSONValue",
    "Stream",
]


JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"


@dataclass(frozen=True)
class Document:
    """One document as kubectl sends it.

    Attributes:
        value: the JSON value (dict for any object; kubectl skips null documents).
        index: 1-based position among the documents kubectl reads (null ones not counted).
        line: 1-based line of the stream where the document starts.
        from_json: True when kubectl read it as JSON (its numbers keep their text there).
    """

    value: JSONValue
    index: int
    line: int
    from_json: bool


class Stream:
    """What one call shares across documents: the source, limits and the counts."""

    def __init__(self, source: str, limits: Limits, refuse_duplicates: bool) -> None:
        self.source = source
        self.limits = limits
        self.refuse_duplicates = refuse_duplicates
        self.binary_errors = "kubeyaml-go-replace"
        # Typed as gopkg.in/yaml.v3 and Pulumi type a stack file (``compose3``), not as kubectl.
        self.v3 = False
        self.nodes = 0  # of the document being read
        self.values = 0  # of the documents read so far, aliases and merge keys expanded
        self.docs: list[Document] = []

    def error(
        self, problem: str, accepted: str, *, line: int | None = None, path: str | None = None
    ) -> ManifestError:
        return ManifestError(
            self.source,
            problem,
            accepted=accepted,
            document=len(self.docs) + 1,
            line=line,
            path=path,
        )

    def limit(
        self,
        problem: str,
        accepted: str,
        limit: int,
        *,
        line: int | None = None,
        path: str | None = None,
        obj: str | None = None,
    ) -> ManifestError:
        """A bound passed, named with the document (and its kind and name when known);
        ``path`` only where one field is at fault (an alias bomb, a deep nesting), not for
        a count the whole document or file passed."""
        return ManifestLimitError(
            self.source,
            problem,
            accepted=accepted,
            limit=limit,
            document=len(self.docs) + 1,
            line=line,
            path=path,
            obj=obj,
        )

    def count_values(self, values: int, line: int | None, obj: str | None) -> None:
        """Adds a finished document's values to the file's; refused past ``max_values``."""
        self.values += values
        if self.values > self.limits.max_values:
            raise self.too_many_values(line, obj)

    def too_many_values(self, line: int | None, obj: str | None) -> ManifestError:
        lims = self.limits
        return self.limit(
            f"brings the file past {lims.max_values} values (aliases and merge keys expanded)",
            f"at most {lims.max_values} values per file (Limits.max_values; {SIZED_BY})",
            lims.max_values,
            line=line,
            obj=obj,
        )

"""Reading ``kind: List`` and any ``<Kind>List`` with ``items`` as its items.

Follows kubectl: cli-runtime ``pkg/resource/visitor.go`` (``FlattenListVisitor``) reads a
list document (what ``kubectl get ... -o yaml`` prints) as the objects in it, taken out
with apimachinery ``pkg/api/meta/help.go`` (``ExtractList``). Each item is named in
messages by its place in the list.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

__all__ = ["expand_lists", "is_list", "item_source"]


def is_list(doc: object) -> bool:
    if not isinstance(doc, Mapping):
        return False
    kind = doc.get("kind")
    return isinstance(kind, str) and kind.endswith("List") and isinstance(doc.get("items"), list)


def item_source(source: str, index: int) -> str:
    # "f.yaml" -> "f.yaml (items[0])"; "f.yaml (document 2)" -> "f.yaml (document 2, items[0])"
    if source.endswith(")") and " (document " in source:
        return f"{source[:-1]}, items[{index}])"
    return f"{source} (items[{index}])"


def expand_lists(
    entries: Iterable[tuple[str, str, object]],
) -> Iterator[tuple[str, str, object]]:
    for source, group, doc in entries:
        if is_list(doc):
            assert isinstance(doc, Mapping)
            for index, item in enumerate(doc["items"]):
                yield item_source(source, index), group, item
        else:
            yield source, group, doc

"""Reading ``kind: List`` and any ``<Kind>List`` with ``items`` as its items.

Follows kubectl: cli-runtime ``pkg/resource/visitor.go`` (``FlattenListVisitor``) reads a
list document (what ``kubectl get ... -o yaml`` prints) as the objects in it, taken out
with apimachinery ``pkg/api/meta/help.go`` (``ExtractList``); a list inside a list is read
as its items too, breadth first, as that visitor's queue takes them. Each item is named in
messages by its place in the list (``items[0].items[2]`` inside a nested one).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

__all__ = ["expand_lists", "is_list", "item_source", "list_without_items"]


def _list_kind(doc: Mapping[object, object]) -> bool:
    kind = doc.get("kind")
    return isinstance(kind, str) and kind.endswith("List")


def is_list(doc: object) -> bool:
    return isinstance(doc, Mapping) and _list_kind(doc) and isinstance(doc.get("items"), list)


def list_without_items(doc: object) -> bool:
    """A ``<Kind>List`` whose ``items`` is given but not a list (a map, say): not a list
    kubectl could read, and not an object the API server could create either."""
    return (
        isinstance(doc, Mapping)
        and _list_kind(doc)
        and doc.get("items") is not None
        and not isinstance(doc.get("items"), list)
    )


def item_source(source: str, index: int) -> str:
    # "f.yaml" -> "f.yaml (items[0])"; "f.yaml (document 2)" -> "f.yaml (document 2, items[0])";
    # "f.yaml (items[0])" -> "f.yaml (items[0].items[1])" (a list inside a list)
    if source.endswith("])"):
        return f"{source[:-1]}.items[{index}])"
    if source.endswith(")") and " (document " in source:
        return f"{source[:-1]}, items[{index}])"
    return f"{source} (items[{index}])"


def expand_lists(
    entries: Iterable[tuple[str, str, object]],
) -> Iterator[tuple[str, str, object]]:
    for source, group, doc in entries:
        if not is_list(doc):
            yield source, group, doc
            continue
        queue: list[tuple[str, object]] = [(source, doc)]
        for place, current in queue:  # grows as lists inside are found, as kubectl's does
            if is_list(current):
                assert isinstance(current, Mapping)
                queue.extend(
                    (item_source(place, index), item) for index, item in enumerate(current["items"])
                )
            else:
                yield place, group, current

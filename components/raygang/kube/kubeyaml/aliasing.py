"""go-yaml v2's "document contains excessive aliasing" rule (``decode.go``:
``allowedAliasRatio`` and the decode counters it is checked against).

It runs on a finished document, in the order go-yaml walks it, so the documents go-yaml
refuses are refused here too. ``Limits.max_expanded`` bounds the rest.
"""

from __future__ import annotations

from raygang.kube.kubeyaml.nodes import Node, is_merge
from raygang.kube.kubeyaml.state import Stream

__all__ = [
    "check_alias_ratio",
]


def check_alias_ratio(root: Node, st: Stream, obj: str | None) -> None:
    """go-yaml's "document contains excessive aliasing": its counters at the end of each
    alias expansion (where the ratio peaks), walking the document as go-yaml does."""
    decodes, aliased = 1, 0  # the document node
    stack = [root]
    while stack:
        node = stack.pop()
        decodes += 1
        if node.kind == "alias":
            assert node.target is not None
            decodes += node.target.ops
            aliased += node.target.ops
        elif node.kind == "seq":
            stack.extend(reversed(node.children))
        elif node.kind == "map":
            order: list[Node] = []
            for key, value in zip(node.children[::2], node.children[1::2], strict=True):
                if is_merge(key):
                    order.extend(reversed(value.children) if value.kind == "seq" else [value])
                else:
                    order += [key, value]
            stack.extend(reversed(order))
        if aliased > 100 and decodes > 1000 and aliased / decodes > _allowed_ratio(decodes):
            raise st.limit(
                "is mostly aliases (kubectl refuses it: document contains excessive aliasing)",
                "aliases making up at most 99% of a document's values "
                "(go-yaml's rule; Limits.max_expanded bounds the rest)",
                st.limits.max_expanded,
                line=node.line,
                obj=obj,
            )


def _allowed_ratio(decodes: int) -> float:
    if decodes <= 400_000:
        return 0.99
    if decodes >= 4_000_000:
        return 0.10
    return 0.99 - 0.89 * ((decodes - 400_000) / 3_600_000)

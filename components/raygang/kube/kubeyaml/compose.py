"""One YAML document built from libyaml's events as go-yaml v2 decodes it into
``interface{}`` (``decode.go``: ``sequence``, ``mapping``, ``merge``, ``alias``).

The document is built bottom-up as events arrive, so nothing recurses. Nodes, depth (aliases
expanded) and decode counts (aliases and merge keys expanded) are checked before the work
they bound, per document; the values of the whole file (``Stream.values``) too. A bound
passed names the document by its kind and name when they came before, not a field inside.
Merges apply where they stand, the first of a list winning. Duplicate keys, and keys that
become the same JSON text, are refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import yaml
import yaml.events as ev

from raygang.kube.kubeyaml import events
from raygang.kube.kubeyaml.aliasing import check_alias_ratio
from raygang.kube.kubeyaml.compose3 import finish_map3, json_scalar3
from raygang.kube.kubeyaml.jsondecode import SURROGATE, check_text
from raygang.kube.kubeyaml.keys import GoKey, KeyMaker
from raygang.kube.kubeyaml.limits import SIZED_BY, ManifestError
from raygang.kube.kubeyaml.nodes import (
    NULL_DOC,
    Node,
    copy_json,
    is_merge,
    json_scalar,
    path_segment,
)
from raygang.kube.kubeyaml.resolve import GoFloat, scalar
from raygang.kube.kubeyaml.resolve3 import scalar3
from raygang.kube.kubeyaml.state import Stream

__all__ = [
    "Composer",
]


class Composer:
    """Builds one document bottom-up as events arrive, so nothing recurses and every limit
    is checked before the work it bounds."""

    def __init__(self, st: Stream, first_line: int) -> None:
        self.st = st
        self.first_line = first_line
        self.anchors: dict[str, Node] = {}
        self.keys = KeyMaker(self._err)
        # Open collections: (node, path segment of the node, pending key node).
        self.stack: list[list[object]] = []

    # -- where ---------------------------------------------------------------------------

    def _path(self, extra: str | None = None) -> str:
        """The field path of the next child of the open collections; with ``extra``, of
        that segment under the innermost one."""
        parts: list[str] = []
        frames = self.stack[:-1] if extra is not None and self.stack else self.stack
        for frame in frames:
            node = frame[0]
            assert isinstance(node, Node)
            if node.kind == "seq":
                parts.append(f"[{len(node.children)}]")
            elif frame[1] is not None:
                key = frame[1]
                assert isinstance(key, Node)
                parts.append(path_segment(key.text if key.kind == "scalar" else "<key>"))
        if extra is not None:
            parts.append(extra)
        path = "".join(parts)
        return path[1:] if path.startswith(".") else path or "<document>"

    def _err(
        self, problem: str, accepted: str, line: int | None, path: str | None = None
    ) -> ManifestError:
        return self.st.error(problem, accepted, line=line, path=path or self._path())

    def _limit(self, problem: str, accepted: str, limit: int, line: int | None) -> ManifestError:
        """A bound passed at one field (depth, expansion): named with its path too."""
        return self.st.limit(
            problem, accepted, limit, line=line, path=self._path(), obj=self._object()
        )

    def _object(self, root: Node | None = None) -> str | None:
        """``Kind namespace/name`` of the document, from what was read of it so far (kubectl
        prints ``kind`` and ``metadata`` before ``spec``), or None."""
        if root is None and self.stack:
            first = self.stack[0][0]
            assert isinstance(first, Node)
            root = first
        if root is None or root.kind != "map":
            return None
        kind = name = namespace = None
        for key, value in zip(root.children[::2], root.children[1::2], strict=False):
            if key.kind != "scalar":
                continue
            if key.text == "kind" and value.kind == "scalar":
                kind = value.text[:100]
            elif key.text == "metadata" and isinstance(value.json, dict):
                name, namespace = value.json.get("name"), value.json.get("namespace")
        if not isinstance(kind, str):
            return None
        if isinstance(name, str):
            kind += " " + (f"{namespace}/" if isinstance(namespace, str) else "") + name[:100]
        return kind

    # -- events --------------------------------------------------------------------------

    def document(self, chunk: bytes) -> object:
        parser = events.PARSER(chunk)  # looked up here: tests swap in the pure parser
        self.st.nodes = 0  # nodes are bounded per document
        root: Node | None = None
        try:
            while True:
                try:
                    event = parser.get_event()  # type: ignore[no-untyped-call]
                except yaml.YAMLError as exc:
                    mark = getattr(exc, "problem_mark", None)
                    line = self.first_line + mark.line if mark is not None else None
                    reason = getattr(exc, "problem", None) or str(exc)
                    if "nesting depth" in reason:  # libyaml's own cap (1000), met first
                        lims = self.st.limits
                        raise self._limit(
                            f"is nested too deeply ({reason})",
                            f"at most {lims.max_depth} levels (Limits.max_depth)",
                            lims.max_depth,
                            line,
                        ) from None
                    accepted = "a YAML document"
                    if reason == "found unexpected ':'":
                        # libyaml 0.2.5 refuses a plain value ending in ':' before , ] } in
                        # flow style; kubectl's go-yaml reads it as text ending in ':'.
                        accepted += " (quote a value ending in ':' inside [ ] or { })"
                    raise self._err(f"is not valid YAML: {reason}", accepted, line) from None
                kind = type(event)
                if kind is ev.StreamEndEvent or kind is ev.DocumentEndEvent:
                    break  # go-yaml reads the first document of each piece only
                if kind is ev.StreamStartEvent or kind is ev.DocumentStartEvent:
                    continue
                done = self._event(event)
                if done is not None and not self.stack:
                    root = done
        finally:
            parser.dispose()
        if root is None:
            return NULL_DOC
        lims = self.st.limits
        obj = self._object(root)
        if root.ops + 1 > lims.max_expanded:  # +1: go-yaml counts the document itself
            raise self.st.limit(
                f"expands to more than {lims.max_expanded} values through aliases and merge keys",
                f"at most {lims.max_expanded} values per document (Limits.max_expanded; "
                f"{SIZED_BY})",
                lims.max_expanded,
                line=root.line,
                path=self._path(),
                obj=obj,
            )
        if self.anchors:
            check_alias_ratio(root, self.st, obj)
        self.st.count_values(root.ops, self.first_line, obj)
        value = self._value_of(root, root.line, None)
        if self.keys.bad_keys:
            self.keys.raise_surviving_bad_key(value)
        return NULL_DOC if value is None else value

    def _line(self, event: ev.Event) -> int:
        mark = event.start_mark
        return self.first_line + (mark.line if mark is not None else 0)

    def _count(self, line: int) -> None:
        """One more node in this document; past ``max_nodes`` the document (named by where
        it starts) is refused, whichever node tipped it over."""
        st = self.st
        st.nodes += 1
        if st.nodes > st.limits.max_nodes:
            raise st.limit(
                f"holds more than {st.limits.max_nodes} YAML nodes",
                f"at most {st.limits.max_nodes} nodes per document (Limits.max_nodes; {SIZED_BY})",
                st.limits.max_nodes,
                line=self.first_line,
                obj=self._object(),
            )

    def _event(self, event: ev.Event) -> Node | None:
        mark = event.start_mark
        line = self.first_line + (mark.line if mark is not None else 0)
        kind = type(event)
        if kind is ev.ScalarEvent:  # most events: kept short
            st = self.st
            st.nodes += 1
            if st.nodes > st.limits.max_nodes:
                self._count(line)
            assert isinstance(event, ev.ScalarEvent)
            node = Node("scalar", line)
            text = node.text = event.value
            tag = event.tag or ""
            implicit = bool(event.implicit[0])
            if tag == "!" and st.v3:
                implicit = not event.style  # yaml.v3: a plain scalar tagged ! still resolves
            if tag:
                node.tag = tag
            if implicit:
                node.implicit = True
            # Only escapes in double quotes can make a surrogate (libyaml refuses them,
            # PyYAML's pure parser does not).
            if event.style == '"' and SURROGATE.search(text):
                check_text(text, st, line, self._path())
            try:
                go = (scalar3 if st.v3 else scalar)(tag, implicit, text, st.binary_errors)
            except ValueError as exc:
                raise self._err(str(exc), "a value of the tag's type", line) from None
            node.go = go
            if event.anchor is not None:
                self._anchor(event.anchor, node)
            return self._place(node)
        if kind is ev.SequenceEndEvent or kind is ev.MappingEndEvent:
            open_node = self.stack[-1][0]
            assert isinstance(open_node, Node)
            node = open_node
            if node.kind == "map":  # finished while still open, so errors name its path
                if self.st.v3:
                    finish_map3(self, node)
                else:
                    self._finish_map(node)
            else:
                self._finish_seq(node)
            self.stack.pop()
            return self._place(node)
        self._count(line)
        if isinstance(event, ev.AliasEvent):
            node = Node("alias", line)
            node.name = event.anchor or ""
            target = self.anchors.get(node.name)
            if target is None:
                raise self._err(
                    f"refers to the unknown anchor *{node.name}",
                    "an alias to an anchor defined before it",
                    line,
                )
            if target.kind in ("seq", "map") and not target.height:  # still open
                raise self._err(
                    f"the anchor &{node.name} contains itself",
                    "an alias outside the anchored value",
                    line,
                )
            node.target = target
            node.ops = 1 + target.ops
            node.height = target.height
            return self._place(node)
        assert isinstance(event, (ev.SequenceStartEvent, ev.MappingStartEvent))
        node = Node("seq" if isinstance(event, ev.SequenceStartEvent) else "map", line)
        node.children = []
        lims = self.st.limits
        if len(self.stack) + 1 > lims.max_depth:
            raise self._limit(
                f"is nested more than {lims.max_depth} levels deep",
                f"at most {lims.max_depth} levels (Limits.max_depth)",
                lims.max_depth,
                line,
            )
        node.height = 0  # 0 until finished: how an alias to an open collection shows
        self._anchor(event.anchor, node)
        self.stack.append([node, None])
        return None

    def _anchor(self, anchor: str | None, node: Node) -> None:
        if anchor is not None:
            self.anchors[anchor] = node  # a later anchor of the same name replaces it

    def _place(self, node: Node) -> Node:
        """Hands a finished node to the open collection, checking depth with aliases."""
        lims = self.st.limits
        if len(self.stack) + node.height > lims.max_depth:
            raise self._limit(
                f"is nested more than {lims.max_depth} levels deep once aliases are expanded",
                f"at most {lims.max_depth} levels (Limits.max_depth)",
                lims.max_depth,
                node.line,
            )
        if not self.stack:
            return node
        frame = self.stack[-1]
        parent = frame[0]
        assert isinstance(parent, Node)
        parent.children.append(node)
        if parent.kind == "map":
            frame[1] = node if frame[1] is None else None
        return node

    # -- values ---------------------------------------------------------------------------

    def _expanded(self, node: Node, ops: int) -> None:
        """A finished collection's decode count, checked before its value is built: per
        document, and with the documents before it, per file."""
        lims = self.st.limits
        node.ops = min(ops, lims.max_expanded + 2)  # keeps the count small in a bomb
        if node.ops > lims.max_expanded:
            raise self._limit(
                f"expands to more than {lims.max_expanded} values through aliases and merge keys",
                f"at most {lims.max_expanded} values per document (Limits.max_expanded; "
                f"{SIZED_BY})",
                lims.max_expanded,
                node.line,
            )
        if self.st.values + node.ops > lims.max_values:
            raise self.st.too_many_values(node.line, self._object())

    def _value_of(self, node: Node, line: int, segment: str | None) -> object:
        """The JSON-side value of a child, copied when it is an alias (callers may edit)."""
        if node.kind == "alias":
            assert node.target is not None
            return copy_json(self._value_of(node.target, line, segment))
        if node.kind == "scalar":
            go = node.go
            if isinstance(go, GoFloat) and not math.isfinite(go):
                who = (
                    "Pulumi cannot store (json"
                    if self.st.v3
                    else "JSON cannot hold (kubectl refuses it"
                )
                raise self._err(
                    f"has the value {node.text}, which {who}: unsupported value)",
                    "a finite number, or a quoted string",
                    line,
                    self._path(segment) if segment else "<document>",
                )
            return json_scalar3(go) if self.st.v3 else json_scalar(go)
        return node.json

    def _finish_seq(self, node: Node) -> None:
        self._expanded(node, 1 + sum(c.ops for c in node.children))
        node.height = 1 + max((c.height for c in node.children), default=0)
        node.json = [self._value_of(c, c.line, f"[{i}]") for i, c in enumerate(node.children)]

    def measure_map(self, node: Node, merging: Callable[[Node], bool]) -> list[tuple[Node, Node]]:
        """A finished mapping's key-value pairs, once its decoding work and height are
        counted against the limits (``merging``: whether a key is a merge key)."""
        pairs = list(zip(node.children[::2], node.children[1::2], strict=True))
        ops = 1
        height = 1
        for key, value in pairs:
            if merging(key):
                # go-yaml decodes each merged map (an alias counting itself too); a list of
                # them is not decoded as a list.
                sources = self._merge_sources(value)
                ops += sum(s.ops for s in sources)
                height = max([height, *(s.height for s in sources)])
            else:
                ops += key.ops + value.ops
                height = max(height, 1 + value.height)
        self._expanded(node, ops)
        node.height = height
        return pairs

    def _finish_map(self, node: Node) -> None:
        pairs = self.measure_map(node, is_merge)
        gomap: dict[GoKey, tuple[str, object]] = {}
        explicit: dict[GoKey, int] = {}
        for key, value in pairs:
            if is_merge(key):
                # go-yaml decodes the merged maps into this one where the key stands.
                self.merge_into(gomap, value)
                continue
            gokey, text = self.keys.go_key(key)
            segment = path_segment(text)
            if self.st.refuse_duplicates and gokey in explicit:
                raise self._err(
                    f"has the key {text!r} twice (first at line {explicit[gokey]})",
                    "each key once in a mapping (kubectl would keep the last one silently)",
                    key.line,
                    self._path(segment),
                )
            explicit[gokey] = key.line
            gomap[gokey] = (text, self._value_of(value, value.line, segment))
        self.set_map(
            node,
            gomap,
            lambda text: f"has two keys that kubectl both sends as {text!r}",
            "keys that stay distinct as JSON text (kubectl keeps one of them at random)",
        )

    def merge_into(self, gomap: dict[GoKey, tuple[str, object]], value: Node) -> None:
        """The maps a ``<<`` names, decoded into ``gomap``: in a list from the last to the
        first, so that the first wins; what an alias names is copied."""
        for source in reversed(self._merge_sources(value)):
            target = source.target if source.kind == "alias" else source
            assert target is not None and target.gomap is not None
            if source.kind == "alias":
                gomap.update((k, (s, copy_json(v))) for k, (s, v) in target.gomap.items())
            else:
                gomap.update(target.gomap)

    def set_map(
        self,
        node: Node,
        gomap: dict[GoKey, tuple[str, object]],
        clash: Callable[[str], str],
        accepted: str,
    ) -> None:
        """``node``'s decoded keys and its JSON; two keys with the same text are refused
        (``clash`` says so for the text)."""
        node.gomap = gomap
        out: dict[str, object] = {}
        for text, element in gomap.values():
            if text in out:
                raise self._err(clash(text), accepted, node.line, self._path(path_segment(text)))
            out[text] = element
        node.json = out

    def _merge_sources(self, value: Node) -> list[Node]:
        """The maps a ``<<`` value names, as go-yaml accepts them (map, alias to a map, or a
        list of those)."""
        items = value.children if value.kind == "seq" else [value]
        for item in items:
            target = item.target if item.kind == "alias" else item
            if target is None or target.kind != "map":
                raise self._err(
                    "has a merge key (<<) whose value is not a map",
                    "a map, an alias to one, or a list of those",
                    value.line,
                )
        return items

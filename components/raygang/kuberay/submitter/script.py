"""The submitter's bash script: KubeRay's tokens with the entrypoint sealed in one ``eval`` word.

KubeRay joins the tokens of ``BuildJobSubmitCommand``
(``ray-operator/controllers/ray/common/job.go``) into the container's ``args[0]`` for
``bash -ce --`` (``GetContainerCommand`` in ``ray-operator/controllers/ray/utils/util.go``),
which splices the entrypoint into the script; here the entrypoint cannot reach the
``if ! ray job status`` retry guard or what follows it.
"""

from __future__ import annotations

from typing import Final

from raygang.kuberay.submitter._bashsyntax import single_quote

#: ``GetContainerCommand(["e"])``; the operator's ``ENABLE_LOGIN_SHELL`` (``-cel``) is an
#: operator-wide switch raygang has no equivalent of.
SUBMITTER_COMMAND: Final[tuple[str, ...]] = ("/bin/bash", "-ce", "--")


def submit_shell(tokens: list[str]) -> str:
    """The container's ``args[0]`` for ``bash -ce --``: the tokens, the entrypoint sealed.

    KubeRay joins the tokens with single spaces, which splices the entrypoint into the
    script. Here ``ray job submit ... -- ENTRYPOINT`` (KubeRay's words, unchanged) becomes
    one single-quoted word for ``eval``: the entrypoint is still shell code, parsed by the
    same bash at the same point, but on its own, so a ``#``, a ``fi``, a newline or an
    unbalanced quote in it cannot reach the ``if ! ray job status`` retry guard or the
    ``ray job logs`` after it.
    """
    start = next(
        (i for i in range(len(tokens) - 2) if tokens[i : i + 3] == ["ray", "job", "submit"]),
        None,
    )
    if start is None or "--" not in tokens[start:]:
        return " ".join(tokens)
    # The first "--" after `ray job submit` ends its flags (no flag value is "--"); the
    # entrypoint is the one token after it.
    end = tokens.index("--", start) + 2
    sealed = [*tokens[:start], "eval", single_quote(" ".join(tokens[start:end])), *tokens[end:]]
    return " ".join(sealed)

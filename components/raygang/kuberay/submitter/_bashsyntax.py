"""Shell text for the submitter: Go's trimming, bash single quotes, and bash's own syntax check.

The submitter container runs ``/bin/bash -ce -- SCRIPT``. Its entrypoint is shell code by
KubeRay's design, so it cannot be quoted away; instead the script hands it to ``eval`` as one
single-quoted word (:func:`single_quote`), which bash parses on its own when it runs, and
whatever it holds (``#``, ``fi``, an unbalanced quote, newlines) cannot reach the script
around it. An entrypoint bash cannot parse would still fail in every retry of the pod, so
:func:`bash_syntax_error` asks bash (``bash -n``) at plan time and returns its message.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from typing import Final

__all__ = ["SUBMIT_PREFIX", "bash_syntax_error", "go_trim_space", "single_quote"]

_GO_SPACE: Final = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)

#: What the entrypoint follows in the eval'd command; its words are plain, so the syntax of
#: ``ray job submit <flags> -- ENTRYPOINT`` is the syntax of ``SUBMIT_PREFIX + ENTRYPOINT``.
SUBMIT_PREFIX: Final = "ray job submit -- "

# Text bash cannot refuse, so it needs no bash process: words of plain characters, single-
# quoted strings (bash takes everything to the next ' literally) and double-quoted strings
# with nothing bash expands or escapes in them ($, `, \, and ! kept out too), all following
# SUBMIT_PREFIX as arguments of its `ray`, so no reserved word or operator can begin. No
# newline or NUL outside quotes, no NUL inside. `python -c 'print(1)'` is such text: a bash
# process per job was about 3 ms, 0.3 s before the first of 100 jobs reached Pulumi.
# tests/kuberay/test_submitter_bashsyntax.py checks that bash -n accepts what this accepts.
_PLAIN: Final = re.compile(r"""(?:[A-Za-z0-9 \t_./=:,+@%-]|'[^'\x00]*'|"[^"$`\\!\x00]*")*""")

_TIMEOUT_SECONDS: Final = 10


def go_trim_space(text: str) -> str:
    """``strings.TrimSpace``: Go's white space set (Python's ``strip`` also trims \\x1c-\\x1f)."""
    start, end = 0, len(text)
    while start < end and text[start] in _GO_SPACE:
        start += 1
    while end > start and text[end - 1] in _GO_SPACE:
        end -= 1
    return text[start:end]


def single_quote(text: str) -> str:
    """One bash word that yields ``text`` exactly: single quotes, each ``'`` as ``'\\''``."""
    return "'" + text.replace("'", "'\\''") + "'"


def bash_syntax_error(entrypoint: str) -> str | None:
    """bash's message if it cannot parse ``ray job submit -- <entrypoint>``, else None.

    The entrypoint is trimmed as KubeRay trims it. Plain words and quoted strings with
    nothing to expand skip bash (nothing in them for bash to refuse); others run ``bash -n``,
    once per job. Without a ``bash`` on PATH
    the check is skipped (the script's structure does not depend on it, only the pod's
    success does).
    """
    text = go_trim_space(entrypoint)
    if _PLAIN.fullmatch(text):
        return None
    return _bash_n(text)


def _bash_n(text: str) -> str | None:
    bash = shutil.which("bash")
    if bash is None:
        return None
    try:
        done = subprocess.run(
            [bash, "--norc", "--noprofile", "-n", "/dev/stdin"],
            input=(SUBMIT_PREFIX + text + "\n").encode("utf-8", "surrogateescape"),
            capture_output=True,
            timeout=_TIMEOUT_SECONDS,
            check=False,
            env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"},
        )
    except subprocess.TimeoutExpired:
        return f"bash -n did not finish parsing it within {_TIMEOUT_SECONDS} s"
    except OSError:
        return None
    if done.returncode == 0:
        return None
    lines = done.stderr.decode("utf-8", "replace").splitlines()
    message = "; ".join(line.removeprefix("/dev/stdin: ")[:200] for line in lines if line)
    return message or f"bash -n exited with status {done.returncode}"

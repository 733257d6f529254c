"""``raygang plan --out``: one file per manifest in a directory, and the index that lets
``--replace`` remove exactly what an earlier run wrote."""

from __future__ import annotations

from pathlib import Path

from raygang.plan import StackPlan
from raygang.render.manifests import manifest_files

INDEX = "raygang.index"

_INDEX_HEADER = (
    "# Written by `raygang plan --out`. `--replace` removes exactly the files listed here,\n"
    "# and nothing else in this directory.\n"
)


class OutDirError(Exception):
    """``--out`` cannot be written as asked; the message says why and what would do."""


def _index(out: Path) -> set[str]:
    try:
        text = (out / INDEX).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    names = {line.strip() for line in text.splitlines()}
    # Only plain file names: an edited index cannot make --replace remove anything else.
    return {n for n in names if n and not n.startswith("#") and "/" not in n and n not in ".."}


def write_manifests(
    plan: StackPlan, out: Path, fmt: str = "yaml", *, replace: bool = False
) -> tuple[list[Path], list[str]]:
    """Write one file per manifest into ``out``, numbered in creation order.

    ``out`` is created when missing. An existing directory must be empty, unless
    ``replace``: then the files an earlier run listed in ``raygang.index`` are removed
    first, and nothing else; other files stay (and are named in the notes).

    Returns:
        The files written (the index last), and notes about files left alone.

    Raises:
        OutDirError: ``out`` is a file, is not empty (without ``replace``), holds a file of
            someone else's where a manifest would go, or cannot be written.
    """
    if out.exists() and not out.is_dir():
        raise OutDirError(f"{out}: is a file, not a directory (accepted: a directory for --out)")
    files = manifest_files(plan, fmt)
    notes: list[str] = []
    try:
        present = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
        ours = _index(out) if present else set()
        if present and not replace:
            listed = ", ".join(present[:5]) + (
                f" and {len(present) - 5} more" if len(present) > 5 else ""
            )
            earlier = " (an earlier raygang plan)" if ours else ""
            raise OutDirError(
                f"{out}: is not empty{earlier}: {listed} (accepted: an empty or new directory, "
                "or --replace to remove the files raygang wrote there before)"
            )
        foreign = [n for n in present if n not in ours and n != INDEX]
        clash = sorted({name for name, _ in files} & set(foreign))
        if clash:
            raise OutDirError(
                f"{out}: {', '.join(clash)} would be overwritten, but raygang did not write it "
                "(accepted: another directory, or remove it)"
            )
        if foreign:
            notes.append(
                f"{out}: kept {len(foreign)} entries raygang did not write: "
                + ", ".join(foreign[:5])
                + (" ..." if len(foreign) > 5 else "")
            )
        for name in sorted(ours & set(present)):
            target = out / name
            if target.is_file() or target.is_symlink():
                target.unlink()
        (out / INDEX).unlink(missing_ok=True)
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for name, text in files:
            path = out / name
            path.write_text(text, encoding="utf-8")
            written.append(path)
        index = out / INDEX
        index.write_text(_INDEX_HEADER + "".join(f"{n}\n" for n, _ in files), encoding="utf-8")
        written.append(index)
    except OSError as exc:
        where = exc.filename or out
        raise OutDirError(
            f"{where}: cannot be written: {exc.strerror or exc} (accepted: a writable directory)"
        ) from None
    return written, notes

"""Where the built tools are: ``$RAYGANG_TOOLS`` or the ``.tools`` folder of a checkout."""

from __future__ import annotations

import os
from pathlib import Path

from raygang_localcluster._errors import ClusterError


def default_paths(start: Path | None = None) -> tuple[Path, Path]:
    """``(bin_dir, share_dir)``: from ``$RAYGANG_TOOLS``, else the nearest ``.tools`` folder
    at or above ``start`` (the working directory by default)."""
    env = os.environ.get("RAYGANG_TOOLS")
    if env:
        root = Path(env)
    else:
        here = (start or Path.cwd()).resolve()
        found = next((d / ".tools" for d in (here, *here.parents) if (d / ".tools").is_dir()), None)
        if found is None:
            raise ClusterError(
                "tools",
                None,
                f"no .tools folder at or above {here}; run `make tools` in the raygang "
                "checkout (it builds the cluster's binaries with Go) or set RAYGANG_TOOLS",
            )
        root = found
    return root / "bin", root / "share"

"""Timing, fitting and machine facts shared by the scenarios."""

from __future__ import annotations

import compileall
import datetime as dt
import gc
import math
import os
import platform
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import raygang

__all__ = [
    "LONG_RUN_SECONDS",
    "best_of",
    "byte_compile",
    "fit_exponent",
    "format_seconds",
    "load_average",
    "machine_info",
    "maxrss_bytes",
]

T = TypeVar("T")


# A run longer than this is not repeated: it averages the machine's noise by itself.
LONG_RUN_SECONDS = 20.0


def best_of(
    repeat: int, func: Callable[[], T], long_run: float = LONG_RUN_SECONDS
) -> tuple[float, T]:
    """Run ``func`` up to ``repeat`` times; return the fastest wall time and the last result.

    Repetition stops early once a run takes longer than ``long_run`` seconds. The garbage
    collector stays enabled (a real run pays for it too) but starts each run empty-handed.
    """
    best = math.inf
    result: Any = None
    for _ in range(max(1, repeat)):
        gc.collect()
        start = time.perf_counter()
        result = func()
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        if elapsed > long_run:
            break
    return best, result


def byte_compile() -> str:
    """Compile raygang's modules to bytecode, as ``pip install`` does for an installed wheel.

    This repository's ``.venv`` installs raygang editable, with no bytecode until Python
    writes it on a first import, and Python writes none where ``PYTHONDONTWRITEBYTECODE``
    is set (this project's machines set it): every timed ``raygang`` process, the Pulumi
    program included, would then compile all of raygang's modules (about 0.3 s of CPU, 188
    modules, 2026-12-03) where a user's installed raygang loads them, while its
    dependencies, installed by pip, load theirs. Python reads the files whatever the
    variable says. Returns the line the report prints.
    """
    root = Path(raygang.__file__).resolve().parent
    if not compileall.compile_dir(root, quiet=1):
        raise RuntimeError(f"compileall {root} failed")
    setting = os.environ.get("PYTHONDONTWRITEBYTECODE")
    where = f" (PYTHONDONTWRITEBYTECODE={setting} here)" if setting else ""
    return f"raygang's modules byte-compiled in {root}, as pip install compiles a wheel{where}"


def fit_exponent(sizes: Sequence[float], times: Sequence[float]) -> float:
    """Least-squares slope of ``log(time)`` against ``log(size)``: 1.0 is linear growth."""
    if len(sizes) != len(times) or len(sizes) < 2:
        raise ValueError("need at least two (size, time) points")
    xs = [math.log(s) for s in sizes]
    ys = [math.log(max(t, 1e-12)) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var


def format_seconds(seconds: float) -> str:
    """``12.3 s``, ``45.6 ms`` or ``7.89 µs``: three significant digits."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale or unit == "µs":
            value = seconds / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    raise AssertionError("unreachable")


def maxrss_bytes() -> int:
    """The process's peak resident set size so far (``getrusage`` ``ru_maxrss``)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _memory_total() -> int | None:
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (OSError, ValueError):
        return None


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average() -> float | None:
    """The 1-minute load average, or None where the platform has none."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def machine_info() -> dict[str, Any]:
    """Facts that make a result comparable: CPUs, memory, Python, OS, date, load."""
    memory = _memory_total()
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": usable,
        "cpu": _cpu_model(),
        "memory_gib": round(memory / 2**30, 1) if memory else None,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(terse=True),
        "load_average_1m": load_average(),
    }

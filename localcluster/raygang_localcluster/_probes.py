"""Readiness probes: the body of an HTTP(S) endpoint, and polling until something holds."""

from __future__ import annotations

import ssl
import time
import urllib.request
from typing import Any


def http(url: str, context: ssl.SSLContext | None = None) -> bytes:
    with urllib.request.urlopen(url, timeout=5, context=context) as response:
        body: bytes = response.read()
        return body.strip()


def wait_until(probe: Any, timeout: float, what: str, interval: float = 0.5) -> Any:
    """Poll ``probe()`` until it returns something truthy; raise after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(interval)
    raise TimeoutError(f"{what}: not reached after {timeout:.0f} s (last seen: {last!r})")

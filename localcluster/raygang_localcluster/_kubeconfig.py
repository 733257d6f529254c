"""The admin kubeconfig of the cluster: its server, CA and client certificate, mode 0600."""

from __future__ import annotations

import json
import os
from pathlib import Path

from raygang_localcluster._certs import Certificates


def write_kubeconfig(path: Path, server: str, c: Certificates) -> None:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": "raygang-local",
                "cluster": {"server": server, "certificate-authority": str(c.ca.cert)},
            }
        ],
        "users": [
            {
                "name": "raygang-admin",
                "user": {
                    "client-certificate": str(c.admin.cert),
                    "client-key": str(c.admin.key),
                },
            }
        ],
        "contexts": [
            {
                "name": "raygang-local",
                "context": {
                    "cluster": "raygang-local",
                    "user": "raygang-admin",
                    "namespace": "default",
                },
            }
        ],
        "current-context": "raygang-local",
    }
    path.write_text(json.dumps(config, indent=2) + "\n")
    os.chmod(path, 0o600)

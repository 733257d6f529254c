"""Certificates of a throwaway control plane, made with the ``openssl`` command line.

kube-apiserver refuses to serve without TLS, authenticates clients by certificate, and signs
service-account tokens with a key of its own; the Volcano admission webhook is called over
TLS too. Everything here is valid for one day and lives in the cluster's work directory.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from raygang_localcluster._errors import ClusterError

_DAYS = "1"
_CURVE = "prime256v1"  # EC keys: generated in milliseconds, accepted by every component


@dataclass(frozen=True)
class KeyPair:
    cert: Path
    key: Path


@dataclass(frozen=True)
class Certificates:
    ca: KeyPair
    apiserver: KeyPair
    admin: KeyPair
    webhook: KeyPair
    service_account_key: Path
    service_account_pub: Path


def _openssl(*args: str, cwd: Path) -> None:
    if shutil.which("openssl") is None:
        raise ClusterError("openssl", None, "the openssl command is needed to make certificates")
    done = subprocess.run(
        ["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0:
        raise ClusterError("openssl", None, f"openssl {args[0]} failed: {done.stderr.strip()}")


def _key(path: Path) -> None:
    _openssl("ecparam", "-name", _CURVE, "-genkey", "-noout", "-out", str(path), cwd=path.parent)


def _signed(
    folder: Path, name: str, subject: str, ca: KeyPair, *, sans: str = "", client: bool = False
) -> KeyPair:
    key, csr, cert = folder / f"{name}.key", folder / f"{name}.csr", folder / f"{name}.crt"
    _key(key)
    _openssl("req", "-new", "-key", str(key), "-subj", subject, "-out", str(csr), cwd=folder)
    ext = folder / f"{name}.ext"
    usage = "clientAuth" if client else "serverAuth"
    lines = [
        "basicConstraints=CA:FALSE",
        "keyUsage=critical,digitalSignature,keyEncipherment",
        f"extendedKeyUsage={usage}",
    ]
    if sans:
        lines.append(f"subjectAltName={sans}")
    ext.write_text("\n".join(lines) + "\n")
    _openssl(
        "x509", "-req", "-in", str(csr), "-CA", str(ca.cert), "-CAkey", str(ca.key),
        "-CAcreateserial", "-days", _DAYS, "-extfile", str(ext), "-out", str(cert),
        cwd=folder,
    )  # fmt: skip
    return KeyPair(cert, key)


def make_certificates(folder: Path) -> Certificates:
    folder.mkdir(parents=True, exist_ok=True)
    ca = KeyPair(folder / "ca.crt", folder / "ca.key")
    _key(ca.key)
    _openssl(
        "req", "-x509", "-new", "-key", str(ca.key), "-subj", "/CN=raygang-local-ca",
        "-days", _DAYS, "-out", str(ca.cert), cwd=folder,
    )  # fmt: skip
    loopback = "IP:127.0.0.1,DNS:localhost"
    apiserver = _signed(
        folder,
        "apiserver",
        "/CN=kube-apiserver",
        ca,
        sans=f"{loopback},DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc",
    )
    # system:masters: the harness and the components it starts act as cluster admins; this
    # cluster is a test fixture, not a place for least privilege.
    admin = _signed(folder, "admin", "/O=system:masters/CN=raygang-admin", ca, client=True)
    webhook = _signed(folder, "webhook", "/CN=volcano-admission", ca, sans=loopback)
    sa_key, sa_pub = folder / "sa.key", folder / "sa.pub"
    _key(sa_key)
    _openssl("ec", "-in", str(sa_key), "-pubout", "-out", str(sa_pub), cwd=folder)
    return Certificates(ca, apiserver, admin, webhook, sa_key, sa_pub)

"""raygang's SDKs for TypeScript, Go and Python, generated from the component provider's
schema, compile with the examples that use them: ``tsc --noEmit`` of examples/typescript,
``go build`` of examples/go, and an import of the Python SDK.

No cluster and no engine: the Node.js and Go language hosts are not served by the module
proxy, so these programs cannot run here, and ``pulumi package gen-sdk`` (which asks the
target language's host to generate) cannot write their SDKs. ``pulumi-sdkgen``
(tools/pulumi/cmd/pulumi-sdkgen, built by tools/build) calls the same code generators. The
schema is the one the provider serves (tests/e2e/test_package_yaml.py checks the CLI's
`get-schema` equals it). Needs `make tools`, npm and Go; the npm packages are those of
examples/typescript/package-lock.json, installed once into a cache keyed by the lock.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import REPO
from tests.test_package import schema as package_schema

pytestmark = pytest.mark.e2e

EXAMPLES = REPO / "examples"
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "raygang"
# The Go SDK's import path: the code generator's default for a schema without a
# language.go.importBasePath (codegen/go ExtractImportBasePath).
GO_SDK_MODULE = "example.com/pulumi-raygang/sdk"
GO_SDK_VERSION = "v3.274.0"  # github.com/pulumi/pulumi/sdk/v3, as tools/pulumi pins it
GO_ENV = {"GOTOOLCHAIN": "local", "CGO_ENABLED": "0", "GOFLAGS": "-mod=mod"}


def run(argv: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 900) -> str:
    done = subprocess.run(
        argv, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{' '.join(argv)} in {cwd}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def need(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        pytest.fail(f"{tool} is not on PATH: the SDK checks need it", pytrace=False)
    return found


@pytest.fixture(scope="module")
def sdks(tools: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The three SDKs, generated from the provider's schema by pulumi-sdkgen."""
    bin_dir, _ = tools
    sdkgen = bin_dir / "pulumi-sdkgen"
    if not sdkgen.exists():
        pytest.fail(f"no pulumi-sdkgen in {bin_dir}: run `make tools`", pytrace=False)
    out = tmp_path_factory.mktemp("sdks")
    schema = out / "schema.json"
    schema.write_text(json.dumps(package_schema()))
    for language in ("nodejs", "go", "python"):
        target = out / language
        run([str(sdkgen), "-schema", str(schema), "-language", language, "-out", str(target)], out)
    return out


@pytest.fixture(scope="module")
def node_modules() -> Path:
    """examples/typescript's pinned packages (typescript, @pulumi/pulumi, @types/node), once."""
    need("npm")
    lock = EXAMPLES / "typescript" / "package-lock.json"
    key = hashlib.sha256(lock.read_bytes()).hexdigest()[:16]
    home = CACHE / "npm" / key
    if not (home / ".done").exists():
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy2(EXAMPLES / "typescript" / name, home / name)
        run(["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"], home)
        (home / ".done").touch()
    return home / "node_modules"


def test_the_typescript_sdk_and_example_type_check(
    sdks: Path, node_modules: Path, tmp_path: Path
) -> None:
    shutil.copytree(sdks / "nodejs", tmp_path / "sdk")
    shutil.copy2(EXAMPLES / "typescript" / "index.ts", tmp_path / "index.ts")
    (tmp_path / "node_modules").symlink_to(node_modules)
    config = {
        "compilerOptions": {
            "strict": True,
            "target": "es2020",
            "module": "commonjs",
            "moduleResolution": "node",
            "noEmit": True,
            "types": ["node"],
            "baseUrl": ".",
            "paths": {"@pulumi/raygang": ["sdk"]},
        },
        "files": ["index.ts"],
    }
    (tmp_path / "tsconfig.json").write_text(json.dumps(config))
    run([str(node_modules / ".bin" / "tsc"), "--noEmit", "-p", "tsconfig.json"], tmp_path)


def test_a_typescript_type_error_is_caught(sdks: Path, node_modules: Path, tmp_path: Path) -> None:
    # The check above could pass by not checking: an input of the wrong type must fail it.
    shutil.copytree(sdks / "nodejs", tmp_path / "sdk")
    (tmp_path / "index.ts").write_text(
        'import * as raygang from "@pulumi/raygang";\nnew raygang.VolcanoQueue("q", { name: 3 });\n'
    )
    (tmp_path / "node_modules").symlink_to(node_modules)
    config = {
        "compilerOptions": {"strict": True, "noEmit": True, "types": ["node"],
                            "moduleResolution": "node", "baseUrl": ".",
                            "paths": {"@pulumi/raygang": ["sdk"]}},
        "files": ["index.ts"],
    }  # fmt: skip
    (tmp_path / "tsconfig.json").write_text(json.dumps(config))
    done = subprocess.run(
        [str(node_modules / ".bin" / "tsc"), "-p", "tsconfig.json"], cwd=tmp_path,
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode != 0
    assert "not assignable to type 'string'" in done.stdout, done.stdout


def test_the_go_sdk_and_example_build(sdks: Path, tmp_path: Path) -> None:
    need("go")
    sdk = tmp_path / "sdk"
    shutil.copytree(sdks / "go", sdk / "go")
    (sdk / "go.mod").write_text(
        f"module {GO_SDK_MODULE}\n\ngo 1.26\n\n"
        f"require github.com/pulumi/pulumi/sdk/v3 {GO_SDK_VERSION}\n"
    )
    app = tmp_path / "app"
    app.mkdir()
    shutil.copy2(EXAMPLES / "go" / "main.go", app / "main.go")
    (app / "go.mod").write_text(
        "module raygang.local/examples/go\n\ngo 1.26\n\n"
        f"require (\n\tgithub.com/pulumi/pulumi/sdk/v3 {GO_SDK_VERSION}\n"
        f"\t{GO_SDK_MODULE} v0.0.0\n)\n\n"
        f"replace {GO_SDK_MODULE} => ../sdk\n"
    )
    run(["go", "mod", "tidy"], sdk, GO_ENV)
    run(["go", "mod", "tidy"], app, GO_ENV)
    # -trimpath, as tools/build builds, so Go's build cache serves what it already compiled.
    run(["go", "build", "-trimpath", "-o", str(tmp_path / "example"), "."], app, GO_ENV)
    assert (tmp_path / "example").exists()


def test_the_python_sdk_installs_and_imports(sdks: Path, tmp_path: Path) -> None:
    # Installed, not just put on the path: the SDK reads its own version from its metadata.
    target = tmp_path / "site"
    run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--no-deps", "--target", str(target), str(sdks / "python")],
        tmp_path,
    )  # fmt: skip
    code = (
        "import inspect, pulumi_raygang as r; "
        "params = inspect.signature(r.RayJobGangArgs.__init__).parameters; "
        "assert {'manifest', 'queue', 'accounting', 'node_shapes'} <= set(params), params; "
        "assert 'name' in inspect.signature(r.VolcanoQueueArgs.__init__).parameters"
    )
    run([sys.executable, "-c", code], tmp_path, {"PYTHONPATH": str(target)})

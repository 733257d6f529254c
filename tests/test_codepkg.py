"""Code packages: deterministic packing, the refusals and the limits (issue 28, items 1 and 5)."""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

import pytest
from raygang.codepkg import (
    MAX_PACKAGE_BYTES,
    PIECE_BYTES,
    pack_directory,
    split_pieces,
)
from raygang.codepkg.rules import parse_excludes
from raygang.kube.errors import SpecError


def _tree(root: Path, files: dict[str, bytes | str]) -> Path:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
    return root


def test_same_bytes_whatever_the_mtimes_modes_and_creation_order(tmp_path: Path) -> None:
    a = _tree(tmp_path / "a", {"app/main.py": "print(1)\n", "app/util.py": "X = 2\n", "r.txt": "r"})
    b = tmp_path / "b"
    for rel in ("r.txt", "app/util.py", "app/main.py"):  # another creation order
        _tree(b, {rel: (a / rel).read_bytes()})
    os.utime(b / "r.txt", (1, 1))
    os.chmod(b / "app" / "main.py", 0o755)
    first = pack_directory(str(a), tmp_path, "m.yaml")
    second = pack_directory(str(b), tmp_path, "m.yaml")
    assert first.data == second.data
    assert first.sha256 == second.sha256 == hashlib.sha256(first.data).hexdigest()
    assert first.files == ("app/main.py", "app/util.py", "r.txt")
    with zipfile.ZipFile(io.BytesIO(first.data)) as archive:
        infos = archive.infolist()
        assert [i.filename for i in infos] == list(first.files)
        assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
        assert {i.external_attr >> 16 for i in infos} == {0o100644}
        assert archive.read("app/main.py") == b"print(1)\n"


def test_one_changed_byte_changes_the_hash(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"main.py": "VERSION = 1\n"})
    before = pack_directory(".", root, "m.yaml")
    (root / "main.py").write_text("VERSION = 2\n")
    after = pack_directory(".", root, "m.yaml")
    assert before.sha256 != after.sha256
    assert pack_directory(".", root, "m.yaml").sha256 == after.sha256


def test_relative_to_the_base(tmp_path: Path) -> None:
    _tree(tmp_path, {"code/main.py": "x"})
    package = pack_directory("./code", tmp_path, "m.yaml")
    assert package.files == ("main.py",)
    assert package.directory == "./code"


def test_excludes_file_and_default_excludes(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            ".raygangignore": "# comment\n*.log\nbuild/\n/data/*.csv\n!data/keep.csv\n",
            "main.py": "x",
            "debug.log": "x",
            "sub/more.log": "x",
            "build/out.bin": "x",
            "data/a.csv": "x",
            "data/keep.csv": "x",
            "sub/data/a.csv": "x",
            ".git/config": "x",
            "pkg/__pycache__/m.pyc": "x",
        },
    )
    package = pack_directory(".", root, "m.yaml")
    assert package.files == (
        ".raygangignore",
        "data/keep.csv",
        "main.py",
        "sub/data/a.csv",
    )


def test_excluded_secret_is_not_refused(tmp_path: Path) -> None:
    root = _tree(tmp_path, {".raygangignore": ".env\n", ".env": "TOKEN=x", "main.py": "x"})
    assert pack_directory(".", root, "m.yaml").files == (".raygangignore", "main.py")


@pytest.mark.parametrize(
    "name", [".env", ".env.prod", "tls.pem", "server.key", "id_rsa", "ssh/id_ed25519", "KEY.PEM"]
)
def test_secret_looking_files_are_refused(tmp_path: Path, name: str) -> None:
    root = _tree(tmp_path, {"main.py": "x", name: "secret"})
    with pytest.raises(SpecError) as exc:
        pack_directory(".", root, "jobs.yaml")
    (problem,) = exc.value.problems
    assert problem.source == "jobs.yaml"
    assert problem.path == "metadata.annotations['raygang.dev/working-dir']"
    assert f"{name!r} looks like a secret" in problem.message
    assert "raygang.dev/working-dir-allow" in problem.accepted


def test_secret_looking_file_listed_explicitly_ships(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"main.py": "x", "certs/ca.pem": "public"})
    package = pack_directory(".", root, "m.yaml", allowed=frozenset({"certs/ca.pem"}))
    assert package.files == ("certs/ca.pem", "main.py")


def test_symlink_out_of_the_directory_is_refused_and_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("never read")
    root = _tree(tmp_path / "code", {"main.py": "x"})
    (root / "link.txt").symlink_to(outside)
    (root / "up").symlink_to(tmp_path)
    with pytest.raises(SpecError) as exc:
        pack_directory(".", root, "m.yaml")
    messages = [p.message for p in exc.value.problems]
    assert any("'link.txt' is a symlink to" in m and "outside" in m for m in messages)
    assert any("'up' is a symlink to" in m for m in messages)


def test_symlink_inside_packs_the_target_bytes(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"real.py": "A = 1\n"})
    (root / "alias.py").symlink_to("real.py")
    package = pack_directory(".", root, "m.yaml")
    with zipfile.ZipFile(io.BytesIO(package.data)) as archive:
        assert archive.read("alias.py") == b"A = 1\n"


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"main.py": "x"})
    os.mkfifo(root / "pipe")
    with pytest.raises(SpecError) as exc:
        pack_directory(".", root, "m.yaml")
    assert "'pipe' is a device, FIFO or socket" in exc.value.problems[0].message


def test_missing_directory_names_manifest_field_and_path(tmp_path: Path) -> None:
    with pytest.raises(SpecError) as exc:
        pack_directory("./nope", tmp_path, "jobs.yaml")
    (problem,) = exc.value.problems
    assert problem.source == "jobs.yaml"
    assert "'./nope'" in problem.message and "is not a directory" in problem.message


def test_unreadable_file_names_the_path(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    root = _tree(tmp_path, {"main.py": "x", "locked.py": "x"})
    os.chmod(root / "locked.py", 0)
    with pytest.raises(SpecError) as exc:
        pack_directory(".", root, "jobs.yaml")
    assert "locked.py cannot be read" in exc.value.problems[0].message


def test_over_the_bound_says_size_bound_and_alternative(tmp_path: Path) -> None:
    root = _tree(tmp_path, {"blob.bin": os.urandom(MAX_PACKAGE_BYTES)})
    with pytest.raises(SpecError) as exc:
        pack_directory(".", root, "jobs.yaml")
    (problem,) = exc.value.problems
    assert "packs to" in problem.message and "8,388,608 bytes (8 MiB)" in problem.message
    assert "remote URI" in problem.accepted


def test_long_path_is_refused(tmp_path: Path) -> None:
    deep = "/".join(["d" * 60] * 4) + "/" + "f" * 30 + ".py"
    root = _tree(tmp_path, {deep: "x", "main.py": "x"})
    with pytest.raises(SpecError) as exc:
        pack_directory(".", root, "m.yaml")
    assert "more than 255" in exc.value.problems[0].message


def test_file_count_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from raygang.codepkg import walk

    monkeypatch.setattr(walk, "MAX_FILE_COUNT", 3)
    root = _tree(tmp_path, {f"f{i}.py": "x" for i in range(5)})
    with pytest.raises(SpecError) as exc:
        pack_directory(".", root, "m.yaml")
    assert "past the 3 files" in exc.value.problems[0].message


def test_file_changing_while_packed_hashes_what_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hash covers exactly the bytes packed: a file rewritten right after it was read
    leaves the package (and its hash) as read; the next run sees the new bytes."""
    from raygang.codepkg import walk

    root = _tree(tmp_path, {"a.py": "A = 1\n", "b.py": "B = 1\n"})
    real = walk._read_regular

    def read_then_change(path: Path, relpath: str, budget: int) -> bytes:
        data = real(path, relpath, budget)
        if relpath == "a.py":
            (root / "a.py").write_text("A = 2\n")
        return data

    monkeypatch.setattr(walk, "_read_regular", read_then_change)
    package = pack_directory(".", root, "m.yaml")
    with zipfile.ZipFile(io.BytesIO(package.data)) as archive:
        assert archive.read("a.py") == b"A = 1\n"
    assert package.sha256 == hashlib.sha256(package.data).hexdigest()
    monkeypatch.setattr(walk, "_read_regular", real)
    assert pack_directory(".", root, "m.yaml").sha256 != package.sha256


def test_split_pieces_join_to_the_package() -> None:
    data = os.urandom(2 * PIECE_BYTES + 5)
    pieces = split_pieces(data)
    assert [len(p) for p in pieces] == [PIECE_BYTES, PIECE_BYTES, 5]
    assert b"".join(pieces) == data
    assert split_pieces(b"small") == (b"small",)


def test_exclude_rules_last_match_wins() -> None:
    rules = parse_excludes(["*.txt", "!keep.txt", "/top/", "a/b*"])
    assert rules.excluded("x.txt", False)
    assert not rules.excluded("keep.txt", False)
    assert rules.excluded("top", True)
    assert not rules.excluded("top", False)
    assert rules.excluded("a/bc", False)
    assert not rules.excluded("z/a/bc", False)


def test_py_modules_go_under_their_reserved_directory(tmp_path: Path) -> None:
    from raygang.codepkg import pack_code

    _tree(tmp_path, {"code/main.py": "x", "libs/helper/__init__.py": "H = 1\n"})
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "tool-1.0-py3-none-any.whl").write_bytes(b"PK wheel")
    package = pack_code(
        "./code", ["./libs/helper", "dist/tool-1.0-py3-none-any.whl"], tmp_path, "m.yaml"
    )
    assert package.py_modules == (
        ".raygang-py-modules/0/helper",
        ".raygang-py-modules/1/tool-1.0-py3-none-any.whl",
    )
    assert package.files == (
        ".raygang-py-modules/0/helper/__init__.py",
        ".raygang-py-modules/1/tool-1.0-py3-none-any.whl",
        "main.py",
    )
    only_modules = pack_code(None, ["./libs/helper"], tmp_path, "m.yaml")
    assert not only_modules.has_working_dir and package.has_working_dir


def test_py_modules_problems_name_their_annotation(tmp_path: Path) -> None:
    from raygang.codepkg import pack_code

    _tree(tmp_path, {"code/main.py": "x", "code/.raygang-py-modules/x.py": "x"})
    (tmp_path / "link.whl").symlink_to(tmp_path / "code" / "main.py")
    with pytest.raises(SpecError) as exc:
        pack_code("./code", ["./nope", "link.whl"], tmp_path, "m.yaml")
    paths = [p.path for p in exc.value.problems]
    messages = " | ".join(p.message for p in exc.value.problems)
    assert "a name raygang keeps for py_modules" in messages
    assert "'./nope'" in messages and "'link.whl'" in messages
    assert paths.count("metadata.annotations['raygang.dev/py-modules']") == 2

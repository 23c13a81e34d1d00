"""A toy target and toy patches written into tmp_path, so the CLI, the API and the extension points
are tested without the package registry. Nothing here is SGLang code: a ``sglang`` folder with one
small module, a version file and a dist-info, and patch packages written by ``patchkit new``."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from patchkit import scaffold, target as tgt
from patchkit.ftypes import Target

FILE = "sglang/srt/server_args.py"
SERVER_ARGS = '''class ServerArgs:
    def __init__(self, port=30000):
        self.port = port
        self.__post_init__()

    def __post_init__(self):
        """Check the arguments."""
        if self.port <= 0:
            raise ValueError(self.port)

    def url(self):
        return f"http://127.0.0.1:{self.port}"
'''


def toy_target(dest: Path, version: str = "0.5.16") -> Target:
    """A folder holding a tiny ``sglang`` package of ``version`` (with a dist-info, as a wheel has)."""
    for rel, text in ((FILE, SERVER_ARGS), ("sglang/__init__.py", ""), ("sglang/srt/__init__.py", ""),
                      ("sglang/version.py", f'__version__ = "{version}"\n'),
                      (f"sglang-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: sglang\nVersion: {version}\n")):
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).write_text(text)
    return tgt.directory(dest, "sglang")


def toy_release(cache: Path, version: str) -> Target:
    """A toy target unpacked as a release in the cache at ``cache`` (what ``fetch`` leaves there)."""
    dest = cache / "releases" / f"sglang-{version}"
    toy_target(dest, version)
    (dest / ".complete").write_text(f"sglang-{version}-py3-none-any.whl\n")
    return tgt.directory(dest, "sglang")


def toy_patch(folder: Path, name: str = "toy-mark", new_code: str = "") -> str:
    """A patch package written by ``patchkit new`` into ``folder`` (it edits ServerArgs.__post_init__);
    ``new_code`` replaces the statements it inserts (a broken patch, for instance)."""
    scaffold.write(scaffold.Spec(name, folder))
    if new_code:
        init = folder / name.replace("-", "_") / "__init__.py"
        text = init.read_text()
        start = text.index('NEW_CODE = """') + len('NEW_CODE = """')
        init.write_text(text[:start] + "\n" + new_code + text[text.index('"""', start):])
        marker = new_code.strip().splitlines()[0]
        init.write_text(init.read_text().replace(text[text.index("MARKER = "):].split("\n", 1)[0],
                                                 f"MARKER = {marker!r}"))
    return name


@pytest.fixture
def toy(tmp_path, monkeypatch):
    """(target, patch name): a toy target and the toy patch on PATCHKIT_PATCH_PATH, a private cache."""
    monkeypatch.setenv("PATCHKIT_PATCH_PATH", str(tmp_path / "patches"))
    monkeypatch.setenv("PATCHKIT_CACHE_DIR", str(tmp_path / "cache"))
    return toy_target(tmp_path / "site"), toy_patch(tmp_path / "patches")


def copy_target(t: Target, dest: Path) -> Target:
    shutil.copytree(t.root, dest)
    return tgt.directory(dest, "sglang")

"""Unpacked registry releases for the benches (`pip download --no-deps`, then only the `.py` files
and `*.dist-info` kept), in a cache outside the repository. Shared by analyzer_precision.py (one
release per codebase) and analyzer_recall.py (a buggy and a fixed release per case)."""
import subprocess
import sys
import tarfile
import re
import shutil
import zipfile
from pathlib import Path

CACHE = Path.home() / ".cache" / "patchkit-bench"


def fetch_release(req: str, cache: Path, keep=None) -> Path:
    """The folder holding the unpacked release ``req`` (``name==version``): a wheel's `.py` files and
    dist-info; from an sdist, the `.py` files below its top folder (only the packages in ``keep``
    when given). Downloaded and unpacked once; later calls return the folder."""
    dest = cache / req.replace("==", "-")
    if dest.is_dir():
        return dest
    dl = cache / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    name, _, version = req.partition("==")
    # wheel names spell "pyro-ppl" "pyro_ppl" and "pyannote.audio" "pyannote_audio"; sdists may keep the dot
    stem = f"{_norm(name)}_{version}".lower()

    def matching():
        # the version ends where the file name goes on: 1.3.0 is not 1.3.0rc3 nor 1.3.01
        return [p for p in dl.iterdir()
                if re.match(re.escape(stem) + r"(_|\.tar|\.zip|\.tgz)",
                            (_norm(p.name[:len(name)]) + p.name[len(name):].replace("-", "_")).lower())
                and p.name.endswith((".whl", ".tar.gz", ".zip", ".tgz"))]
    have = matching()
    if not have:
        r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(dl), req],
                           capture_output=True)
        have = matching()
        if r.returncode != 0 and not have:  # an sdist whose metadata cannot be built here: take the file itself
            _download_file(name, version, dl)
            have = matching()
    archive = sorted(have, key=lambda p: not p.name.endswith(".whl"))[0]  # a wheel first
    tmp = dest.with_name(dest.name + ".part")
    tmp.mkdir(parents=True, exist_ok=True)
    if archive.suffix == ".whl" or (archive.suffix == ".zip" and zipfile.is_zipfile(archive) and ".dist-info/" in
                                    "".join(zipfile.ZipFile(archive).namelist())):
        with zipfile.ZipFile(archive) as z:
            for n in z.namelist():
                if n.endswith(".py") or ".dist-info/" in n:
                    z.extract(n, tmp)
        # a wheel may put its packages under NAME.data/purelib (or platlib): where an install puts them
        for lib in sorted(tmp.glob("*.data/*lib")):
            for sub in lib.iterdir():
                if not (tmp / sub.name).exists():
                    sub.rename(tmp / sub.name)
                elif sub.is_dir():  # merged into a package folder of the same name
                    shutil.copytree(sub, tmp / sub.name, dirs_exist_ok=True)
    elif archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as z:
            for n in z.namelist():
                parts = Path(n).parts
                if len(parts) > 1 and n.endswith(".py") and (keep is None or parts[1] in keep):
                    target = tmp / Path(*parts[1:])
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(z.read(n))
    else:  # sdist: the files below its top folder
        with tarfile.open(archive) as t:
            for m in t.getmembers():
                parts = Path(m.name).parts
                if len(parts) > 1 and m.isfile() and m.name.endswith(".py") and (keep is None or parts[1] in keep):
                    m.name = str(Path(*parts[1:]))
                    t.extract(m, tmp)
    tmp.rename(dest)
    return dest


def _norm(name: str) -> str:
    """A project name as wheel file names spell it: runs of -, _ and . become one _."""
    return re.sub(r"[-_.]+", "_", name)


def _download_file(name: str, version: str, dl: Path) -> None:
    """The release file itself from the registry's simple index (a wheel first, else the sdist),
    checked against the index's sha256, without building anything."""
    import hashlib
    import re
    import urllib.request
    norm = re.sub(r"[-_.]+", "-", name).lower()
    page = urllib.request.urlopen(urllib.request.Request(f"https://pypi.org/simple/{norm}/",
                                                         headers={"Accept": "text/html"}), timeout=60).read().decode()
    stem = re.escape(f"{name}-{version}".replace("-", "_").lower())
    links = [(u, h) for u, h in re.findall(r'href="([^"#]+)#sha256=([0-9a-f]+)"', page)
             if re.match(stem + r"(-|\.tar|\.zip)", u.rsplit("/", 1)[-1].replace("-", "_", 1).lower())
             and u.endswith((".whl", ".tar.gz", ".zip", ".tgz"))]  # never an .egg or .exe installer
    links.sort(key=lambda uh: not uh[0].endswith(".whl"))
    if not links:
        raise RuntimeError(f"{name}=={version}: no file on the registry's simple index")
    url, sha = links[0]
    data = urllib.request.urlopen(url, timeout=300).read()
    if hashlib.sha256(data).hexdigest() != sha:
        raise RuntimeError(f"{url}: sha256 mismatch")
    (dl / url.rsplit("/", 1)[-1]).write_bytes(data)

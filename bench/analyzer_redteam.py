#!/usr/bin/env python3
"""The red-team corpus: small packages, each with one AttributeError bug (and a fixed twin), and
correct packages written to look suspicious (controls). Every case carries the usage that shows it:
this script runs that usage first (a bug case must raise AttributeError on its attribute, its fixed
twin and every control must run cleanly), then ``patchkit check`` on each package, and scores:

- caught: an error finding on the attribute at the line that raises (the last frame in the package);
- shown: a finding of any severity there;
- fixed twins with a finding on the attribute, controls with an error.

    python3 bench/analyzer_redteam.py [--patchkit-path TREE] [--out results.json] [--keep DIR] [--cases DIR]

The cases (``bench/redteam_cases.tar.xz``: cases_bug*.py, cases_ok*.py) were written by helpers of
session 40 from shapes named in the issue and the field notes, before the analyzer was changed for
any of them; see analyzer-redteam-session40.md in bench/results/analyzer-precision-history.tar.xz.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "bench" / "redteam_cases.tar.xz"


def load_cases(folder: Path, source: Path | None = None) -> tuple[list, list]:
    """(bug cases, controls) from the corpus unpacked into ``folder`` (or from the ``cases_*.py``
    files of the folder ``source``: a new batch, scored before it joins the corpus)."""
    if source is not None:
        folder.mkdir(parents=True, exist_ok=True)
        for p in sorted(Path(source).glob("cases_*.py")):
            shutil.copy(p, folder / p.name)
    else:
        with tarfile.open(CASES) as tar:
            tar.extractall(folder, filter="data")
    sys.path.insert(0, str(folder))
    bugs, oks = [], []
    for p in sorted(folder.glob("cases_*.py")):
        spec = importlib.util.spec_from_file_location(p.stem, p)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for c in getattr(mod, "CASES", []):
            if c not in bugs:
                bugs.append(c)
        for c in getattr(mod, "OK", []):
            if c not in oks:
                oks.append(c)
    return bugs, oks


def write(folder: Path, files: dict) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    for rel, text in files.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text.lstrip("\n"))


def run_usage(folder: Path, usage: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", usage], cwd=folder, capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ.get("PATH", ""), "PYTHONDONTWRITEBYTECODE": "1"})


def last_frame(stderr: str):
    frames = [(f, int(n)) for f, n in re.findall(r'File "([^"]+)", line (\d+)', stderr) if "/pkg/" in f]
    return frames[-1] if frames else None


def check(folder: Path, tree: Path) -> list[dict]:
    r = subprocess.run([sys.executable, "-m", "patchkit", "check", str(folder), "--no-cache", "--format", "json"],
                       capture_output=True, text=True, timeout=300, cwd=folder.parent,
                       env={**os.environ, "PYTHONPATH": str(tree)})
    try:
        return json.loads(r.stdout)["findings"]
    except (ValueError, KeyError):
        raise SystemExit(f"{folder}: patchkit printed no JSON: {r.stderr[-400:]}")


def same_attr(found: str, cls: str, attr: str) -> bool:
    """A finding on ``found`` in class ``cls`` names the attribute the usage's AttributeError names:
    as written, or mangled (``self.__token`` in ``Client`` fails as ``_Client__token``)."""
    return found == attr or (found.startswith("__") and not found.endswith("__") and
                             attr == "_" + (cls or "").split(".")[-1].lstrip("_") + found)


def _same_attr(f: dict, attr: str) -> bool:
    return same_attr(f.get("attribute") or "", f.get("class") or "", attr)


def score(tree: Path, work: Path, source: Path | None = None) -> dict:
    bugs, oks = load_cases(work / "src", source)
    out = {"bugs": [], "controls": []}
    for c in bugs:
        bug, fix = work / c["name"], work / (c["name"] + "_fixed")
        write(bug, c["files"])
        write(fix, {**c["files"], **c["fixed"]})
        rb, rf = run_usage(bug, c["usage"]), run_usage(fix, c["usage"])
        last = rb.stderr.strip().splitlines()[-1] if rb.stderr.strip() else ""
        valid = rb.returncode != 0 and last.startswith("AttributeError") and c["attr"] in last and rf.returncode == 0
        frame = last_frame(rb.stderr)
        found = check(bug, tree)
        at = [f for f in found if frame and _same_attr(f, c["attr"]) and f["line"] == frame[1]
              and os.path.realpath(f["path"]) == os.path.realpath(frame[0])]
        on_fix = [f for f in check(fix, tree) if _same_attr(f, c["attr"])]
        out["bugs"].append({"name": c["name"], "shape": c["shape"], "attr": c["attr"], "valid": valid,
                            "caught": any(f["severity"] == "error" for f in at), "shown": bool(at),
                            "codes": sorted({f["code"] for f in at}),
                            "fixed_flagged": sorted({f"{f['code']} {f['severity']}" for f in on_fix})})
    for k in oks:
        d = work / k["name"]
        write(d, k["files"])
        r = run_usage(d, k["usage"])
        found = check(d, tree)
        out["controls"].append({"name": k["name"], "shape": k["shape"], "valid": r.returncode == 0,
                                "errors": [f"{f['code']} {f.get('class')}.{f.get('attribute')} line {f['line']}"
                                           for f in found if f["severity"] == "error"],
                                "warnings": sum(f["severity"] == "warning" for f in found)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--patchkit-path", default=str(ROOT), help="the patchkit tree to score (default: this one)")
    ap.add_argument("--out", default=None, help="write the per-case results as JSON here")
    ap.add_argument("--keep", default=None, help="build the packages here and keep them (default: a temporary folder)")
    ap.add_argument("--cases", default=None, help="score the cases_*.py files of this folder instead of the corpus")
    args = ap.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="pk-redteam-"))
    try:
        res = score(Path(args.patchkit_path).resolve(), work, Path(args.cases) if args.cases else None)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    bugs = [b for b in res["bugs"] if b["valid"]]
    ctl = [c for c in res["controls"] if c["valid"]]
    for b in res["bugs"]:
        state = "caught" if b["caught"] else "shown " if b["shown"] else "MISSED"
        print(f"{b['name']:<8} {state} {','.join(b['codes']) or '-':<12} {b['shape'][:80]}"
              + ("" if b["valid"] else "  [INVALID: the usage does not raise as described]"))
    for c in res["controls"]:
        if c["errors"] or not c["valid"]:
            print(f"{c['name']:<10} control {'ERROR ' + '; '.join(c['errors']) if c['errors'] else ''}"
                  + ("" if c["valid"] else "  [INVALID: the usage fails]"))
    print(f"bugs: {len(bugs)} valid of {len(res['bugs'])}; caught as errors {sum(b['caught'] for b in bugs)}, "
          f"shown {sum(b['shown'] for b in bugs)}, missed {sum(not b['shown'] for b in bugs)}; fixed twins with an "
          f"error on the attribute {sum(any(x.endswith('error') for x in b['fixed_flagged']) for b in bugs)}")
    print(f"controls: {len(ctl)} valid of {len(res['controls'])}; with an error {sum(bool(c['errors']) for c in ctl)}")
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()

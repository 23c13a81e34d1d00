#!/usr/bin/env python3
"""Recall of `patchkit check` on historical AttributeError bugs, with pyrefly scored on the same corpus.

    python3 bench/analyzer_recall.py [--patchkit-path DIR] [--case bug_03 ...] [--no-pyrefly]

Each case in the corpus (bench/analyzer_corpus.tar.xz, unpacked on first use into the bench cache;
`--unpack DIR` and `--pack DIR` to edit it) holds the buggy and the fixed files of a real fix commit
(trimmed to the classes involved, in their real module layout) and case.json naming the class,
the attribute and the line of the read. A tool *finds* a case when it reports the class + attribute
on the buggy tree, and is *clean* on it when it reports nothing for that class + attribute on the
fixed tree; a case counts as caught when both hold.

patchkit: `patchkit check <tree> --strict --format json`, a finding matches when its class and
attribute are the case's (any code, any severity); with --errors-only, `patchkit check <tree>`
with the default settings, and only error findings match. pyrefly (`pyrefly check --preset default`): an
error matches when its message names the attribute in backticks and either names the case's class
or sits on the case's read line. Writes bench/results/analyzer-recall.json.gz and .md.

    python3 bench/analyzer_recall.py --releases [--case rel_03 ...] [--no-pyrefly]

The whole-release corpus (bench/recall_releases.json.xz): each case names a package on the registry,
its last buggy and first fixed release, the class and the attribute. Both releases are fetched
(`pip download --no-deps`, cached outside the repo) and each tool runs on the whole unpacked
distribution, as a user would run it on an installed package: patchkit with its default settings
(an error finding counts: what fails a `patchkit check`), patchkit `--strict` (any severity), and
pyrefly. Writes bench/results/analyzer-recall-releases.json.gz and .md.
"""
import argparse
import json
import re
import shutil
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _patchkit_run import ROOT, analyzer_key, patchkit_commit, run_patchkit, run_pyrefly, snapshot  # noqa: E402
from _releases import CACHE as _BENCH_CACHE, fetch_release  # noqa: E402

#: the trimmed corpus, one xz tarball (buggy and fixed copies of the same files compress to a tenth,
#: and one file instead of 200: the working tree must leave room for the GPU bundle); unpacked once
#: per archive content into the bench cache. `--unpack DIR` / `--pack DIR` to edit it
#: (bench/analyzer_corpus_README.md, bench/analyzer_corpus_extract.py)
CORPUS_ARCHIVE = ROOT / "bench" / "analyzer_corpus.tar.xz"
RELEASES = ROOT / "bench" / "recall_releases.json.xz"  # xz: the repository size budget (read it with xzcat)
RELEASE_CACHE = _BENCH_CACHE / "recall"
RESULTS = ROOT / "bench" / "results"
FIELDS = ("project", "url", "buggy_commit", "fixed_commit", "files", "class", "attribute", "kind", "read")
KINDS = ("missing-super", "cross-module-subclass", "wrong-class", "branch-only", "renamed", "other")


def corpus_dir(archive: Path = CORPUS_ARCHIVE) -> Path:
    """The unpacked corpus (``<cache>/corpus-<sha>/analyzer_corpus``), unpacked on first use."""
    import hashlib
    import tarfile
    data = archive.read_bytes()
    dest = _BENCH_CACHE / f"corpus-{hashlib.sha256(data).hexdigest()[:16]}"
    if not (dest / "analyzer_corpus").is_dir():
        _BENCH_CACHE.mkdir(parents=True, exist_ok=True)
        part = Path(tempfile.mkdtemp(prefix="corpus-", dir=_BENCH_CACHE))
        with tarfile.open(archive, "r:xz") as tf:
            try:
                tf.extractall(part, filter="data")
            except TypeError:  # a Python without extraction filters: the archive is our own
                tf.extractall(part)
        try:
            part.rename(dest)
        except OSError:  # another process unpacked it first
            shutil.rmtree(part, ignore_errors=True)
    return dest / "analyzer_corpus"


def pack_corpus(folder: Path, archive: Path = CORPUS_ARCHIVE) -> None:
    """Write ``folder`` (an ``analyzer_corpus`` tree: ``bug_NN/`` cases) as the archive, byte-stable
    (sorted names, no times or owners)."""
    import io
    import lzma
    import tarfile
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for p in sorted(folder.rglob("*")):
            if "__pycache__" in p.parts:
                continue
            info = tf.gettarinfo(str(p), arcname=("analyzer_corpus/" + p.relative_to(folder).as_posix()))
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if p.is_file():
                with open(p, "rb") as fh:
                    tf.addfile(info, fh)
            else:
                tf.addfile(info)
    archive.write_bytes(lzma.compress(buf.getvalue(), preset=9 | lzma.PRESET_EXTREME))


def load_cases(corpus: Path = None, only=None):
    corpus = corpus or corpus_dir()
    cases = []
    for d in sorted(p for p in corpus.iterdir() if (p / "case.json").is_file()):
        if only and d.name not in only:
            continue
        meta = json.loads((d / "case.json").read_text())
        meta["id"] = d.name
        meta["dir"] = d
        cases.append(meta)
    return cases


def patchkit_matches(case, findings, on_fixed=False):
    """The patchkit findings that name the case's attribute and either its class (as the finding's
    class, or among the other classes the same read fails for: ``also_in``) or its read (file and
    line: the same read reported for a subclass whose construction reaches it). On the fixed tree
    (``on_fixed``) only the class counts: the read in a shared base method may still fail for a
    sibling class the fix did not touch (python-can 3.1.0 fixed Usb2canBus._filters; IXXATBus and
    NicanBus still miss it at the same read), and that is another bug, not the case flagged again.
    Nor is a class of the same name in another module: redis 4.4.1 gave the sync
    UnixDomainSocketConnection its host, and the asyncio module's class of that name still reads
    self.host unassigned (fixed in a later release), so on the fixed tree a finding counts only in
    the file of the case's read (a fix that moved the read to another file is not followed there)."""
    def names(f):
        also = f.get("also_in")
        if also is None:  # results written before findings carried also_in: the message's list
            m = re.search(r"\(also in ([^)]*)\)", f.get("why", ""))
            also = [x.strip() for x in m.group(1).split(",")] if m else []
        return [f.get("class")] + list(also)
    def at_read(f):  # the case's own read, found through another class of the hierarchy
        read = case.get("read") or {}
        return bool(read) and f.get("line") == read.get("line") and \
            str(f.get("path", "")).replace("\\", "/").endswith(read.get("file", "\0"))
    def in_read_file(f):
        read = case.get("read") or {}
        return not read or same_file(f.get("path", ""), read.get("file", "\0"))
    return [f for f in findings if f.get("attribute") == case["attribute"] and
            ((case["class"] in names(f) and (not on_fixed or in_read_file(f))) or (not on_fixed and at_read(f)))]


def same_file(path, rel: str) -> bool:
    """``path`` (as a tool reports it) is the case's file ``rel`` (relative to the release)."""
    p = str(path).replace("\\", "/")
    return p == rel or p.endswith("/" + rel)


def pyrefly_matches(case, errors, on_fixed=False):
    """The pyrefly errors naming `attribute` and either the class or the read line (on the fixed
    tree only the class, in the read's file, as for patchkit)."""
    attr = re.compile(r"`%s`" % re.escape(case["attribute"]))
    cls = re.compile(r"`%s`" % re.escape(case["class"]))
    read = case["read"]
    out = []
    for e in errors:
        msg = e.get("message", "")
        if not attr.search(msg):
            continue
        on_line = Path(e.get("path", "")).as_posix().endswith(read["file"]) and e.get("line") == read["line"]
        if (cls.search(msg) and (not on_fixed or same_file(e.get("path", ""), read["file"]))) or (on_line and not on_fixed):
            out.append(e)
    return out


def score(case, buggy, fixed, match):
    """{'found', 'clean', 'caught'} for one tool: buggy/fixed are its outputs (None: tool missing)."""
    if buggy is None or fixed is None:
        return None
    found = bool(match(case, buggy))
    clean = not match(case, fixed, on_fixed=True)
    return {"found": found, "clean": clean, "caught": found and clean}


def totals(rows, tool):
    by_kind = defaultdict(lambda: {"cases": 0, "found": 0, "caught": 0, "flag_on_fixed": 0})
    for r in rows:
        s = r[tool]
        if s is None:
            continue
        for key in (r["kind"], "all"):
            k = by_kind[key]
            k["cases"] += 1
            k["found"] += s["found"]
            k["caught"] += s["caught"]
            k["flag_on_fixed"] += not s["clean"]
    return dict(by_kind)


def isolated_patchkit(tree: Path, patchkit_path, site=None, errors_only=False):
    """patchkit's findings on a copy of TREE in a fresh temporary folder: inside this repository
    the analyzer would take our pyproject.toml / git root as the project root and name the case's
    modules `bench.analyzer_corpus...`, so absolute imports between its packages would not resolve."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "tree"
        shutil.copytree(tree, root)
        if errors_only:  # what a user sees as errors with the default settings
            found = run_patchkit(root, patchkit_path, ("--no-cache",), site=site)
            return [f for f in found if f.get("severity") == "error"]
        return run_patchkit(root, patchkit_path, ("--strict", "--no-cache"), site=site)


def run(cases, patchkit_path, use_pyrefly=True, site=None, errors_only=False):
    rows = []
    for c in cases:
        pk_b = isolated_patchkit(c["dir"] / "buggy", patchkit_path, site, errors_only)
        pk_f = isolated_patchkit(c["dir"] / "fixed", patchkit_path, site, errors_only)
        py_b = run_pyrefly(c["dir"] / "buggy", site) if use_pyrefly else None
        py_f = run_pyrefly(c["dir"] / "fixed", site) if use_pyrefly else None
        rows.append({"id": c["id"], "project": c["project"], "kind": c["kind"], "class": c["class"],
                     "attribute": c["attribute"], "read": c["read"], "url": c["url"],
                     "patchkit": score(c, pk_b, pk_f, patchkit_matches),
                     "patchkit_codes": sorted({f["code"] for f in patchkit_matches(c, pk_b)}),
                     "pyrefly": score(c, py_b, py_f, pyrefly_matches)})
    return rows


def _cell(s):
    if s is None:
        return "n/a"
    text = "caught" if s["caught"] else "found" if s["found"] else "missed"
    return text + ("" if s["clean"] else ", flags fixed")


def write(rows, commit, patchkit_path, out_dir: Path = RESULTS, suffix=""):
    tot = {t: totals(rows, t) for t in ("patchkit", "pyrefly")}
    data = {"commit": commit, "patchkit_path": str(patchkit_path), "cases": rows, "totals": tot}
    import gzip  # gzipped: the repository size budget (the .md beside it is the readable form)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"analyzer-recall{suffix}.json.gz").write_bytes(
        gzip.compress((json.dumps(data, indent=1, default=str) + "\n").encode(), mtime=0))
    md = [f"# Analyzer recall on historical AttributeError bugs (patchkit {commit})", "",
          "caught = reported on the buggy tree (class + attribute) and not on the fixed tree.", "",
          "| case | project | kind | class.attribute | read | patchkit | pyrefly |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        codes = f" ({','.join(r['patchkit_codes'])})" if r["patchkit_codes"] else ""
        md.append(f"| {r['id']} | [{r['project']}]({r['url']}) | {r['kind']} | `{r['class']}.{r['attribute']}` | "
                  f"`{r['read']['file']}:{r['read']['line']}` | {_cell(r['patchkit'])}{codes} | {_cell(r['pyrefly'])} |")
    md += ["", "| kind | cases | patchkit caught | pyrefly caught | patchkit flags fixed | pyrefly flags fixed |",
           "|---|---|---|---|---|---|"]
    for kind in list(KINDS) + ["all"]:
        p, q = tot["patchkit"].get(kind), tot["pyrefly"].get(kind)
        if not p:
            continue
        md.append(f"| {kind} | {p['cases']} | {p['caught']} | {q['caught'] if q else 'n/a'} | "
                  f"{p['flag_on_fixed']} | {q['flag_on_fixed'] if q else 'n/a'} |")
    (out_dir / f"analyzer-recall{suffix}.md").write_text("\n".join(md) + "\n")
    return tot


def load_release_cases(only=None):
    import lzma
    cases = json.loads(lzma.decompress(RELEASES.read_bytes()))["cases"]
    return [c for c in cases if not only or c["id"] in only]


def verify_release_case(c) -> list:
    """What does not hold of case ``c`` on its releases: the read line must read ``self.<attribute>``
    in the buggy release, the fix line must differ from the buggy release's text at that line
    (a release named by hand may not hold the commit; a pre-release once unpacked as its final
    release, 1.3.0rc3 as 1.3.0, until file names were matched up to the end of the version). Empty when the case holds."""
    problems = []
    b = fetch_release(f"{c['package']}=={c['buggy']}", RELEASE_CACHE)
    f = fetch_release(f"{c['package']}=={c['fixed']}", RELEASE_CACHE)
    try:
        read = (b / c["read"]["file"]).read_text(errors="replace").splitlines()[c["read"]["line"] - 1]
        if f"self.{c['attribute']}" not in read:
            problems.append(f"read line {c['read']['file']}:{c['read']['line']} does not read self.{c['attribute']}")
    except (OSError, IndexError) as exc:
        problems.append(f"read line unreadable: {exc}")
    try:
        fix_file = c["fix"]["file"]
        fixed_text = (f / fix_file).read_text(errors="replace")
        buggy_text = (b / fix_file).read_text(errors="replace") if (b / fix_file).is_file() else ""
        if fixed_text == buggy_text:
            problems.append(f"{fix_file} is the same in {c['buggy']} and {c['fixed']}: not fixed there")
    except OSError as exc:
        problems.append(f"fix file unreadable: {exc}")
    return problems


def _memo_run(key: str, fn):
    """A tool's output on one release, computed once per measured commit (re-tallying is free)."""
    memo = RELEASE_CACHE / "results" / (key.replace("/", "_") + ".json")
    if memo.is_file():
        return json.loads(memo.read_text())
    got = fn()
    memo.parent.mkdir(parents=True, exist_ok=True)
    memo.write_text(json.dumps(got))
    return got


def run_releases(cases, patchkit_path, use_pyrefly=True):
    """One row per case: patchkit default (errors; and any severity, as `patchkit check` prints
    them), patchkit --strict (any severity) and pyrefly, each on the whole buggy and the whole fixed
    release."""
    patchkit_path = snapshot(patchkit_path)  # run one state of the code, filed under its key
    commit = analyzer_key(patchkit_path)
    rows = []
    for c in cases:
        outs = {}
        for side in ("buggy", "fixed"):
            req = f"{c['package']}=={c[side]}"
            root = fetch_release(req, RELEASE_CACHE)
            d = req.replace("==", "-")
            default = _memo_run(f"{d}-{commit}-default", lambda: run_patchkit(
                root, patchkit_path, ("--no-cache",), cache_dir=RELEASE_CACHE / "pkcache"))
            outs[side] = {"default": [f for f in default if f.get("severity") == "error"],
                          "shown": [f for f in default if f.get("severity") in ("error", "warning")],
                          "strict": _memo_run(f"{d}-{commit}-strict", lambda: run_patchkit(
                              root, patchkit_path, ("--strict", "--no-cache"), cache_dir=RELEASE_CACHE / "pkcache")),
                          "pyrefly": _memo_run(f"{d}-pyrefly", lambda: run_pyrefly(root)) if use_pyrefly else None}
        b, f = outs["buggy"], outs["fixed"]
        rows.append({"id": c["id"], "project": c["package"], "kind": c["kind"], "class": c["class"],
                     "attribute": c["attribute"], "read": c["read"], "url": c["url"],
                     "versions": f"{c['buggy']} -> {c['fixed']}",
                     "patchkit": score(c, b["default"], f["default"], patchkit_matches),
                     "patchkit_shown": score(c, b["shown"], f["shown"], patchkit_matches),
                     "patchkit_strict": score(c, b["strict"], f["strict"], patchkit_matches),
                     "patchkit_codes": sorted({x["code"] for x in patchkit_matches(c, b["strict"])}),
                     "patchkit_severity": sorted({x["severity"] for x in patchkit_matches(c, b["strict"])}),
                     "pyrefly": score(c, b["pyrefly"], f["pyrefly"], pyrefly_matches) if use_pyrefly else None})
    return rows


def write_releases(rows, commit, out_dir: Path = RESULTS, suffix=""):
    tools = ("patchkit", "patchkit_shown", "patchkit_strict", "pyrefly")
    tot = {t: totals(rows, t) for t in tools}
    import gzip  # gzipped: the repository size budget (the .md beside it is the readable form)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"analyzer-recall-releases{suffix}.json.gz").write_bytes(gzip.compress(
        (json.dumps({"commit": commit, "cases": rows, "totals": tot}, indent=1, default=str) + "\n").encode(), mtime=0))
    md = [f"# Analyzer recall on historical AttributeError bugs, whole releases (patchkit {commit})", "",
          "Each tool runs on the whole unpacked buggy and fixed release. caught = reported on the buggy "
          "release (class + attribute) and not on the fixed one. patchkit: default settings, error findings "
          "(what fails `patchkit check`); shown: default settings, errors and warnings (what `patchkit check` "
          "prints); strict: `--strict`, any severity.", "",
          "| case | package | versions | kind | class.attribute | patchkit | shown | strict (codes) | pyrefly |",
          "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['id']} | [{r['project']}]({r['url']}) | {r['versions']} | {r['kind']} | "
                  f"`{r['class']}.{r['attribute']}` | {_cell(r['patchkit'])} | {_cell(r.get('patchkit_shown'))} | "
                  f"{_cell(r['patchkit_strict'])}"
                  f"{' (' + ','.join(r['patchkit_codes']) + ')' if r['patchkit_codes'] else ''} | {_cell(r['pyrefly'])} |")
    md += ["", "| kind | cases | patchkit | shown | strict | pyrefly | patchkit flags fixed | pyrefly flags fixed |",
           "|---|---|---|---|---|---|---|---|"]
    for kind in list(KINDS) + ["all"]:
        p = tot["patchkit"].get(kind)
        if not p:
            continue
        q, st, sh = tot["pyrefly"].get(kind), tot["patchkit_strict"].get(kind), tot["patchkit_shown"].get(kind)
        md.append(f"| {kind} | {p['cases']} | {p['caught']} | {sh['caught']} | {st['caught']} | {q['caught'] if q else 'n/a'} | "
                  f"{p['flag_on_fixed']} | {q['flag_on_fixed'] if q else 'n/a'} |")
    (out_dir / f"analyzer-recall-releases{suffix}.md").write_text("\n".join(md) + "\n")
    return tot


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--patchkit-path", default=str(ROOT), help="checkout put first on PYTHONPATH")
    ap.add_argument("--case", action="append", help="only these case ids")
    ap.add_argument("--no-pyrefly", action="store_true")
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--site", type=Path, help="third-party sources (e.g. torch .py/.pyi) both tools may read")
    ap.add_argument("--suffix", default="", help="results file suffix, e.g. -main for a baseline run")
    ap.add_argument("--errors-only", action="store_true",
                    help="run with the default settings (no --strict) and count only error findings")
    ap.add_argument("--releases", action="store_true",
                    help="the whole-release corpus (bench/recall_releases.json.xz) instead of the trimmed one")
    ap.add_argument("--unpack", type=Path, metavar="DIR", help="copy the trimmed corpus into DIR/analyzer_corpus to edit it")
    ap.add_argument("--pack", type=Path, metavar="DIR", help="write DIR (an analyzer_corpus folder) as the corpus archive")
    args = ap.parse_args(argv)
    if args.unpack:
        shutil.copytree(corpus_dir(), args.unpack / "analyzer_corpus")
        print(f"unpacked into {args.unpack / 'analyzer_corpus'}; edit, then --pack it")
        return
    if args.pack:
        pack_corpus(args.pack)
        print(f"{CORPUS_ARCHIVE}: {len(load_cases(args.pack))} cases")
        return
    if args.releases:
        cases = load_release_cases(args.case)
        for c in cases:
            for problem in verify_release_case(c):
                print(f"{c['id']}: {problem}", file=sys.stderr)
        rows = run_releases(cases, args.patchkit_path, not args.no_pyrefly)
        commit = analyzer_key(args.patchkit_path)  # the commit and a hash of the analyzer's source
        tot = write_releases(rows, commit, args.out, args.suffix)
        for r in rows:
            print(f"{r['id']:7s} {r['kind']:22s} {r['class']}.{r['attribute']:30s} patchkit {_cell(r['patchkit']):18s} "
                  f"shown {_cell(r['patchkit_shown']):18s} "
                  f"strict {_cell(r['patchkit_strict']):18s} pyrefly {_cell(r['pyrefly'])}")
        for tool, label in (("patchkit", "patchkit (default, errors)"), ("patchkit_shown", "patchkit (default, errors + warnings)"),
                            ("patchkit_strict", "patchkit --strict"),
                            ("pyrefly", "pyrefly")):
            a = tot[tool].get("all")
            if a:
                print(f"{label}: caught {a['caught']}/{a['cases']} (found {a['found']}, flags on fixed {a['flag_on_fixed']})")
        return
    cases = load_cases(only=args.case)
    rows = run(cases, args.patchkit_path, not args.no_pyrefly, args.site, args.errors_only)
    commit = patchkit_commit(args.patchkit_path)
    tot = write(rows, commit, args.patchkit_path, args.out, args.suffix)
    for r in rows:
        print(f"{r['id']:8s} {r['kind']:22s} {r['class']}.{r['attribute']:28s} patchkit {_cell(r['patchkit']):20s} "
              f"pyrefly {_cell(r['pyrefly'])}")
    for tool in ("patchkit", "pyrefly"):
        a = tot[tool].get("all")
        if a:
            kinds = ", ".join(f"{k} {v['caught']}/{v['cases']}" for k, v in tot[tool].items() if k != "all")
            print(f"{tool}: caught {a['caught']}/{a['cases']} (found {a['found']}, flags on fixed {a['flag_on_fixed']}); {kinds}")


if __name__ == "__main__":
    main()

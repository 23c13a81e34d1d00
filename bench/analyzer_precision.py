#!/usr/bin/env python3
"""Precision of `patchkit check` errors on large public codebases it was never tuned on.

    python3 bench/analyzer_precision.py --seed 16 --sample 25 --patchkit-path /work/main

Each codebase is a pinned release from the package registry (`pip download --no-deps`, unpacked
into a cache outside the repo). patchkit runs with `--fail-on error`; only error findings count.
Errors are grouped (one group = class + attribute + code), `--sample` groups per codebase are
drawn with `random.Random(seed)` from the sorted group list, and a labelling sheet is written to
bench/results/analyzer-precision-<codebase>.md with, for each sampled group, the code around the
read and around the class's `__init__`.

Labels are read by hand and kept in bench/results/analyzer-precision-labels.json.xz, keyed by
codebase and group (`Class.attr:CODE`), so a re-run with another checkout re-uses the labels of
groups it samples again and leaves the new ones marked `unlabelled`:

    {"transformers": {"Foo.bar:PK001": {"label": "fp", "family": "hasattr-guard", "reason": "..."}}}

label is one of: real (reachable bug), latent (bug on a path no caller takes today), fp.
precision = (real + latent) / labelled. Totals go to bench/results/analyzer-precision.json.gz/.md.
"""
import argparse
import ast
import json
import lzma
import random
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _patchkit_run import ROOT, analyzer_key, patchkit_commit, run_patchkit  # noqa: E402
from _releases import fetch_release  # noqa: E402

#: the codebases, in the order their sets were named: name -> (requirement, package folder inside the
#: unpacked release). Kept as compressed data (1,300+ entries, a sixth of the bytes), each set's note
#: (when and why it was named, what was dropped) on its first entry; add a set with add_codebases().
CODEBASES_FILE = Path(__file__).resolve().parent / "analyzer_precision_codebases.json.xz"


def _read_codebases() -> dict:
    with lzma.open(CODEBASES_FILE, "rt", encoding="utf-8") as fh:
        return json.load(fh)


def add_codebases(entries: list[tuple[str, str, str]], note: str) -> None:
    """Append a set (name, requirement, package folder) to the data file, the note on its first entry."""
    doc = _read_codebases()
    known = {e["name"] for e in doc["codebases"]}
    clash = [n for n, _r, _p in entries if n in known]
    if clash:
        raise SystemExit(f"{CODEBASES_FILE.name}: already listed: {', '.join(clash)}")
    doc["codebases"] += [{"name": n, "req": r, "pkg": p, "note": note if i == 0 else ""}
                         for i, (n, r, p) in enumerate(entries)]
    data = json.dumps(doc, indent=0, ensure_ascii=False).encode()
    CODEBASES_FILE.write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))


CODEBASES = {e["name"]: (e["req"], e["pkg"]) for e in _read_codebases()["codebases"]}
DEFAULT = ("deepspeed", "diffusers", "ray", "transformers", "vllm")
# lightning==2.6.6 (266 files) was tried too: 1 error group in all, too few to sample.
RESULTS = ROOT / "bench" / "results"
LABELS = RESULTS / "analyzer-precision-labels.json.xz"  # xz (a sixth smaller than gzip): the repository size budget
CACHE = Path.home() / ".cache" / "patchkit-bench" / "precision"
LABEL_KINDS = ("real", "latent", "fp")


def fetch(name: str, cache: Path = CACHE) -> Path:
    """The unpacked release of codebase NAME (only .py files and *.dist-info); fetched once."""
    req, pkg = CODEBASES[name]
    return fetch_release(req, cache, keep={pkg}) / pkg


def group_errors(findings):
    """{(class, attribute, code): [finding, ...]} for the error-severity findings, duplicates dropped."""
    groups = defaultdict(list)
    seen = set()
    for f in findings:
        if f.get("severity") != "error" or f.get("code") == "PK900":
            continue
        key = (f.get("class") or "?", f.get("attribute") or "?", f["code"])
        loc = (f["path"], f["line"], key)
        if loc in seen:
            continue
        seen.add(loc)
        groups[key].append(f)
    return dict(groups)


def sample_groups(groups, n, seed):
    keys = sorted(groups)
    return random.Random(seed).sample(keys, min(n, len(keys)))


def group_id(key) -> str:
    cls, attr, code = key
    return f"{cls}.{attr}:{code}"


def _excerpt(path: Path, line: int, before=4, after=4) -> str:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return "(unreadable)"
    lo, hi = max(1, line - before), min(len(lines), line + after)
    return "\n".join(f"{'>' if i == line else ' '}{i:5d}  {lines[i - 1]}" for i in range(lo, hi + 1))


def find_init(root: Path, cls: str, hint: Path):
    """(path, line) of `cls.__init__` (or of the class line when it has none): the read's file first."""
    files = [hint] + [p for p in root.rglob("*.py") if p != hint]
    for p in files:
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if f"class {cls}" not in text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == cls:
                for item in node.body:
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__init__":
                        return p, item.lineno
                return p, node.lineno
    return None, 0


def load_labels():
    import lzma
    return json.loads(lzma.decompress(LABELS.read_bytes())) if LABELS.exists() else {}


def save_labels(labels: dict) -> None:
    """Write ``labels`` as the committed file: sorted keys, one level of indentation, xz at its
    strongest preset (deterministic bytes for the same labels)."""
    import lzma
    raw = (json.dumps(labels, indent=1, sort_keys=True) + "\n").encode()
    LABELS.write_bytes(lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME))


def tally(sampled_ids, labels):
    t = {k: 0 for k in LABEL_KINDS}
    t["unlabelled"] = 0
    fam = defaultdict(int)
    for gid in sampled_ids:
        lab = labels.get(gid)
        if not lab or lab.get("label") not in LABEL_KINDS:
            t["unlabelled"] += 1
            continue
        t[lab["label"]] += 1
        if lab["label"] == "fp":
            fam[lab.get("family", "?")] += 1
    labelled = t["real"] + t["latent"] + t["fp"]
    t["labelled"] = labelled
    t["precision"] = round((t["real"] + t["latent"]) / labelled, 3) if labelled else None
    t["fp_families"] = dict(sorted(fam.items(), key=lambda kv: -kv[1]))
    return t


def write_sheet(name, req, commit, seed, root, findings, groups, sampled, labels, out: Path):
    base = root.parent
    rows = [f"# Precision sheet: {req} (patchkit {commit}, seed {seed})", "",
            f"{len(findings)} findings, {sum(len(v) for v in groups.values())} errors in {len(groups)} groups "
            f"(class + attribute + code); {len(sampled)} groups sampled.", "",
            "Labels: real (reachable bug) / latent (bug on a path no caller takes today) / fp (+ family).",
            "They live in analyzer-precision-labels.json.xz; this sheet is regenerated from it.", "",
            "| # | group | first error | n | label | family | reason |", "|---|---|---|---|---|---|---|"]
    body = []
    for i, key in enumerate(sampled, 1):
        gid = group_id(key)
        f = groups[key][0]
        lab = labels.get(gid, {})
        rows.append(f"| {i} | `{gid}` | `{f['path']}:{f['line']}` | {len(groups[key])} | "
                    f"{lab.get('label', 'unlabelled')} | {lab.get('family', '')} | {lab.get('reason', '')} |")
        read_path = base / f["path"] if not Path(f["path"]).is_absolute() else Path(f["path"])
        ipath, iline = find_init(root, key[0], read_path)
        body += [f"## {i}. `{gid}`", "", f"{f['message']}  ", f"why: {f.get('why', '')}", "",
                 f"read at `{f['path']}:{f['line']}`:", "```", _excerpt(read_path, f["line"]), "```"]
        if ipath:
            body += [f"`{key[0]}` init at `{ipath.relative_to(base)}:{iline}`:", "```",
                     _excerpt(ipath, iline, 1, 14), "```"]
        body.append("")
    out.write_text("\n".join(rows + [""] + body) + "\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--sample", type=int, default=25)
    ap.add_argument("--patchkit-path", default=str(ROOT), help="checkout put first on PYTHONPATH")
    ap.add_argument("--codebase", action="append", choices=sorted(CODEBASES), help=f"default: {', '.join(DEFAULT)}")
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--site", type=Path, help="third-party sources (e.g. torch .py/.pyi) the analyzer may read")
    ap.add_argument("--suffix", default="", help="results file suffix, e.g. -with-torch")
    args = ap.parse_args(argv)
    commit = patchkit_commit(args.patchkit_path)
    labels = load_labels()
    summary = {"patchkit_path": args.patchkit_path, "commit": commit, "seed": args.seed,
               "site": str(args.site) if args.site else None,
               "sample": args.sample, "codebases": {}}
    for name in args.codebase or DEFAULT:
        root = fetch(name, args.cache)
        # re-labelling a run needs no re-analysis; the key hashes the analyzer's source, so an
        # uncommitted change is measured, not the last commit's cached findings
        saved = args.cache / f"findings-{name}-{analyzer_key(args.patchkit_path)}{'-site' if args.site else ''}.json"
        if saved.is_file() and commit != "unknown":
            findings = json.loads(saved.read_text())
        else:
            findings = run_patchkit(root.name, args.patchkit_path, ("--fail-on", "error", "--no-cache"),
                                    cwd=root.parent, site=args.site)
            saved.write_text(json.dumps(findings))
        groups = group_errors(findings)
        sampled = sample_groups(groups, args.sample, args.seed)
        cl = labels.get(name, {})
        write_sheet(name, CODEBASES[name][0], commit, args.seed, root, findings, groups, sampled, cl,
                    RESULTS / f"analyzer-precision-{name}{args.suffix}.md")
        t = tally([group_id(k) for k in sampled], cl)
        n_files = sum(1 for _ in root.rglob("*.py"))
        summary["codebases"][name] = {"release": CODEBASES[name][0], "files": n_files,
                                      "errors": sum(len(v) for v in groups.values()), "groups": len(groups),
                                      "sampled": [group_id(k) for k in sampled], **t}
        print(f"{name:13s} {n_files:5d} files  {summary['codebases'][name]['errors']:5d} errors in "
              f"{len(groups):4d} groups  sampled {len(sampled)}  real {t['real']} latent {t['latent']} "
              f"fp {t['fp']} unlabelled {t['unlabelled']}  precision {t['precision']}")
    cbs = summary["codebases"].values()
    tot = {k: sum(c[k] for c in cbs) for k in ("real", "latent", "fp", "unlabelled", "labelled", "errors", "groups")}
    tot["precision"] = round((tot["real"] + tot["latent"]) / tot["labelled"], 3) if tot["labelled"] else None
    fam = defaultdict(int)
    for c in cbs:
        for k, v in c["fp_families"].items():
            fam[k] += v
    tot["fp_families"] = dict(sorted(fam.items(), key=lambda kv: -kv[1]))
    summary["total"] = tot
    import gzip  # gzipped: the repository size budget (the .md beside it is the readable form)
    (RESULTS / f"analyzer-precision{args.suffix}.json.gz").write_bytes(
        gzip.compress((json.dumps(summary, indent=1) + "\n").encode(), mtime=0))
    md = [f"# Analyzer precision on untuned codebases (patchkit {commit}, seed {args.seed}, "
          f"{args.sample} groups each)", "",
          (f"Third-party sources readable by the analyzer: {args.site} (e.g. torch's .py/.pyi)."
           if args.site else "No third-party packages installed: torch, gymnasium etc. bases are unresolved."), "",
          "| codebase | files | errors | groups | sampled | real | latent | fp | precision |",
          "|---|---|---|---|---|---|---|---|---|"]
    for name, c in summary["codebases"].items():
        md.append(f"| {c['release']} | {c['files']} | {c['errors']} | {c['groups']} | {len(c['sampled'])} | "
                  f"{c['real']} | {c['latent']} | {c['fp']} | {c['precision']} |")
    md.append(f"| **total** | | {tot['errors']} | {tot['groups']} | | {tot['real']} | {tot['latent']} | "
              f"{tot['fp']} | **{tot['precision']}** |")
    md += ["", "False-positive families (count in the labelled sample):", ""]
    md += [f"- {k}: {v}" for k, v in tot["fp_families"].items()]
    (RESULTS / f"analyzer-precision{args.suffix}.md").write_text("\n".join(md) + "\n")
    print(f"total: precision {tot['precision']} ({tot['real']} real + {tot['latent']} latent / {tot['labelled']} labelled)")


if __name__ == "__main__":
    main()

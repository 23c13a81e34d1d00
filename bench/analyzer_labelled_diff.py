#!/usr/bin/env python3
"""What an analyzer change does to the labelled corpus: error groups lost and gained, by label.

    python3 bench/analyzer_labelled_diff.py --base 7fe95d1 [--new DIR] [--codebase NAME ...] [--jobs 2]

Every codebase that has labels in bench/results/analyzer-precision-labels.json.xz (about 120, each a
pinned registry release, fetched as analyzer_precision.py does) is analysed twice: by the analyzer
of commit BASE (exported with `git archive` into a scratch folder) and by the checkout DIR (default:
this working tree). Error groups (class + attribute + code, as the precision bench samples them)
are compared. A change that only removes false positives loses `fp` groups and nothing else; a lost
`real` or `latent` group is a recall regression to read; a gained group is new and unlabelled.
Findings are cached per codebase and per hash of the analyzer's source (patchkit/analysis and
checks/), so re-running after labelling costs nothing. Writes nothing into the repository; prints
one line per codebase with a change, then the totals.
"""
import argparse
import json
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _patchkit_run import ROOT, analyzer_key, installed_layout, run_patchkit, snapshot  # noqa: E402
from analyzer_precision import CACHE, CODEBASES, fetch, group_errors, group_id, load_labels, write_sheet  # noqa: E402


def export(commit: str) -> Path:
    """The tree of ``commit`` in a scratch folder (kept between runs)."""
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", commit], capture_output=True, text=True,
                         check=True).stdout.strip()
    dest = Path(tempfile.gettempdir()) / f"patchkit-{sha}"
    if not (dest / "patchkit").is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", sha], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
        (dest / "COMMIT").write_text(sha + "\n")
    installed_layout(dest, dest)
    return dest


def error_groups(name: str, checkout: Path, key: str) -> dict:
    """{group id: number of errors} of ``patchkit check`` (default settings) on codebase NAME; the
    error findings themselves are kept beside (``errors-NAME-KEY.json``) for the sheets."""
    root = fetch(name)
    saved = CACHE / f"groups-{name}-{key}.json"
    if saved.is_file():
        return json.loads(saved.read_text())
    findings = run_patchkit(root.name, checkout, ("--fail-on", "error", "--no-cache"), cwd=root.parent)
    errors = [f for f in findings if f.get("severity") == "error"]
    (CACHE / f"errors-{name}-{key}.json").write_text(json.dumps(errors))
    groups = {group_id(k): len(v) for k, v in group_errors(findings).items()}
    saved.write_text(json.dumps(groups))
    return groups


def moved_groups(name: str, key: str, gained: list, lost: list) -> dict:
    """{gained group: lost group} where the gained group's findings name the lost group's class
    among the other classes the same read fails for (``also_in``), same attribute and code."""
    saved = CACHE / f"errors-{name}-{key}.json"
    if not saved.is_file() or not gained or not lost:
        return {}
    lost_set = set(lost)
    out = {}
    for f in json.loads(saved.read_text()):
        g = group_id((f.get("class") or "?", f.get("attribute") or "?", f["code"]))
        if g not in gained or g in out:
            continue
        for other in f.get("also_in") or []:
            was = group_id((other, f.get("attribute") or "?", f["code"]))
            if was in lost_set and was not in out.values():
                out[g] = was
                break
    return out


def write_gained_sheet(name: str, key: str, gained: list, labels: dict, out: Path) -> None:
    """A labelling sheet (analyzer_precision's format) of the groups ``gained`` on codebase NAME."""
    saved = CACHE / f"errors-{name}-{key}.json"
    if not saved.is_file():
        return
    findings = json.loads(saved.read_text())
    groups = group_errors(findings)
    keys = [k for k in sorted(groups) if group_id(k) in gained]
    write_sheet(name, CODEBASES[name][0], key, "gained", fetch(name), findings, groups, keys, labels, out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="HEAD", help="commit whose analyzer is the reference (or a snapshot folder)")
    ap.add_argument("--new", type=Path, default=ROOT, help="checkout with the change (default: this tree)")
    ap.add_argument("--codebase", action="append", choices=sorted(CODEBASES))
    ap.add_argument("--jobs", type=int, default=1, help="codebases analysed at once")
    ap.add_argument("--sheets", type=Path, help="write a labelling sheet of each codebase's gained groups here")
    args = ap.parse_args(argv)
    labels = load_labels()
    names = args.codebase or sorted(n for n in labels if n in CODEBASES)
    base = Path(args.base) if Path(args.base).is_dir() else export(args.base)  # a snapshot folder, or a commit
    new = snapshot(args.new.resolve())
    bkey = base.name if base.name.startswith("patchkit-wt-") else analyzer_key(base)  # a snapshot: keyed by its name
    nkey = new.name
    print(f"base {args.base} ({bkey})  new {args.new} ({nkey})  {len(names)} codebases", flush=True)
    totals = {"lost": {"real": 0, "latent": 0, "fp": 0, "unlabelled": 0}, "gained": 0, "gained_groups": [], "moved": 0}

    def one(name):
        return name, error_groups(name, base, bkey), error_groups(name, new, nkey)

    with ThreadPoolExecutor(args.jobs) as ex:
        for name, old, now in ex.map(one, names):
            cl = labels.get(name, {})
            lost = sorted(set(old) - set(now))
            gained = sorted(set(now) - set(old))
            # a read reported under another class of the same family (the class whose method holds
            # it, not the first subclass met): the same group, moved; it keeps its label
            for g, was in moved_groups(name, nkey, gained, lost).items():
                gained.remove(g)
                lost.remove(was)
                totals["moved"] += 1
                if was in cl and g not in cl:
                    cl[g] = cl[was]
            for g in lost:
                totals["lost"][cl.get(g, {}).get("label", "unlabelled")] += 1
            totals["gained"] += len(gained)
            totals["gained_groups"] += [f"{name}:{g}" for g in gained]
            if gained and args.sheets:
                args.sheets.mkdir(parents=True, exist_ok=True)
                write_gained_sheet(name, nkey, gained, cl, args.sheets / f"gained-{name}.md")
            if lost or gained:
                print(f"{name}: lost " + ", ".join(f"{g} [{cl.get(g, {}).get('label', 'unlabelled')}]" for g in lost)
                      + ("; gained " + ", ".join(gained) if gained else ""), flush=True)
    lost = totals["lost"]
    print(f"total: lost {lost['fp']} fp, {lost['real']} real, {lost['latent']} latent, {lost['unlabelled']} unlabelled; "
          f"gained {totals['gained']} groups; moved {totals['moved']} (same read, another class of the family leads)")


if __name__ == "__main__":
    main()

"""Mutation score of the engine, journal, file utilities, gate, sign-off and smoke harness, with
mutmut 3.2.3 from the package registry (issue 21, item 7).

    pip install mutmut==3.2.3            # (a venv with --system-site-packages is enough)
    python3 bench/mutation.py --mutmut /path/to/venv/bin/mutmut --sample 480 --seed 21

What it does, one step at a time (nothing is written in the repository except the results):

1. stages a copy of the repository in a scratch folder (``--stage``): the package, ``patches/``,
   ``checks/``, ``fixtures/`` and only the FAST test files named in ``TESTS`` (the machine is
   shared: the full suite never runs per mutant), plus a ``[tool.mutmut]`` section that mutates
   the modules in ``MODULES`` and copies every other module unmutated;
2. generates every mutant (mutmut's own generator), then samples ``--sample`` of them uniformly
   (``random.Random(seed).sample``; all of them when there are fewer), recorded with the seed;
3. runs ``mutmut run --max-children 1 <names>``: one mutant at a time; mutmut runs only the tests
   that execute the mutated function and kills a mutant whose tests run past 4x their clean time
   (reported as 'timeout');
4. reads each module's ``.meta`` (mutmut's exit code per mutant), applies the triage in
   ``bench/mutation_triage.json`` (mutant -> why it is equivalent) and writes
   ``bench/results/mutation-score.{json.gz,md}`` (``--tag`` names the run, e.g. before/after).

Tests that start ``python -m patchkit`` (or pass PYTHONPATH to a child that imports patchkit) are
deselected in the stage: mutmut 3 records its statistics through a trampoline that a child
process cannot reach. Their kills are not counted here (the score is a floor).
"""
from __future__ import annotations

import argparse
import ast
import datetime as _dt
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODULES = ("patchkit/engine.py", "patchkit/journal.py", "patchkit/fsutil.py", "patchkit/gate.py",
           "patchkit/signoff.py", "patchkit/smoke/server.py", "patchkit/smoke/run.py")
#: the fast tests that exercise MODULES in-process (a few seconds each)
TESTS = ("conftest.py", "test_engine.py", "test_engine_new_file.py", "test_engine_bad_inputs.py",
         "test_signoff.py", "test_mutation_kills_engine.py", "test_mutation_kills_signoff.py",
         "test_mutation_kills_smoke.py", "test_mutation_kills_journal.py", "test_mutation_kills_run.py",
         "test_mutation_kills_server.py")
#: source text that marks a test whose child process imports patchkit (see the docstring)
CHILD_IMPORTS = ("_cli(", "PYTHONPATH", "str(script)")
#: fixtures that need a child process or a real release copy (slow): their tests are deselected too
SLOW_FIXTURES = ("tmpfs", "sglang_scratch", "patched")
#: property tests run at most this many examples per mutant (the stage's copies only)
MAX_EXAMPLES = 20
#: mutmut 3.2.3 records a test's duration from its teardown phase (about 0 s), and its timeout
#: thread compares every running mutant of a file with the SMALLEST estimate of any mutant of that
#: file (4 x (estimate + 1) s; 4 s for a mutant with no tests), then sends SIGXCPU, which mutmut
#: counts as 'killed'. So the stage gives every test this duration floor (seconds), mutants whose
#: function no staged test runs are not handed to mutmut (they are 'no tests' here), and a
#: SIGXCPU (-24) counts as a timeout, never as a kill
DURATION_FLOOR_S = 30.0
TRIAGE = ROOT / "bench" / "mutation_triage.json"
RESULTS = ROOT / "bench" / "results"
STATUS = {1: "killed", 3: "killed", -24: "timeout", 0: "survived", 5: "no tests", 33: "no tests",
          34: "skipped", 35: "suspicious", 36: "timeout", 24: "timeout", 152: "timeout", 255: "timeout",
          None: "not checked"}

DESELECT_PLUGIN = '''

# ---- added by bench/mutation.py: deselect tests whose child process imports patchkit
import inspect as _inspect

_CHILD_IMPORTS = {child!r}


def pytest_collection_modifyitems(config, items):
    keep, drop = [], []
    for item in items:
        fn = getattr(item, "function", None)
        try:
            src = _inspect.getsource(fn) if fn is not None else ""
        except (OSError, TypeError):
            src = ""
        names = set(getattr(item, "fixturenames", ()))
        (drop if any(c in src for c in _CHILD_IMPORTS) or names & {slow!r}
         else keep).append(item)
    items[:] = keep
    config.hook.pytest_deselected(items=drop)
'''


def stage(dest: Path, without_new: bool = False) -> list[str]:
    """Copy what the tests need into ``dest``; return the staged test files."""
    if dest.exists():
        shutil.rmtree(dest)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("patchkit", "patches", "checks", "fixtures"):
        shutil.copytree(ROOT / part, dest / part, ignore=ignore)
    staged = stage_tests(dest, without_new)
    others = sorted(p for p in glob.glob("patchkit/**/*.py", root_dir=dest, recursive=True) if p not in MODULES)
    py = (ROOT / "pyproject.toml").read_text()
    py += ("\n[tool.mutmut]\npaths_to_mutate = [\"patchkit/\"]\n"
           "also_copy = [\"patches/\", \"checks/\", \"fixtures/\"]\n"
           f"do_not_mutate = {json.dumps(others)}\n")
    (dest / "pyproject.toml").write_text(py)
    return staged


def stage_tests(dest: Path, without_new: bool = False) -> list[str]:
    """(Re)write the staged test files in ``dest/tests`` (and in ``dest/mutants/tests`` when the
    mutants exist)."""
    staged = []
    for folder in (dest / "tests", dest / "mutants" / "tests"):
        if folder.parent.name == "mutants" and not folder.parent.exists():
            continue
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        staged = _write_tests(folder, without_new)
    return staged


def _write_tests(folder: Path, without_new: bool) -> list[str]:
    staged = []
    for name in TESTS:
        if without_new and name.startswith("test_mutation_kills_"):
            continue
        src = ROOT / "tests" / name
        if src.exists():
            text = re.sub(r"max_examples=(\d+)", lambda m: f"max_examples={min(int(m.group(1)), MAX_EXAMPLES)}",
                          src.read_text())
            (folder / name).write_text(text)
            staged.append(name)
    with open(folder / "conftest.py", "a") as f:
        f.write(DESELECT_PLUGIN.format(child=CHILD_IMPORTS, slow=set(SLOW_FIXTURES)))
    return staged


#: mutmut 3.2.3's trampoline calls a METHOD's mutant without ``self`` (the mutants live in a class
#: attribute dict of plain functions), so every method mutant fails with a TypeError and counts as
#: killed. The stage binds the mutant to the instance the original is bound to.
_CALL = "    result = mutants[mutant_name](*args, **kwargs)"
_BOUND_CALL = ("    _m = mutants[mutant_name]\n"
               "    if hasattr(orig, '__self__') and hasattr(_m, '__get__'):\n"
               "        _m = _m.__get__(orig.__self__)\n"
               "    result = _m(*args, **kwargs)")


def fix_trampolines(dest: Path) -> int:
    """Patch the method-call bug in every generated module (keeping its mtime, which mutmut
    compares with the source's to decide whether to regenerate); returns the modules patched."""
    n = 0
    for mod in MODULES:
        out = dest / "mutants" / mod
        text = out.read_text()
        fixed = text.replace(_CALL, _BOUND_CALL).replace(_CALL.replace("result = ", "result = yield from "),
                                                        _BOUND_CALL.replace("result = ", "result = yield from "))
        if fixed != text:
            st = os.stat(out)
            out.write_text(fixed)
            os.utime(out, ns=(st.st_atime_ns, st.st_mtime_ns))
            n += 1
    return n


def generate(dest: Path, mutmut_python: str) -> None:
    """mutmut's own generator (``create_mutants``) without running anything."""
    code = ("import os, mutmut.__main__ as m; os.environ['MUTANT_UNDER_TEST'] = 'mutant_generation'; "
            "m.read_config(); os.makedirs('mutants', exist_ok=True); m.create_mutants(); m.copy_also_copy_files()")
    subprocess.run([mutmut_python, "-c", code], cwd=dest, check=True, stdout=subprocess.DEVNULL)
    fix_trampolines(dest)


def collect_stats(dest: Path, mutmut: str) -> int:
    """Run mutmut's statistics pass (which tests execute which function) once, then give every
    test the duration floor; returns the number of tests."""
    code = ("import os, sys; sys.path.insert(0, os.path.abspath('mutants')); import mutmut.__main__ as m; "
            "m.read_config(); r = m.PytestRunner(); r.prepare_main_test_run(); m.run_stats_collection(r); "
            "m.save_stats()")  # what 'mutmut run' does first, with the mutants on the path as it puts them
    subprocess.run([str(Path(mutmut).parent / "python"), "-c", code], cwd=dest, check=True,
                   stdout=subprocess.DEVNULL)
    path = dest / "mutants" / "mutmut-stats.json"
    stats = json.loads(path.read_text())
    stats["duration_by_test"] = {k: max(v, DURATION_FLOOR_S) for k, v in stats["duration_by_test"].items()}
    path.write_text(json.dumps(stats, indent=1))
    if not stats["tests_by_mangled_function_name"]:
        raise SystemExit(f"{path}: the statistics pass saw no mutated function run (is patchkit imported from "
                         f"the stage?)")
    return len(stats["duration_by_test"])


def function_of(mutant: str) -> str:
    return mutant.rsplit("__mutmut_", 1)[0]


def tested_functions(dest: Path) -> set[str]:
    stats = json.loads((dest / "mutants" / "mutmut-stats.json").read_text())
    return {k for k, v in stats["tests_by_mangled_function_name"].items() if v}


def metas(dest: Path) -> dict[str, dict]:
    out = {}
    for mod in MODULES:
        meta = dest / "mutants" / (mod + ".meta")
        out[mod] = json.loads(meta.read_text())["exit_code_by_key"] if meta.exists() else {}
    return out


def module_of(name: str) -> str:
    dotted = name.split(".x_")[0].split(".xǁ")[0]
    return dotted.replace(".", "/") + ".py"


_DIFFS = """
import json, sys
from difflib import unified_diff
from pathlib import Path
import mutmut.__main__ as m
m.read_config()
out, trees = {}, {}
for name, path in json.load(sys.stdin):
    if path not in trees:
        trees[path] = m.read_mutants_ast(Path(path))
    tree = trees[path]
    try:
        a = m.read_original_ast_node(tree, name).get_code().strip().split("\\n")
        b = m.read_mutant_ast_node(tree, name).get_code().strip().split("\\n")
    except Exception:  # mutmut 3.2.3 cannot find some functions by name: read both defs with ast
        import ast
        fn = name.rsplit(".", 1)[-1]
        defs = {n.name: n for n in ast.walk(ast.parse((Path("mutants") / path).read_text()))
                if isinstance(n, ast.FunctionDef)}
        orig, mut = defs.get(fn.rsplit("__mutmut_", 1)[0] + "__mutmut_orig"), defs.get(fn)
        if orig is None or mut is None:
            out[name] = ["(no diff found)"]
            continue
        mut.name = orig.name
        a, b = ast.unparse(orig).split("\\n"), ast.unparse(mut).split("\\n")
    out[name] = [ln for ln in unified_diff(a, b, lineterm="") if ln[:1] in "-+" and ln[:3] not in ("---", "+++")]
json.dump(out, sys.stdout)
"""


def diffs_of(dest: Path, mutmut_python: str, names: list[tuple[str, str]]) -> dict[str, str]:
    """{mutant: its -/+ lines} for (mutant, module path) pairs, in one process (mutmut's own parser)."""
    if not names:
        return {}
    r = subprocess.run([mutmut_python, "-c", _DIFFS], cwd=dest, input=json.dumps(names), capture_output=True,
                       text=True, check=True)
    return {k: "\n".join(v) for k, v in json.loads(r.stdout).items()}


def score(per: dict) -> float | None:
    denom = per["total"] - per["equivalent"]
    return round(100.0 * per["killed"] / denom, 1) if denom else None


def _read_json(path: Path):
    """The JSON at ``path``, or at ``path`` + ``.gz`` (the committed results are gzipped: the
    repository's size budget); None when neither exists."""
    import gzip
    if path.exists():
        return json.loads(path.read_text())
    gz = path.with_name(path.name + ".gz")
    return json.loads(gzip.decompress(gz.read_bytes())) if gz.exists() else None


def _write_json_gz(path: Path, doc) -> None:
    import gzip
    path.write_bytes(gzip.compress((json.dumps(doc, indent=2) + "\n").encode(), mtime=0))


def report() -> Path:
    """bench/results/mutation-score.{json.gz,md} from the 'before' and 'after' runs."""
    runs = {tag: _read_json(RESULTS / f"mutation-score-{tag}.json")
            for tag in ("before", "after") if _read_json(RESULTS / f"mutation-score-{tag}.json") is not None}
    after = runs.get("after") or runs["before"]
    doc = dict(after, before={k: runs["before"][k] for k in ("modules", "total", "staged_tests")} if "before" in runs
               else None)
    _write_json_gz(RESULTS / "mutation-score.json.gz", doc)
    md = ["# Mutation score (issue 21, item 7)", "",
          f"Tool: {after['tool']} from the package registry, driven by `bench/mutation.py`. "
          f"{after['generated']} mutants generated in {len(after['modules'])} modules; "
          f"{after['run']} run: {after['sample']} sampled uniformly (`random.Random({after['seed']}).sample`), "
          f"of which {after['run']} drawn uniformly again (seed + 1; `--subsample`), run one at a time, "
          f"each against the staged tests that execute the mutated function.", "",
          "Score = killed / (total - equivalent). A timeout (a mutant whose tests ran past mutmut's limit) is "
          "counted apart: neither killed nor survived. 'no tests' = no staged test runs the mutated function "
          "(counted as survived).", "",
          "Reproduce (about 15-25 minutes on one core):", "",
          "    python3 -m venv --system-site-packages /tmp/mmvenv && /tmp/mmvenv/bin/pip install mutmut==3.2.3",
          f"    python3 bench/mutation.py --mutmut /tmp/mmvenv/bin/mutmut --sample {after['sample']} "
          f"--seed {after['seed']} --subsample {after.get('subsample', 0)} --tag before --without-new-tests",
          f"    python3 bench/mutation.py --mutmut /tmp/mmvenv/bin/mutmut --sample {after['sample']} "
          f"--seed {after['seed']} --subsample {after.get('subsample', 0)} --tag after",
          "    python3 bench/mutation.py --report", "",
          "| module | run (of generated) | killed | survived | no tests | timeout | equivalent | score before | score after |",
          "|---|---|---|---|---|---|---|---|---|"]
    for mod, row in list(after["modules"].items()) + [("**all**", after["total"])]:
        b = (runs.get("before", {}).get("modules", {}).get(mod) if mod != "**all**"
             else runs.get("before", {}).get("total")) or {}
        md.append(f"| {mod} | {row['total']} ({row['generated']}) | {row['killed']} | {row['survived']} | "
                  f"{row['no_tests']} | {row['timeout']} | {row['equivalent']} | "
                  f"{b.get('score_pct', '-')} % | {row['score_pct']} % |")
    md += ["", f"Staged tests (after): {', '.join(after['staged_tests'])}; property tests capped at "
           f"{after.get('max_examples')} examples in the stage; tests that start a child process importing "
           f"patchkit, or that need a real SGLang release copy, are deselected (their kills are not counted).", ""]
    if "before" in runs:
        md += [f"Staged tests (before): {', '.join(runs['before']['staged_tests'])}.", ""]
    md += ["## mutmut 3.2.3 in this tree: what the runner works around", "",
           "- a test's duration is recorded from its teardown phase (about 0 s), and the timeout thread compares "
           "every running mutant of a file with the smallest estimate in that file, then sends SIGXCPU, which "
           "mutmut counts as killed: the stage gives every test a 30 s floor, mutants without tests are not "
           "handed to mutmut, and a SIGXCPU counts here as a timeout;",
           "- the trampoline calls a method's mutant without `self` (a TypeError, counted as killed): the stage "
           "binds the mutant to the instance (`fix_trampolines`); before that fix, all 18 sampled method mutants "
           "of run.py were 'killed' by the TypeError;",
           "- tests whose child process imports patchkit cannot reach mutmut's trampoline: deselected in the stage.",
           "",
           "The 'after' column is the after run followed by `--recheck` passes (restage the current tests, "
           "recollect mutmut's statistics, run every chosen mutant that was not killed again) while the "
           "survivors were triaged; a fresh after run with the final tests runs the same mutants against the same "
           "tests.", "",
           "## Survivors and their triage", ""]
    for sv in after["survivors"]:
        md.append(f"- `{sv['mutant']}` ({sv['status']}, {sv['triage']}){': ' + sv['why'] if sv['why'] else ''}")
        for line in sv["diff"].splitlines()[:6]:
            md.append(f"  `{line.strip()[:150]}`")
    (RESULTS / "mutation-score.md").write_text("\n".join(md) + "\n")
    return RESULTS / "mutation-score.md"


def pick(everything: list[str], sample: int, subsample: int, seed: int) -> list[str]:
    """``sample`` mutants drawn uniformly with ``seed``, then (``subsample``) a uniform part of
    them drawn with ``seed + 1``: a run on the part is comparable with a run on the whole sample."""
    chosen = sorted(random.Random(seed).sample(everything, sample)) if 0 < sample < len(everything) else everything
    if 0 < subsample < len(chosen):
        chosen = sorted(random.Random(seed + 1).sample(chosen, subsample))
    return chosen



def _run_again(mutmut: str, dest: Path, keys: list, log_name: str) -> None:
    """Run the named mutants once more, one at a time, logging to ``dest/log_name``."""
    if keys:
        with open(dest / log_name, "w") as log:
            subprocess.run([mutmut, "run", "--max-children", "1", *keys], cwd=dest, stdout=log,
                           stderr=subprocess.STDOUT)

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mutmut", default=shutil.which("mutmut") or "mutmut", help="the mutmut 3.2.3 executable")
    ap.add_argument("--stage", type=Path, default=Path(tempfile.gettempdir()) / "patchkit-mutation-stage")
    ap.add_argument("--sample", type=int, default=480, help="mutants to run, sampled uniformly (0: all)")
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--subsample", type=int, default=0,
                    help="run only this many of the sampled mutants (drawn uniformly with seed + 1)")
    ap.add_argument("--tag", default="after", help="name of this run in the results (before / after)")
    ap.add_argument("--only", nargs="*", default=(), help="run only these mutant names (re-check survivors)")
    ap.add_argument("--without-new-tests", action="store_true",
                    help="stage the suite as it was before tests/test_mutation_kills_*.py (the 'before' score)")
    ap.add_argument("--no-run", action="store_true", help="re-read the stage's results without running")
    ap.add_argument("--recheck", action="store_true",
                    help="in the existing stage: restage the tests, then run the chosen survivors again")
    ap.add_argument("--methods", action="store_true",
                    help="with --recheck: run every method mutant again (after the trampoline fix)")
    ap.add_argument("--rerun-timeouts", action="store_true",
                    help="run again, in the existing stage, the chosen mutants that timed out (SIGXCPU)")
    ap.add_argument("--report", action="store_true", help="only write mutation-score.{json.gz,md} from the runs")
    args = ap.parse_args()
    if args.report:
        print(f"wrote {report()}")
        return 0
    mutmut = os.path.abspath(args.mutmut) if os.sep in args.mutmut else args.mutmut
    mutmut_python = str(Path(shutil.which(mutmut) or mutmut).parent / "python")
    dest = args.stage.resolve()
    t0 = time.monotonic()
    if args.recheck:  # the tests changed: new statistics, then the chosen survivors again
        info = json.loads((dest / "chosen.json").read_text())
        info["staged_tests"] = stage_tests(dest)
        (dest / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)
        info["tests"] = collect_stats(dest, mutmut)
        (dest / "chosen.json").write_text(json.dumps(info))
        tested = tested_functions(dest)
        fix_trampolines(dest)
        again = sorted(k for codes in metas(dest).values() for k, v in codes.items()
                       if k in set(info["chosen"]) and function_of(k) in tested
                       and (STATUS.get(v) != "killed" or (args.methods and "ǁ" in k)))
        print(f"re-checking {len(again)} surviving mutants with the current tests", flush=True)
        _run_again(mutmut, dest, again, "mutmut-recheck.log")
        args.no_run = True
    if args.rerun_timeouts:
        info = json.loads((dest / "chosen.json").read_text())
        chosen = set(pick(info["chosen"], 0, args.subsample, info["seed"])) if args.subsample else set(info["chosen"])
        path = dest / "mutants" / "mutmut-stats.json"
        stats = json.loads(path.read_text())
        stats["duration_by_test"] = {k: max(v, DURATION_FLOOR_S) for k, v in stats["duration_by_test"].items()}
        path.write_text(json.dumps(stats, indent=1))
        again = sorted(k for codes in metas(dest).values() for k, v in codes.items()
                       if k in chosen and STATUS.get(v) == "timeout")
        print(f"running {len(again)} timed-out mutants again", flush=True)
        _run_again(mutmut, dest, again, "mutmut-rerun.log")
        args.no_run = True
    if not args.no_run:
        staged = stage(dest, args.without_new_tests)
        generate(dest, mutmut_python)
        n_tests = collect_stats(dest, mutmut)
        everything = sorted(k for m in metas(dest).values() for k in m)
        if args.only:
            chosen = sorted(set(args.only))
        else:
            chosen = pick(everything, args.sample, args.subsample, args.seed)
        (dest / "chosen.json").write_text(json.dumps({"seed": args.seed, "sample": args.sample,
                                                      "subsample": args.subsample, "staged_tests": staged,
                                                      "generated": len(everything), "tests": n_tests,
                                                      "chosen": chosen}))
        tested = tested_functions(dest)
        runnable = [m for m in chosen if function_of(m) in tested]
        print(f"{len(everything)} mutants generated in {len(MODULES)} modules, {n_tests} tests; {len(chosen)} chosen "
              f"(seed {args.seed}), {len(runnable)} with tests, run one at a time", flush=True)
        log = open(dest / "mutmut-run.log", "w")
        r = subprocess.run([mutmut, "run", "--max-children", "1", *runnable], cwd=dest, stdout=log,
                           stderr=subprocess.STDOUT) if runnable else subprocess.CompletedProcess([], 0)
        log.close()
        if r.returncode != 0:
            print((dest / "mutmut-run.log").read_text()[-3000:])
            print(f"mutmut run exited {r.returncode}")
            return 2
    info = json.loads((dest / "chosen.json").read_text())
    chosen = set(info["chosen"])
    if args.no_run and args.subsample:  # re-read a run on the part of its sample a later run used
        chosen = set(pick(sorted(chosen), 0, args.subsample, info["seed"]))
        info.update(subsample=args.subsample)
    triage = json.loads(TRIAGE.read_text()) if TRIAGE.exists() else {}
    per: dict[str, dict] = {}
    survivors = []
    for mod, codes in metas(dest).items():
        row = {"generated": len(codes), "total": 0, "killed": 0, "survived": 0, "equivalent": 0, "timeout": 0,
               "no_tests": 0}
        tested = tested_functions(dest)
        for name, code in sorted(codes.items()):
            if name not in chosen:
                continue
            status = STATUS.get(code, f"exit {code}") if function_of(name) in tested else "no tests"
            row["total"] += 1
            if status == "killed":
                row["killed"] += 1
            elif status == "timeout":
                row["timeout"] += 1
            elif name in triage:
                row["equivalent"] += 1
                survivors.append({"mutant": name, "module": mod, "status": status, "triage": "equivalent",
                                  "why": triage[name]})
            else:
                row["survived" if status != "no tests" else "no_tests"] += 1
                survivors.append({"mutant": name, "module": mod, "status": status, "triage": "open", "why": ""})
        row["score_pct"] = score(row)
        per[mod] = row
    diffs = diffs_of(dest, mutmut_python, [(sv["mutant"], sv["module"]) for sv in survivors])
    for sv in survivors:
        sv["diff"] = diffs.get(sv["mutant"], "")
    tot = {k: sum(r[k] for r in per.values()) for k in ("generated", "total", "killed", "survived", "equivalent",
                                                         "timeout", "no_tests")}
    tot["score_pct"] = score(tot)
    doc = {"tool": "mutmut 3.2.3", "tag": args.tag, "seed": info["seed"], "sample": info["sample"],
           "subsample": info.get("subsample", 0),
           "generated": info["generated"], "run": len(chosen), "staged_tests": info["staged_tests"],
           "tests_selected": info.get("tests"), "max_examples": MAX_EXAMPLES, "duration_floor_s": DURATION_FLOOR_S,
           "deselected_markers": list(CHILD_IMPORTS), "deselected_fixtures": list(SLOW_FIXTURES),
           "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
           "wall_s": round(time.monotonic() - t0, 1),
           "score_definition": "killed / (total - equivalent); a timeout is counted apart (neither killed nor survived)",
           "modules": per, "total": tot, "survivors": survivors}
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"mutation-score-{args.tag}.json.gz"
    _write_json_gz(out, doc)
    print(json.dumps({"modules": per, "total": tot}, indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

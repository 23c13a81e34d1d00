#!/usr/bin/env python3
"""SIGKILL patchkit at every write, fsync, rename and unlink of apply, revert and
apply-after-interrupted-revert on a copy of a real SGLang release, let patchkit recover by
itself (the next command, itself killed at every point of its own recovery until one finishes),
and count what issue 17 asks for: half-written files, journals that disagree with the tree,
states that need a human, tracebacks, writes outside the target.

    python3 bench/fault_injection.py [--release 0.5.16] [--patch dynamic-spec-disable] [--min-kills 500]

Each command runs in a forked child whose ``os`` write functions are wrapped: the Nth call
logs its path, then the child SIGKILLs itself before the call runs ("before"), or, for
``os.write``, after writing half the bytes ("torn"). The same harness (``run_child``) drives
tests/test_fault_injection.py on a toy target.
"""
from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: the os functions patchkit writes through; each call is one kill point
OPS = ("open", "write", "fsync", "fchmod", "ftruncate", "replace", "rename", "unlink", "mkdir", "rmdir")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


@dataclass
class Run:
    """One child: its exit code (None when killed), output, and the write points it reached."""

    rc: Optional[int]
    killed: bool
    out: str
    err: str
    #: (op, path) of every write point reached, in order (the killing one last)
    points: list[tuple[str, str]] = field(default_factory=list)

    @property
    def traceback(self) -> bool:
        return "Traceback (most recent call last)" in self.out + self.err or self.rc == 70


def _arm(kill_at: Optional[int], torn: bool, logfd: int) -> None:
    real = {name: getattr(os, name) for name in OPS}
    real_write = real["write"]
    count = [0]

    def where(op, args):
        a = args[0] if args else ""
        if isinstance(a, int):
            try:
                return os.readlink(f"/proc/self/fd/{a}")
            except OSError:
                return f"fd:{a}"
        return os.fsdecode(a)

    def make(op):
        fn = real[op]

        def wrapper(*args, **kw):
            if op == "open" and not (args[1] if len(args) > 1 else kw.get("flags", 0)) & _WRITE_FLAGS:
                return fn(*args, **kw)
            count[0] += 1
            dest = where(op, args) if op not in ("replace", "rename") else os.fsdecode(args[1])
            real_write(logfd, f"{op}\t{dest}\n".encode())
            if count[0] == kill_at:
                if torn and op == "write":
                    data = bytes(args[1])
                    fn(args[0], data[: len(data) // 2])
                os.kill(os.getpid(), signal.SIGKILL)
            return fn(*args, **kw)
        return wrapper

    for op in OPS:
        setattr(os, op, make(op))


def run_child(fn: Callable[[], Optional[int]], kill_at: Optional[int] = None, torn: bool = False,
              env: Optional[dict] = None) -> Run:
    """Run ``fn`` in a forked child (its return value or SystemExit code is the exit code; an
    uncaught exception prints a traceback and exits 70), killed at write point ``kill_at``."""
    files = [tempfile.TemporaryFile() for _ in range(3)]
    pid = os.fork()
    if pid == 0:  # child
        code = 70
        try:
            out, err, log = files
            sys.stdout = io.TextIOWrapper(os.fdopen(os.dup(out.fileno()), "wb"), write_through=True)
            sys.stderr = io.TextIOWrapper(os.fdopen(os.dup(err.fileno()), "wb"), write_through=True)
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            sys.dont_write_bytecode = True
            os.environ.update(env or {})
            _arm(kill_at, torn, log.fileno())
            rv = fn()
            code = rv if isinstance(rv, int) else 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            traceback.print_exc()
            code = 70
        finally:
            with_flush = (sys.stdout, sys.stderr)
            for s in with_flush:
                try:
                    s.flush()
                except Exception:
                    pass
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    texts = []
    for f in files:
        f.seek(0)
        texts.append(f.read().decode("utf-8", "replace"))
        f.close()
    points = [tuple(line.split("\t", 1)) for line in texts[2].splitlines() if "\t" in line]
    killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    rc = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
    return Run(rc, killed, texts[0], texts[1], points)


def kill_points(reference: Run) -> list[tuple[int, bool]]:
    """Every (index, torn) of a reference run: each point killed before it runs, each write also torn."""
    pts = [(i, False) for i in range(1, len(reference.points) + 1)]
    pts += [(i, True) for i, (op, _) in enumerate(reference.points, 1) if op == "write"]
    return pts


def outside(points, roots: tuple[Path, ...]) -> list[str]:
    """Paths among ``points`` that resolve outside every folder in ``roots``."""
    real = [Path(os.path.realpath(r)) for r in roots]
    bad = []
    for _, p in points:
        if p.startswith(("fd:", "pipe:", "socket:", "anon_inode:")):
            continue
        rp = Path(os.path.realpath(p))
        if not any(rp == r or r in rp.parents for r in real):
            bad.append(p)
    return bad


# ---------------------------------------------------------------------------- the long run
class Bench:
    def __init__(self, target_root: Path, patch_name: str, cache: Path):
        from patchkit import journal as jr, registry
        from patchkit.target import directory
        self.jr = jr
        self.root = target_root
        self.target = directory(target_root, "sglang")
        self.patch = registry.patch(patch_name)
        self.name = patch_name
        self.cache = cache
        self.totals = {"kills": 0, "half_written": 0, "journal_disagrees": 0, "needs_human": 0,
                       "tracebacks": 0, "outside_writes": 0, "leftover_temp_files": 0, "recoveries_reported": 0}
        self.by_scenario: dict[str, int] = {}
        self.problems: list[str] = []
        #: kill the recovering command inside its recovery at every n-th kill point of revert
        self.nested_every = 1

    # -- commands (run in forked children)
    def cli(self, *args: str) -> Callable[[], None]:
        def fn():
            from patchkit.cli import main
            main([*args, "--target-dir", str(self.root)], prog_name="patchkit")
        return fn

    def run(self, args, kill_at=None, torn=False) -> Run:
        r = run_child(self.cli(*args), kill_at, torn)
        if r.traceback:
            self.totals["tracebacks"] += 1
            self.problems.append(f"traceback in {' '.join(args)} (kill {kill_at}): {(r.err or r.out)[-300:]}")
        bad = outside(r.points, (self.root, self.cache))
        if bad:
            self.totals["outside_writes"] += len(bad)
            self.problems.append(f"{' '.join(args)} wrote outside the target: {bad[:3]}")
        return r

    # -- the tree
    def snapshot(self) -> dict[str, Optional[bytes]]:
        out = {}
        for rel in self.files:
            p = self.root / rel
            out[rel] = p.read_bytes() if p.exists() else None
        return out

    def state(self) -> str:
        snap = self.snapshot()
        if snap == self.original:
            return "original"
        if snap == self.patched:
            return "patched"
        return "mixed"

    def half_written(self) -> int:
        snap = self.snapshot()
        return sum(1 for rel, b in snap.items() if b not in (self.original[rel], self.patched[rel]))

    def temps(self) -> list[Path]:
        out = []
        for folder in {(self.root / rel).parent for rel in self.files} | {self.root / ".patchkit",
                                                                           self.root / ".patchkit" / "originals"}:
            if folder.is_dir():
                out += [p for p in folder.iterdir() if p.name.endswith(".patchkit-tmp")]
        return out

    def agrees(self) -> Optional[str]:
        """None when no intent is left and the journal says exactly what the tree is."""
        if (self.root / ".patchkit" / "intent.json").exists():
            return "intent.json left behind"
        try:
            j = self.jr.load(self.target)
        except Exception as exc:
            return f"journal unreadable: {exc}"
        entries = j.for_patch(self.name)
        st = self.state()
        if entries:
            if len(entries) != len({e.file for e in entries}) or len(entries) != len(self.files):
                return f"journal has {len(entries)} entries for {len(self.files)} files (duplicates?)"
            if st != "patched":
                return f"journal lists the patch but the tree is {st}"
            for e in entries:
                if e.sha_after != _sha(self.patched[e.file]):
                    return f"{e.file}: journal sha_after disagrees"
        elif st != "original":
            return f"journal lists nothing but the tree is {st}"
        return None

    def check_after_kill(self, label: str) -> None:
        self.totals["kills"] += 1
        if self.totals["kills"] % 50 == 0:
            print(f"  ... {self.totals['kills']} kills ({label})", file=sys.stderr, flush=True)
        kind = re.sub(r"@\d+t?", "", label)  # "revert@12t+apply/recovery" -> "revert+apply/recovery"
        self.by_scenario[kind] = self.by_scenario.get(kind, 0) + 1
        hw = self.half_written()
        if hw:
            self.totals["half_written"] += hw
            self.problems.append(f"{label}: {hw} half-written file(s)")

    def recover_with(self, cmd: list[str], label: str, nested: bool = True) -> Optional[Run]:
        """Run ``cmd``; with ``nested``, first kill it at each of its own write points until one
        run gets past its recovery (the intent removed), so a kill during recovery is recovered too."""
        k = 1
        nested = nested and (self.root / ".patchkit" / "intent.json").exists()
        while nested:
            r = self.run(cmd, kill_at=k)
            if not r.killed:
                if "recovered:" in r.err:
                    self.totals["recoveries_reported"] += 1
                return r
            self.check_after_kill(label + "/recovery")
            done = any(op == "unlink" and p.endswith("/intent.json") for op, p in r.points[:-1])
            if done:
                break
            k += 1
        r = self.run(cmd)
        if "recovered:" in r.err:
            self.totals["recoveries_reported"] += 1
        return r

    def verify(self, label: str, r: Optional[Run], ok_codes=(0,)) -> None:
        why = None
        if r is None or r.rc not in ok_codes:
            why = f"rc {None if r is None else r.rc}: {(r.err if r else '')[-300:]}"
        why = why or self.agrees()
        left = self.temps()
        if left:
            self.totals["leftover_temp_files"] += len(left)
            why = why or f"temp files left: {[p.name for p in left[:3]]}"
        if why:
            self.problems.append(f"{label}: {why}")
            if "journal" in why or "intent" in why or "tree is" in why:
                self.totals["journal_disagrees"] += 1
            self.totals["needs_human"] += 1
            self.reset_hard()

    def reset_hard(self) -> None:
        for rel, b in self.original.items():
            p = self.root / rel
            if b is None:
                p.unlink(missing_ok=True)
            else:
                p.write_bytes(b)
        shutil.rmtree(self.root / ".patchkit", ignore_errors=True)
        for p in self.temps():
            p.unlink()

    def fresh(self) -> None:
        """The original tree without any .patchkit/ (so apply also keeps its originals)."""
        self.ensure("original")
        shutil.rmtree(self.root / ".patchkit", ignore_errors=True)

    def ensure(self, want: str) -> None:
        st = self.state()
        if st == want:
            return
        r = self.run(["apply" if want == "patched" else "revert", self.name])
        if r.rc != 0 or self.state() != want:
            self.problems.append(f"could not reach {want}: {r.err[-300:]}")
            self.totals["needs_human"] += 1
            self.reset_hard()
            if want == "patched":
                self.run(["apply", self.name])

    # -- scenarios
    def prepare(self) -> None:
        from patchkit import engine
        self.files = list(self.patch.plan(self.target.version, engine.reader(self.target)).files)
        self.original = self.snapshot()
        engine.apply(self.patch, self.target)  # warm the parse and analyzer caches in this process
        self.patched = self.snapshot()
        engine.revert(self.patch, self.target)
        assert self.snapshot() == self.original
        self.fresh()
        self.ref_apply = self.run(["apply", self.name])
        self.ref_revert = self.run(["revert", self.name])
        assert self.ref_apply.rc == 0 and self.ref_revert.rc == 0, (self.ref_apply.err, self.ref_revert.err)

    RECOVERERS = (["status"], ["apply"], ["revert"], ["diff"])

    def sweep_apply(self) -> None:
        for n, (k, torn) in enumerate(kill_points(self.ref_apply)):
            self.fresh()
            r = self.run(["apply", self.name], kill_at=k, torn=torn)
            label = f"apply@{k}{'t' if torn else ''}"
            if not r.killed:
                self.problems.append(f"{label}: not killed (rc {r.rc})")
                continue
            self.check_after_kill("apply")
            cmd = self.RECOVERERS[n % len(self.RECOVERERS)]
            rec = self.recover_with([cmd[0]] + ([self.name] if cmd[0] != "status" else []), label)
            diff_ok = (0, 2) if cmd[0] == "diff" else (0,)
            self.verify(label, rec, diff_ok)

    def sweep_revert(self) -> None:
        for n, (k, torn) in enumerate(kill_points(self.ref_revert)):
            self.ensure("patched")
            r = self.run(["revert", self.name], kill_at=k, torn=torn)
            label = f"revert@{k}{'t' if torn else ''}"
            if not r.killed:
                self.problems.append(f"{label}: not killed (rc {r.rc})")
                continue
            self.check_after_kill("revert")
            cmd = self.RECOVERERS[n % len(self.RECOVERERS)]
            rec = self.recover_with([cmd[0]] + ([self.name] if cmd[0] != "status" else []), label,
                                    nested=n % self.nested_every == 0)
            self.verify(label, rec, (0, 2) if cmd[0] == "diff" else (0,))

    def sweep_apply_after_revert(self) -> None:
        for k, torn in kill_points(self.ref_revert):
            self.ensure("patched")
            r = self.run(["revert", self.name], kill_at=k, torn=torn)
            label = f"revert@{k}{'t' if torn else ''}+apply"
            if not r.killed:
                continue
            self.check_after_kill("apply-after-interrupted-revert")
            rec = self.recover_with(["apply", self.name], label, nested=k % self.nested_every == 0)  # killed too
            self.verify(label, rec)
            if self.state() != "patched":
                self.problems.append(f"{label}: apply did not end patched")
                self.totals["needs_human"] += 1
            r2 = self.run(["revert", self.name])
            self.verify(label + "+revert", r2)


def _sha(b: Optional[bytes]) -> Optional[str]:
    import hashlib
    return None if b is None else hashlib.sha256(b).hexdigest()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--release", default="0.5.16")
    ap.add_argument("--patch", default="dynamic-spec-disable")
    ap.add_argument("--min-kills", type=int, default=500)
    ap.add_argument("--nested-every", type=int, default=2,
                    help="for revert kills, kill the recovery too at every n-th point (apply kills: always)")
    ap.add_argument("--work", type=Path, default=None, help="scratch folder (default: a temp folder)")
    args = ap.parse_args()
    from patchkit import target as tgt
    work = Path(args.work or tempfile.mkdtemp(prefix="patchkit-fi-"))
    cache = work / "cache"
    os.environ["PATCHKIT_CACHE_DIR"] = str(cache)
    src = tgt.fetch(f"sglang=={args.release}")
    dest = work / "target"
    shutil.rmtree(dest, ignore_errors=True)
    t0 = time.perf_counter()
    shutil.copytree(src.root, dest, ignore=shutil.ignore_patterns("__pycache__", ".patchkit"))
    b = Bench(dest, args.patch, cache)
    b.nested_every = args.nested_every
    b.prepare()
    from patchkit import signoff
    t1 = time.perf_counter()
    m = signoff.package_manifest(b.target)
    t_manifest = time.perf_counter() - t1
    print(f"target: copy of sglang {args.release} ({m['count']} package files; manifest hash {t_manifest:.3f} s), "
          f"patch {args.patch} ({len(b.files)} files)")
    print(f"write points: apply {len(b.ref_apply.points)}, revert {len(b.ref_revert.points)} "
          f"(each killed before it runs; each os.write also torn in half)")
    rounds = 0
    while b.totals["kills"] < args.min_kills:
        b.sweep_apply()
        b.sweep_revert()
        b.sweep_apply_after_revert()
        rounds += 1
    b.ensure("original")
    secs = time.perf_counter() - t0
    print(f"rounds: {rounds}, {secs:.0f} s")
    names = {"apply": "apply", "revert": "revert", "apply-after-interrupted-revert": "revert, then apply",
             "apply/recovery": "the command recovering an interrupted apply (status/apply/revert/diff)",
             "revert/recovery": "the command recovering an interrupted revert (status/apply/revert/diff)",
             "revert+apply/recovery": "the apply recovering an interrupted revert"}
    for k, v in b.by_scenario.items():
        print(f"  kills during {names.get(k, k)}: {v}")
    print("totals:")
    for k, v in b.totals.items():
        print(f"  {k}: {v}")
    goals = all(b.totals[k] == 0 for k in ("half_written", "journal_disagrees", "needs_human", "tracebacks",
                                            "outside_writes", "leftover_temp_files"))
    print(f"goal (>= {args.min_kills} kills; 0 half-written, 0 disagreeing journals, 0 needing a human, "
          f"0 tracebacks, 0 writes outside the target): {'MET' if goals and b.totals['kills'] >= args.min_kills else 'MISSED'}")
    for p in b.problems[:20]:
        print("  problem:", p)
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if goals else 1


if __name__ == "__main__":
    sys.exit(main())

"""Apply each of issue 21's hand-made survivors to a scratch copy and run the test that should kill it."""
import os, shutil, subprocess, sys, tempfile
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MUT = [
 ("atomic_write skips the fsync", "patchkit/fsutil.py", "            if durable:\n                os.fsync(fd)\n", "            pass\n", "tests/test_mutation_kills_engine.py"),
 ("target written in place", "patchkit/fsutil.py", "fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600)", "fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _CLOEXEC, 0o600)", "tests/test_mutation_kills_engine.py", ("        os.replace(tmp, path)\n", "        pass\n")),
 ("no hash check of a kept original", "patchkit/journal.py", "        if sha256_bytes(data) != sha:\n            raise JournalError(f\"{p}: the kept original is corrupted", "        if False:\n            raise JournalError(f\"{p}: the kept original is corrupted", "tests/test_mutation_kills_engine.py"),
 ("no drift error when half present", "patchkit/engine.py", "        if any(flags):\n            done =", "        if False:\n            done =", "tests/test_mutation_kills_engine.py"),
 ("passed: false accepted", "patchkit/signoff.py", "    if not record[\"passed\"]:\n", "    if False:\n", "tests/test_mutation_kills_signoff.py"),
 ("file hashes not compared", "patchkit/signoff.py", "        if signed.get(rel) != sha:\n", "        if False:\n", "tests/test_mutation_kills_signoff.py"),
 ("super() from the concrete class", "patchkit/analysis/calls.py", "            after = fr.cls\n            sargs", "            after = self.mro[0]\n            sargs", "tests/test_mutation_kills_analyzer.py"),
 ("leftovers do not fail teardown (run.py)", "patchkit/smoke/run.py", "clean = not rep.get(\"leftover_pids\") and ok_mem", "clean = ok_mem", "tests/test_mutation_kills_smoke.py"),
 ("leftovers not reported (server.py)", "patchkit/smoke/server.py", "report[\"leftover_pids\"] = sorted(", "report[\"leftover_pids\"] = [] if True else sorted(", "tests/test_mutation_kills_smoke.py"),
]
out = []
only = sys.argv[1:]
for m in MUT:
    if only and not any(o in m[0] for o in only):
        continue
    name, rel, old, new, test = m[:5]
    d = os.path.join(tempfile.gettempdir(), f"patchkit-hand-mutant-{os.getpid()}")
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(SRC, d, ignore=shutil.ignore_patterns(".git", "__pycache__", "bench", "mutants"))
    p = os.path.join(d, rel)
    s = open(p).read()
    for o, n in [(old, new)] + list(m[5:]):
        assert s.count(o) == 1, (name, o)
        s = s.replace(o, n)
    open(p, "w").write(s)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test], cwd=d,
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": d})
    failed = [l.split(" - ")[0] for l in r.stdout.splitlines() if l.startswith("FAILED")]
    print(f"{name}: rc={r.returncode} ({'KILLED' if r.returncode == 1 else 'SURVIVED' if r.returncode == 0 else 'ERROR'}) "
          f"by {failed}", flush=True)
    print("   ", (r.stdout.strip().splitlines() or ["(no output)"])[-1])
    shutil.rmtree(d, ignore_errors=True)

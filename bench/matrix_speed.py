#!/usr/bin/env python3
"""`patchkit matrix dynamic-spec-disable --versions 0.5.6..0.5.23` with a warm cache, against
its peer: the same releases dry-run one by one as separate `patchkit apply --dry-run` processes
(what a shell loop over releases would do). Goal: well under a minute warm."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from _timing import timed  # noqa: E402




def main():
    spec = sys.argv[1] if len(sys.argv) > 1 else "0.5.6..0.5.23"
    warmup, r = timed([sys.executable, "-m", "patchkit", "matrix", "dynamic-spec-disable", "--versions", spec, "--json"])
    import json
    rows = json.loads(r.stdout)
    t, _ = timed([sys.executable, "-m", "patchkit", "matrix", "dynamic-spec-disable", "--versions", spec, "--json"])
    loop = 0.0
    for row in rows:
        dt, _ = timed([sys.executable, "-m", "patchkit", "apply", "dynamic-spec-disable", "--release",
                     f"sglang=={row['version']}", "--dry-run", "--json"])
        loop += dt
    verdicts = {}
    for row in rows:
        verdicts[row["verdict"]] = verdicts.get(row["verdict"], 0) + 1
    print(f"matrix over {len(rows)} releases: first run {warmup:.1f}s (fetches), warm {t:.1f}s; verdicts {verdicts}")
    print(f"peer (one dry-run process per release): {loop:.1f}s; ratio peer/matrix {loop / t:.2f}x; goal < 60 s")


if __name__ == "__main__":
    main()

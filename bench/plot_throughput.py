#!/usr/bin/env python3
"""Plot bench/results/bench/bench.json (from bench/spec_throughput.py): tok/s vs concurrency."""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

src = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/results/bench/bench.json")
doc = json.loads(src.read_text())
fig, ax = plt.subplots(figsize=(7, 4.5))
for r in doc["results"]:
    xs = [lv["concurrency"] for lv in r["levels"]]
    ys = [lv["output_tok_s"] for lv in r["levels"]]
    ax.plot(xs, ys, marker="o", label=r["config"])
ax.set_xscale("log", base=2)
ax.set_xlabel("concurrency (closed loop, 128 in / 128 out)")
ax.set_ylabel("output tok/s")
ax.set_title("SGLang 0.5.12 tiny Llama + EAGLE-3, dummy weights, 1x H200", fontsize=10)
ax.grid(True, alpha=0.3)
ax.legend()
out = src.with_name("throughput.png")
fig.tight_layout()
fig.savefig(out, dpi=110)
print(out)

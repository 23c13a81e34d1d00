#!/usr/bin/env python3
"""Plot tok/s vs concurrency for every configuration in one or more bench JSON files (from
bench/spec_throughput.py, gzipped or not; the steady window's figure when the run used ``--metric
window``), one panel per file:  python3 bench/plot_throughput.py A.json [B.json] -o out.png
[--label "panel A title prefix" --label ...]"""
import argparse
import gzip
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("files", nargs="+")
ap.add_argument("-o", "--out", required=True)
ap.add_argument("--label", action="append", default=[], help="title prefix of each panel, in file order")
args = ap.parse_args()
docs = [json.loads(gzip.decompress(Path(f).read_bytes()) if f.endswith(".gz") else Path(f).read_text())
        for f in args.files]
fig, axes = plt.subplots(1, len(docs), figsize=(6.5 * len(docs), 4.6), squeeze=False)
for i, (ax, doc) in enumerate(zip(axes[0], docs)):
    env = doc.get("environment", {})
    # the figure the run compared: the steady window's tok/s under ``--metric window``, else the whole loop's
    key = "window_tok_s" if doc.get("metric") == "window" else "output_tok_s"
    for r in doc["results"]:
        pts = [(lv["concurrency"], lv[key]) for lv in r["levels"] if (lv.get(key) or 0) > 0]
        label = r["config"] + (f" (T={r['threshold']})" if r.get("threshold") is not None else "")
        if r.get("error") and not pts:
            label += ": crashed"
        if pts:
            ax.plot(*zip(*pts), marker="o", label=label)
        else:
            ax.plot([], [], " ", label=label)  # a crashed configuration still shows in the legend
    if doc.get("recommended_threshold") is not None:
        ax.axvline(doc["recommended_threshold"], color="grey", ls=":", lw=1)
    ax.set_xscale("log", base=2)
    ax.set_xlabel(f"concurrency (closed loop, {doc['args']['in_len']} in / {doc['args']['out_len']} out)")
    ax.set_ylabel("output tok/s" + (" (steady window)" if key == "window_tok_s" else ""))
    m = env.get("model", {})
    prefix = args.label[i] + "\n" if i < len(args.label) else ""
    ax.set_title(f"{prefix}SGLang {env.get('sglang')}, {m.get('size', '?')} Llama + EAGLE-3 "
                 f"(accept p={m.get('p_accept')}), {env.get('gpu')}", fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(args.out, dpi=110)
print(args.out)

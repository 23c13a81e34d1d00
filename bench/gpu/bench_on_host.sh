#!/usr/bin/env bash
# On the GPU host from the repo root: bench/gpu/bench_on_host.sh BUNDLE_DIR   (writes into $OUT)
set -u
B=$1; OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; SITE=/tmp/site
rm -rf $SITE /tmp/bench; mkdir -p $SITE && tar xf "$B/site.tar.xz" -C $SITE || exit 3
python3 -m pip install -q --no-index --no-deps --no-compile --target $SITE .whl/*.whl || exit 3
export PYTHONPATH=$SITE:$PWD PYTHONUNBUFFERED=1 PATCHKIT_CACHE_DIR=/tmp/pkc
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
python3 -m patchkit apply dynamic-spec-disable --target-dir $SITE
python3 -c "import torch, sglang; print('torch', torch.__version__)" 2>/dev/null
nvidia-smi --query-gpu=name --format=csv,noheader
timeout ${BENCH_TIMEOUT:-500} python3 bench/spec_throughput.py --out "$OUT/bench.json" ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench-console.txt"
for f in /tmp/bench/server-*.log; do grep -v "^\s*$" "$f" | tail -c 200000 > "$OUT/$(basename $f)"; done

#!/usr/bin/env bash
# On the GPU host, from the repo root: bench/gpu/cells_on_host.sh BUNDLE_DIR VERSION
# Unpacks the offline SGLang bundle, applies dynamic-spec-disable, runs the gate, then
# bench/gpu/cells.py in the background (setsid, so it outlives this call); waits up to
# WAIT seconds and copies what exists to $OUT. A later call with COLLECT=1 only collects.
set -u
B=$1; V=$2; OUT=${OUT:-/tmp/out}; W=/tmp/cells-$V; mkdir -p "$OUT"
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 PATCHKIT_CACHE_DIR=/tmp/pkc
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if [ "${COLLECT:-0}" != 1 ]; then
  rm -rf /tmp/site $W; mkdir -p /tmp/site $W
  tar xf "$B/site.tar.xz" -C /tmp/site || exit 3
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 3
  { nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv
    python3 -m patchkit apply dynamic-spec-disable --target-dir /tmp/site ${APPLY_ARGS:-}; echo "apply rc=$?"
    python3 -m patchkit gate --target-dir /tmp/site; echo "gate rc=$?"; } > $W/console.txt 2>&1
  setsid bash -c "python3 bench/gpu/cells.py --model-dir /tmp/tiny --out $W/cells.json --logs $W/logs \
      --release $V --parallel ${PAR:-4} ${MEM:+--mem $MEM} ${ONLY:+--only $ONLY} > $W/cells.txt 2>&1; echo done > $W/done" < /dev/null > /dev/null 2>&1 &
fi
end=$((SECONDS + ${WAIT:-500}))
while [ ! -f $W/done ] && [ $SECONDS -lt $end ]; do sleep 5; done
cp $W/console.txt "$OUT/console-$V.txt"; cp $W/cells.txt "$OUT/cells-$V.txt" 2>/dev/null
cp $W/cells.json "$OUT/cells-$V.json" 2>/dev/null
tar czf "$OUT/cells-logs-$V.tgz" -C $W logs 2>/dev/null
cat $W/console.txt; cat $W/cells.txt 2>/dev/null; ls $W/done 2>/dev/null || echo "still running"

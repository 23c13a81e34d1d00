#!/usr/bin/env bash
# Run on the GPU host from the repo root (the device tool's working copy):
#   bench/gpu/smoke_on_host.sh BUNDLE_DIR VERSION     (writes into $OUT)
# Unpacks the offline SGLang bundle, applies dynamic-spec-disable with patchkit, runs the gate,
# the smoke test (sign-off), the gate with --require-signoff, then the deliberately broken
# wrong-class variant (BROKEN=0 skips it) which must fail at the first decode request.
set -u
B=$1; V=$2; OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
SITE=/tmp/site
rm -rf $SITE /tmp/s-$V /tmp/b-$V; mkdir -p $SITE && tar xf "$B/site.tar.xz" -C $SITE || exit 3
python3 -m pip install -q --no-index --no-deps --no-compile --target $SITE .whl/*.whl || exit 3
export PYTHONPATH=$SITE:$PWD PYTHONUNBUFFERED=1 PATCHKIT_CACHE_DIR=/tmp/pkc
# NVLink multicast stays off (shared hosts): NCCL, PyTorch symmetric memory, NVSHMEM
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
TP=${TP:-1}
PK="python3 -m patchkit.cli"
SMOKE_ARGS="--target-dir $SITE --tiny --tp $TP --threshold ${THRESHOLD:-4} --crossings ${CROSSINGS:-20} ${EXTRA_SMOKE:-}"
{
  nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv
  $PK apply dynamic-spec-disable --target-dir $SITE
  $PK gate --target-dir $SITE
  timeout ${SMOKE_TIMEOUT:-360} $PK smoke $SMOKE_ARGS --log-dir /tmp/s-$V --signoff "$OUT/signoff-$V.json"
  echo "smoke rc=$?"
  $PK gate --target-dir $SITE --require-signoff --signoff "$OUT/signoff-$V.json" --tp $TP; echo "gate(signoff, tp $TP) rc=$?"
  $PK gate --target-dir $SITE --require-signoff --signoff "$OUT/signoff-$V.json" --tp 1; echo "gate(tp 1 launch) rc=$?"
  $PK gate --target-dir $SITE --require-signoff --signoff "$OUT/signoff-$V.json" --tp 8; echo "gate(tp 8 launch) rc=$?"
} 2>&1 | tee "$OUT/console-$V.txt"
cp /tmp/s-$V/server.log "$OUT/server-$V.log" 2>/dev/null
if [ "${BROKEN:-1}" = 1 ]; then
  {
    $PK revert dynamic-spec-disable --target-dir $SITE
    export PATCHKIT_PATCH_PATH=$PWD/fixtures/broken_patches
    $PK apply dynamic-spec-disable-wrong-class --target-dir $SITE; echo "apply(checked) rc=$?"
    $PK apply dynamic-spec-disable-wrong-class --target-dir $SITE --no-check
    timeout 240 $PK smoke $SMOKE_ARGS --no-gate --log-dir /tmp/b-$V --signoff "$OUT/signoff-$V-broken.json"
    echo "broken smoke rc=$?"
    ps -eo pid,cmd | grep -c "[s]glang" ; nvidia-smi --query-gpu=memory.used --format=csv
  } 2>&1 | tee "$OUT/console-$V-broken.txt"
  cp /tmp/b-$V/server.log "$OUT/server-$V-broken.log" 2>/dev/null
fi

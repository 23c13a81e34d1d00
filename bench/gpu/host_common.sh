# Sourced by the *_on_host.sh scripts (GPU host, repo root): the shared set-up.
#   host_env DEFAULT_WORK_DIR      OUT, W, SITE, PYTHONPATH, NVLink multicast off, PK
#   host_unpack BUNDLE_DIR [VER]   refuse while a job runs; unpack the bundle into $SITE (once, or
#                                  FRESH=1) with the wheels patchkit needs (.whl/, or /tmp/whl left by
#                                  an earlier call that carried them); V = the release; apply the patch
host_env() {
  OUT=${OUT:-/tmp/out}; W=${WORK_DIR:-$1}; SITE=${SITE_DIR:-/tmp/site}; mkdir -p "$OUT" "$W"
  export PYTHONPATH=$SITE:$PWD PYTHONUNBUFFERED=1 PATCHKIT_CACHE_DIR=/tmp/pkc
  # NVLink multicast stays off (shared hosts): NCCL, PyTorch symmetric memory, NVSHMEM
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
  PK="python3 -m patchkit.cli"
}

host_unpack() {
  local bundle=$1
  if [ -f "$W/running" ] && kill -0 "$(cat "$W/running")" 2>/dev/null; then
    echo "a job is running (pid $(cat "$W/running"))"; return 3
  fi
  if [ ! -d "$SITE/sglang" ] || [ "${FRESH:-0}" = 1 ]; then
    rm -rf "$SITE"; mkdir -p "$SITE" && tar xf "$bundle/site.tar.xz" -C "$SITE" || return 3
    local wheels=.whl
    ls .whl/*.whl > /dev/null 2>&1 || wheels=/tmp/whl   # carried by an earlier call (64 MiB per call)
    if ls $wheels/*.whl > /dev/null 2>&1; then   # what the host lacks for patchkit (libcst, pyflakes)
      python3 -m pip install -q --no-index --no-deps --no-compile --target "$SITE" $wheels/*.whl || return 3
    fi
  fi
  V=${2:-$(ls -d "$SITE"/sglang-*.dist-info 2>/dev/null | sed -n 's/.*sglang-\(.*\)\.dist-info/\1/p' | head -1)}
  $PK apply dynamic-spec-disable --target-dir "$SITE" > "$W/apply-$V.txt" 2>&1 || { cat "$W/apply-$V.txt"; return 3; }
}
